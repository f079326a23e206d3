// `likes repair` end to end: what it says, what it prints with --json, and its exit status.

import Foundation
import TestSupport
import Testing

@Suite(.ownLane) struct RepairCommandTests {
    let box = TemporaryFolder()

    @Test func repairRebuildsALostRecordSetsAsideStrayFoldersAndExitsZero() throws {
        for name in ["rocket", "coffee"] {
            #expect(try box.run(["like", name, "--image", Samples.photo("\(name).jpg").path, "--album", "Sky"]).status == 0)
        }
        // A record emptied by a power cut, and a folder nobody should have put there.
        try Data().write(to: box.store.appendingPathComponent("records/rocket.json"))
        try FileManager.default.createDirectory(at: box.store.appendingPathComponent("images/old"), withIntermediateDirectories: false)

        let list = try box.run(["list"])
        #expect(list.status == 1 && list.stderr.contains("run `likes verify` for the full list and `likes repair` to mend it"), "\(list.stderr)")
        let show = try box.run(["show", "rocket"])
        #expect(show.status == 1 && show.stderr.hasSuffix("Run `likes repair` (it deletes nothing).\n"), "\(show.stderr)")
        #expect(show.stderr.split(separator: "\n").count == 1)

        let dry = try box.run(["repair", "--dry-run", "--json"])
        #expect(dry.status == 1, "the store does not verify as it is")
        let plan = try dry.object()
        #expect(plan["dryRun"] as? Bool == true && plan["ok"] as? Bool == false)
        #expect(plan["rebuilt"] as? [String] == ["rocket"])
        let items = try #require(plan["setAside"] as? [[String: Any]])
        #expect(items.map { $0["files"] as? [String] ?? [] }.sorted { $0.first ?? "" < $1.first ?? "" } == [["images/old"], ["records/rocket.json"]])
        #expect(items.allSatisfy { $0.keys.sorted() == ["files", "id", "reason"] })
        #expect(FileManager.default.fileExists(atPath: box.store.appendingPathComponent("images/old").path), "the dry run moved nothing")

        let repair = try box.run(["repair"])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(repair.stdout.contains("rebuilt: the record of \"rocket\" was rebuilt from its image and the journal."))
        #expect(repair.stdout.contains("set aside: images/old (was moved to damaged/)"))
        #expect(repair.stdout.hasSuffix("OK: the store verifies.\n"))
        #expect(try box.run(["verify"]).status == 0)
        let rocket = try box.run(["show", "rocket", "--json"]).object()
        #expect(rocket["albums"] as? [String] == ["Sky"])
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: try #require((rocket["image"] as? [String: Any])?["file"] as? String)))
                == Samples.data("rocket.jpg"))
        let again = try box.run(["repair", "--json"])
        #expect(again.status == 0)
        #expect(try again.object()["setAside"] as? [Any] != nil && (try again.object()["setAside"] as? [Any])?.isEmpty == true)
        #expect(try box.run(["repair"]).stdout == "Nothing to repair.\nOK: the store verifies.\n")
        #expect(try box.run(["repair", "extra"]).status == 64)
    }
}

// End-to-end: `likes export` as a backup and `likes import` of it as a restore, through the
// binary: exact photos, exit statuses, a restore killed part way and run again.

import Foundation
import TestSupport
import Testing

@Suite(.ownLane) struct RestoreCommandTests {
    let box = TemporaryFolder()
    var backup: String { box.path("backup") }

    /// How many photos ``backedUpStore()`` holds.
    static let photos = 6 + 20 + 5

    /// A store of the six sample photos, the twenty camera photos (every Exif orientation,
    /// baseline and progressive, profiles and camera facts) and five more, with ids that are no
    /// file names, notes with line breaks and tabs, several albums, photographer pictures (one
    /// turned its own way) and metadata; exported to `backup`.
    func backedUpStore() throws {
        #expect(try box.run(["import", Samples.photos.path, CameraFixtures.directory.path]).status == 0)
        let likes: [[String]] = [
            [
                "like", "a/b", "--image", Samples.photo("coffee.jpg").path, "--user-image", Samples.photo("chelsea.jpg").path,
                "--note", "one\ntwo\tthree", "--album", "Trips", "--album", "Cats & dogs", "--meta", Samples.photo("coffee.json").path,
            ],
            ["like", "with space", "--image", Samples.photo("retina.jpg").path, "--album", "Trips"],
            ["like", "--image", Samples.photo("astronaut.jpg").path, "--", "-dash"],
            ["like", "🌸", "--image", Samples.photo("rocket.jpg").path, "--user-image", Samples.photo("astronaut.jpg").path],
            [
                "like", "o6", "--image", CameraFixtures.directory.appendingPathComponent("o6.jpg").path, "--user-image",
                CameraFixtures.directory.appendingPathComponent("user-o6.jpg").path, "--note", "turned", "--album", "Phone",
            ],
            ["like", "ABC", "--image", Samples.photo("chelsea.jpg").path],
        ]
        for like in likes { #expect(try box.run(like).status == 0, "\(like)") }
        #expect(try box.run(["export", backup]).status == 0)
    }

    func list(_ store: String) throws -> [[String: Any]] {
        try TemporaryFolder.execute(["--store", store, "list", "--json"]).array()
    }

    /// What must come back of each photo: all but the places of its files, and the files' bytes.
    func comparable(_ store: String) throws -> [String] {
        try list(store).map { record in
            var record = record
            // A thumbnail is the store's own file, tagged with the store's own image generation.
            record["thumbnail"] = nil
            for key in ["image", "userImage"] {
                guard var image = record[key] as? [String: Any], let file = image["file"] as? String else { continue }
                image["file"] = try Data(contentsOf: URL(fileURLWithPath: file)).base64EncodedString()
                record[key] = image
            }
            let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
            return String(decoding: data, as: UTF8.self)
        }
    }

    func indexWithoutTime(_ folder: String) throws -> String {
        let text = try String(contentsOfFile: folder + "/index.json", encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.contains("\"exportedAt\"") }.joined(separator: "\n")
    }

    @Test func backupAndRestoreGiveTheSameCollectionAndTheSameIndex() throws {
        try backedUpStore()
        let target = box.path("restored")
        let restore = try TemporaryFolder.execute(["--store", target, "import", backup])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(
            restore.stdout.hasPrefix("Restored \(Self.photos) of \(Self.photos) photos from the export \(backup): 0 liked already, 0 refused.\n"),
            "\(restore.stdout)")
        #expect(try comparable(target).sorted() == comparable(box.store.path).sorted())
        #expect(try list(target).map { $0["id"] as? String } == list(box.store.path).map { $0["id"] as? String })
        #expect(try TemporaryFolder.execute(["--store", target, "verify"]).status == 0)

        let again = box.path("again")
        #expect(try TemporaryFolder.execute(["--store", target, "export", again]).status == 0)
        #expect(try indexWithoutTime(again) == indexWithoutTime(backup))

        // Run again: every photo is there, reported and left as it is; not an error.
        let rerun = try TemporaryFolder.execute(["--store", target, "import", backup, "--json"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let summary = try rerun.object()
        #expect((summary["liked"] as? [String])?.isEmpty == true)
        let skipped = try #require(summary["skipped"] as? [[String: String]])
        #expect(skipped.count == Self.photos)
        #expect(skipped.contains { $0["file"] == backup + "/a_b.jpg" && $0["reason"] == "photo \"a/b\" is liked already" })
        // For people, one line says it: no line per photo liked already.
        let human = try TemporaryFolder.execute(["--store", target, "import", backup])
        #expect(human.status == 0)
        #expect(
            human.stdout == "Restored 0 of \(Self.photos) photos from the export \(backup): \(Self.photos) liked already, 0 refused.\n",
            "\(human.stdout)")
    }

    /// The same store, every photo unliked, then its backup restored: the collection as it was,
    /// and a backup of that backup restored into a third store.
    @Test func aStoreRestoresItsOwnBackupAndABackupOfTheBackup() throws {
        try backedUpStore()
        let expected = try comparable(box.store.path).sorted()
        let ids = try list(box.store.path).compactMap { $0["id"] as? String }
        for id in ids { #expect(try box.run(["unlike", "--", id]).status == 0, "\(id)") }
        let restore = try box.run(["import", backup])
        #expect(restore.status == 0, "\(restore.stdout)\(restore.stderr)")
        #expect(try comparable(box.store.path).sorted() == expected)

        let again = box.path("again")
        #expect(try box.run(["export", again]).status == 0)
        let third = box.path("third")
        #expect(try TemporaryFolder.execute(["--store", third, "import", again]).status == 0)
        #expect(try comparable(third).sorted() == expected)
        #expect(try TemporaryFolder.execute(["--store", third, "verify"]).status == 0)
    }

    /// On a terminal (a pseudo-terminal of util-linux's script(1)) a restore draws the progress
    /// bar an import draws, without colour under NO_COLOR.
    @Test(Needs.script) func aRestoreOnATerminalDrawsItsProgress() throws {
        try backedUpStore()
        let command = "\(Binary.url.path) --store '\(box.path("restored"))' import '\(backup)'"
        let run = try TemporaryFolder.execute(
            ["-qec", command, "/dev/null"], executable: URL(fileURLWithPath: "/usr/bin/script"), environment: ["NO_COLOR": "1"])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("\r" + String(repeating: "█", count: 30) + " \(Self.photos)/\(Self.photos)  "), "\(run.stdout)")
        #expect(run.stdout.contains("done"), "\(run.stdout)")
        #expect(!run.stdout.contains("\u{1B}["), "\(run.stdout)")
        #expect(run.stdout.contains("Restored \(Self.photos) of \(Self.photos) photos"), "\(run.stdout)")
    }

    @Test func albumsGivenAreAddedToThoseEachPhotoHad() throws {
        try backedUpStore()
        let target = box.path("restored")
        #expect(try TemporaryFolder.execute(["--store", target, "like", "coffee", "--image", Samples.photo("coffee.jpg").path]).status == 0)
        let restore = try TemporaryFolder.execute(["--store", target, "import", backup, "--album", "Restored"])
        #expect(restore.status == 0, "\(restore.stderr)")
        let albums = try TemporaryFolder.execute(["--store", target, "albums", "--json"]).array()
        let counts = Dictionary(uniqueKeysWithValues: albums.map { ($0["name"] as? String ?? "", $0["count"] as? Int ?? 0) })
        // Every photo restored, not the one liked already.
        #expect(counts == ["Restored": Self.photos - 1, "Trips": 2, "Cats & dogs": 1, "Phone": 1], "\(counts)")
    }

    @Test func aTamperedFileIsRefusedAndNamedAndTheRestRestored() throws {
        try backedUpStore()
        let file = backup + "/with_space.jpg"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        bytes[bytes.count - 100] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let target = box.path("restored")
        let restore = try TemporaryFolder.execute(["--store", target, "import", backup])
        #expect(restore.status == 1)
        #expect(restore.stdout.contains("Restored \(Self.photos - 1) of \(Self.photos) photos"), "\(restore.stdout)")
        #expect(restore.stdout.contains("  refused \(file): its SHA-256 differs from index.json (photo \"with space\")"), "\(restore.stdout)")
        #expect(restore.stderr == "likes: 1 photo of the export was refused; see the summary.\n", "\(restore.stderr)")
        #expect(try list(target).count == Self.photos - 1)
        #expect(try TemporaryFolder.execute(["--store", target, "verify"]).status == 0)
    }

    @Test func anUnknownFormatExits65AndStoresNothing() throws {
        try backedUpStore()
        let index = backup + "/index.json"
        let text = try String(contentsOfFile: index, encoding: .utf8).replacingOccurrences(of: "\"likes-export-1\"", with: "\"likes-export-7\"")
        try text.write(toFile: index, atomically: true, encoding: .utf8)
        let target = box.path("restored")
        // Also with plain JPEGs given first: the index is checked before anything is stored.
        let restore = try TemporaryFolder.execute(["--store", target, "import", Samples.photos.path, backup])
        #expect(restore.status == 65)
        #expect(restore.stdout.isEmpty)
        #expect(
            restore.stderr.hasPrefix(
                "likes: Cannot restore from \(backup): its index.json is of format \"likes-export-7\", which this version does not know; nothing was stored."
            ),
            "\(restore.stderr)")
        #expect(restore.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func aFolderOfPlainJPEGsImportsAsBefore() throws {
        let folder = box.path("plain")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["coffee.jpg", "chelsea.jpg"] { try FileManager.default.copyItem(atPath: Samples.photo(name).path, toPath: folder + "/" + name) }
        let run = try box.run(["import", folder])
        #expect(run.status == 0)
        #expect(run.stdout == "Liked 2, updated 0, skipped 0.\n")
    }

    /// A restore killed at a random moment leaves each photo whole or absent, a store that
    /// verifies, and a run again that finishes it.
    @Test func aRestoreKilledPartWayIsFinishedByRunningItAgain() throws {
        let source = box.path("source")
        let photos = box.path("photos")
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        for index in 0..<1000 { box.file("photos/p\(index).jpg", madeUpJPEG(seed: index, scanBytes: 4096)) }
        #expect(try TemporaryFolder.execute(["--store", source, "--durability", "relaxed", "import", photos]).status == 0)
        for index in stride(from: 0, to: 1000, by: 97) {
            #expect(try TemporaryFolder.execute(["--store", source, "note", "p\(index)", "note \(index)\nline"]).status == 0)
        }
        #expect(try TemporaryFolder.execute(["--store", source, "export", backup]).status == 0)
        let expected = try comparable(source)

        var generator = SystemRandomNumberGenerator()
        var partial = 0
        for round in 0..<3 {
            let target = box.path("restored-\(round)")
            // Newer photos first, so that the restore marks the journal unsorted as it goes.
            for index in 0..<3 {
                #expect(
                    try TemporaryFolder.execute(["--store", target, "like", "newer \(index)", "--image", Samples.photo("coffee.jpg").path]).status
                        == 0)
            }
            // Killed once it has restored a number of photos drawn between 20 and 900 (three
            // records are there before it): part-way, however fast or loaded the machine.
            let killAt = 3 + Int.random(in: 20...900, using: &generator)
            _ = try runKilled("exec \(Binary.url.path) --store '\(target)' import '\(backup)'") { _ in entryCount(target + "/records") >= killAt }
            let verify = try TemporaryFolder.execute(["--store", target, "verify", "--json"]).object()
            #expect(verify["ok"] as? Bool == true, "round \(round): \(verify)")
            // Each photo there is whole and as it was.
            let shown = try comparable(target).filter { !$0.contains("\"newer ") }
            #expect(Set(shown).isSubset(of: Set(expected)), "round \(round)")
            if shown.count < expected.count { partial += 1 }
            print("round \(round): \(shown.count) of \(expected.count) restored when killed")

            let finish = try TemporaryFolder.execute(["--store", target, "import", backup])
            #expect(finish.status == 0, "round \(round): \(finish.stderr)")
            #expect(try comparable(target).filter { !$0.contains("\"newer ") }.sorted() == expected.sorted(), "round \(round)")
            let journal = try String(contentsOfFile: target + "/likes.journal", encoding: .utf8)
            #expect(journal.split(separator: "\n")[0].hasSuffix(" likes-journal-3"), "round \(round)")
            #expect(try TemporaryFolder.execute(["--store", target, "purge"]).status == 0)
            let clean = try TemporaryFolder.execute(["--store", target, "verify", "--json"]).object()
            #expect(clean["ok"] as? Bool == true && (clean["orphans"] as? [String])?.isEmpty == true, "round \(round)")
        }
        // The kill waits for the photos it is due after, so that it lands within the restore
        // unless the last few were restored within the millisecond between two looks.
        #expect(partial > 0, "every kill came after the restore had finished")
    }
}

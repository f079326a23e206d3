// Garbled, cut or missing bookkeeping: a clear report or full recovery, never a crash, never a
// silently emptied collection.

import Foundation
import LikeKit
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct DamageTests {
    let folder = TemporaryFolder()
    var journal: URL { folder.store.appendingPathComponent("likes.journal") }

    func fill(_ count: Int = 6) throws -> LikeRepository {
        let repository = folder.repository()
        for index in 0..<count {
            try repository.like(PhotoID(valid: "p\(index)"), image: Samples.jpeg(seed: index), note: "note \(index)")
        }
        try repository.unlike(PhotoID(valid: "p2"))
        return repository
    }

    let survivors = ["p5", "p4", "p3", "p1", "p0"]

    @Test func garbledJournalLineStillListsEveryRecordAndRepairRebuildsTheIndex() throws {
        let repository = try fill()
        var bytes = try Data(contentsOf: journal)
        let secondLine = bytes.firstIndex(of: 0x0A)! + 1
        bytes.replaceSubrange(secondLine..<secondLine + 6, with: Data("#!%@?*".utf8))
        try bytes.write(to: journal)

        let listing = try repository.list()
        #expect(listing.records.map(\.id.rawValue) == survivors)
        #expect(
            listing.damage == [
                "The index likes.journal is damaged at line 2 (byte \(secondLine)); the records were read from their files instead. Repairing the store rebuilds the index."
            ])
        #expect(try repository.statistics().count == 5)
        #expect(
            try repository.verify().problems == [
                "The index likes.journal is damaged at line 2 (byte \(secondLine)). Repairing the store rebuilds it."
            ])

        // Purge cannot tell orphans from a photo's only image in a damaged store: it removes
        // nothing and asks for a repair.
        #expect {
            try repository.purge()
        } throws: { error in
            guard case LikeRepositoryError.storeNeedsRepair(_, let problem) = error else { return false }
            return problem.hasPrefix("the index likes.journal is damaged at line 2")
        }
        #expect(try repository.repair().isOK)
        try repository.purge()
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
        #expect(try repository.list().damage.isEmpty)
        #expect(try repository.list(LikeQuery(limit: 2)).records.map(\.id.rawValue) == ["p5", "p4"])
    }

    @Test(arguments: [0.0, 0.3, 0.7])
    func truncatedJournalLosesNoLike(fraction: Double) throws {
        let repository = try fill()
        let bytes = try Data(contentsOf: journal)
        try bytes.prefix(Int(Double(bytes.count) * fraction)).write(to: journal)

        #expect(try Set(repository.list().records.map(\.id.rawValue)) == Set(survivors))
        // The next change repairs the journal: a cut tail is trimmed, or it is rebuilt.
        try repository.like(PhotoID(valid: "p6"), image: Samples.rocket)
        #expect(try repository.list(LikeQuery(limit: 1)).records.first?.id.rawValue == "p6")
        try repository.purge()
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
        #expect(try Set(repository.list().records.map(\.id.rawValue)) == Set(survivors + ["p6"]))
    }

    @Test func deletedJournalIsRebuiltFromTheRecords() throws {
        let repository = try fill()
        try FileManager.default.removeItem(at: journal)
        let listing = try repository.list()
        #expect(listing.records.map(\.id.rawValue) == survivors)
        #expect(listing.damage.first?.hasPrefix("The index likes.journal is missing") == true)
        try repository.like(PhotoID(valid: "p1"), image: nil, note: "edited")
        #expect(try repository.verify().isOK)
        #expect(try repository.list().records.map(\.id.rawValue) == survivors)
    }

    @Test func journalOfRandomBytesNeverCrashesAndNeverEmptiesTheCollection() throws {
        let repository = try fill()
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let noise = Data((0..<Int.random(in: 1...400, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try noise.write(to: journal)
            #expect(try Set(repository.list().records.map(\.id.rawValue)) == Set(survivors))
            #expect(try repository.statistics().count == survivors.count)
        }
        try repository.purge()
        #expect(try repository.verify().isOK)
    }

    @Test func damagedRecordIsNamedAndTheRestIsListed() throws {
        let repository = try fill()
        let file = folder.store.appendingPathComponent("records/p3.json")
        try Data("{\"format\":1,\"id\":".utf8).write(to: file)

        let listing = try repository.list()
        #expect(listing.records.map(\.id.rawValue) == ["p5", "p4", "p1", "p0"])
        #expect(listing.damage.count == 1)
        #expect(listing.damage[0].hasPrefix("The record file \(file.path) is damaged"))
        #expect(throws: LikeRepositoryError.self) { try repository.record(for: PhotoID(valid: "p3")) }
        let report = try repository.verify()
        #expect(report.problems.count == 1 && report.problems[0].hasPrefix("The record file \(file.path) is damaged"))
        // Its images are not orphans while its record is damaged.
        #expect(try repository.purge(dryRun: true).files.isEmpty)

        // Unliking it removes the damaged record and its images.
        try repository.unlike(PhotoID(valid: "p3"))
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
        #expect(folder.files(under: "store/images").count == 4)
    }

    @Test func likingOverADamagedRecordReplacesIt() throws {
        let repository = try fill()
        try Data("garbage".utf8).write(to: folder.store.appendingPathComponent("records/p4.json"))
        try repository.like(PhotoID(valid: "p4"), image: Samples.coffee)
        #expect(try Data(contentsOf: try #require(try repository.record(for: PhotoID(valid: "p4"))).image.file) == Samples.coffee)
        try repository.purge()
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
    }

    @Test func recordFileCopiedOverAnotherIsCaught() throws {
        let repository = try fill()
        try FileManager.default.removeItem(at: folder.store.appendingPathComponent("records/p0.json"))
        try FileManager.default.copyItem(
            at: folder.store.appendingPathComponent("records/p1.json"), to: folder.store.appendingPathComponent("records/p0.json"))
        let problems = try repository.verify().problems
        #expect(problems.contains { $0.contains("records/p0.json is damaged (it holds the record of \"p1\")") })
    }
}

// Two kinds of damage at once: repair rebuilds what the surviving evidence allows, and no
// command, purge included, ever removes the bytes that were a photo's only copy.

import Foundation
import LikeKit
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct DoubleDamageTests {
    let folder = TemporaryFolder()
    var store: URL { folder.store }
    func path(_ relative: String) -> String { store.appendingPathComponent(relative).path }

    /// q1…q9, each with an image of its own.
    func likeNine() throws -> (LikeRepository, [String: Data]) {
        let repository = folder.repository()
        var images: [String: Data] = [:]
        for index in 1...9 {
            let image = Samples.jpeg(seed: 100 + index)
            images["q\(index)"] = image
            try repository.like(PhotoID(valid: "q\(index)"), image: image, note: "note \(index)")
        }
        return (repository, images)
    }

    /// Every regular file's bytes below the store, damaged/ included.
    func everyFile() -> [Data] {
        var result: [Data] = []
        let walker = FileManager.default.enumerator(atPath: store.path)
        while let relative = walker?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path(relative), isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            if let data = FileManager.default.contents(atPath: path(relative)) { result.append(data) }
        }
        return result
    }

    /// The offset of the journal line of `id`'s like.
    func journalLine(of id: String) throws -> Range<Int> {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path("likes.journal")))
        let key = PhotoID(valid: id).storageKey
        var start = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            let end = start + line.count
            let fields = line.split(separator: 0x20)
            if fields.count > 6, String(decoding: fields[0], as: UTF8.self) == "L", String(decoding: fields[6], as: UTF8.self) == key {
                return start..<end
            }
            start = end + 1
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    enum JournalDamage: String, CaseIterable, Sendable {
        /// Another photo's line garbled; q7's own line intact.
        case garbledElsewhere
        /// Deleted.
        case deleted
        /// Cut short inside an earlier photo's line, so that q7's line is gone too.
        case cutBeforeTheLine
    }

    func damageJournal(_ kind: JournalDamage) throws {
        let url = URL(fileURLWithPath: path("likes.journal"))
        switch kind {
        case .garbledElsewhere:
            var bytes = try Data(contentsOf: url)
            let line = try journalLine(of: "q5")
            bytes.replaceSubrange(line.lowerBound..<(line.lowerBound + 8), with: Data("§§§§§§".utf8))
            try bytes.write(to: url)
        case .deleted:
            try FileManager.default.removeItem(at: url)
        case .cutBeforeTheLine:
            let bytes = try Data(contentsOf: url)
            let line = try journalLine(of: "q4")
            try bytes.prefix(line.lowerBound + 10).write(to: url)
        }
    }

    @Test(arguments: JournalDamage.allCases)
    func aLostRecordAndADamagedJournalKeepThePhotosOnlyImage(_ journal: JournalDamage) throws {
        let (repository, images) = try likeNine()
        let before = try #require(try repository.record(for: PhotoID(valid: "q7")))
        try FileManager.default.removeItem(atPath: path("records/q7.json"))
        try damageJournal(journal)

        let report = try repository.repair()
        #expect(report.isOK, "\(report)")
        #expect(report.rebuilt.contains(PhotoID(valid: "q7")), "\(journal): q7 was not rebuilt: \(report)")
        #expect(try repository.verify().isOK)
        let rebuilt = try #require(try repository.record(for: PhotoID(valid: "q7")), "\(journal): q7 is not liked after the repair")
        #expect(try Data(contentsOf: rebuilt.image.file) == images["q7"])
        if journal == .garbledElsewhere { #expect(rebuilt.likedAt == before.likedAt, "its journal line was intact") }

        // Purge removes none of any photo's bytes; every photo is still liked.
        try repository.purge()
        let files = everyFile()
        for (id, image) in images { #expect(files.contains(image), "\(journal): the only copy of \(id)'s image left the store") }
        #expect(try repository.list().records.count == 9)
    }

    @Test(arguments: JournalDamage.allCases)
    func aWriterThatRebuildsTheJournalKeepsEveryPhoto(_ journal: JournalDamage) throws {
        let (repository, images) = try likeNine()
        try FileManager.default.removeItem(atPath: path("records/q7.json"))
        try damageJournal(journal)
        // No repair: the next like finds the journal damaged and writes it anew, then a purge.
        try repository.like(PhotoID(valid: "after"), image: Samples.jpeg(seed: 300))
        _ = try? repository.purge()
        let files = everyFile()
        for (id, image) in images { #expect(files.contains(image), "\(journal): the only copy of \(id)'s image left the store") }
    }

    @Test func purgeOfAStoreWhoseRecordIsMissingRemovesNoImageOfIt() throws {
        let (repository, images) = try likeNine()
        try FileManager.default.removeItem(atPath: path("records/q7.json"))
        // The journal is whole and still names q7's image.
        #expect(throws: LikeRepositoryError.self) { try repository.purge() }
        #expect(throws: LikeRepositoryError.self) { try repository.purge(dryRun: true) }
        #expect(everyFile().contains(images["q7"]!))
        // A repair brings it back, and purge then has nothing of it to remove.
        #expect(try repository.repair().rebuilt == [PhotoID(valid: "q7")])
        try repository.purge()
        #expect(try repository.record(for: PhotoID(valid: "q7")) != nil)
    }
}

extension DoubleDamageTests {
    /// A store an earlier version repaired wrongly: q7's record gone, the journal that named it
    /// set aside, its image left looking orphaned.
    @Test func anImageOnlyASetAsideJournalNamesIsKeptNamedAndRebuilt() throws {
        let (repository, images) = try likeNine()
        let shelf = store.appendingPathComponent("damaged/20260101T000000Z-abcdef", isDirectory: true)
        try FileManager.default.createDirectory(at: shelf, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path("likes.journal"), toPath: shelf.appendingPathComponent("likes.journal").path)
        try FileManager.default.removeItem(atPath: path("records/q7.json"))
        // The journal written anew from the records alone, as that version did.
        _ = try repository.store.withWriteSession { session in try session.rebuildJournal() }
        // The new journal names no q7; the set-aside one still does.
        #expect(try repository.verify().problems.contains { $0.contains("a journal set aside by an earlier repair names it") })
        #expect(try repository.purge().files.isEmpty)
        #expect(everyFile().contains(images["q7"]!))
        let report = try repository.repair()
        #expect(report.rebuilt == [PhotoID(valid: "q7")] && report.isOK, "\(report)")
        #expect(try Data(contentsOf: try #require(try repository.record(for: PhotoID(valid: "q7"))).image.file) == images["q7"])
    }
}

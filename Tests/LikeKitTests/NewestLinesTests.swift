// The journal's newest lines (likes.newest): queries that go through the file answer as the
// reference does while the store keeps changing after it was written, and a file that does not
// describe the journal (from another boot, another journal, damaged, naming lines of other
// photos) is never believed: the answers stay the reference's and the file is written again.

import Foundation
import LikeKit
import LikeStore
import TestSupport
import Testing

extension QueryReferenceTests {
    /// Changes as a person makes them after importing: notes, albums, a new look, an unlike, a
    /// like again, a new like now and then; `count` of them, kept in the reference.
    func change(_ repository: LikeRepository, _ reference: inout Reference, _ random: inout Random, count: Int, newLikes: Bool) throws {
        func keep(_ change: LikeChange) {
            if let record = change.record, let id = change.id { reference.records[id] = record }
        }
        var fresh = 0
        for _ in 0..<count {
            let ids = Array(reference.records.keys)
            guard let id = ids.randomElement(using: &random) else { return }
            switch random.next() % 16 {
            case 0..<6:
                if let change = try repository.setNote(Self.text(&random, words: 2), for: id) { keep(change) }
            case 6..<10:
                for change in try repository.addPhotos([id], toAlbum: Self.albums.randomElement(using: &random)!) { keep(change) }
            case 10..<12 where !reference.records[id]!.albums.isEmpty:
                for change in try repository.removePhotos([id], fromAlbum: reference.records[id]!.albums.first!) { keep(change) }
            case 12:
                keep(try repository.like(id, image: nil, photo: Self.metadata(&random) ?? PhotoMetadata(color: "#FFFFFF")))
            case 13:
                _ = try repository.unlike(id)
                reference.records[id] = nil
                if random.next() % 2 == 0 {
                    // Liked again at once: a second like of the photo, after its `U` line.
                    keep(try repository.like(id, image: Samples.jpeg(seed: 9, scanBytes: 16), note: "again"))
                }
            case 14 where newLikes:
                fresh += 1
                let item = LikeItem(
                    id: try PhotoID("N\(random.next() % 100_000)-\(fresh)"), image: Samples.jpeg(seed: Int(random.next() % 1000), scanBytes: 16),
                    photo: Self.metadata(&random))
                keep(try repository.like(item.id, image: item.image, photo: item.photo))
            default:
                if let change = try repository.setNote(nil, for: id) { keep(change) }
            }
        }
    }

    private var newestFile: URL { folder.store.appendingPathComponent(NewestLines.fileName) }

    private func checkQueries(_ repository: LikeRepository, _ reference: Reference, _ random: inout Random, _ context: String) throws {
        for index in 0..<40 {
            try Self.check(repository, reference, Self.query(&random, reference), "\(context), query \(index)")
        }
        let statistics = try repository.statistics()
        #expect(statistics.count == reference.records.count, "\(context)")
        for summary in try repository.albums() {
            let members = reference.records.values.filter { $0.albums.contains(summary.name) }
            #expect(summary.count == members.count, "\(context): \(summary.name)")
        }
    }

    @Test(arguments: [11, 12] as [UInt64])
    func queriesThroughTheNewestLinesAgreeWithTheReferenceWhileTheStoreKeepsChanging(seed: UInt64) throws {
        var (repository, reference, random) = try makeStore(seed: seed, count: 120)
        // Enough changes after the last like that the first query writes the file.
        try change(repository, &reference, &random, count: NewestLines.refreshAfter + 40, newLikes: false)
        #expect(!FileManager.default.fileExists(atPath: newestFile.path))
        try checkQueries(repository, reference, &random, "seed \(seed), first")
        let written = try Data(contentsOf: newestFile)
        #expect(written.count > 128)
        // Then rounds of a few changes (read through the file and the lines after it) and of
        // many (the file written again from the one before), likes among them.
        for round in 0..<8 {
            let count = round % 3 == 2 ? NewestLines.refreshAfter + Int(random.next() % 100) : Int(random.next() % 30)
            try change(repository, &reference, &random, count: count, newLikes: round % 2 == 1)
            try checkQueries(repository, reference, &random, "seed \(seed), round \(round)")
        }
        #expect(try Data(contentsOf: newestFile) != written)
        #expect(try repository.verify().problems.isEmpty)
    }

    /// The newest lines written by a reader, cut at each of the steps of that write in turn (as a
    /// crash there would cut it): the cut reader's page is still the reference's, and so is every
    /// later reader's, with nothing for `verify` to name.
    @Test func aReaderCutAtAnyStepOfWritingTheNewestLinesLeavesAStoreThatAnswersAsBefore() throws {
        var (repository, reference, random) = try makeStore(seed: 31, count: 60)
        try change(repository, &reference, &random, count: NewestLines.refreshAfter + 20, newLikes: false)
        let pristine = TemporaryFolder("pristine")
        try FileManager.default.copyItem(at: folder.store, to: pristine.store)
        let page = LikeQuery(limit: 20)
        let counter = FaultInjector()
        _ = try folder.repository(faults: counter).list(page)
        let steps = counter.steps
        #expect(steps.contains { $0.contains(NewestLines.fileName) }, "the page wrote the file: \(steps)")
        #expect(FileManager.default.fileExists(atPath: newestFile.path))
        for index in steps.indices {
            try FileManager.default.removeItem(at: folder.store)
            try FileManager.default.copyItem(at: pristine.store, to: folder.store)
            let cut = folder.repository(faults: FaultInjector(.crash(after: index)))
            try Self.check(cut, reference, page, "cut before step \(index) (\(steps[index]))")
            let next = folder.repository(durability: .relaxed)
            try checkQueries(next, reference, &random, "after a cut before step \(index) (\(steps[index]))")
            #expect(try next.verify().problems.isEmpty, "cut before step \(index)")
        }
    }

    /// The file's numbers at `offset`, changed by `body`, and put back in place.
    private func alterNewestFile(_ body: (inout [UInt8]) -> Void) throws {
        var bytes = [UInt8](try Data(contentsOf: newestFile))
        body(&bytes)
        try Data(bytes).write(to: newestFile)
    }

    @Test func aNewestLinesFileThatDoesNotDescribeTheJournalIsNeverBelieved() throws {
        var (repository, reference, random) = try makeStore(seed: 21, count: 120)
        try change(repository, &reference, &random, count: NewestLines.refreshAfter + 20, newLikes: false)
        try checkQueries(repository, reference, &random, "written")
        let good = try Data(contentsOf: newestFile)

        func number(_ bytes: [UInt8], at offset: Int) -> Int {
            bytes[offset..<(offset + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
        }
        func setNumber(_ bytes: inout [UInt8], at offset: Int, _ value: Int) {
            for index in 0..<8 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        }
        let alterations: [(String, (inout [UInt8]) -> Void)] = [
            ("written in another boot", { $0[20] ^= 0x01 }),
            ("of another journal file", { setNumber(&$0, at: 64, number($0, at: 64) + 1) }),
            ("of another header", { $0[72] ^= 0xFF }),
            // As after lines lost without a new boot and lines written again past covered.
            ("whose line at covered is another", { $0[112] ^= 0xFF }),
            ("covering more than the journal has", { setNumber(&$0, at: 80, number($0, at: 80) + 1_000_000) }),
            ("covering part of a line", { setNumber(&$0, at: 80, number($0, at: 80) - 3) }),
            ("cut short", { $0.removeLast(9) }),
            ("of garbage", { bytes in for index in 16..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: index &* 131) } }),
            (
                "whose slots name lines of other photos",
                { bytes in
                    // Each slot's offset moved to the like before it in the file's list.
                    let likes = number(bytes, at: 88)
                    let slotsStart = 128 + 8 * likes
                    let firstLike = number(bytes, at: 128)
                    for slot in stride(from: slotsStart, to: bytes.count, by: 24) where number(bytes, at: slot) != 0 {
                        setNumber(&bytes, at: slot + 8, firstLike)
                    }
                }
            ),
            (
                "whose likes name lines that are not likes",
                { bytes in
                    let likes = number(bytes, at: 88)
                    setNumber(&bytes, at: 128 + 8 * (likes - 1), 0)  // the header
                }
            ),
        ]
        for (name, alter) in alterations {
            try good.write(to: newestFile)
            try alterNewestFile(alter)
            try change(repository, &reference, &random, count: 5, newLikes: true)
            try checkQueries(repository, reference, &random, "a file \(name)")
            try change(repository, &reference, &random, count: NewestLines.refreshAfter + 10, newLikes: false)
            try checkQueries(repository, reference, &random, "a file \(name), then many changes")
            // Written again, it describes the journal.
            #expect(try Data(contentsOf: newestFile) != good, "a file \(name)")
        }
        // A journal written anew (a purge or a restore compacts it) makes the file stale.
        _ = try repository.purge()
        try checkQueries(repository, reference, &random, "after a purge")
        #expect(try repository.verify().problems.isEmpty)
        let repaired = try repository.repair()
        #expect(repaired.setAside.isEmpty && repaired.rebuilt.isEmpty)
        #expect(FileManager.default.fileExists(atPath: newestFile.path), "repair keeps the file: it is the store's own")
    }
}

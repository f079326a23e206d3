// The order by date taken (likes.taken): unfiltered pages by date taken that go through the file
// answer as the reference does while the store keeps changing after it was written (the lines
// after it win), the file is written again once many lines follow it, and a file whose entries
// do not say what the records say is never believed.

import Foundation
import LikeKit
import LikeStore
import TestSupport
import Testing

extension QueryReferenceTests {
    private var takenFile: URL { folder.store.appendingPathComponent(TakenOrder.fileName) }

    /// An unfiltered page by date taken, newest or oldest first, sometimes after a cursor or an
    /// offset: what the file answers.
    static func takenQuery(_ random: inout Random, _ reference: Reference) -> LikeQuery {
        var query = LikeQuery(order: random.next() % 3 == 0 ? .oldestFirst : .newestFirst, limit: [1, 5, 20, 60].randomElement(using: &random)!)
        query.orderDate = .taken
        query.offset = [0, 0, 0, 3].randomElement(using: &random)!
        if random.next() % 2 == 0, let record = reference.records.values.randomElement(using: &random) {
            query.after = LikeCursor(record: record, orderDate: .taken)
        }
        return query
    }

    /// The journal's length the file says it describes.
    private func covered() throws -> Int {
        let bytes = try Data(contentsOf: takenFile)
        return bytes[80..<88].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
    }

    @Test func pagesByDateTakenFromTheFileAgreeWithTheReferenceWhileTheStoreChanges() throws {
        var (repository, reference, random) = try makeStore(seed: 21, count: 150)
        for index in 0..<20 { try Self.check(repository, reference, Self.takenQuery(&random, reference), "written, query \(index)") }
        #expect(FileManager.default.fileExists(atPath: takenFile.path), "the first page by date taken writes the file")
        let first = try covered()
        // Notes, albums, new metadata (so new dates taken), unlikes, likes again and new likes,
        // fewer than the file is written again after: the pages read them after the file.
        for round in 0..<5 {
            try change(repository, &reference, &random, count: 40, newLikes: true)
            for index in 0..<20 { try Self.check(repository, reference, Self.takenQuery(&random, reference), "round \(round), query \(index)") }
        }
        #expect(try covered() == first, "read after the file, not written again")
        // Many more: the next page writes it again, as of the journal's end.
        try change(repository, &reference, &random, count: 300, newLikes: true)
        try Self.check(repository, reference, Self.takenQuery(&random, reference), "after many")
        let journal = try Data(contentsOf: folder.store.appendingPathComponent(StoreLayout.journalFileName))
        #expect(try covered() > first && covered() <= journal.count)
        for index in 0..<20 { try Self.check(repository, reference, Self.takenQuery(&random, reference), "rewritten, query \(index)") }
        #expect(try repository.verify().problems.isEmpty)
    }

    @Test func aFileWhoseEntriesDoNotSayWhatTheRecordsSayIsNotBelieved() throws {
        var (repository, reference, random) = try makeStore(seed: 22, count: 60)
        var newest = LikeQuery(limit: 5)
        newest.orderDate = .taken
        try Self.check(repository, reference, newest, "written")
        // The newest entry's date taken, moved back a year in place: its photo would be listed
        // elsewhere, and its record says otherwise.
        var bytes = [UInt8](try Data(contentsOf: takenFile))
        let count = bytes[88..<96].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        try #require(count == reference.records.count)
        let place = 128 + 24 * (count - 1)
        var taken = Int64(bytes[place..<(place + 8)].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) })
        taken -= 365 * 86_400_000
        for index in 0..<8 { bytes[place + index] = UInt8(truncatingIfNeeded: taken >> (8 * index)) }
        try Data(bytes).write(to: takenFile)
        for index in 0..<10 { try Self.check(repository, reference, Self.takenQuery(&random, reference), "lying file, query \(index)") }
        try Self.check(repository, reference, newest, "lying file, the newest page")
        // Set aside, then written again from the journal: the next pages read it and agree.
        let again = try Data(contentsOf: takenFile)
        #expect(again != Data(bytes), "written again")
        for index in 0..<10 { try Self.check(repository, reference, Self.takenQuery(&random, reference), "written again, query \(index)") }
    }
}

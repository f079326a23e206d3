// A journal written anew by moving its lines (how a restore's or a merge's unsorted journal is
// sorted, with a few megabytes at any size) says what the journal written from its index says,
// byte for byte after the header, whatever lines it holds: likes restored out of order, updates,
// unlikes owed to a sync, a like taken back by its `A` line, a purged file, a photo liked again.
// Through LikeStore's own interface and files.

import Foundation
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct JournalRewriteTests {
    let box = TemporaryFolder()

    private func journalBytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + "/likes.journal")))
    }

    /// A store whose journal holds every kind of line, left unsorted by restores.
    private func storeOfEveryLine(_ path: String, photos: Int, noteLength: Int = 10) throws -> Store {
        let store = Store(path: path, durable: false, lockTimeout: 10, faults: nil)
        let image = try StoreRequest.Image(SamplePhotos.data("rocket.jpg"), kind: .image)
        for number in 0..<photos {
            let request = StoreRequest(
                id: "new\(number)", image: image, userImage: nil, note: "a note \(number) " + String(repeating: "word ", count: noteLength / 5),
                photo: nil,
                albums: ["Trip"])
            try store.like(request)
        }
        // Restored at older dates, in no order: the journal is marked unsorted.
        let restored = (0..<photos).map { number in
            (
                request: StoreRequest(id: "old\(number)", image: image, userImage: nil, note: nil, photo: nil, albums: []),
                likedAt: Int64(1_000_000 + (number * 7_919) % photos)
            )
        }
        _ = try store.restore(restored, onCommit: { _ in })
        // Updates, unlikes and a like again, in restoring sessions that keep it unsorted (as a
        // sync's merge writes them).
        for number in stride(from: 0, to: photos, by: 3) {
            _ = try store.like(
                StoreRequest(id: "old\(number)", note: .set("noted \(number)"), addAlbums: ["Cats"]), amongRestores: true, onCommit: { _ in })
            _ = try store.like(StoreRequest(id: "new\(number)", removeAlbums: ["Trip"]), amongRestores: true, onCommit: { _ in })
        }
        for number in stride(from: 1, to: photos, by: 5) {
            _ = try store.unlike("old\(number)", amongRestores: true, onCommit: { _ in })
            _ = try store.unlike("new\(number)", amongRestores: true, onCommit: { _ in })
        }
        _ = try store.like(
            StoreRequest(id: "new1", image: image, userImage: nil, note: "liked again", photo: nil, albums: []), amongRestores: true,
            onCommit: { _ in })
        // A like its writer took back, and an orphan's purge line, appended as they are written.
        let takenBack = JournalLine(
            operation: .liked, at: 5_000_000, generation: Generation.make(), bytes: 10, imageGeneration: Generation.make(), userImageGeneration: nil,
            key: "gone")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path + "/likes.journal"))
        try handle.seekToEnd()
        try handle.write(
            contentsOf: takenBack.encoded + JournalLine.aborting(takenBack).encoded
                + JournalLine.purged(path: "images/x.jpg", bytes: 3, at: 5_000_001).encoded)
        try handle.close()
        return store
    }

    /// Each way to write the journal anew, on a copy of the same store.
    private func rewritten(_ source: String, byMoving: Bool) throws -> [UInt8] {
        let copy = box.path(byMoving ? "moved" : "indexed")
        try FileManager.default.copyItem(atPath: source, toPath: copy)
        let store = Store(path: copy, durable: false, lockTimeout: 10, faults: nil)
        try store.withExclusiveLock { root, lock in
            let journal = Journal(root: root, lockDescriptor: lock.descriptor)
            let records = RecordFiles(directory: try root.subdirectoryCreatingIfNeeded(RecordFiles.directoryName, durable: false))
            if byMoving {
                #expect(try journal.rewriteByMoving(records: records, durable: false) != nil)
            } else {
                let index = try journal.index(records: records)
                #expect(index.damage == nil)
                try journal.rewrite(Array(index.live.values), records: records, durable: false)
            }
        }
        return try journalBytes(copy)
    }

    /// Notes long enough, in the second case, for the journal to be read in several pieces.
    @Test(arguments: [(30, 10), (400, 3_000)])
    func movingTheLinesWritesWhatTheIndexWrites(photos: Int, noteLength: Int) throws {
        let path = box.path("store")
        let store = try storeOfEveryLine(path, photos: photos, noteLength: noteLength)
        let before = try journalBytes(path)
        #expect(before.starts(with: Array("J ".utf8)) && String(decoding: before.prefix(200), as: UTF8.self).contains(JournalLine.unsortedFormatName))
        if noteLength > 1_000 { #expect(before.count > JournalReader.forwardPiece, "read across pieces") }

        let moved = try rewritten(path, byMoving: true)
        let indexed = try rewritten(path, byMoving: false)
        let body = { (bytes: [UInt8]) in Array(bytes.drop { $0 != 0x0A }) }
        #expect(body(moved) == body(indexed))
        #expect(!body(moved).isEmpty)
        // The header: the usual format, and as many snapshot lines as follow it.
        let header = try #require(JournalLine.parse(moved.prefix { $0 != 0x0A }))
        #expect(header.key == JournalLine.formatName)
        #expect(Int(header.bytes) == body(moved).filter { $0 == 0x0A }.count - 1)
        // Every photo the store lists is there once, in the listing's order.
        let listed = try store.page(StoreQuery(newestFirst: false, limit: nil, offset: 0, after: nil, since: nil, album: nil, color: nil, words: nil))
        let likes = String(decoding: body(moved), as: UTF8.self).split(separator: "\n").compactMap { JournalLine.parse(Array($0.utf8)[...]) }
            .filter { $0.operation == .liked }
        #expect(likes.map(\.key) == listed.items.map { StorageKey.make(for: $0.record.id) })
        #expect(likes.map(\.at) == listed.items.map(\.record.likedAt))
    }

    @Test func aDamagedJournalIsLeftToTheIndex() throws {
        let path = box.path("store")
        _ = try storeOfEveryLine(path, photos: 10)
        var bytes = try journalBytes(path)
        let second = try #require(bytes.firstIndex(of: 0x0A)) + 1
        bytes.replaceSubrange(second..<(second + 1), with: Array("Q".utf8))
        try Data(bytes).write(to: URL(fileURLWithPath: path + "/likes.journal"))
        let store = Store(path: path, durable: false, lockTimeout: 10, faults: nil)
        try store.withExclusiveLock { root, lock in
            let records = RecordFiles(directory: try root.subdirectoryCreatingIfNeeded(RecordFiles.directoryName, durable: false))
            #expect(try Journal(root: root, lockDescriptor: lock.descriptor).rewriteByMoving(records: records, durable: false) == nil)
        }
        #expect(try journalBytes(path) == bytes, "nothing written")
    }
}

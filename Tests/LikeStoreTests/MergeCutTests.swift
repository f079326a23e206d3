// A sync that merges every kind of change into a store that has photos already (updates, new
// likes written in batches, unlikes, a photo liked again) cut at any step of the store's, then
// finished by the next sync: the collection the other device has, each photo once and at its
// date, a store that verifies, nothing merged twice. Through LikeStore's own interface (the fault
// injector its seam), flushing as a file system flushed whole, where new likes go in batches.

import Foundation
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct MergeCutTests {
    let work = TemporaryFolder("merge-cut")

    private func image(_ seed: Int) throws -> StoreRequest.Image {
        try StoreRequest.Image(MadeUpJPEG.data(seed: seed), kind: .image)
    }

    private func store(_ path: String, _ faults: FaultInjector? = nil) -> Store {
        Store(path: path, durable: true, lockTimeout: 10, faults: faults ?? FaultInjector(flushStrategy: .wholeFileSystem, firstSyncBatch: 4))
    }

    @discardableResult
    private func sync(_ store: Store, _ folder: String) throws -> StoreSyncReport { try store.sync(with: folder, onCommit: { _ in }) }

    /// Every photo as a device shows it: id, when it was liked, note, albums, image size.
    private func collection(_ store: Store) throws -> [String] {
        let all = StoreQuery(newestFirst: true, limit: nil, offset: 0, after: nil, since: nil, album: nil, color: nil, words: nil)
        return try store.page(all).items.map(\.record).map { record in
            "\(record.id) \(record.likedAt) \(record.note ?? "-") \(record.albums) \(record.image.bytes)"
        }
    }

    private func copy(_ from: String, _ to: String) throws {
        try? FileManager.default.removeItem(atPath: to)
        try FileManager.default.copyItem(atPath: from, toPath: to)
    }

    @Test func aMergeOfEveryKindCutAtAnyStepIsFinishedByTheNext() throws {
        let folder = work.path("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let laptop = store(work.path("laptop"))
        for number in 0..<12 {
            try laptop.like(
                StoreRequest(
                    id: "p\(number)", image: try image(number), userImage: nil, note: nil, photo: nil, albums: number % 3 == 0 ? ["Trips"] : []))
        }
        try sync(laptop, folder)
        let phonePath = work.path("phone")
        try sync(store(phonePath), folder)
        #expect(try collection(store(phonePath)) == collection(laptop))

        // On the laptop: notes and albums (updates on the phone), new likes older and newer than
        // the phone's photos' dates (restored there, out of order), unlikes, one liked again
        // with another image.
        for number in 1...4 { try laptop.like(StoreRequest(id: "p\(number)", note: .set("note \(number)"), addAlbums: ["Cats"])) }
        _ = try laptop.unlike("p5", onCommit: { _ in })
        _ = try laptop.unlike("p6", onCommit: { _ in })
        try laptop.like(StoreRequest(id: "p6", image: try image(600), userImage: nil, note: "again", photo: nil, albums: []))
        for number in 0..<9 {
            try laptop.like(StoreRequest(id: "n\(number)", image: try image(100 + number), userImage: nil, note: nil, photo: nil, albums: []))
        }
        try laptop.like(StoreRequest(id: "p0", image: try image(700), userImage: nil, note: nil, photo: nil, albums: []))
        try sync(laptop, folder)
        let expected = try collection(laptop)
        try copy(phonePath, work.path("phone-before"))
        try copy(folder, work.path("folder-before"))

        let counter = FaultInjector(flushStrategy: .wholeFileSystem, firstSyncBatch: 4)
        #expect(try sync(store(phonePath, counter), folder).merged > 0)
        #expect(try collection(store(phonePath)) == expected)
        let total = counter.steps.count
        #expect(total > 40)
        for cut in stride(from: 1, to: total, by: max(1, total / 40)) {
            let label = "cut after \(cut) of \(total) steps"
            try copy(work.path("phone-before"), phonePath)
            try copy(work.path("folder-before"), folder)
            #expect(throws: (any Error).self, "\(label)") {
                try sync(store(phonePath, FaultInjector(.crash(after: cut), flushStrategy: .wholeFileSystem, firstSyncBatch: 4)), folder)
            }
            // The phone's own like first, as a person goes on using it, then the next sync.
            let phone = store(phonePath)
            try phone.like(StoreRequest(id: "own", image: try image(900), userImage: nil, note: nil, photo: nil, albums: []))
            _ = try phone.unlike("own", onCommit: { _ in })
            try sync(phone, folder)
            #expect(try collection(phone) == expected, "\(label)")
            let problems = try phone.verify().problems
            #expect(problems.isEmpty, "\(label): \(problems)")
            #expect(try sync(phone, folder).merged == 0, "\(label): merged again")
            // What the phone then publishes is nothing of its own: the laptop stays as it was.
            try sync(laptop, folder)
            #expect(try collection(laptop) == expected, "\(label): the laptop changed")
        }
    }
}

// What a rebuilt index brings back: a photo whose record file is lost comes back from the journal
// line that likes it, and an image that a write killed before its commit left (no line names it,
// beside a sound journal that knows every record) stays an orphan rather than becoming a like
// made at the time the image was written. Found by the sync replay with maintenance (seed 500038):
// a merge killed between a photo's unlike and its like anew, then `purge --rebuild-index`, and the
// next sync published the rebuilt photo as this store's like, its metadata null.

import Foundation
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct OrphanRescueTests {
    let box = TemporaryFolder()

    func store() -> Store { Store(path: box.path("store"), durable: true, lockTimeout: 10, faults: nil) }

    /// One of the repository's sample photos: a whole JPEG, as a rescue reads it.
    static func samplePhoto(_ name: String) throws -> Data {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try Data(contentsOf: root.appendingPathComponent("Samples/photos/\(name).jpg"))
    }

    func like(_ store: Store, _ id: String, seed: Int) throws {
        let image = try StoreRequest.Image(Self.samplePhoto(["coffee", "rocket", "chelsea"][seed % 3]), kind: .image)
        try store.like(StoreRequest(id: id, image: image, userImage: nil, note: "a note on \(id)", photo: nil, albums: []))
    }

    /// Writes an image of `id` under a generation no journal line names, as a write killed after
    /// its images and before its record leaves one.
    func leaveUncommittedImage(of id: String, in store: Store) throws {
        let name = StoreLayout.imageFileName(StorageKey.make(for: id), Generation.make(), user: false)
        try Self.samplePhoto("astronaut").write(to: URL(fileURLWithPath: store.displayPath + "/images/" + name))
    }

    @Test func anImageAKilledWriteLeftIsNotBroughtBackAsALike() throws {
        let store = store()
        try like(store, "kept", seed: 1)
        try like(store, "gone", seed: 2)
        _ = try store.unlike("gone", onCommit: { _ in })
        try leaveUncommittedImage(of: "gone", in: store)
        try leaveUncommittedImage(of: "never-liked", in: store)

        #expect(try store.rebuildIndex() == 1)
        #expect(try !store.isLiked("gone"))
        #expect(try !store.isLiked("never-liked"))
        #expect(try store.isLiked("kept"))
        // The images are orphans, which purge removes.
        #expect(try store.purge(dryRun: false).files.count == 2)
    }

    @Test func aPhotoWhoseRecordFileIsLostComesBackFromItsJournalLine() throws {
        let store = store()
        // Not the journal's last line: a last line whose record is missing is a change that never
        // committed, taken back by the next writer.
        try like(store, "lost", seed: 2)
        try like(store, "kept", seed: 1)
        try FileManager.default.removeItem(atPath: store.displayPath + "/records/" + StoreLayout.recordFileName(StorageKey.make(for: "lost")))

        #expect(try store.rebuildIndex() == 2)
        #expect(try store.isLiked("lost") && store.isLiked("kept"))
    }
}

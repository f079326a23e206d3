// A store a later version of LikeKit wrote is refused by every call an app makes, and left as it
// was, byte for byte: the app is told to update, and nothing of the newer store is misread.

import Foundation
import LikeKit
import Testing

@MainActor @Suite struct NewerStoreTests {
    /// A store of three sample photos whose record files (all, or the newest only) name a format
    /// of a later version.
    func newerStore(onlyTheNewest: Bool) async throws -> LikeRepository {
        let app = try LikeRepository.temporary()
        let changes = try await app.likeSamplePhotos(count: 3)
        let records = app.directory.appendingPathComponent("records")
        let newest = changes.last?.record?.id.rawValue ?? ""
        for name in try FileManager.default.contentsOfDirectory(atPath: records.path) where name.hasSuffix(".json") {
            let file = records.appendingPathComponent(name)
            var text = try String(contentsOf: file, encoding: .utf8)
            guard !onlyTheNewest || text.contains("\"\(newest)\"") else { continue }
            let before = text
            text = text.replacingOccurrences(of: "\"format\":1", with: "\"format\":7")
            #expect(text != before, "no format in \(name)")
            try Data(text.utf8).write(to: file)
        }
        return app
    }

    func refusesAsNewer(_ call: String, _ work: () async throws -> Void) async {
        do {
            try await work()
            Issue.record("\(call) answered from a store a later version wrote")
        } catch let error as LikeRepositoryError {
            guard case .newerFormat = error else {
                Issue.record("\(call): \(error)")
                return
            }
        } catch {
            Issue.record("\(call): not the repository's error: \(error)")
        }
    }

    @available(macOS 14, iOS 17, watchOS 10, *)
    @Test(arguments: [false, true]) func everyReadRefusesAStoreALaterVersionWrote(onlyTheNewest: Bool) async throws {
        let app = try await newerStore(onlyTheNewest: onlyTheNewest)
        let before = try snapshot(of: app.directory)
        let ids = [try PhotoID("sample-1"), try PhotoID("sample-2"), try PhotoID("sample-3")]
        let newest = ids[2]
        await refusesAsNewer("isLiked") { _ = try await app.isLiked(newest) }
        await refusesAsNewer("likedIDs") { _ = try await app.likedIDs(among: ids) }
        await refusesAsNewer("statistics") { _ = try await app.statistics() }
        await refusesAsNewer("albums") { _ = try await app.albums() }
        await refusesAsNewer("months") { _ = try await app.months() }
        await refusesAsNewer("thumbnail") { _ = try await app.thumbnail(for: newest) }
        await refusesAsNewer("image") { _ = try await app.image(for: newest, covering: 100) }
        await refusesAsNewer("note") { try await app.setNote("a note", for: newest) }
        await refusesAsNewer("unlike") { _ = try await app.unlike(newest) }
        await refusesAsNewer("list") { _ = try await app.list(LikeQuery()) }
        await refusesAsNewer("record") { _ = try await app.record(for: newest) }
        await refusesAsNewer("like") { _ = try await app.like(newest, image: try Data(contentsOf: Repository.samplePhoto)) }

        let status = LikeStatus(app)
        await status.track(ids)
        guard case .newerFormat? = status.error as? LikeRepositoryError else {
            Issue.record("LikeStatus.track: \(String(describing: status.error))")
            return
        }
        #expect(status.liked.isEmpty)
        let photos = LikedPhotos(app)
        await photos.load()
        guard case .newerFormat? = photos.error as? LikeRepositoryError else {
            Issue.record("LikedPhotos.load: \(String(describing: photos.error))")
            return
        }
        #expect(try snapshot(of: app.directory) == before)
    }

    /// An app that found the store in its own format keeps asking it; then another program
    /// likes a photo there, as a later version does (a line appended to the journal, a record
    /// of that version's format). The app's next question refuses the store, though the answer
    /// it gave before came from names alone.
    @available(macOS 14, iOS 17, watchOS 10, *)
    @Test func aLaterVersionsLikeIsRefusedByAnAppThatAskedBefore() async throws {
        let app = try LikeRepository.temporary()
        try await app.likeSamplePhotos(count: 2)
        let ids = [try PhotoID("sample-1"), try PhotoID("sample-2")]
        #expect(try await app.likedIDs(among: ids) == Set(ids))
        #expect(try await app.isLiked(ids[0]))

        let other = LikeRepository(directory: app.directory)
        let newer = try PhotoID("from-a-later-version")
        try await other.like(newer, image: try Data(contentsOf: Repository.samplePhoto))
        let records = app.directory.appendingPathComponent("records")
        var rewritten = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: records.path) where name.hasSuffix(".json") {
            let file = records.appendingPathComponent(name)
            let text = try String(contentsOf: file, encoding: .utf8)
            guard text.contains("\"\(newer.rawValue)\"") else { continue }
            try Data(text.replacingOccurrences(of: "\"format\":1", with: "\"format\":7").utf8).write(to: file)
            rewritten += 1
        }
        try #require(rewritten == 1)

        await refusesAsNewer("isLiked of a photo liked before") { _ = try await app.isLiked(ids[0]) }
        await refusesAsNewer("likedIDs") { _ = try await app.likedIDs(among: ids) }
        await refusesAsNewer("isLiked, blocking") { _ = try app.isLiked(ids[1]) }
    }
}

/// The image API's names as ImageIO's and Nuke's read: an image that covers a size, and the
/// orientation it is still to be drawn in.
@Suite struct ImageNameTests {
    @available(macOS 14, iOS 17, watchOS 10, *)
    @Test func anImageCoversTheSizeAskedAndSaysHowToDrawIt() async throws {
        let app = try LikeRepository.temporary()
        let id = try PhotoID("turned")
        try await app.like(id, image: try Data(contentsOf: Repository.turnedPhoto))
        let record = try #require(try await app.record(for: id))
        #expect(record.image.orientation == 6)

        let small = try await app.image(for: id, covering: 100)
        #expect(small.kind == .thumbnail && small.isUpright && small.orientation == 1)
        #expect(max(small.width, small.height) >= 100)
        let whole = try await app.image(for: id, covering: 4000)
        #expect(whole.kind == .original && whole.orientation == 6 && !whole.isUpright)
        #expect((whole.width, whole.height) == (record.image.width, record.image.height))
        #expect(whole.data == (try Data(contentsOf: record.image.file)))
        // The budget of renditions is read where it is asked for, and can fail as a read can.
        #expect(try await app.renditionBudget() == 1 << 30)
    }
}

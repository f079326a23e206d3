// LikedPhotos and LikeStatus as a SwiftUI view uses them, on the main actor, while the `likes`
// executable changes the store from another process: a view redraws for the changes that alter
// what it shows, and for no other (counted: none), whatever else changes in the store.

import Foundation
import LikeKit
import Testing

@MainActor @Suite struct LiveQueryTests {
    /// What a grid shows of a live query: which photos, their notes, whether each has its
    /// thumbnail (a like shows its photo at once, from its change; the thumbnail `likes` makes
    /// after the like is there at the next reading), and whether more follow.
    struct Shown: Sendable, Equatable {
        var ids: [String]
        var notes: [String?]
        var thumbnails: [Bool]
        var hasMore: Bool
        var failed: Bool
    }

    @available(macOS 14, iOS 17, watchOS 10, *)
    func shown(_ photos: LikedPhotos) -> Shown {
        Shown(
            ids: photos.records.map(\.id.rawValue), notes: photos.records.map(\.note), thumbnails: photos.records.map { $0.thumbnail != nil },
            hasMore: photos.hasMore, failed: photos.error != nil)
    }

    @available(macOS 14, iOS 17, watchOS 10, *)
    @Test func aLiveQueryRedrawsForChangesToWhatItShowsAndForNoOther() async throws {
        let app = try LikeRepository.temporary()
        let store = app.directory
        let photo = Repository.samplePhoto.path
        for name in ["t1", "t2", "t3", "t4", "t5", "t6"] {
            #expect(try OtherProcess.likes(store, "like", name, "--image", photo, "--album", "Trip") == 0)
        }
        #expect(try OtherProcess.likes(store, "like", "h1", "--image", photo, "--album", "Home") == 0)

        let photos = LikedPhotos(app, query: LikeQuery(limit: 3, album: try AlbumName("Trip")))
        await photos.load()
        #expect(shown(photos).ids == ["t6", "t5", "t4"] && photos.hasMore)
        let redraws = Redraws { shown(photos) }

        // Changes that cannot alter the first three photos of Trip: another album's like and
        // note, a like in no album, a note, an unlike and an album change on Trip's photos below
        // the ones shown.
        #expect(try OtherProcess.likes(store, "like", "h2", "--image", photo, "--album", "Home") == 0)
        #expect(try OtherProcess.likes(store, "note", "h1", "on another album") == 0)
        #expect(try OtherProcess.likes(store, "like", "x1", "--image", photo) == 0)
        #expect(try OtherProcess.likes(store, "note", "t1", "further down") == 0)
        #expect(try OtherProcess.likes(store, "unlike", "t2") == 0)
        #expect(try OtherProcess.likes(store, "album", "add", "Home", "t3") == 0)
        // Then one that does: a note on a photo shown. Changes arrive in their order, so once it
        // is shown every change before it was heard, and none of them redrew.
        #expect(try OtherProcess.likes(store, "note", "t5", "shown") == 0)
        #expect(await redraws.until { $0.notes.contains("shown") })
        #expect(redraws.seen.allSatisfy { $0.notes.contains("shown") }, "redrawn before the change it shows: \(redraws.seen)")
        #expect(
            redraws.seen.last
                == Shown(ids: ["t6", "t5", "t4"], notes: [nil, "shown", nil], thumbnails: [true, true, true], hasMore: true, failed: false))

        // A like into the album comes in on top, pushing the last one down, not out; an unlike of
        // a photo shown takes it out.
        #expect(try OtherProcess.likes(store, "like", "t7", "--image", photo, "--album", "Trip") == 0)
        #expect(await redraws.until { $0.ids == ["t7", "t6", "t5", "t4"] }, "\(redraws.seen)")
        #expect(try OtherProcess.likes(store, "unlike", "t6") == 0)
        #expect(await redraws.until { $0.ids == ["t7", "t5", "t4"] }, "\(redraws.seen)")
        // A photo that comes to match, when it falls among those shown, comes in; one taken out
        // of the album leaves.
        #expect(try OtherProcess.likes(store, "album", "remove", "Trip", "t5") == 0)
        #expect(await redraws.until { $0.ids == ["t7", "t4", "t3"] }, "\(redraws.seen)")
        #expect(try OtherProcess.likes(store, "album", "add", "Trip", "x1") == 0)
        #expect(await redraws.until { $0.ids == ["t7", "x1", "t4"] }, "\(redraws.seen)")
        // Each redraw showed something new: none repeated what was shown before it.
        let values =
            [Shown(ids: ["t6", "t5", "t4"], notes: [nil, nil, nil], thumbnails: [true, true, true], hasMore: true, failed: false)] + redraws.seen
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 != $1 }, "\(values)")
    }

    @available(macOS 14, iOS 17, watchOS 10, *)
    @Test func aLiveQueryByDateTakenPutsEachLikeWhereItWasTaken() async throws {
        let app = try LikeRepository.temporary()
        let store = app.directory
        let photo = Repository.samplePhoto.path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("taken-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        /// Likes `id` from another process, its source saying it was taken in `year`.
        func like(_ id: String, takenIn year: Int) throws {
            let meta = folder.appendingPathComponent(id + ".json")
            try Data(#"{"id": "\#(id)", "created_at": "\#(year)-06-01T12:00:00Z"}"#.utf8).write(to: meta)
            #expect(try OtherProcess.likes(store, "like", id, "--image", photo, "--meta", meta.path) == 0)
        }
        for (id, year) in [("p2015", 2015), ("p2019", 2019), ("p2012", 2012), ("p2021", 2021), ("p2017", 2017)] { try like(id, takenIn: year) }
        var query = LikeQuery(orderDate: .taken, limit: 3)
        let photos = LikedPhotos(app, query: query)
        await photos.load()
        #expect(shown(photos).ids == ["p2021", "p2019", "p2017"] && photos.hasMore)
        let redraws = Redraws { shown(photos) }
        // Liked last but taken long before what is shown: nothing shown changes. Then one taken
        // between two shown comes in between them; the changes arrive in order, so once it shows
        // every change before it was heard, and none of them redrew.
        try like("p2010", takenIn: 2010)
        try like("p2018", takenIn: 2018)
        #expect(await redraws.until { $0.ids == ["p2021", "p2019", "p2018", "p2017"] }, "\(redraws.seen)")
        #expect(redraws.seen.allSatisfy { $0.ids.contains("p2018") }, "redrawn for a like taken below what is shown: \(redraws.seen)")
        #expect(photos.records.map { $0.takenSource } == [.source, .source, .source, .source])
        // Its next page goes on by date taken.
        let next = try #require(photos.records.last.map { LikeCursor(record: $0, orderDate: .taken) })
        query.after = next
        #expect(try await app.list(query).records.map(\.id.rawValue) == ["p2015", "p2012", "p2010"])
    }

    @available(macOS 14, iOS 17, watchOS 10, *)
    @Test func heartsRedrawForTheirOwnPhotosOnly() async throws {
        let app = try LikeRepository.temporary()
        let store = app.directory
        let photo = Repository.samplePhoto.path
        for name in ["a", "d"] { #expect(try OtherProcess.likes(store, "like", name, "--image", photo) == 0) }
        let (a, b) = (try PhotoID("a"), try PhotoID("b"))
        let status = LikeStatus(app)
        await status.track([a, b])
        #expect(status.liked == [a])
        let redraws = Redraws { (status.liked, status.tracked) }

        // Untracked photos liked and unliked, and a tracked one's note: no heart changes.
        #expect(try OtherProcess.likes(store, "like", "c", "--image", photo) == 0)
        #expect(try OtherProcess.likes(store, "unlike", "d") == 0)
        #expect(try OtherProcess.likes(store, "note", "a", "a note is not a heart") == 0)
        // Then the tracked one that is not liked is.
        #expect(try OtherProcess.likes(store, "like", "b", "--image", photo) == 0)
        #expect(await redraws.until { $0.0.contains(b) })
        #expect(redraws.seen.allSatisfy { $0.0 == [a, b] }, "redrawn before the change it shows: \(redraws.seen)")
        // Tracking what is tracked already, or untracking what is not, redraws nothing either.
        await status.track([a])
        status.untrack([try PhotoID("c")])
        #expect(try OtherProcess.likes(store, "unlike", "a") == 0)
        #expect(await redraws.until { $0.0 == [b] })
        #expect(redraws.seen.count == 2, "\(redraws.seen)")
    }

    @available(macOS 14, iOS 17, watchOS 10, *)
    @Test func theHeartButtonTakesTheImageItHas() async throws {
        let app = try LikeRepository.temporary()
        let status = LikeStatus(app)
        let id = try PhotoID("from-a-search")
        let jpeg = try Data(contentsOf: Repository.samplePhoto)
        #expect(try await status.toggle(id, note: "found it", image: jpeg).kind == .liked)
        #expect(status.isLiked(id))
        #expect(try await app.record(for: id)?.note == "found it")
        #expect(try await status.toggle(id, image: jpeg).kind == .unliked)
        #expect(!status.isLiked(id))
    }
}

/// Errors reach the app as what they are; a cancelled load is no error at all.
@MainActor @Suite struct LiveQueryErrorTests {
    @available(macOS 14, iOS 17, watchOS 10, *)
    @Test func aLoadCancelledWithItsViewIsNotAnError() async throws {
        let app = try LikeRepository.temporary()
        try await app.likeSamplePhotos(count: 2)
        let photos = LikedPhotos(app)
        let load = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }  // the view went away before the read began
            await photos.load()
        }
        await load.value
        #expect(photos.error == nil && !photos.isLoaded)
        await photos.load()
        #expect(photos.records.count == 2 && photos.error == nil)

        let status = LikeStatus(app)
        let id = try PhotoID("sample-1")
        let track = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            await status.track([id])
        }
        await track.value
        #expect(status.error == nil && !status.tracked.contains(id))
        await status.track([id])
        #expect(status.tracked == [id] && status.error == nil)
    }

    @available(macOS 14, iOS 17, watchOS 10, *)
    @Test func aQueryTheStoreRefusesKeepsTheErrorItThrew() async throws {
        let app = try LikeRepository.temporary()
        let photos = LikedPhotos(app, query: LikeQuery(color: "no such colour"))
        await photos.load()
        guard case .invalidArgument(let text)? = photos.error as? LikeRepositoryError else {
            Issue.record("not the repository's error: \(String(describing: photos.error))")
            return
        }
        #expect(text.contains("no such colour"))
    }
}

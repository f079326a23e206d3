// LikedPhotos and LikeStatus as a SwiftUI view uses them, observed with withObservationTracking
// while a second repository on the same store (another process's view of it) makes changes:
// each change is announced, in the query's order and filters (within a second on a quiet machine;
// here only a hang fails, since the CI suite's load makes a debug build's listing cost more).

import Foundation
import LikeKit
import LikeStore
import Observation
import TestSupport
import Testing

/// Whether reading `read` under observation tracking is followed by a change within `seconds`
/// of `act`: what a SwiftUI view relies on to draw again. On a quiet machine a change is
/// announced in well under a second; the CI suite runs this beside the browser and power-cut
/// tests, under which 5 s once did not suffice, so only a hang fails.
@available(macOS 14, iOS 17, watchOS 10, *)
@MainActor
func announcesChange(within seconds: Double = patienceAgainstHanging, of read: @escaping @MainActor () -> Void, when act: () async throws -> Void)
    async throws -> Bool
{
    let (signal, continuation) = AsyncStream<Void>.makeStream()
    withObservationTracking(read) {
        continuation.yield()
        continuation.finish()
    }
    try await act()
    return await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            for await _ in signal { return true }
            return false
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        continuation.finish()
        return first
    }
}

/// Waits, a few milliseconds at a time, until `condition` holds (the announcement comes before
/// the new value is set); false after `seconds`.
@MainActor
func eventually(within seconds: Double = patienceAgainstHanging, _ condition: @MainActor () -> Bool) async -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

@MainActor @Suite struct LikedPhotosTests {
    let folder = TemporaryFolder()

    func liked(_ repository: LikeRepository, _ names: [String]) throws {
        for (index, name) in names.enumerated() {
            try repository.like(PhotoID(name), image: Samples.jpeg(seed: index + name.count * 31, scanBytes: 100 + index))
            Thread.sleep(forTimeInterval: 0.003)
        }
    }

    @available(macOS 14, iOS 17, watchOS 10, *)
    @Test func aLiveQueryLoadsAPageAtATimeAndFollowsAnotherRepositorysChanges() async throws {
        let app = folder.repository()
        let other = folder.repository()
        try liked(other, ["p1", "p2", "p3", "p4", "p5"])
        let photos = LikedPhotos(app, query: LikeQuery(limit: 2))
        #expect(photos.records.isEmpty && !photos.isLoaded)
        await photos.load()
        #expect(photos.records.map(\.id.rawValue) == ["p5", "p4"] && photos.hasMore)
        await photos.loadMore()
        #expect(photos.records.map(\.id.rawValue) == ["p5", "p4", "p3", "p2"] && photos.hasMore)

        // A like elsewhere comes in at its place; what was shown stays shown.
        let ids = { photos.records.map(\.id.rawValue) }
        #expect(try await announcesChange(of: { _ = photos.records }) { try liked(other, ["p6"]) })
        #expect(await eventually { ids() == ["p6", "p5", "p4", "p3", "p2"] }, "\(ids())")
        // An unlike leaves; an edit changes the record shown.
        #expect(try await announcesChange(of: { _ = photos.records }) { try await other.unlike(PhotoID("p4")) })
        #expect(await eventually { ids() == ["p6", "p5", "p3", "p2"] }, "\(ids())")
        #expect(try await announcesChange(of: { _ = photos.records }) { try await other.setNote("seen", for: PhotoID("p5")) })
        #expect(await eventually { photos.records.first { $0.id.rawValue == "p5" }?.note == "seen" })
        // Paging on finds the rest, each once.
        while photos.hasMore { await photos.loadMore() }
        #expect(ids() == ["p6", "p5", "p3", "p2", "p1"])
    }

    @available(macOS 14, iOS 17, watchOS 10, *)
    @Test func aFilteredQueryTakesInWhatComesToMatchAndLetsGoWhatStopsMatching() async throws {
        let app = folder.repository()
        let other = folder.repository()
        try liked(other, ["a", "b", "c"])
        let trip = try AlbumName("Trip")
        try await other.addPhotos([PhotoID("b")], toAlbum: trip)
        let photos = LikedPhotos(app, query: LikeQuery(limit: 10, album: trip))
        await photos.load()
        #expect(photos.records.map(\.id.rawValue) == ["b"] && !photos.hasMore)
        let ids = { photos.records.map(\.id.rawValue) }
        #expect(try await announcesChange(of: { _ = photos.records }) { try await other.addPhotos([PhotoID("a"), PhotoID("c")], toAlbum: trip) })
        #expect(await eventually { ids() == ["c", "b", "a"] }, "\(ids())")
        #expect(try await announcesChange(of: { _ = photos.records }) { try await other.removePhotos([PhotoID("b")], fromAlbum: trip) })
        #expect(await eventually { ids() == ["c", "a"] }, "\(ids())")
        // A photo liked outside the album is no change to it: once the album's next photo, liked
        // and added after it, is shown, the change before it was heard.
        try liked(other, ["d", "e"])
        try await other.addPhotos([PhotoID("e")], toAlbum: trip)
        #expect(await eventually { ids().contains("e") }, "\(ids())")
        #expect(ids() == ["e", "c", "a"])
    }

    @available(macOS 14, iOS 17, watchOS 10, *)
    @Test func releasedItStopsFollowingTheStore() async throws {
        let app = folder.repository()
        try liked(app, ["a"])
        weak var released: LikedPhotos?
        do {
            let photos = LikedPhotos(app)
            await photos.load()
            released = photos
            #expect(photos.records.count == 1)
        }
        try liked(app, ["b"])
        #expect(await eventually { released == nil })
        #expect(await eventually { app.observers.count == 0 }, "an observer is left: \(app.observers.count)")
    }
}

@MainActor @Suite struct LikeStatusTests {
    let folder = TemporaryFolder()

    @available(macOS 14, iOS 17, watchOS 10, *)
    @Test func heartsFollowLikesMadeElsewhereAndTheToggleShowsWhatTheStoreDid() async throws {
        let app = folder.repository()
        let other = folder.repository()
        try await other.like(PhotoID("a"), image: Samples.rocket)
        try await other.like(PhotoID("b"), image: Samples.coffee)
        let status = LikeStatus(app)
        let (a, b, c) = (try PhotoID("a"), try PhotoID("b"), try PhotoID("c"))
        await status.track([a, b, c])
        #expect(status.isLiked(a) && status.isLiked(b) && !status.isLiked(c))

        #expect(try await announcesChange(of: { _ = status.liked }) { try await other.unlike(PhotoID("a")) })
        #expect(await eventually { !status.isLiked(a) })
        #expect(try await announcesChange(of: { _ = status.liked }) { try await other.like(PhotoID("c"), image: Samples.chelsea) })
        #expect(await eventually { status.isLiked(c) })

        // The heart: the image is asked for only when it likes.
        var downloads = 0
        let unliked = try await status.toggle(b) {
            downloads += 1
            return Samples.coffee
        }
        #expect(unliked.kind == .unliked && !status.isLiked(b) && downloads == 0)
        let new = try PhotoID("new")
        let liked = try await status.toggle(new) {
            downloads += 1
            return Samples.astronaut
        }
        #expect(liked.kind == .liked && status.isLiked(new) && downloads == 1)
        #expect(try await other.isLiked(new))

        // A photo not tracked is never said to be liked; one no longer tracked neither.
        let elsewhere = try PhotoID("elsewhere")
        try await other.like(elsewhere, image: Samples.rocket)
        // A tracked photo liked after it: once its heart shows, the change before it was heard.
        try await other.like(a, image: Samples.rocket)
        #expect(await eventually { status.isLiked(a) })
        #expect(!status.isLiked(elsewhere))
        status.untrack([c])
        #expect(!status.isLiked(c))
    }
}

// LikedPhotos and LikeStatus as a SwiftUI view uses them, observed with withObservationTracking
// while a second repository on the same store (another process's view of it) makes changes:
// each change is announced, in the query's order and filters (within a second on a quiet machine;
// here only a hang fails, since the CI suite's load makes a debug build's listing cost more).

import Foundation
import Observation
import TestSupport
import Testing

@testable import LikeKit
@testable import LikeStore

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
        // A photo liked outside the album is no change to it.
        try liked(other, ["d"])
        try await Task.sleep(for: .milliseconds(300))
        #expect(ids() == ["c", "a"])
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
        try await Task.sleep(for: .milliseconds(200))
        #expect(!status.isLiked(elsewhere))
        status.untrack([c])
        #expect(!status.isLiked(c))
    }
}

/// The two observable types beside a `likes` process of its own changing the same store, as an
/// app sees its share extension or the command line: every change reaches them through the store.
@MainActor @Suite struct AnotherProcessTests {
    let folder = TemporaryFolder()

    /// The `likes` executable built beside this test bundle.
    static let likes: URL = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [
            beside.appendingPathComponent("likes"), beside.deletingLastPathComponent().appendingPathComponent("likes"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("likes"),
            SamplePhotos.directory.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/debug/likes"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    /// Runs `likes` on the folder's store, in a process of its own, and waits for it.
    func likes(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = Self.likes
        process.arguments = ["--store", folder.store.path] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @available(macOS 14, iOS 17, watchOS 10, *)
    @Test func aLiveQueryAndTheHeartsFollowAnotherProcess() async throws {
        let photo = SamplePhotos.directory.appendingPathComponent("rocket.jpg").path
        for name in ["p1", "p2", "p3"] {
            #expect(try likes(["like", name, "--image", photo]) == 0)
            try await Task.sleep(for: .milliseconds(3))
        }
        let app = folder.repository()
        let photos = LikedPhotos(app, query: LikeQuery(limit: 10))
        await photos.load()
        let ids = { photos.records.map(\.id.rawValue) }
        #expect(ids() == ["p3", "p2", "p1"])
        let status = LikeStatus(app)
        let (p2, p4) = (try PhotoID("p2"), try PhotoID("p4"))
        await status.track([p2, p4])
        #expect(status.isLiked(p2) && !status.isLiked(p4))

        var statuses: [Int32] = []
        #expect(try await announcesChange(of: { _ = photos.records }) { statuses.append(try likes(["like", "p4", "--image", photo])) })
        #expect(await eventually { ids() == ["p4", "p3", "p2", "p1"] && status.isLiked(p4) }, "\(ids())")
        #expect(try await announcesChange(of: { _ = photos.records }) { statuses.append(try likes(["unlike", "p2"])) })
        #expect(await eventually { ids() == ["p4", "p3", "p1"] && !status.isLiked(p2) }, "\(ids())")
        #expect(try await announcesChange(of: { _ = photos.records }) { statuses.append(try likes(["note", "p1", "from the command line"])) })
        #expect(await eventually { photos.records.last?.note == "from the command line" })
        #expect(statuses == [0, 0, 0])
    }
}

/// A store for previews and tests: its own folder, filled with photos made here, gone with it.
@Suite struct TemporaryStoreTests {
    @Test func aTemporaryStoreIsItsOwnFilledWithSamplesAndGoesWithTheRepository() throws {
        var paths: [String] = []
        do {
            let repository = try LikeRepository.temporary()
            let second = try LikeRepository.temporary()
            paths = [repository.directory.path, second.directory.path]
            #expect(paths[0] != paths[1])
            let mode = try FileManager.default.attributesOfItem(atPath: paths[0])[.posixPermissions] as? Int
            #expect(mode == 0o700)

            let changes = try repository.likeSamplePhotos(count: 12)
            #expect(changes.count == 12 && changes.allSatisfy { $0.kind == .liked })
            let listed = try repository.list().records
            #expect(listed.map(\.id.rawValue) == (1...12).reversed().map { "sample-\($0)" })
            // Real JPEGs of the shapes they say, made by the package's encoder, and one of each
            // colour family the colour filter names.
            #expect(listed.filter { $0.image.height > $0.image.width }.count == 3)
            for family in ["black", "white", "gray", "yellow", "orange", "red", "purple", "magenta", "green", "teal", "blue", "brown"] {
                let found = try repository.list(LikeQuery(color: family)).records.map(\.photo?.description)
                #expect(found.contains("A \(family) sample"), "\(family): \(found)")
            }
            #expect(try repository.thumbnail(for: PhotoID("sample-1")) != nil)
            #expect(try repository.albums().first?.count == 4)
            #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
            #expect(try second.list().records.isEmpty)
        }
        for path in paths { #expect(!FileManager.default.fileExists(atPath: path), "\(path) is left") }
    }
}

// Live queries under random changes, judged by a model of the collection written here: which
// photos are liked, in the order of their likes, and which albums each is in. After each change
// every live query shows the newest photos that match it, as many as it loaded and no gap, and
// says whether more follow; whether it got there from the change itself or by reading again.

import Foundation
import LikeKit
import Testing

@MainActor @Suite struct LiveQueryModelTests {
    /// The collection as the test knows it: the ids liked, oldest like first, and each one's albums.
    struct Model {
        var liked: [String] = []
        var albums: [String: Set<String>] = [:]

        /// The ids a query of `album` (every photo when `nil`) lists, newest like first.
        func listed(album: String?) -> [String] {
            liked.reversed().filter { id in album.map { albums[id, default: []].contains($0) } ?? true }
        }
    }

    /// What a live query shows.
    struct Shown: Equatable, Sendable {
        var ids: [String]
        var hasMore: Bool
    }

    /// Whether `shown` is what a live query of `album` with pages of `page` may show of `model`:
    /// the newest matches, at least a page of them (all, when fewer), with `hasMore` true exactly
    /// when some are not shown.
    static func agrees(_ shown: Shown, _ model: Model, album: String?, page: Int) -> Bool {
        let listed = model.listed(album: album)
        return shown.ids.count >= min(page, listed.count) && Array(listed.prefix(shown.ids.count)) == shown.ids
            && shown.hasMore == (listed.count > shown.ids.count)
    }

    @available(macOS 14, iOS 17, watchOS 10, *)
    @Test(arguments: [11, 29]) func liveQueriesShowWhatTheModelSaysAfterEveryChange(seed: UInt64) async throws {
        let app = try LikeRepository.temporary()
        let jpeg = try Data(contentsOf: Repository.samplePhoto)
        var random = SplitMix(seed: seed)
        var model = Model()
        let albumNames = ["Trip", "Home"]
        for number in 0..<8 {
            let id = "p\(number)"
            let album = albumNames[number % 2]
            try await app.like(PhotoID(id), image: jpeg, albums: [AlbumName(album)])
            model.liked.append(id)
            model.albums[id] = [album]
        }
        let queries: [(album: String?, page: Int)] = [(nil, 4), ("Trip", 3), ("Home", 2)]
        var live: [LikedPhotos] = []
        for query in queries {
            let photos = LikedPhotos(app, query: LikeQuery(limit: query.page, album: try query.album.map { try AlbumName($0) }))
            await photos.load()
            live.append(photos)
        }
        var next = 8
        for step in 0..<60 {
            var done = ""
            switch random.next() % 7 {
            case 0, 1:
                // A like of a photo never liked, or liked and unliked before: it comes in on top.
                let unliked = (0..<next).map { "p\($0)" }.filter { !model.liked.contains($0) }
                let id: String
                if let again = unliked.randomElement(using: &random), random.next() % 2 == 0 {
                    id = again
                } else {
                    id = "p\(next)"
                    next += 1
                }
                let albums = albumNames.filter { _ in random.next() % 2 == 0 }
                try await app.like(PhotoID(id), image: jpeg, albums: try albums.map { try AlbumName($0) })
                model.liked.append(id)
                model.albums[id] = Set(albums)
                done = "like \(id) in \(albums)"
            case 2:
                guard let id = model.liked.randomElement(using: &random) else { continue }
                try await app.unlike(PhotoID(id))
                model.liked.removeAll { $0 == id }
                model.albums[id] = nil
                done = "unlike \(id)"
            case 3:
                guard let id = model.liked.randomElement(using: &random), let album = albumNames.randomElement(using: &random) else { continue }
                try await app.addPhotos([PhotoID(id)], toAlbum: AlbumName(album))
                model.albums[id, default: []].insert(album)
                done = "add \(id) to \(album)"
            case 4:
                guard let id = model.liked.filter({ !model.albums[$0, default: []].isEmpty }).randomElement(using: &random),
                    let album = model.albums[id, default: []].sorted().randomElement(using: &random)
                else { continue }
                try await app.removePhotos([PhotoID(id)], fromAlbum: AlbumName(album))
                model.albums[id, default: []].remove(album)
                done = "remove \(id) from \(album)"
            case 5:
                guard let id = model.liked.randomElement(using: &random) else { continue }
                try await app.setNote("note \(step)", for: PhotoID(id))
                done = "note on \(id)"
            default:
                // Scrolling: one of the queries loads a page more.
                let index = Int(random.next() % UInt64(live.count))
                await live[index].loadMore()
                done = "load more of \(queries[index].album ?? "all")"
            }
            for (index, photos) in live.enumerated() {
                let (album, page) = queries[index]
                let agreed = await Self.settled(photos) { Self.agrees($0, model, album: album, page: page) }
                #expect(
                    agreed,
                    "step \(step), after \(done): \(album ?? "all") shows \(photos.records.map(\.id.rawValue)), more \(photos.hasMore); the model lists \(model.listed(album: album))"
                )
                if !agreed { return }
            }
        }
    }

    /// Waits until what `photos` shows passes `agrees` (at once when it does already), the wait
    /// bounded only against hanging.
    @available(macOS 14, iOS 17, watchOS 10, *)
    static func settled(_ photos: LikedPhotos, _ agrees: @escaping (Shown) -> Bool) async -> Bool {
        let now: @MainActor () -> Shown = { Shown(ids: photos.records.map(\.id.rawValue), hasMore: photos.hasMore) }
        if agrees(now()) { return true }
        let redraws = Redraws(now)
        return await redraws.until(agrees)
    }
}

/// A seeded generator, so that a failing run can be run again.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

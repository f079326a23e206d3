// Unsplash as a photo source: search and like in the order its API and guidelines ask (the photo,
// its JPEG and the photographer's picture, the like, then the download counted once).

import LikeKit

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// Unsplash, with a key.
public struct UnsplashSource: PhotoSource {
    /// The access key (`Client-ID`).
    public var accessKey: String
    /// The API's address: ``UnsplashAPI/defaultBase`` but for a stand-in.
    public var base: String
    /// How requests are sent and images downloaded.
    public var client: SourceClient

    /// Unsplash with `accessKey`.
    public init(accessKey: String, base: String = UnsplashAPI.defaultBase, client: SourceClient) {
        self.accessKey = accessKey
        self.base = base
        self.client = client
    }

    public var name: String { "unsplash" }
    public var displayName: String { "Unsplash" }

    /// Unsplash's search takes an order and a colour.
    public var searchOptions: [SearchOption] {
        [
            SearchOption(name: "order", label: "Order", values: UnsplashAPI.Order.allCases.map(\.rawValue)),
            SearchOption(name: "color", label: "Colour", values: [""] + UnsplashAPI.colors),
        ]
    }

    public func search(_ query: String, options: [String: String], page: Int, perPage: Int) throws -> SourcePage {
        let order = options["order"].flatMap(UnsplashAPI.Order.init(rawValue:)) ?? .relevant
        let color = options["color"].flatMap { UnsplashAPI.colors.contains($0) ? $0 : nil }
        return try search(query, order: order, color: color, page: page, perPage: perPage)
    }

    private func ask(_ request: APIRequest) throws -> Data {
        let answer = try client.send(request)
        guard (200...299).contains(answer.status) else {
            throw UnsplashAPI.failure(status: answer.status, rateLimitRemaining: answer.rateLimitRemaining, body: answer.body)
        }
        return answer.body
    }

    /// One page of `GET /search/photos`.
    ///
    /// - Throws: ``PhotoSourceError``, or the client's error.
    public func search(_ query: String, order: UnsplashAPI.Order = .relevant, color: String? = nil, page: Int = 1, perPage: Int = 10) throws
        -> SourcePage
    {
        let results = try UnsplashAPI.searchResults(
            from: try ask(UnsplashAPI.search(query, order: order, color: color, page: page, perPage: perPage, accessKey: accessKey, base: base)))
        return SourcePage(
            total: results.total, totalPages: results.totalPages, page: page,
            results: results.results.map {
                SourceResult(
                    id: $0.id, text: $0.metadata.description ?? "", photographer: $0.user?.name, color: $0.color, smallImageURL: $0.urls?["small"])
            })
    }

    /// Likes the photo `id`: `GET /photos/ID`, its JPEG (`urls.regular`) and the photographer's
    /// picture, the like with its credit; then, the photo stored, its download location asked
    /// once, as Unsplash's guidelines require. Returns the change, and why the download count
    /// failed, if it did (the like stands).
    ///
    /// - Throws: ``PhotoSourceError``, `LikeRepositoryError` or the client's error; then nothing
    ///   was stored and nothing counted.
    public func like(_ id: PhotoID, into repository: LikeRepository, note: String? = nil, albums: [AlbumName] = []) throws -> SourceLike {
        let photo = try UnsplashAPI.photo(from: try ask(UnsplashAPI.photo(id.rawValue, accessKey: accessKey, base: base)))
        guard let imageURL = photo.imageURL else { throw PhotoSourceError(.malformed, "Unsplash gave no urls.regular for \(id.rawValue).") }
        let image = try client.download(imageURL.absoluteString, "image")
        let userImage = try photo.userImageURL.map { try client.download($0.absoluteString, "user image") }
        let change = try repository.like(id, image: image, userImage: userImage, note: note, photo: photo.metadata, albums: albums)
        var failure: String?
        if let tracking = UnsplashAPI.downloadTracking(photo, accessKey: accessKey, base: base) {
            do {
                let answer = try client.send(tracking)
                if !(200...299).contains(answer.status) { failure = "HTTP \(answer.status)" }
            } catch {
                failure = "\(error)"
            }
        }
        return SourceLike(change: change, trackingFailure: failure)
    }
}

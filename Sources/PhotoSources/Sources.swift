// Searching a photo source and liking from it, in the order its API and guidelines ask: what the
// command line and the gallery both do. Sending requests and downloading images is the caller's,
// through a `SourceClient`.

import LikeKit

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// An HTTP answer from a photo source's API.
public struct APIAnswer: Sendable {
    /// The HTTP status.
    public var status: Int
    /// `X-Ratelimit-Remaining`, where the answer had it.
    public var rateLimitRemaining: String?
    /// The answer's body.
    public var body: Data

    /// An answer of `status` with its body.
    public init(status: Int, rateLimitRemaining: String?, body: Data) {
        self.status = status
        self.rateLimitRemaining = rateLimitRemaining
        self.body = body
    }
}

/// How requests reach the network: any HTTP answer from `send`, a complete JPEG from `download`
/// (each throwing the caller's own error when there is none).
public struct SourceClient: Sendable {
    /// Sends a request; any HTTP answer comes back.
    public var send: @Sendable (APIRequest) throws -> APIAnswer
    /// Downloads a complete JPEG; `what` names it in errors ("image", "user image").
    public var download: @Sendable (_ url: String, _ what: String) throws -> Data

    /// A client of these two.
    public init(send: @escaping @Sendable (APIRequest) throws -> APIAnswer, download: @escaping @Sendable (String, String) throws -> Data) {
        self.send = send
        self.download = download
    }
}

/// One search result, as both sources give it.
public struct SourceResult: Sendable, Hashable {
    /// The photo's id at its source.
    public var id: String
    /// Unsplash's description (else its alt text), or Flickr's title.
    public var text: String
    /// Who took it.
    public var photographer: String?
    /// Its colour, where the source gives one (Unsplash).
    public var color: String?
    /// A small image of it at the source, for a results page.
    public var smallImageURL: String?
}

/// A page of search results.
public struct SourcePage: Sendable {
    /// Photos found in all.
    public var total: Int
    /// Pages in all.
    public var totalPages: Int
    /// This page's number, from 1.
    public var page: Int
    /// This page's results.
    public var results: [SourceResult]
}

/// Unsplash, with a key.
public struct UnsplashSource: Sendable {
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
    public func like(_ id: PhotoID, into repository: LikeRepository, note: String? = nil, albums: [AlbumName] = []) throws -> (
        change: LikeChange, trackingFailure: String?
    ) {
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
        return (change, failure)
    }
}

/// Flickr, with a key.
public struct FlickrSource: Sendable {
    /// The API key.
    public var apiKey: String
    /// The REST endpoint: ``FlickrAPI/defaultBase`` but for a stand-in.
    public var base: String
    /// How requests are sent and images downloaded.
    public var client: SourceClient

    /// Flickr with `apiKey`.
    public init(apiKey: String, base: String = FlickrAPI.defaultBase, client: SourceClient) {
        self.apiKey = apiKey
        self.base = base
        self.client = client
    }

    private func ask(_ request: APIRequest) throws -> Data {
        let answer = try client.send(request)
        guard (200...299).contains(answer.status) else { throw FlickrAPI.failure(status: answer.status) }
        return answer.body
    }

    /// One page of `flickr.photos.search`.
    public func search(_ text: String, sort: String = "relevance", page: Int = 1, perPage: Int = 10) throws -> SourcePage {
        let results = try FlickrAPI.searchResults(
            from: try ask(FlickrAPI.search(text, sort: sort, page: page, perPage: perPage, apiKey: apiKey, base: base)))
        return SourcePage(
            total: results.total, totalPages: results.totalPages, page: results.page,
            results: results.results.map { SourceResult(id: $0.id, text: $0.title, photographer: $0.ownerName, smallImageURL: $0.smallImageURL) })
    }

    /// Likes the photo `id`: its information, sizes and the licences' names, the largest size
    /// whose long side is at most 2048 pixels, the like with its owner, title, licence and page.
    public func like(_ id: PhotoID, into repository: LikeRepository, note: String? = nil, albums: [AlbumName] = []) throws -> LikeChange {
        let info = try FlickrAPI.info(from: try ask(FlickrAPI.info(id.rawValue, apiKey: apiKey, base: base)))
        let sizes = try FlickrAPI.sizes(from: try ask(FlickrAPI.sizes(id.rawValue, apiKey: apiKey, base: base)))
        let names = try FlickrAPI.licenseNames(from: try ask(FlickrAPI.licenses(apiKey: apiKey, base: base)))
        guard let size = FlickrAPI.largestSize(sizes) else {
            throw PhotoSourceError(.failed, "Flickr lists no size of \(id.rawValue) of at most 2048 pixels.")
        }
        let image = try client.download(size.source, "image")
        let metadata = FlickrAPI.metadata(info, licenseName: info.licenseID.flatMap { names[$0] }, width: size.width, height: size.height)
        return try repository.like(id, image: image, note: note, photo: metadata, albums: albums)
    }
}

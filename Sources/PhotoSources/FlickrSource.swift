// Flickr as a photo source: search, and like the largest size of at most 2048 pixels with its
// owner, title, licence and page.

import LikeKit

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// Flickr, with a key.
public struct FlickrSource: PhotoSource {
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

    public var name: String { "flickr" }
    public var displayName: String { "Flickr" }
    /// Flickr's terms ask every application to say so.
    public var notice: String? { "This product uses the Flickr API but is not endorsed or certified by SmugMug, Inc." }

    /// Flickr's search takes a sort.
    public var searchOptions: [SearchOption] { [SearchOption(name: "sort", label: "Sort", values: FlickrAPI.sorts)] }

    public func search(_ query: String, options: [String: String], page: Int, perPage: Int) throws -> SourcePage {
        let sort = options["sort"].flatMap { FlickrAPI.sorts.contains($0) ? $0 : nil } ?? "relevance"
        return try search(query, sort: sort, page: page, perPage: perPage)
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
    public func like(_ id: PhotoID, into repository: LikeRepository, note: String? = nil, albums: [AlbumName] = []) throws -> SourceLike {
        let info = try FlickrAPI.info(from: try ask(FlickrAPI.info(id.rawValue, apiKey: apiKey, base: base)))
        let sizes = try FlickrAPI.sizes(from: try ask(FlickrAPI.sizes(id.rawValue, apiKey: apiKey, base: base)))
        let names = try FlickrAPI.licenseNames(from: try ask(FlickrAPI.licenses(apiKey: apiKey, base: base)))
        guard let size = FlickrAPI.largestSize(sizes) else {
            throw PhotoSourceError(.failed, "Flickr lists no size of \(id.rawValue) of at most 2048 pixels.")
        }
        let image = try client.download(size.source, "image")
        let metadata = FlickrAPI.metadata(info, licenseName: info.licenseID.flatMap { names[$0] }, width: size.width, height: size.height)
        return SourceLike(change: try repository.like(id, image: image, note: note, photo: metadata, albums: albums), trackingFailure: nil)
    }
}

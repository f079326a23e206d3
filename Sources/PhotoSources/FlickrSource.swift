// Flickr as a photo source: search, and like the largest size of at most 2048 pixels with its
// owner, title, licence and page.

import LikeKit
import LikesSupport

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
        let (image, metadata) = try download(id, licenses: { try licenseNames(using: { try ask($0) }) }, using: { try ask($0) })
        return SourceLike(change: try repository.like(id, image: image, note: note, photo: metadata, albums: albums), trackingFailure: nil)
    }

    /// The licences' names by id.
    private func licenseNames(using ask: (APIRequest) throws -> Data) throws -> [String: String] {
        try FlickrAPI.licenseNames(from: try ask(FlickrAPI.licenses(apiKey: apiKey, base: base)))
    }

    /// What a like of `id` keeps: its JPEG and its metadata, asked with `ask`.
    private func download(
        _ id: PhotoID, licenses: () throws -> [String: String], using ask: (APIRequest) throws -> Data
    ) throws -> (Data, PhotoMetadata) {
        let info = try FlickrAPI.info(from: try ask(FlickrAPI.info(id.rawValue, apiKey: apiKey, base: base)))
        let sizes = try FlickrAPI.sizes(from: try ask(FlickrAPI.sizes(id.rawValue, apiKey: apiKey, base: base)))
        let names = try licenses()
        guard let size = FlickrAPI.largestSize(sizes) else {
            throw PhotoSourceError(.failed, "Flickr lists no size of \(id.rawValue) of at most 2048 pixels.")
        }
        let image = try client.download(size.source, "image")
        return (image, FlickrAPI.metadata(info, licenseName: info.licenseID.flatMap { names[$0] }, width: size.width, height: size.height))
    }

    // MARK: Bringing a person's favorites home

    /// Likes every photo `user` starred on Flickr (`flickr.favorites.getPublicList`, 500 a
    /// page), each as ``like(_:into:note:albums:)`` stores it, at the time it was starred
    /// (`date_faved`). `user` is an NSID or a user name (then found first with
    /// `flickr.people.findByUsername`). Photos liked already cost nothing.
    ///
    /// Stops cleanly when Flickr refuses more requests for now
    /// (``FavoritesImportReport/stoppedByRateLimit``): calling it again goes on where it stopped.
    ///
    /// - Parameters:
    ///   - user: The Flickr user (an NSID, or a user name) whose favorites to bring home.
    ///   - repository: The store to like them in.
    ///   - albums: Albums to put every photo liked in.
    ///   - dryRun: Only the listing's pages are asked, and the new photos counted.
    ///   - progress: Called after each page.
    /// - Throws: ``PhotoSourceError`` (`notFound` for no such user, `key`), `LikeRepositoryError`
    ///   when the store fails (what was liked stays liked), or the client's error.
    public func importFavorites(
        of user: String, into repository: LikeRepository, albums: [AlbumName] = [], dryRun: Bool = false,
        progress: @escaping (FavoritesImportProgress) -> Void = { _ in }
    ) throws -> FavoritesImportReport {
        var report = FavoritesImportReport(source: name, user: user)
        let budget = RequestBudget()
        let ask = { (request: APIRequest) throws -> Data in
            let answer = try budget.send(request, client: client)
            guard (200...299).contains(answer.status) else { throw FlickrAPI.failure(status: answer.status) }
            return answer.body
        }
        let nsid: String
        do {
            nsid = FlickrAPI.isNSID(user) ? user : try FlickrAPI.userID(from: try ask(FlickrAPI.findUser(user, apiKey: apiKey, base: base)))
        } catch let error as PhotoSourceError where error.kind == .notFound {
            throw PhotoSourceError(.notFound, "Flickr has no user \"\(user)\".")
        }
        let licenses = Locked<[String: String]?>(nil)
        let walk = FavoritesWalk(
            repository: repository, stateName: "flickr-favorites-" + nsid.lowercased(), perPage: 500, albums: albums, dryRun: dryRun,
            list: { page in
                let listed: FlickrAPI.Favorites
                do {
                    listed = try FlickrAPI.favorites(from: try ask(FlickrAPI.favorites(ofUser: nsid, page: page, apiKey: apiKey, base: base)))
                } catch let error as PhotoSourceError where error.kind == .notFound {
                    throw PhotoSourceError(.notFound, "Flickr has no user \"\(user)\".")
                }
                return FavoritesPage(
                    photos: listed.favorites.map { favorite in
                        FavoritesPage.Photo(id: favorite.id, likedAt: favorite.favedAt) {
                            let id = try PhotoID(favorite.id)
                            let (image, metadata) = try download(
                                id,
                                licenses: {
                                    let names = try licenses.withLock { $0 } ?? licenseNames(using: ask)
                                    licenses.withLock { $0 = names }
                                    return names
                                }, using: ask)
                            return (LikeItem(id: id, image: image, photo: metadata), nil)
                        }
                    }, total: listed.total, isLast: page >= listed.totalPages || listed.favorites.isEmpty)
            },
            payOwed: { (0, false) }, progress: progress)
        try walk.run(into: &report)
        report.requests = budget.sent
        return report
    }
}

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
        // The download count is owed in the like's own commit, then requested: a request that
        // cannot be made now is made by the next `unsplash` command that can.
        let change = try repository.like(
            id, image: image, userImage: userImage, note: note, photo: photo.metadata, albums: albums, owing: photo.downloadLocation)
        var failure: String?
        do {
            let paid = try payOwedTracking(for: repository)
            if try repository.owedRequests().contains(where: { $0.id == id }) {
                failure = (paid.failure ?? "it was not sent") + "; it stays owed, and the next unsplash command makes it"
            }
        } catch {
            failure = "\(error); it stays owed"
        }
        return SourceLike(change: change, trackingFailure: failure)
    }
}

// MARK: Bringing a person's likes home

extension UnsplashSource {
    /// Likes every photo `username` liked on Unsplash, page by page (`GET /users/USERNAME/likes`,
    /// 30 a page), as ``like(_:into:note:albums:)`` does but from the listing's own photo objects:
    /// no per-photo API request, the images from Unsplash's image host, and the download count
    /// owed in each like's commit and requested after (``payOwedTracking(for:)``). Photos liked
    /// already cost nothing. The first listed gets the newest time, the rest one millisecond less
    /// each, across runs.
    ///
    /// Stops cleanly at the hourly limit of requests (``FavoritesImportReport/stoppedByRateLimit``):
    /// calling it again goes on where it stopped, asking for no photo twice.
    ///
    /// - Parameters:
    ///   - username: The Unsplash user whose likes to bring home.
    ///   - repository: The store to like them in.
    ///   - albums: Albums to put every photo liked in.
    ///   - dryRun: Only the listing's pages are asked, and the new photos counted.
    ///   - progress: Called after each page.
    /// - Throws: ``PhotoSourceError`` (`notFound` for no such user, `key`), `LikeRepositoryError`
    ///   when the store fails (what was liked stays liked), or the client's error.
    public func importLikes(
        of username: String, into repository: LikeRepository, albums: [AlbumName] = [], dryRun: Bool = false,
        progress: @escaping (FavoritesImportProgress) -> Void = { _ in }
    ) throws -> FavoritesImportReport {
        var report = FavoritesImportReport(source: name, user: username)
        let budget = RequestBudget()
        if !dryRun {
            let paid = try payOwedTracking(for: repository, budget: budget)
            report.owedRequestsMade += paid.made
        }
        let walk = FavoritesWalk(
            repository: repository, stateName: "unsplash-likes-" + username.lowercased(), perPage: 30, albums: albums, dryRun: dryRun,
            list: { page in
                let answer = try budget.send(UnsplashAPI.userLikes(username, page: page, accessKey: accessKey, base: base), client: client)
                guard (200...299).contains(answer.status) else {
                    if answer.status == 404 { throw PhotoSourceError(.notFound, "Unsplash has no user \"\(username)\".") }
                    throw UnsplashAPI.failure(status: answer.status, rateLimitRemaining: answer.rateLimitRemaining, body: answer.body)
                }
                let photos = try UnsplashAPI.likedPhotos(from: answer.body)
                let total = answer.total
                return FavoritesPage(
                    photos: photos.map { photo in
                        FavoritesPage.Photo(id: photo.id, likedAt: nil) {
                            guard let imageURL = photo.imageURL else { throw PhotoSourceError(.malformed, "Unsplash gave no urls.regular for it.") }
                            let image = try client.download(imageURL.absoluteString, "image")
                            let userImage = try photo.userImageURL.map { try client.download($0.absoluteString, "user image") }
                            let id = try PhotoID(photo.id)
                            return (LikeItem(id: id, image: image, userImage: userImage, photo: photo.metadata), photo.downloadLocation)
                        }
                    }, total: total, isLast: photos.count < 30 || total.map { page * 30 >= $0 } ?? false)
            },
            payOwed: {
                let paid = try payOwedTracking(for: repository, budget: budget)
                return (paid.made, paid.limited)
            }, progress: progress)
        try walk.run(into: &report)
        report.requests = budget.sent
        report.owedRequestsLeft = (try? repository.owedRequests().count) ?? 0
        return report
    }

    /// Makes the download-tracking requests owed for liked photos, each once: settled in the
    /// store as soon as Unsplash took it. One that Unsplash answers with an error stays owed;
    /// the hourly limit, or a request that gets no answer, stops the rest (they stay owed for the
    /// next command).
    ///
    /// - Parameter repository: The store whose owed requests to make.
    /// - Returns: How many were made, whether the limit stopped the rest, and why the last one
    ///   that was not made was not.
    @discardableResult
    public func payOwedTracking(for repository: LikeRepository) throws -> (made: Int, limited: Bool, failure: String?) {
        try payOwedTracking(for: repository, budget: RequestBudget())
    }

    func payOwedTracking(for repository: LikeRepository, budget: RequestBudget) throws -> (made: Int, limited: Bool, failure: String?) {
        var made = 0
        var failure: String?
        for owed in try repository.owedRequests() {
            guard let request = UnsplashAPI.downloadTracking(location: owed.url, accessKey: accessKey, base: base) else {
                try repository.settle(owed)  // no address Unsplash would take: nothing to count
                continue
            }
            let answer: APIAnswer
            do {
                answer = try budget.send(request, client: client)
            } catch let error as PhotoSourceError where error.kind == .rateLimited {
                return (made, true, "the hourly limit is reached")
            } catch {
                return (made, false, "\(error)")
            }
            switch answer.status {
            case 200...299, 404:
                // Counted (or the photo is gone from Unsplash: there is nothing to count).
                try repository.settle(owed)
                made += 1
            case _
            where UnsplashAPI.failure(status: answer.status, rateLimitRemaining: answer.rateLimitRemaining, body: answer.body).kind
                == .rateLimited:
                return (made, true, "the hourly limit is reached")
            default:
                // This one stays owed; the others are asked still (a server's error is about one).
                failure = "HTTP \(answer.status)"
            }
        }
        return (made, budget.exhausted, failure)
    }
}

/// The requests a run has left before the source's limit, as its answers say
/// (`X-Ratelimit-Remaining`): once they say none, no request is sent.
final class RequestBudget: @unchecked Sendable {  // used by one run, on its thread
    private(set) var sent = 0
    private(set) var exhausted = false

    /// Sends `request`, unless the last answer said none is left (then throws `rateLimited`).
    func send(_ request: APIRequest, client: SourceClient) throws -> APIAnswer {
        guard !exhausted else { throw PhotoSourceError(.rateLimited, "The hourly limit of requests is reached.") }
        let answer = try client.send(request)
        sent += 1
        if answer.rateLimitRemaining?.filter({ !$0.isWhitespace }) == "0" { exhausted = true }
        if answer.status == 429 { exhausted = true }
        return answer
    }
}

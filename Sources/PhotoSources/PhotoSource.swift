// What every photo source is: searched, and liked from, the same way by the command line, the
// gallery and an app; sending requests and downloading images is the caller's, through a
// `SourceClient`.

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
    /// `X-Total`, where the answer had it: how many items a listing holds in all.
    public var total: Int?

    /// An answer of `status` with its body.
    public init(status: Int, rateLimitRemaining: String?, body: Data, total: Int? = nil) {
        self.status = status
        self.rateLimitRemaining = rateLimitRemaining
        self.body = body
        self.total = total
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

/// A photo source a person searches and likes from: Unsplash or Flickr, each with its key.
///
/// The gallery and an app ask any source alike: its search options, a page of results, a like.
public protocol PhotoSource: Sendable {
    /// Its name in addresses and commands: `unsplash`, `flickr`.
    var name: String { get }
    /// Its name as people read it.
    var displayName: String { get }
    /// A line its terms ask every application to show beside its results, if any.
    var notice: String? { get }
    /// How its requests are sent and its images downloaded.
    var client: SourceClient { get }
    /// The options its search takes besides the query, each with the values it allows.
    var searchOptions: [SearchOption] { get }
    /// One page of results for `query`, with `options` by name (unknown values are left out).
    ///
    /// - Throws: ``PhotoSourceError``, or the client's error.
    func search(_ query: String, options: [String: String], page: Int, perPage: Int) throws -> SourcePage
    /// Likes the photo `id` from this source into `repository`, with its credit.
    ///
    /// - Throws: ``PhotoSourceError``, `LikeRepositoryError` or the client's error; then nothing
    ///   was stored.
    func like(_ id: PhotoID, into repository: LikeRepository, note: String?, albums: [AlbumName]) throws -> SourceLike
}

extension PhotoSource {
    public var notice: String? { nil }
}

/// An option a source's search takes: its name in requests, a label, the values it allows (the
/// first is the default; an empty one means "any").
public struct SearchOption: Sendable, Hashable {
    /// Its name in requests: `order`, `color`, `sort`.
    public var name: String
    /// Its name as people read it.
    public var label: String
    /// The values it allows, the default first.
    public var values: [String]

    /// An option of these values.
    public init(name: String, label: String, values: [String]) {
        self.name = name
        self.label = label
        self.values = values
    }
}

/// A like made from a source.
public struct SourceLike: Sendable {
    /// The change the like made.
    public var change: LikeChange
    /// Why a request the source asks for after a like (Unsplash's download count) failed, if it
    /// did: the like stands.
    public var trackingFailure: String?
}

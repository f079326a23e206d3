// Unsplash's API (https://unsplash.com/documentation): the search and the photo requests, the
// request its guidelines ask for when a photo is kept, and its answers read.

import LikeKit

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// Requests to Unsplash's API and its answers, read.
///
/// ```swift
/// let request = UnsplashAPI.search("tram lisbon", color: "blue", accessKey: key)
/// // … send it, then:
/// let page = try UnsplashAPI.searchResults(from: body)
/// ```
public enum UnsplashAPI {
    /// Unsplash's API.
    public static let defaultBase = "https://api.unsplash.com"

    /// `order_by` of a search.
    public enum Order: String, Sendable, CaseIterable {
        case relevant, latest
    }

    /// The colours a search can be filtered by, as Unsplash names them.
    public static let colors = ["black_and_white", "black", "white", "yellow", "orange", "red", "purple", "magenta", "green", "teal", "blue"]

    /// `GET /search/photos`: `query`, `page`, `per_page`, `order_by` and, if given, `color`.
    public static func search(
        _ query: String, order: Order = .relevant, color: String? = nil, page: Int = 1, perPage: Int = 10, accessKey: String,
        base: String = defaultBase
    ) -> APIRequest {
        var fields = [("query", query), ("page", String(page)), ("per_page", String(perPage)), ("order_by", order.rawValue)]
        if let color { fields.append(("color", color)) }
        return APIRequest.make(base, "/search/photos", fields, headers: headers(accessKey))
    }

    /// `GET /users/USERNAME/likes`: a page of the photos a person liked, newest first.
    public static func userLikes(_ username: String, page: Int, perPage: Int = 30, accessKey: String, base: String = defaultBase) -> APIRequest {
        APIRequest.make(
            base, "/users/" + APIRequest.escape(username) + "/likes", [("page", String(page)), ("per_page", String(perPage))],
            headers: headers(accessKey))
    }

    /// Reads a page of `GET /users/USERNAME/likes`: a JSON array of photos.
    ///
    /// - Throws: ``PhotoSourceError`` (`malformed`).
    public static func likedPhotos(from data: Data) throws -> [UnsplashPhoto] {
        guard data.first(where: { !$0.isSpace }) == UInt8(ascii: "[") else {
            throw PhotoSourceError(.malformed, "Unsplash's answer is not a list of photos.")
        }
        return try UnsplashPhoto.photos(fromJSON: data)
    }

    /// `GET /photos/ID`.
    public static func photo(_ id: String, accessKey: String, base: String = defaultBase) -> APIRequest {
        APIRequest.make(base, "/photos/" + APIRequest.escape(id), [], headers: headers(accessKey))
    }

    /// The request of a kept photo's `links.download_location`, which Unsplash's guidelines ask
    /// for once a photo is downloaded to be kept; `nil` when the photo has none. An address on
    /// Unsplash's API is asked of `base` instead, so that a stand-in server gets it.
    public static func downloadTracking(_ photo: UnsplashPhoto, accessKey: String, base: String = defaultBase) -> APIRequest? {
        photo.downloadLocation.flatMap { downloadTracking(location: $0, accessKey: accessKey, base: base) }
    }

    /// The request of a `download_location` kept in the store while it was owed.
    public static func downloadTracking(location: String, accessKey: String, base: String = defaultBase) -> APIRequest? {
        var location = location
        guard location.hasPrefix("https://") || location.hasPrefix("http://") else { return nil }
        if base != defaultBase, location.hasPrefix(defaultBase) {
            location = (base.hasSuffix("/") ? String(base.dropLast()) : base) + location.dropFirst(defaultBase.count)
        }
        return APIRequest(url: location, headers: headers(accessKey))
    }

    static func headers(_ accessKey: String) -> [APIRequest.Header] {
        [APIRequest.Header("Authorization", "Client-ID " + accessKey), APIRequest.Header("Accept-Version", "v1")]
    }

    /// A page of search results.
    public struct SearchResults: Sendable {
        /// Photos found in all.
        public var total: Int
        /// Pages in all.
        public var totalPages: Int
        /// This page's photos.
        public var results: [UnsplashPhoto]
    }

    /// Reads a search answer: `{"total", "total_pages", "results": [photo]}`.
    ///
    /// - Throws: ``PhotoSourceError`` (`malformed`).
    public static func searchResults(from data: Data) throws -> SearchResults {
        struct Totals: Decodable {
            var total: Int
            var totalPages: Int
            enum CodingKeys: String, CodingKey {
                case total
                case totalPages = "total_pages"
            }
        }
        do {
            let totals = try JSONDecoder().decode(Totals.self, from: data)
            return SearchResults(total: totals.total, totalPages: totals.totalPages, results: try UnsplashPhoto.photos(fromJSON: data))
        } catch {
            throw PhotoSourceError(.malformed, "Unsplash's answer is not a search result (\(describe(error))).")
        }
    }

    /// Reads a photo answer.
    ///
    /// - Throws: ``PhotoSourceError`` (`malformed`).
    public static func photo(from data: Data) throws -> UnsplashPhoto {
        do {
            guard let photo = try UnsplashPhoto.photos(fromJSON: data).first, data.first == UInt8(ascii: "{") else {
                throw PhotoSourceError(.malformed, "Unsplash's answer is not one photo.")
            }
            return photo
        } catch let error as PhotoSourceError {
            throw error
        } catch {
            throw PhotoSourceError(.malformed, "Unsplash's answer is not a photo (\(describe(error))).")
        }
    }

    /// What a non-2xx answer means: 401 a refused key; 403 with `X-Ratelimit-Remaining: 0`
    /// the hourly limit; 404 no such photo; else the status and Unsplash's own words.
    public static func failure(status: Int, rateLimitRemaining: String?, body: Data) -> PhotoSourceError {
        let words = (try? JSONDecoder().decode([String: [String]].self, from: body))?["errors"]?.joined(separator: "; ")
        let said = words.map { " (\($0))" } ?? ""
        switch status {
        case 401: return PhotoSourceError(.key, "Unsplash answered HTTP 401: it refused the access key\(said); check UNSPLASH_ACCESS_KEY.")
        case 403 where rateLimitRemaining?.filter({ !$0.isWhitespace }) == "0":
            return PhotoSourceError(
                .rateLimited, "Unsplash answered HTTP 403: the hourly limit of requests for this key is reached; try again within the hour.")
        case 429: return PhotoSourceError(.rateLimited, "Unsplash answered HTTP 429: too many requests; try again within the hour.")
        case 404: return PhotoSourceError(.notFound, "Unsplash answered HTTP 404: it has no such photo\(said).")
        default: return PhotoSourceError(.failed, "Unsplash answered HTTP \(status)\(said).")
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? LikeRepositoryError { return error.description }
        if case DecodingError.keyNotFound(let key, _) = error { return "it has no \(key.stringValue)" }
        if case DecodingError.typeMismatch(_, let context) = error {
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type"
        }
        return "it is not the JSON expected"
    }
}

extension UInt8 {
    /// A JSON space: space, tab, line feed or carriage return.
    var isSpace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}

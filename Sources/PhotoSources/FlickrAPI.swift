// Flickr's REST API (https://www.flickr.com/services/api/): search, a photo's information, its
// sizes and the licences' names, asked as JSON, and their answers read. Flickr writes numbers as
// strings or numbers, even within one answer: both are read.

import LikeKit
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// Requests to Flickr's REST API and its answers, read.
///
/// ```swift
/// let request = FlickrAPI.search("tram lisbon", apiKey: key)
/// // … send it, then:
/// let page = try FlickrAPI.searchResults(from: body)
/// ```
public enum FlickrAPI {
    /// Flickr's REST endpoint.
    public static let defaultBase = "https://api.flickr.com/services/rest"

    /// The orders `flickr.photos.search` knows.
    public static let sorts = [
        "relevance", "date-posted-desc", "date-posted-asc", "date-taken-desc", "date-taken-asc", "interestingness-desc", "interestingness-asc",
    ]

    /// `flickr.photos.search` with `text`, `sort`, `page`, `per_page` and `extras`
    /// (`owner_name,license,o_dims,url_m`).
    public static func search(
        _ text: String, sort: String = "relevance", page: Int = 1, perPage: Int = 10, apiKey: String, base: String = defaultBase
    ) -> APIRequest {
        call(
            "flickr.photos.search", apiKey: apiKey, base: base,
            [("text", text), ("sort", sort), ("page", String(page)), ("per_page", String(perPage)), ("extras", "owner_name,license,o_dims,url_m")])
    }

    /// `flickr.photos.getInfo`: the owner, title, licence and page.
    public static func info(_ id: String, apiKey: String, base: String = defaultBase) -> APIRequest {
        call("flickr.photos.getInfo", apiKey: apiKey, base: base, [("photo_id", id)])
    }

    /// `flickr.photos.getSizes`: each size's pixels and address (with the secret of its own).
    public static func sizes(_ id: String, apiKey: String, base: String = defaultBase) -> APIRequest {
        call("flickr.photos.getSizes", apiKey: apiKey, base: base, [("photo_id", id)])
    }

    /// `flickr.photos.licenses.getInfo`: the licences' names by id.
    public static func licenses(apiKey: String, base: String = defaultBase) -> APIRequest {
        call("flickr.photos.licenses.getInfo", apiKey: apiKey, base: base, [])
    }

    /// `flickr.people.findByUsername`: a user name's NSID.
    public static func findUser(_ username: String, apiKey: String, base: String = defaultBase) -> APIRequest {
        call("flickr.people.findByUsername", apiKey: apiKey, base: base, [("username", username)])
    }

    /// `flickr.favorites.getPublicList`: a page of the photos a person starred, newest first,
    /// with the owner's name.
    public static func favorites(ofUser nsid: String, page: Int, perPage: Int = 500, apiKey: String, base: String = defaultBase) -> APIRequest {
        call(
            "flickr.favorites.getPublicList", apiKey: apiKey, base: base,
            [("user_id", nsid), ("page", String(page)), ("per_page", String(perPage)), ("extras", "owner_name")])
    }

    /// Whether `text` is an NSID (`12345678@N01`) rather than a user name.
    public static func isNSID(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[0].allSatisfy(\.isNumber) && parts[1].hasPrefix("N")
            && parts[1].count > 1 && parts[1].dropFirst().allSatisfy(\.isNumber)
    }

    private static func call(_ method: String, apiKey: String, base: String, _ fields: [(String, String)]) -> APIRequest {
        APIRequest.make(base, "", [("method", method), ("api_key", apiKey)] + fields + [("format", "json"), ("nojsoncallback", "1")])
    }

    // MARK: Answers

    /// One search result.
    public struct SearchResult: Sendable, Hashable {
        /// The photo's id.
        public var id: String
        /// Its title.
        public var title: String
        /// `ownername`.
        public var ownerName: String?
        /// `url_m` (when asked in `extras`): a small image for a results page.
        public var smallImageURL: String? = nil
    }

    /// A page of search results.
    public struct SearchResults: Sendable {
        /// Photos found in all.
        public var total: Int
        /// Pages in all.
        public var totalPages: Int
        /// This page's number, from 1.
        public var page: Int
        /// This page's results.
        public var results: [SearchResult]
    }

    /// One size of a photo, from `getSizes`.
    public struct Size: Sendable, Hashable {
        /// Flickr's name of the size: `Large 2048`, `Original`…
        public var label: String
        /// Its pixels across.
        public var width: Int
        /// Its pixels down.
        public var height: Int
        /// The image's address.
        public var source: String
    }

    /// What `getInfo` says of a photo.
    public struct Info: Sendable, Hashable {
        /// The photo's id.
        public var id: String
        /// The owner's user name.
        public var username: String?
        /// The owner's real name, when given.
        public var realname: String?
        /// The photo's title.
        public var title: String?
        /// The photo's description (which may hold HTML).
        public var description: String?
        /// The id of its licence (see ``licenseNames(from:)``).
        public var licenseID: String?
        /// The `photopage` URL.
        public var pageURL: String?
        /// `dates.taken`, when Flickr knows it (`takenunknown` is not 1): the camera's wall-clock
        /// time as Flickr gives it, `2013-01-30 00:18:12`, with no zone.
        public var taken: String? = nil

        /// ``taken`` as a date, its wall-clock time read as UTC (as an Exif date without an
        /// offset is): it then shows as written in every zone.
        public var takenDate: Date? {
            guard let taken, taken.utf8.count == 19 else { return nil }
            return LikeTimestamp.date(from: String(taken.map { $0 == " " ? "T" : $0 }) + "Z")
        }
    }

    /// Reads a `flickr.photos.search` answer.
    ///
    /// - Throws: ``PhotoSourceError``: `key` for a refused key, `malformed`.
    public static func searchResults(from data: Data) throws -> SearchResults {
        let object = try answer(data)
        guard let photos = object["photos"]?.object, let list = photos["photo"]?.objects else {
            throw PhotoSourceError(.malformed, "Flickr's answer is not a search result.")
        }
        let results = list.compactMap { item -> SearchResult? in
            guard let id = text(item["id"]) else { return nil }
            return SearchResult(id: id, title: text(item["title"]) ?? "", ownerName: text(item["ownername"]), smallImageURL: text(item["url_m"]))
        }
        return SearchResults(
            total: number(photos["total"]) ?? results.count, totalPages: number(photos["pages"]) ?? 1, page: number(photos["page"]) ?? 1,
            results: results)
    }

    /// Reads a `flickr.photos.getSizes` answer: its photo sizes (videos left out).
    ///
    /// - Throws: ``PhotoSourceError``.
    public static func sizes(from data: Data) throws -> [Size] {
        let object = try answer(data)
        guard let list = object["sizes"]?.object?["size"]?.objects else {
            throw PhotoSourceError(.malformed, "Flickr's answer is not a list of sizes.")
        }
        return list.compactMap { item in
            guard let label = text(item["label"]), let width = number(item["width"]), let height = number(item["height"]),
                let source = text(item["source"]), text(item["media"]) ?? "photo" == "photo"
            else { return nil }
            return Size(label: label, width: width, height: height, source: source)
        }
    }

    /// The largest size whose long side is at most `longSide`; larger sizes carry secrets of
    /// their own, so addresses are never made up from a search entry.
    public static func largestSize(_ sizes: [Size], longSide: Int = 2048) -> Size? {
        sizes.filter { max($0.width, $0.height) <= longSide && $0.width > 0 && $0.height > 0 }.max { $0.width * $0.height < $1.width * $1.height }
    }

    /// Reads a `flickr.photos.getInfo` answer.
    ///
    /// - Throws: ``PhotoSourceError``: `notFound` for no such photo, `key`, `malformed`.
    public static func info(from data: Data) throws -> Info {
        let object = try answer(data)
        guard let photo = object["photo"]?.object, let id = text(photo["id"]) else {
            throw PhotoSourceError(.malformed, "Flickr's answer is not a photo's information.")
        }
        let owner = photo["owner"]?.object
        let urls = photo["urls"]?.object?["url"]?.objects ?? []
        return Info(
            id: id, username: text(owner?["username"]), realname: text(owner?["realname"]).flatMap { $0.isEmpty ? nil : $0 },
            title: content(photo["title"]), description: content(photo["description"]), licenseID: text(photo["license"]),
            pageURL: urls.first { text($0["type"]) == "photopage" }.flatMap { text($0["_content"]) },
            taken: photo["dates"]?.object.flatMap { dates in text(dates["takenunknown"]) == "1" ? nil : text(dates["taken"]) })
    }

    /// The licences' names by id.
    public static func licenseNames(from data: Data) throws -> [String: String] {
        let object = try answer(data)
        guard let list = object["licenses"]?.object?["license"]?.objects else {
            throw PhotoSourceError(.malformed, "Flickr's answer is not a list of licences.")
        }
        var names: [String: String] = [:]
        for item in list { if let id = text(item["id"]), let name = text(item["name"]) { names[id] = name } }
        return names
    }

    /// What a favorite keeps of a Flickr photo: the owner (real name, else user name) and user
    /// name, the title, the licence's name, the photo's page and when it was taken (as its
    /// `createdAt`, the source's own date).
    public static func metadata(_ info: Info, licenseName: String?, width: Int? = nil, height: Int? = nil) -> PhotoMetadata {
        PhotoMetadata(
            description: info.description.flatMap { $0.isEmpty ? nil : $0 }, photographer: info.realname ?? info.username,
            photographerUsername: info.username, sourceURL: info.pageURL, width: width, height: height, createdAt: info.takenDate,
            photographerURL: info.username.map { "https://www.flickr.com/people/" + APIRequest.escape($0) + "/" }, title: info.title,
            license: licenseName)
    }

    /// A favorite: the photo and when it was starred.
    public struct Favorite: Sendable, Hashable {
        /// The photo's id.
        public var id: String
        /// `date_faved`: when the person starred it.
        public var favedAt: Date?
    }

    /// A page of favorites.
    public struct Favorites: Sendable {
        /// Favorites in all.
        public var total: Int
        /// Pages in all.
        public var totalPages: Int
        /// This page's favorites, newest first.
        public var favorites: [Favorite]
    }

    /// Reads a `flickr.people.findByUsername` answer: the user's NSID.
    ///
    /// - Throws: ``PhotoSourceError``: `notFound` for no such user, `key`, `malformed`.
    public static func userID(from data: Data) throws -> String {
        let object = try answer(data, missing: "user")
        guard let user = object["user"]?.object, let id = text(user["nsid"]) ?? text(user["id"]) else {
            throw PhotoSourceError(.malformed, "Flickr's answer is not a user.")
        }
        return id
    }

    /// Reads a `flickr.favorites.getPublicList` answer.
    ///
    /// - Throws: ``PhotoSourceError``: `notFound` for no such user, `key`, `malformed`.
    public static func favorites(from data: Data) throws -> Favorites {
        let object = try answer(data, missing: "user")
        guard let photos = object["photos"]?.object, let list = photos["photo"]?.objects else {
            throw PhotoSourceError(.malformed, "Flickr's answer is not a list of favorites.")
        }
        let favorites = list.compactMap { item -> Favorite? in
            guard let id = text(item["id"]) else { return nil }
            return Favorite(id: id, favedAt: number(item["date_faved"]).map { Date(timeIntervalSince1970: Double($0)) })
        }
        return Favorites(total: number(photos["total"]) ?? favorites.count, totalPages: number(photos["pages"]) ?? 1, favorites: favorites)
    }

    /// What a non-2xx answer means: 429 the limit of requests, else the status.
    public static func failure(status: Int) -> PhotoSourceError {
        status == 429
            ? PhotoSourceError(.rateLimited, "Flickr answered HTTP 429: too many requests for this key; try again within the hour.")
            : PhotoSourceError(.failed, "Flickr answered HTTP \(status).")
    }

    /// The answer's object; an answer with `"stat": "fail"` throws what it says.
    private static func answer(_ data: Data, missing: String = "photo") throws -> [String: JSONValue] {
        guard let object = (try? JSONDecoder().decode(JSONValue.self, from: data))?.object else {
            throw PhotoSourceError(.malformed, "Flickr's answer is not JSON.")
        }
        if text(object["stat"]) == "fail" {
            let code = number(object["code"]) ?? 0
            let message = text(object["message"]) ?? "no reason given"
            switch code {
            case 100: throw PhotoSourceError(.key, "Flickr refused the API key (\(message)); check FLICKR_API_KEY.")
            case 1: throw PhotoSourceError(.notFound, "Flickr has no such \(missing) (\(message)).")
            case _ where message.lowercased().contains("too many") || message.lowercased().contains("rate limit"):
                throw PhotoSourceError(.rateLimited, "Flickr refused more requests for now (\(message)); try again within the hour.")
            default: throw PhotoSourceError(.failed, "Flickr answered error \(code): \(message).")
            }
        }
        return object
    }

    private static func text(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: text
        case .int(let number)?: String(number)
        default: nil
        }
    }

    private static func number(_ value: JSONValue?) -> Int? {
        switch value {
        case .int(let number)?: number
        case .string(let text)?: Int(text)
        default: nil
        }
    }

    /// `{"_content": …}`, Flickr's way of writing some texts.
    private static func content(_ value: JSONValue?) -> String? {
        text(value?.object?["_content"]) ?? text(value)
    }
}

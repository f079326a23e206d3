// A request to a photo source's API, as data: what to ask and with which headers. Sending it is
// the caller's (the command line uses its download helper; an app, URLSession).

import LikeKit
import LikesSupport

/// One HTTP GET request to a photo source.
public struct APIRequest: Sendable, Hashable {
    /// The full address, its query escaped.
    public var url: String
    /// Header fields to send, in order, such as `Authorization`.
    public var headers: [Header]

    /// One header field.
    public struct Header: Sendable, Hashable {
        /// The field's name, such as `Authorization`.
        public var name: String
        /// Its value.
        public var value: String

        /// A field of `name` and `value`.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A request of `url` with `headers`.
    public init(url: String, headers: [Header] = []) {
        self.url = url
        self.headers = headers
    }

    /// `base` + `path` + the query, each name and value escaped (RFC 3986 unreserved kept).
    static func make(_ base: String, _ path: String, _ query: [(String, String)], headers: [Header] = []) -> APIRequest {
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        let text = query.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
        return APIRequest(url: trimmed + path + (text.isEmpty ? "" : "?" + text), headers: headers)
    }

    static func escape(_ text: String) -> String {
        PercentEscaping.uriComponent.escape(text)
    }
}

/// Why a photo source's answer could not be used: a sentence for people, and its kind.
public struct PhotoSourceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is, for a caller that acts on it.
    public enum Kind: Sendable, Hashable {
        /// The key is missing, malformed or refused.
        case key
        /// The hourly limit of requests is reached (Unsplash: 403 with `X-Ratelimit-Remaining: 0`).
        case rateLimited
        /// No such photo.
        case notFound
        /// Another HTTP status, or an API error code.
        case failed
        /// The answer is not the JSON the API documents.
        case malformed
    }

    /// Its kind.
    public var kind: Kind
    /// One sentence: what went wrong.
    public var description: String

    /// A failure of `kind`, told by `description`.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

// Where a liked photo came from, as its metadata says, and the links that credit it as its source
// asks: Unsplash wants `utm_source=…&utm_medium=referral` on every link back to it.

import LikeStore
import LikesSupport

/// The source a photo was liked from, told by the address of its page.
package enum PhotoOrigin: String, Sendable, CaseIterable {
    case unsplash
    case flickr

    /// The source of `photo`, when its page is on Unsplash or Flickr.
    package init?(_ photo: PhotoMetadata?) {
        guard let host = photo?.sourceURL.flatMap(Self.host) else { return nil }
        if host == "unsplash.com" || host.hasSuffix(".unsplash.com") {
            self = .unsplash
        } else if host == "flickr.com" || host.hasSuffix(".flickr.com") || host == "flic.kr" {
            self = .flickr
        } else {
            return nil
        }
    }

    /// Its name as people read it.
    package var name: String { self == .unsplash ? "Unsplash" : "Flickr" }

    /// The referral parameters Unsplash's guidelines ask of links back to it.
    package static let unsplashReferral = "utm_source=likes&utm_medium=referral"

    /// `link` as it is to be given: with Unsplash's referral parameters when it leads there.
    package static func referral(_ link: String) -> String {
        guard let host = host(of: link), host == "unsplash.com" || host.hasSuffix(".unsplash.com"), !link.contains("utm_source=") else {
            return link
        }
        return link + (link.contains("?") ? "&" : "?") + unsplashReferral
    }

    /// The host of an address (`scheme://host/…`), in lower case; `nil` without a scheme. Read
    /// by hand: the gallery asks it of every photo of every page it serves.
    static func host(of link: String) -> String? {
        guard let start = link.utf8.firstRange(of: "://".utf8)?.upperBound else { return nil }
        let host = link.utf8[start...].prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        return String(decoding: host, as: UTF8.self).lowercased()
    }

    /// The photographer's page: on Unsplash by their username, on Flickr as the photo keeps it.
    package func photographerPage(_ photo: PhotoMetadata?) -> String? {
        switch self {
        case .unsplash:
            guard let username = photo?.photographerUsername, !username.isEmpty else { return photo?.photographerURL.map(Self.referral) }
            return Self.referral("https://unsplash.com/@" + PercentEscaping.uriComponent.escape(username))
        case .flickr:
            return photo?.photographerURL
        }
    }
}

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
        guard let page = photo?.sourceURL?.lowercased() else { return nil }
        let host = page.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init) ?? ""
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
        guard let host = link.lowercased().split(separator: "/").dropFirst().first, host == "unsplash.com" || host.hasSuffix(".unsplash.com"),
            !link.contains("utm_source=")
        else { return link }
        return link + (link.contains("?") ? "&" : "?") + unsplashReferral
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

// What is known about a liked photo besides its pixels: who took it, what it shows, where from;
// the store's StoredPhoto, made public.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// Optional metadata of a liked photo, as a photo source such as Unsplash gives it.
///
/// Every property is optional; a property that is `nil` is written as JSON `null`.
public struct PhotoMetadata: Sendable, Hashable, Codable {
    /// The photo's description (Unsplash: `description`, else `alt_description`).
    public var description: String?
    /// The photographer's display name.
    public var photographer: String?
    /// The photographer's user name at the source.
    public var photographerUsername: String?
    /// The photo's dominant colour as a hex string such as `#60544D`.
    public var color: String?
    /// The photo's page at its source.
    public var sourceURL: String?
    /// The width of the original photo in pixels.
    public var width: Int?
    /// The height of the original photo in pixels.
    public var height: Int?
    /// When the photo was published at its source.
    public var createdAt: Date?
    /// The photographer's page at the source (Unsplash: `user.links.html`), for the credit's link.
    public var photographerURL: String?
    /// The photo's title (Flickr).
    public var title: String?
    /// The name of the photo's licence (Flickr: as `flickr.photos.licenses.getInfo` names it).
    public var license: String?

    /// Creates metadata; every argument defaults to `nil`.
    public init(
        description: String? = nil, photographer: String? = nil, photographerUsername: String? = nil,
        color: String? = nil, sourceURL: String? = nil, width: Int? = nil, height: Int? = nil, createdAt: Date? = nil,
        photographerURL: String? = nil, title: String? = nil, license: String? = nil
    ) {
        self.description = description
        self.photographer = photographer
        self.photographerUsername = photographerUsername
        self.color = color
        self.sourceURL = sourceURL
        self.width = width
        self.height = height
        self.createdAt = createdAt
        self.photographerURL = photographerURL
        self.title = title
        self.license = license
    }

    /// Decodes metadata; `createdAt` is an ISO 8601 string.
    public init(from decoder: any Decoder) throws {
        self.init(try StoredPhoto(from: decoder))
    }

    /// Encodes every property, `nil` ones as `null` (but the attribution a source adds,
    /// `photographerURL`, `title` and `license`, only when set), dates as ISO 8601 with
    /// milliseconds.
    public func encode(to encoder: any Encoder) throws {
        try stored.encode(to: encoder)
    }

    /// Metadata as a record keeps it.
    init(_ stored: StoredPhoto) {
        self.init(
            description: stored.description, photographer: stored.photographer, photographerUsername: stored.photographerUsername,
            color: stored.color, sourceURL: stored.sourceURL, width: stored.width, height: stored.height, createdAt: stored.createdAt,
            photographerURL: stored.photographerURL, title: stored.title, license: stored.license)
    }

    /// The metadata in the form a record keeps.
    var stored: StoredPhoto {
        StoredPhoto(
            description: description, photographer: photographer, photographerUsername: photographerUsername, color: color,
            sourceURL: sourceURL, width: width, height: height, createdAt: createdAt, photographerURL: photographerURL, title: title,
            license: license)
    }
}

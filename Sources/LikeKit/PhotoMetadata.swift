// What is known about a liked photo besides its pixels: who took it, what it shows, where from.

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

    enum CodingKeys: String, CodingKey {
        case description, photographer, photographerUsername, color, sourceURL, width, height, createdAt, photographerURL, title, license
    }

    /// Decodes metadata; `createdAt` is an ISO 8601 string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        photographer = try container.decodeIfPresent(String.self, forKey: .photographer)
        photographerUsername = try container.decodeIfPresent(String.self, forKey: .photographerUsername)
        color = try container.decodeIfPresent(String.self, forKey: .color)
        sourceURL = try container.decodeIfPresent(String.self, forKey: .sourceURL)
        width = try container.decodeIfPresent(Int.self, forKey: .width)
        height = try container.decodeIfPresent(Int.self, forKey: .height)
        photographerURL = try container.decodeIfPresent(String.self, forKey: .photographerURL)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        license = try container.decodeIfPresent(String.self, forKey: .license)
        if let text = try container.decodeIfPresent(String.self, forKey: .createdAt) {
            guard let milliseconds = Timestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(forKey: .createdAt, in: container, debugDescription: "not an ISO 8601 date: \(text)")
            }
            createdAt = Timestamp.date(milliseconds)
        }
    }

    /// Encodes every property, `nil` ones as `null` (but the attribution a source adds,
    /// `photographerURL`, `title` and `license`, only when set), dates as ISO 8601 with
    /// milliseconds.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    /// Merges `other` over `self`: each property `other` sets replaces the one here.
    func merging(_ other: PhotoMetadata) -> PhotoMetadata {
        PhotoMetadata(
            description: other.description ?? description, photographer: other.photographer ?? photographer,
            photographerUsername: other.photographerUsername ?? photographerUsername, color: other.color ?? color,
            sourceURL: other.sourceURL ?? sourceURL, width: other.width ?? width, height: other.height ?? height,
            createdAt: other.createdAt ?? createdAt, photographerURL: other.photographerURL ?? photographerURL, title: other.title ?? title,
            license: other.license ?? license)
    }
}

// What a record keeps about a photo besides its pixels, in the record file's own JSON form: who
// took it, what it shows, where it is from. The façade's PhotoMetadata is this, made public.

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// A record's `photo` member: every property optional, written as `null` when `nil` (but a
/// source's attribution, `photographerURL`, `title` and `license`, only when set).
package struct StoredPhoto: Codable, Hashable, Sendable {
    package var description: String?
    package var photographer: String?
    package var photographerUsername: String?
    /// A hex colour such as `#60544D`, as the source gave it.
    package var color: String?
    package var sourceURL: String?
    package var width: Int?
    package var height: Int?
    package var createdAt: Date?
    package var photographerURL: String?
    package var title: String?
    package var license: String?

    package init(
        description: String?, photographer: String?, photographerUsername: String?, color: String?, sourceURL: String?, width: Int?,
        height: Int?, createdAt: Date?, photographerURL: String?, title: String?, license: String?
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

    /// Decodes the member; `createdAt` is an ISO 8601 string.
    package init(from decoder: any Decoder) throws {
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

    package func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    /// The member as JSON: the one definition of its shape, which the record file, the export
    /// and the command line's output share.
    package var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("description", .string(description)), ("photographer", .string(photographer)),
            ("photographerUsername", .string(photographerUsername)), ("color", .string(color)), ("sourceURL", .string(sourceURL)),
            ("width", .int(width)), ("height", .int(height)), ("createdAt", createdAt.map { .string(Timestamp.string($0)) } ?? .null),
        ]
        if let photographerURL { members.append(("photographerURL", .string(photographerURL))) }
        if let title { members.append(("title", .string(title))) }
        if let license { members.append(("license", .string(license))) }
        return .object(members)
    }

    /// `other` over `self`: each property `other` sets replaces the one here.
    func merging(_ other: StoredPhoto) -> StoredPhoto {
        StoredPhoto(
            description: other.description ?? description, photographer: other.photographer ?? photographer,
            photographerUsername: other.photographerUsername ?? photographerUsername, color: other.color ?? color,
            sourceURL: other.sourceURL ?? sourceURL, width: other.width ?? width, height: other.height ?? height,
            createdAt: other.createdAt ?? createdAt, photographerURL: other.photographerURL ?? photographerURL, title: other.title ?? title,
            license: other.license ?? license)
    }
}

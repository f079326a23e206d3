// The JSON shapes of a record, its images and its metadata: the one definition, which LikeKit's
// Codable encoding of those types goes through and the command line renders.

import LikeStore
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension JSONValue {
    package static func date(_ value: Date?) -> JSONValue { value.map { .string(LikeTimestamp.string(from: $0)) } ?? .null }
}

extension LikeRecord {
    /// The record's JSON shape (see ``LikeRecord``), `file` an absolute path.
    package var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(id.rawValue)), ("likedAt", .date(likedAt)), ("image", image.json), ("userImage", userImage?.json ?? .null),
            ("thumbnail", thumbnail?.json ?? .null),
            ("note", .string(note)), ("photo", photo?.json ?? .null), ("albums", .strings(albums.map(\.rawValue))),
        ]
        // Only where a cover was chosen: most records have none.
        if !covers.isEmpty { members.append(("covers", .strings(covers.map(\.rawValue)))) }
        members += [
            ("exif", exif?.json ?? .null), ("color", .string(color)), ("colorFrom", .string(colorSource?.rawValue)), ("takenAt", .date(takenAt)),
            ("takenFrom", .string(takenSource.rawValue)),
        ]
        return .object(members)
    }
}

extension StoredImage {
    /// `{"file", "bytes", "width", "height", "orientation"}`, `file` an absolute path.
    package var json: JSONValue {
        .object([
            ("file", .string(path)), ("bytes", .int(byteCount)), ("width", .int(width)), ("height", .int(height)),
            ("orientation", .int(orientation)),
        ])
    }
}

extension PhotoMetadata {
    /// Every property, `nil` ones as `null` (the source's attribution only when set), dates as
    /// ISO 8601 with milliseconds: the record file's own shape.
    package var json: JSONValue { stored.json }
}

extension Optional where Wrapped == LikeRecord {
    package var json: JSONValue { map(\.json) ?? .null }
}

// Owns what one device tells the others: a change to one photo, stamped, with the fields it gives.
// Written one per line in a device's change files (SyncFolder) and folded by PhotoHistory.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// An image as a change names it: by the SHA-256 of its bytes, which is also its file name in
/// the folder, and its length.
package struct ImageReference: Sendable, Hashable, Codable {
    package var sha256: String
    package var bytes: Int

    package init(sha256: String, bytes: Int) {
        self.sha256 = sha256
        self.bytes = bytes
    }

    /// Whether `sha256` is 64 lower-case hex digits: only such a name is ever a file name.
    var isWellFormed: Bool {
        sha256.utf8.count == 64 && sha256.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) } && bytes > 0
    }
}

/// One change to one photo, made by one device at one stamp.
///
/// A field that is `nil` is not given; one given as `.some(nil)` is cleared. In the folder's JSON
/// a field not given is absent, a cleared one `null`.
package struct SyncChange: Sendable, Hashable {
    package enum Kind: String, Sendable, Hashable, Codable {
        /// A like: of a photo not liked, it starts a liked period (and needs an image); of a
        /// liked one, it updates what it gives.
        case like
        /// A change of note, albums or metadata: void for a photo not liked at its stamp.
        case edit
        /// An unlike: the period ends, with its images, note and albums.
        case unlike
    }

    package var id: String
    package var stamp: Stamp
    package var kind: Kind
    /// For a like: the date it gives the photo when it starts a period (a restored like keeps
    /// its first date), in milliseconds.
    package var likedAt: Int64?
    package var image: ImageReference?
    package var userImage: ImageReference??
    package var note: String??
    /// Album memberships the change decides, by album name: `true` puts the photo in the album,
    /// `false` takes it out. Each membership is decided by its own last change (SPEC §13), so
    /// two devices filing one photo into two albums leave it in both. In the folder's JSON an
    /// object; a list (written by the version before) puts the photo in each album it names.
    package var albums: [String: Bool]?
    /// Choices of cover the change decides, by album name: `true` makes the photo the album's
    /// chosen cover, `false` takes that back. Each decided by its own last change, as a
    /// membership is; the newest choice among an album's photos is its cover.
    package var covers: [String: Bool]?
    /// The photo's metadata as compact JSON text.
    package var photo: String??

    package init(
        id: String, stamp: Stamp, kind: Kind, likedAt: Int64? = nil, image: ImageReference? = nil, userImage: ImageReference?? = nil,
        note: String?? = nil, albums: [String: Bool]? = nil, covers: [String: Bool]? = nil, photo: String?? = nil
    ) {
        self.id = id
        self.stamp = stamp
        self.kind = kind
        self.likedAt = likedAt
        self.image = image
        self.userImage = userImage
        self.note = note
        self.albums = albums
        self.covers = covers
        self.photo = photo
    }

    /// The parts of an edit a later change can give again: `note`, `photo`, `album:NAME` for
    /// each membership and `cover:NAME` for each choice of cover.
    var editParts: [String] {
        (note == nil ? [] : ["note"]) + (photo == nil ? [] : ["photo"]) + (albums ?? [:]).keys.map { "album:" + $0 }
            + (covers ?? [:]).keys.map { "cover:" + $0 }
    }

    /// The edit without the parts in `parts`; `nil` when it gives nothing then.
    func editWithout(_ parts: Set<String>) -> SyncChange? {
        var trimmed = self
        if parts.contains("note") { trimmed.note = nil }
        if parts.contains("photo") { trimmed.photo = nil }
        if let albums {
            let kept = albums.filter { !parts.contains("album:" + $0.key) }
            trimmed.albums = kept.isEmpty ? nil : kept
        }
        if let covers {
            let kept = covers.filter { !parts.contains("cover:" + $0.key) }
            trimmed.covers = kept.isEmpty ? nil : kept
        }
        return trimmed.note == nil && trimmed.photo == nil && trimmed.albums == nil && trimmed.covers == nil ? nil : trimmed
    }

    /// The images the change needs in the folder before it can be merged.
    package var images: [ImageReference] {
        [image, userImage ?? nil].compactMap { $0 }
    }
}

extension SyncChange: Codable {
    enum CodingKeys: String, CodingKey { case id, stamp, kind, likedAt, image, userImage, note, albums, covers, photo }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        let text = try container.decode(String.self, forKey: .stamp)
        guard let stamp = Stamp(text) else {
            throw DecodingError.dataCorruptedError(forKey: .stamp, in: container, debugDescription: "not a stamp: \(text)")
        }
        self.stamp = stamp
        kind = try container.decode(Kind.self, forKey: .kind)
        likedAt = try container.decodeIfPresent(Int64.self, forKey: .likedAt)
        image = try container.decodeIfPresent(ImageReference.self, forKey: .image)
        userImage = try Self.given(container, .userImage)
        note = try Self.given(container, .note)
        if let memberships = try? container.decodeIfPresent([String: Bool].self, forKey: .albums) {
            albums = memberships
        } else if let names = try container.decodeIfPresent([String].self, forKey: .albums) {
            albums = Dictionary(names.map { ($0, true) }, uniquingKeysWith: { first, _ in first })
        }
        covers = try container.decodeIfPresent([String: Bool].self, forKey: .covers)
        photo = try Self.given(container, .photo)
        for reference in images where !reference.isWellFormed {
            throw DecodingError.dataCorruptedError(forKey: .image, in: container, debugDescription: "not an image reference")
        }
    }

    /// Absent: not given; `null`: cleared; a value: set.
    private static func given<Value: Decodable>(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Value?? {
        guard container.contains(key) else { return nil }
        if try container.decodeNil(forKey: key) { return .some(nil) }
        return .some(try container.decode(Value.self, forKey: key))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(stamp.description, forKey: .stamp)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(likedAt, forKey: .likedAt)
        try container.encodeIfPresent(image, forKey: .image)
        try Self.encodeGiven(userImage, &container, .userImage)
        try Self.encodeGiven(note, &container, .note)
        try container.encodeIfPresent(albums, forKey: .albums)
        try container.encodeIfPresent(covers, forKey: .covers)
        try Self.encodeGiven(photo, &container, .photo)
    }

    private static func encodeGiven<Value: Encodable>(_ value: Value??, _ container: inout KeyedEncodingContainer<CodingKeys>, _ key: CodingKeys)
        throws
    {
        switch value {
        case .none: break
        case .some(.none): try container.encodeNil(forKey: key)
        case .some(.some(let set)): try container.encode(set, forKey: key)
        }
    }
}

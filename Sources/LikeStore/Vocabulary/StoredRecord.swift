// Owns the content of a record file as written to disk: no absolute paths, only generations and
// checksums. Read and written by RecordFiles; the façade turns it into a public LikeRecord.

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// The content of `records/KEY.json`.
///
/// Image files are named by the record's key and each image's generation, so the file holds no
/// path at all: a store moved as a whole keeps working, and a tampered record cannot point
/// outside the store.
package struct StoredRecord: Codable, Hashable, Sendable {
    /// One of the photo's images: its file is `images/KEY~GENERATION.jpg` (`.user.jpg` for the
    /// photographer's picture).
    package struct Image: Codable, Hashable, Sendable {
        package var generation: String
        package var bytes: Int
        package var width: Int
        package var height: Int
        /// CRC-32 of the bytes as liked, as 8 hex digits: lets `verify` prove them unchanged.
        package var crc32: String
        /// Exif's orientation, 1–8 (`width` and `height` are as displayed); `nil` in a record
        /// written before it was read, whose facts (orientation, colour, camera) are read later
        /// (see ``Store/readImageFacts(until:)``).
        package var orientation: Int?
        /// The mean colour of the photo's pixels (six lower-case hex digits), for a main image
        /// whose source gave no colour when it was liked.
        package var color: String?
        /// What the camera wrote in Exif; `nil` when the file has none.
        package var exif: StoredExif?

        package init(generation: String, bytes: Int, width: Int, height: Int, crc32: String) {
            self.generation = generation
            self.bytes = bytes
            self.width = width
            self.height = height
            self.crc32 = crc32
        }

        /// Whether both name the same bytes: what was drawn from them (orientation, colour,
        /// camera facts, learnt later for a photo liked before they were kept) aside.
        func isSameFile(as other: Image) -> Bool {
            generation == other.generation && bytes == other.bytes && crc32 == other.crc32
        }
    }

    /// A photo's camera facts (JPEGCodec's `CameraFacts`) as a record file keeps them: numbers as
    /// the text they are shown as, so that a record says them as the camera wrote them.
    package struct StoredExif: Codable, Hashable, Sendable {
        package var make: String?
        package var model: String?
        package var lens: String?
        package var focalLength: String?
        package var fNumber: String?
        package var exposureTime: String?
        package var iso: Int?
        package var takenAt: String?

        package init() {}

        /// Every member that has a value, for the record writer.
        var json: JSONValue {
            let texts: [(String, String?)] = [
                ("make", make), ("model", model), ("lens", lens), ("focalLength", focalLength), ("fNumber", fNumber),
                ("exposureTime", exposureTime), ("takenAt", takenAt),
            ]
            var members = texts.compactMap { name, value in value.map { (name, JSONValue.string($0)) } }
            if let iso { members.append(("iso", .int(iso))) }
            return .object(members)
        }
    }

    var format = 1
    /// The photo's id as it was liked (see ``Names/id(_:)``).
    package var id: String
    /// A fresh token per write of the record.
    package var generation: String
    /// When the photo was first liked, in milliseconds since 1970.
    package var likedAt: Int64
    package var image: Image
    package var userImage: Image?
    package var note: String?
    package var photo: StoredPhoto?
    /// The albums the photo is in, in NFC, byte order and without duplicates; left out of the
    /// file when none.
    package var albums: [String]
    /// The albums whose chosen cover the photo is, each one of ``albums``, in the same order;
    /// left out of the file when none. An album has at most one such photo once a choice was
    /// made where every other was seen; two devices choosing at once leave two, and the newer
    /// choice (by its `cover:` stamp) is the cover.
    package var covers: [String] = []
    /// What the update that wrote this record changed, so that observers in other processes can
    /// say it (empty when it touched none of the parts: facts read later from its image file);
    /// `nil` (left out of the file) after a first like, a repair or an older version.
    package var changed: [RecordField]?
    /// When each part of the photo last changed, for syncing with other devices (see
    /// ``RecordStamps``); `nil` (left out of the file) in records written before stamps were kept.
    package var stamps: RecordStamps?

    enum CodingKeys: String, CodingKey { case format, id, generation, likedAt, image, userImage, note, photo, albums, covers, changed, stamps }

    package init(
        id: String, generation: String, likedAt: Int64, image: Image, userImage: Image?, note: String?, photo: StoredPhoto?,
        albums: [String] = []
    ) {
        self.id = id
        self.generation = generation
        self.likedAt = likedAt
        self.image = image
        self.userImage = userImage
        self.note = note
        self.photo = photo
        self.albums = Names.canonicalAlbums(albums)
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decode(Int.self, forKey: .format)
        guard format == 1 else {
            throw DecodingError.dataCorruptedError(forKey: .format, in: container, debugDescription: "unknown record format \(format)")
        }
        let id = try container.decode(String.self, forKey: .id)
        if let problem = Names.problem(with: id, maximumByteCount: Names.maximumIDByteCount) {
            throw DecodingError.dataCorruptedError(
                forKey: .id, in: container, debugDescription: "Invalid photo id \(MessageText.quoted(id)): \(problem).")
        }
        self.id = id
        generation = try container.decode(String.self, forKey: .generation)
        let text = try container.decode(String.self, forKey: .likedAt)
        guard let likedAt = Timestamp.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: .likedAt, in: container, debugDescription: "not an ISO 8601 date: \(text)")
        }
        self.likedAt = likedAt
        image = try container.decode(Image.self, forKey: .image)
        userImage = try container.decodeIfPresent(Image.self, forKey: .userImage)
        note = try container.decodeIfPresent(String.self, forKey: .note)
        photo = try container.decodeIfPresent(StoredPhoto.self, forKey: .photo)
        var albums: [String] = []
        for name in try container.decodeIfPresent([String].self, forKey: .albums) ?? [] {
            guard let album = Names.album(name) else {
                let problem = Names.problem(with: Names.albumForm(name), maximumByteCount: Names.maximumAlbumByteCount) ?? ""
                throw DecodingError.dataCorruptedError(
                    forKey: .albums, in: container, debugDescription: "Invalid album name \(MessageText.quoted(name)): \(problem).")
            }
            albums.append(album)
        }
        self.albums = Names.canonicalAlbums(albums)
        let covers = try container.decodeIfPresent([String].self, forKey: .covers) ?? []
        guard covers.allSatisfy(self.albums.contains) else {
            throw DecodingError.dataCorruptedError(forKey: .covers, in: container, debugDescription: "a cover of an album the photo is not in")
        }
        self.covers = Names.canonicalAlbums(covers)
        // Names a later version may add are passed over.
        changed = try container.decodeIfPresent([String].self, forKey: .changed).map { $0.compactMap(RecordField.init(rawValue:)) }
        stamps = try container.decodeIfPresent([String: String].self, forKey: .stamps).map(RecordStamps.init(read:))
        for value in [generation, image.generation, userImage?.generation].compactMap({ $0 }) where !Generation.isValid(value) {
            throw DecodingError.dataCorruptedError(forKey: .generation, in: container, debugDescription: "malformed generation \(value)")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(id, forKey: .id)
        try container.encode(generation, forKey: .generation)
        try container.encode(Timestamp.string(likedAt), forKey: .likedAt)
        try container.encode(image, forKey: .image)
        try container.encode(userImage, forKey: .userImage)
        try container.encode(note, forKey: .note)
        try container.encode(photo, forKey: .photo)
        if !albums.isEmpty { try container.encode(albums, forKey: .albums) }
        if !covers.isEmpty { try container.encode(covers, forKey: .covers) }
        // Empty for an update that touched no part (what was read from the image file, later).
        if let changed { try container.encode(changed, forKey: .changed) }
        if let stamps, !stamps.values.isEmpty { try container.encode(stamps.written, forKey: .stamps) }
    }

    /// The parts of the photo that differ between `earlier` and this record.
    func fields(changedSince earlier: StoredRecord) -> [RecordField] {
        var fields: [RecordField] = []
        if !image.isSameFile(as: earlier.image) { fields.append(.image) }
        if userImage.map({ earlier.userImage.map($0.isSameFile) != true }) ?? (earlier.userImage != nil) { fields.append(.userImage) }
        if note != earlier.note { fields.append(.note) }
        if albums != earlier.albums || covers != earlier.covers { fields.append(.albums) }
        if photo != earlier.photo { fields.append(.photo) }
        return fields
    }

    /// The parts a first like of this record sets.
    var likedFields: Set<RecordField> {
        var fields: Set<RecordField> = [.image]
        if userImage != nil { fields.insert(.userImage) }
        if note != nil { fields.insert(.note) }
        if !albums.isEmpty { fields.insert(.albums) }
        if photo != nil { fields.insert(.photo) }
        return fields
    }

    package var key: String { StorageKey.make(for: id) }
    package var listingKey: ListingKey { ListingKey(likedAt: likedAt, key: key) }
    package var totalBytes: Int { image.bytes + (userImage?.bytes ?? 0) }

    var imageFileNames: [String] {
        var names = [StoreLayout.imageFileName(key, image.generation, user: false)]
        if let userImage { names.append(StoreLayout.imageFileName(key, userImage.generation, user: true)) }
        return names
    }

    var liveEntry: LiveEntry {
        LiveEntry(
            key: key, generation: generation, likedAt: likedAt, bytes: Int64(totalBytes),
            imageGeneration: image.generation, userImageGeneration: userImage?.generation, albums: albums,
            covers: covers, catalog: CatalogFields(record: self))
    }

    /// The record file's content, by ``RecordWriter``: what `JSONEncoder` writes of ``encode(to:)``
    /// with sorted keys and slashes as they are.
    package func encoded() -> Data {
        RecordWriter.encode(self)
    }

    /// Reads a record file: the form this version writes by ``RecordReader``, anything else
    /// (and damage, which it names) by JSONDecoder.
    package static func decode(_ data: Data) throws -> StoredRecord {
        if let record = RecordReader.record(in: data) { return record }
        return try JSONDecoder().decode(StoredRecord.self, from: data)
    }

    /// As the `Data` overload decodes, from bytes read for a page: `Data` is made only for
    /// JSONDecoder.
    static func decode(_ bytes: [UInt8]) throws -> StoredRecord {
        if let record = bytes.withUnsafeBufferPointer(RecordReader.record(in:)) { return record }
        return try JSONDecoder().decode(StoredRecord.self, from: Data(bytes))
    }
}

/// A part of a photo a change can touch.
/// When each part of a liked photo last changed: the period's start (`liked`) and each field,
/// kept in the record and written in the same commit as the change.
///
/// A value is `MILLIS` for a change this store made (at that wall-clock time; the sync that
/// publishes it stamps it as this device's), or a whole stamp `MILLIS.COUNTER.DEVICE` for one
/// merged from another device, so that a merged value is never taken for a local change.
package struct RecordStamps: Sendable, Hashable {
    /// By part: `liked`, then ``RecordField``'s names.
    package private(set) var values: [String: String]

    package static let liked = StampedPart.liked
    /// Only in the record a `U` line keeps of a photo unliked by a sync: the stamp of the
    /// other device's unlike, so that observers elsewhere know where the unlike came from.
    package static let unliked = "unliked"

    package init() { values = [:] }

    /// Every part: the period's start, then each field.
    package static let parts = StampedPart.all

    /// Reads a record's stamps, passing over parts and values this version does not know; a part
    /// left out has the period's stamp (see ``written``).
    package init(read values: [String: String]) {
        self.init(read: values.map { ($0.key, $0.value) })
    }

    /// Reads a record's stamps from its parts and their stamps, each part once.
    package init(read pairs: [(String, String)]) {
        // Made at its full size at once: growing it part by part rehashed it four times a record.
        var kept = [String: String](minimumCapacity: Self.parts.count + 1)
        // Every part has the period's stamp, then those given their own: no part looked up.
        if let liked = pairs.first(where: { $0.0 == Self.liked && Self.isStamp($0.1) })?.1 {
            for part in Self.parts { kept[part] = liked }
        }
        for (part, stamp) in pairs
        where part != Self.liked && (part == Self.unliked || Self.parts.contains(part) || Self.isOwnPart(part)) && Self.isStamp(stamp) {
            kept[part] = stamp
        }
        self.values = kept
    }

    /// The stamps as a record file keeps them: one of the period's parts changed with its start
    /// is left out (a first like's stamps are one value); an album's or a like's part never is.
    package var written: [String: String] {
        guard let liked = values[Self.liked] else { return values }
        return values.filter { $0.key == Self.liked || $0.value != liked || Self.isOwnPart($0.key) }
    }

    // MARK: Memberships and likes

    /// The stamp of a part this store never gave in the photo's liked period: a like that
    /// starts a period stamps so what it did not give (a note, a user image, metadata), so that
    /// a sync publishes that like giving only what it gave.
    package static let neverGiven = "0"

    /// The part of one album's membership (`album:` and the name's UTF-8 bytes in hex): stamped
    /// by the change that last put the photo in that album or took it out, so that each
    /// membership is decided by its own last change (SPEC §13). In the album while the record's
    /// `albums` holds the name.
    package static func album(_ name: String) -> String {
        StampedPart.album(name)
    }

    /// The album a part names, or `nil` for another part.
    package static func albumName(ofPart part: String) -> String? {
        StampedPart.albumName(ofPart: part)
    }

    /// The part of a like this store made of the photo while it was liked (`like@MILLIS`): a like
    /// is a like wherever its change goes (an unlike made before it on another device makes it
    /// the start of a period), so each one until a sync publishes it is kept, the newest
    /// ``likesKept``.
    package static func like(at milliseconds: Int64) -> String {
        "like@" + String(milliseconds)
    }

    /// The time a like's part names, or `nil` for another part.
    package static func likeTime(ofPart part: String) -> Int64? {
        part.hasPrefix("like@") ? Int64(part.dropFirst(5)) : nil
    }

    /// The most parts of likes a record keeps: likes of one liked photo between two syncs.
    static let likesKept = 32

    /// The part of an album's chosen cover (see ``StampedPart/cover(_:)``).
    package static func cover(_ name: String) -> String {
        StampedPart.cover(name)
    }

    /// The album whose cover a part names, or `nil` for another part.
    package static func coverName(ofPart part: String) -> String? {
        StampedPart.coverName(ofPart: part)
    }

    /// Whether `part` is an album's, a cover's or a like's part.
    static func isOwnPart(_ part: String) -> Bool {
        part.hasPrefix("album:") || part.hasPrefix("cover:") || part.hasPrefix("like@")
    }

    /// Keeps the newest ``likesKept`` parts of likes.
    mutating func keepNewestLikes() {
        let likes = values.keys.compactMap { part in Self.likeTime(ofPart: part).map { (part, $0) } }
        guard likes.count > Self.likesKept else { return }
        for (part, _) in likes.sorted(by: { $0.1 > $1.1 }).dropFirst(Self.likesKept) { values[part] = nil }
    }

    package subscript(_ part: String) -> String? { values[part] }

    /// The device a stamp names (`MILLIS.COUNTER.DEVICE`); `nil` for this store's own (`MILLIS`).
    package static func device(of stamp: String) -> String? {
        let parts = stamp.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 3 ? String(parts[2]) : nil
    }

    /// The same stamps with `part` stamped `stamp`.
    package func setting(_ part: String, to stamp: String) -> RecordStamps {
        var stamps = self
        stamps.values[part] = stamp
        return stamps
    }

    /// Stamps `parts` with `stamp`.
    mutating func set(_ parts: some Sequence<String>, to stamp: String) {
        for part in parts { values[part] = stamp }
    }

    /// `MILLIS` or `MILLIS.COUNTER.DEVICE`.
    package static func isStamp(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            // Byte by byte: a split into substrings made an array for every stamp of every record read.
            func digits(from start: Int) -> Int {
                var end = start
                while end < bytes.count, (0x30...0x39).contains(bytes[end]) { end += 1 }
                return end
            }
            let millisEnd = digits(from: 0)
            guard millisEnd > 0, millisEnd <= 16 else { return false }
            if millisEnd == bytes.count { return true }
            let counterEnd = digits(from: millisEnd + 1)
            guard bytes[millisEnd] == UInt8(ascii: "."), counterEnd > millisEnd + 1, counterEnd < bytes.count,
                bytes[counterEnd] == UInt8(ascii: "."), bytes.count - counterEnd - 1 == 16
            else { return false }
            return !bytes[(counterEnd + 1)...].contains(UInt8(ascii: "."))
        }
    }
}

package enum RecordField: String, Sendable, Hashable, Codable, CaseIterable {
    case image
    case userImage
    case note
    case albums
    case photo
}

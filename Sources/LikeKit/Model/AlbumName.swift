// A validated album name, and the rules for a photo's note.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// The name of an album: a named group of liked photos, such as `Trip to Lisbon`.
///
/// A name is valid on the same terms as a ``PhotoID``: any non-empty string of at most 256 UTF-8
/// bytes with no control characters. It is kept in its NFC form, so the two spellings of
/// `Café` name one album. Names compare by their UTF-8 bytes (the order a record keeps them in);
/// ``LikeRepository/albums()-81hsa`` lists them as people expect instead, ignoring case and accents,
/// and a listing by album matches its name without regard to case.
///
/// ```swift
/// try repository.addPhotos([id], toAlbum: try AlbumName("Trip to Lisbon"))
/// ```
public struct AlbumName: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The name, in NFC.
    public let rawValue: String

    /// The longest name accepted, in UTF-8 bytes.
    public static let maximumByteCount = Names.maximumAlbumByteCount

    /// Validates `rawValue` as an album name.
    ///
    /// - Throws: ``LikeRepositoryError/invalidAlbumName(_:reason:)`` when the name is empty,
    ///   longer than 256 UTF-8 bytes, or holds a control character.
    public init(_ rawValue: String) throws(LikeRepositoryError) {
        let normalized = Names.albumForm(rawValue)
        if let problem = Names.problem(with: normalized, maximumByteCount: Self.maximumByteCount) {
            throw .invalidAlbumName(rawValue, reason: problem)
        }
        self.rawValue = normalized
    }

    /// Decodes a name from a JSON string, validating it.
    public init(from decoder: any Decoder) throws {
        self = try PhotoID.decodeValidated(from: decoder) { (text) throws(LikeRepositoryError) in try AlbumName(text) }
    }

    /// Encodes the name as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The name.
    public var description: String { rawValue }

    /// Orders names by their UTF-8 bytes: the same order on every platform and in every locale.
    public static func < (left: AlbumName, right: AlbumName) -> Bool { Names.albumPrecedes(left.rawValue, right.rawValue) }

    /// Whether this name and `other` name one album as people mean it: without regard to case
    /// (`Mornings` is `mornings`, `Été` is `été`), as listings by album match it.
    ///
    /// - Parameter other: The other name.
    public func sameAlbum(as other: AlbumName) -> Bool { Names.sameAlbum(rawValue, other.rawValue) }

    /// Whether `left` comes before `right` in a list for people: compared with case and accents
    /// folded away (`apple`, `Été`, `Zoo`), the same in every locale, then by their bytes.
    static func listedBefore(_ left: AlbumName, _ right: AlbumName) -> Bool {
        let (leftKey, rightKey) = (TextFolding.fold(left.rawValue), TextFolding.fold(right.rawValue))
        return leftKey != rightKey ? Array(leftKey.utf8).lexicographicallyPrecedes(Array(rightKey.utf8)) : left < right
    }

    /// The sorted, duplicate-free form in which records and the journal keep a photo's albums.
    static func canonical(_ names: some Sequence<AlbumName>) -> [AlbumName] {
        Set(names).sorted()
    }
}

/// The rule for the text of a note.
enum Note {
    /// The longest note accepted, in UTF-8 bytes.
    static let maximumByteCount = Names.maximumNoteByteCount

    /// Checks a note: not blank, at most 10,000 UTF-8 bytes, and no control character but line
    /// breaks and tabs (a diary's memo may have several lines).
    static func validate(_ text: String) throws(LikeRepositoryError) {
        if text.allSatisfy(\.isWhitespace) {
            throw .invalidNote(reason: "it is blank; to remove a note, clear it instead")
        }
        if let problem = Names.problem(with: text, maximumByteCount: maximumByteCount, allowed: ["\n", "\r", "\t"]) {
            throw .invalidNote(reason: problem)
        }
    }
}

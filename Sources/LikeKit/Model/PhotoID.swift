// A validated photo id, by the store's rules for names, and the file-name key the store derives
// from it.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// The id of a photo as its source names it, validated.
///
/// Any non-empty string of at most 256 UTF-8 bytes with no control characters (Unicode
/// category Cc) is a valid id: Unsplash `Dwu85P9SOIk`, Flickr `52345678901`, or a Photos
/// local identifier such as `ED7AC36B-A150-4C38-BB8C-B6D696F4F2ED/L0/001`.
///
/// Ids compare as Swift strings do, so the NFC and NFD spellings of one text are one id.
///
/// ```swift
/// let id = try PhotoID("Dwu85P9SOIk")
/// ```
public struct PhotoID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The id exactly as it was given.
    public let rawValue: String

    /// The longest id accepted, in UTF-8 bytes.
    public static let maximumByteCount = Names.maximumIDByteCount

    /// Validates `rawValue` as a photo id.
    ///
    /// - Throws: ``LikeRepositoryError/invalidID(_:reason:)`` when the id is empty, longer
    ///   than 256 UTF-8 bytes, or holds a control character.
    public init(_ rawValue: String) throws(LikeRepositoryError) {
        if let problem = Names.problem(with: rawValue, maximumByteCount: Self.maximumByteCount) {
            throw .invalidID(rawValue, reason: problem)
        }
        self.rawValue = rawValue
    }

    /// Decodes an id from a JSON string, validating it.
    public init(from decoder: any Decoder) throws {
        self = try Self.decodeValidated(from: decoder) { (text) throws(LikeRepositoryError) in try PhotoID(text) }
    }

    /// Decodes a JSON string and makes a value of it with `make`, which validates it; the
    /// validation's sentence becomes the decoding error's description. Ids and album names share it.
    static func decodeValidated<Value>(from decoder: any Decoder, _ make: (String) throws(LikeRepositoryError) -> Value) throws -> Value {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            return try make(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes the id as the JSON string it was given as.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The id exactly as it was given.
    public var description: String { rawValue }

    /// The file-name stem for this id: injective, case-safe, and a single path component.
    ///
    /// The id is normalised to NFC, then its UTF-8 bytes are written as: `a`–`z`, `0`–`9`,
    /// `-` and `_` unchanged; an upper-case ASCII letter as `^` and its lower-case form; every
    /// other byte as `%` and two lower-case hex digits. The result uses no upper-case letter, so
    /// case-insensitive file systems keep `abc` and `ABC` apart, and it can never be `.`, `..`
    /// or hold a separator. A stem longer than ``StorageKey/maximumReadableLength`` is replaced
    /// by `#` and the SHA-256 of the NFC bytes (readable stems never contain `#`).
    package var storageKey: String { StorageKey.make(for: rawValue) }
}

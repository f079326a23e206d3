// A validated photo id, and the injective, case-safe file-name key derived from it.

import LikesSupport

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
    public static let maximumByteCount = 256

    /// Validates `rawValue` as a photo id.
    ///
    /// - Throws: ``LikeRepositoryError/invalidID(_:reason:)`` when the id is empty, longer
    ///   than 256 UTF-8 bytes, or holds a control character.
    public init(_ rawValue: String) throws(LikeRepositoryError) {
        if let problem = Self.problem(with: rawValue, maximumByteCount: Self.maximumByteCount) {
            throw .invalidID(rawValue, reason: problem)
        }
        self.rawValue = rawValue
    }

    /// What makes `text` unfit as an id or album name, or `nil` when it is fit: empty, too long,
    /// or holding a control character (other than those `allowed`).
    static func problem(with text: String, maximumByteCount: Int, allowed: [Unicode.Scalar] = []) -> String? {
        if text.isEmpty { return "it is empty" }
        let byteCount = text.utf8.count
        if byteCount > maximumByteCount { return "it is \(byteCount) UTF-8 bytes long" }
        if let control = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control && !allowed.contains($0) }) {
            let code = String(control.value, radix: 16, uppercase: true)
            return "it contains the control character U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)"
        }
        return nil
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
    var storageKey: String { StorageKey.make(for: rawValue) }
}

enum StorageKey {
    /// Leaves room for `~` + generation + `.user.jpg` within NAME_MAX (255 bytes).
    static let maximumReadableLength = 200

    static func make(for id: String) -> String {
        // ASCII is NFC already (and most ids are ASCII): no trip through the normaliser.
        let normalized = id.utf8.allSatisfy { $0 < 0x80 } ? id : id.canonicallyComposed
        var stem: [UInt8] = []
        stem.reserveCapacity(normalized.utf8.count)
        PercentEscaping.storageKey.escape(normalized.utf8, into: &stem)
        if stem.count > maximumReadableLength {
            return "#" + SHA256.hexDigest(of: Array(normalized.utf8))
        }
        return String(decoding: stem, as: UTF8.self)
    }

    /// The (NFC) id a readable key was made from; `nil` for a hashed or malformed key.
    static func decode(_ key: String) -> String? {
        guard !key.hasPrefix("#"), let bytes = PercentEscaping.storageKey.unescape(key) else { return nil }
        return String(bytes: bytes, encoding: .utf8)
    }

    /// Whether `text` could have been made by ``make(for:)``.
    static func isWellFormed(_ text: Substring) -> Bool {
        var text = text
        return text.withUTF8 { isWellFormed($0) }
    }

    static func isWellFormed(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first else { return false }
        if first == UInt8(ascii: "#") {
            return bytes.count == 65 && bytes.dropFirst().allSatisfy(isLowerHex)
        }
        return bytes.count <= maximumReadableLength && PercentEscaping.storageKey.isCanonical(bytes)
    }

    static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}

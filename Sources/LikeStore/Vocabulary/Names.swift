// The names a store keeps, and the rules they keep: photo ids, album names and notes fit to
// store (non-empty, bounded, no control characters), album names in NFC and in byte order, and
// the file-name key each id is stored under.

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// What the store takes as an id, an album name or a note.
package enum Names {
    /// The longest id, in UTF-8 bytes.
    package static let maximumIDByteCount = 256
    /// The longest album name, in UTF-8 bytes.
    package static let maximumAlbumByteCount = 256
    /// The longest note, in UTF-8 bytes.
    package static let maximumNoteByteCount = 10_000

    /// What makes `text` unfit as an id or album name, or `nil` when it is fit: empty, too long,
    /// or holding a control character (other than those `allowed`).
    package static func problem(with text: String, maximumByteCount: Int, allowed: [Unicode.Scalar] = []) -> String? {
        if text.isEmpty { return "it is empty" }
        let byteCount = text.utf8.count
        if byteCount > maximumByteCount { return "it is \(byteCount) UTF-8 bytes long" }
        // Printable ASCII holds no control character: most ids and names are such, and the id of
        // every record read is checked (each scalar's category looked up cost 2 µs a record).
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return nil }
        if let control = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control && !allowed.contains($0) }) {
            let code = String(control.value, radix: 16, uppercase: true)
            return "it contains the control character U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)"
        }
        return nil
    }

    /// `text` as an id is stored, or `nil` when it is no id: ids are kept as given.
    package static func id(_ text: String) -> String? {
        problem(with: text, maximumByteCount: maximumIDByteCount) == nil ? text : nil
    }

    /// `text` in the form an album name is stored in (NFC).
    package static func albumForm(_ text: String) -> String {
        // ASCII is its own NFC: the journal's readers meet mostly such names, many times over.
        text.utf8.allSatisfy { $0 < 0x80 } ? text : text.canonicallyComposed
    }

    /// `text` as an album name is stored, or `nil` when it is no album name.
    package static func album(_ text: String) -> String? {
        let normalized = albumForm(text)
        return problem(with: normalized, maximumByteCount: maximumAlbumByteCount) == nil ? normalized : nil
    }

    /// Whether album name `left` sorts before `right` as a record lists them: by UTF-8 bytes.
    package static func albumPrecedes(_ left: String, _ right: String) -> Bool {
        left.utf8.lexicographicallyPrecedes(right.utf8)
    }

    /// Whether two album names (stored form) name one album as a person means it: without
    /// regard to case (`Mornings` is `mornings`, `Été` is `été`).
    package static func sameAlbum(_ left: String, _ right: String) -> Bool {
        left == right || left.lowercased() == right.lowercased()
    }

    /// Album names as a record keeps them: each once, in byte order.
    package static func canonicalAlbums(_ names: some Sequence<String>) -> [String] {
        Set(names).sorted(by: albumPrecedes)
    }
}

/// The file-name stem of a photo id: injective, case-safe, and a single path component.
///
/// The id is normalised to NFC, then its UTF-8 bytes are written as: `a`–`z`, `0`–`9`, `-` and `_`
/// unchanged; an upper-case ASCII letter as `^` and its lower-case form; every other byte as `%`
/// and two lower-case hex digits. The result uses no upper-case letter, so case-insensitive file
/// systems keep `abc` and `ABC` apart, and it can never be `.`, `..` or hold a separator. A stem
/// longer than ``maximumReadableLength`` is replaced by `#` and the SHA-256 of the NFC bytes
/// (readable stems never contain `#`).
package enum StorageKey {
    /// Leaves room for `~` + generation + `.user.jpg` within NAME_MAX (255 bytes).
    static let maximumReadableLength = 200

    package static func make(for id: String) -> String {
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
    package static func decode(_ key: String) -> String? {
        guard !key.hasPrefix("#"), let bytes = PercentEscaping.storageKey.unescape(key) else { return nil }
        return String(bytes: bytes, encoding: .utf8)
    }

    /// Whether `text` could have been made by ``make(for:)``.
    package static func isWellFormed(_ text: Substring) -> Bool {
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

// Text compared as people read it: without case and accents, the same in every locale.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Folds text for comparisons that ignore case and accents: compatibility decomposition (NFKD)
/// with every combining mark removed, then case folded (upper then lower case, Swift's own
/// mappings, which depend on no locale, so `ß` folds as `ss`), then decomposed and stripped of
/// marks once more (a few lower-case forms carry a mark: `İ` is `i` and a dot above). `Café`,
/// `CAFE` and `café` fold alike; Hangul syllables decompose into their jamo and kana lose their
/// voicing marks, the same on both sides of a comparison.
enum TextFolding {
    /// What searchable text holds in place of white space and control characters: no word of a
    /// search contains it, so no word matches across two fields or two words of one.
    static let separator: UInt8 = 0x1F

    static func fold(_ text: String) -> String {
        decomposedWithoutMarks(decomposedWithoutMarks(text).uppercased().lowercased())
    }

    /// The compatibility decomposition (NFKD) of `text` with every combining mark left out, from
    /// the table generated from Foundation's NFKD (``changedScalars``); Hangul syllables by the
    /// formula of Unicode's chapter 3.12. Scalar by scalar: canonical reordering would move only
    /// marks, which are dropped.
    static func decomposedWithoutMarks(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {
                result.append(scalar)
            } else if isMark(scalar) {
                continue
            } else if (0xAC00...0xD7A3).contains(value) {
                let index = value - 0xAC00
                result.append(Unicode.Scalar(0x1100 + index / 588)!)
                result.append(Unicode.Scalar(0x1161 + index % 588 / 28)!)
                if index % 28 != 0 { result.append(Unicode.Scalar(0x11A7 + index % 28)!) }
            } else if let found = changedIndex(value) {
                for replacement in replacements[Int(replacementStarts[found])..<Int(replacementStarts[found + 1])] {
                    result.append(Unicode.Scalar(replacement)!)
                }
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    /// The index of `value` in ``changedScalars``, by binary search.
    private static func changedIndex(_ value: UInt32) -> Int? {
        var low = 0
        var high = changedScalars.count
        while low < high {
            let middle = (low + high) / 2
            if changedScalars[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low < changedScalars.count && changedScalars[low] == value ? low : nil
    }

    /// `texts` folded and joined by the separator, with every white space and control character
    /// also written as the separator: the form search words are looked for in.
    static func searchable(_ texts: [String]) -> String {
        var result = String.UnicodeScalarView()
        for (index, text) in texts.enumerated() {
            if index > 0 { result.append(Unicode.Scalar(separator)) }
            for scalar in fold(text).unicodeScalars {
                let isSpace = scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
                result.append(isSpace ? Unicode.Scalar(separator) : scalar)
            }
        }
        return String(result)
    }

}

/// The words of a search, folded: a record matches when each is a substring of its searchable
/// text (SPEC §8), compared as UTF-8 bytes, so as Unicode scalars.
struct SearchWords: Sendable, Hashable {
    let words: [[UInt8]]

    /// The query folded as record text is, then split where that has separators: at white space
    /// and control characters, including those that folding makes (a no-break space is one).
    init(_ text: String) {
        words = TextFolding.searchable([text]).utf8.split(separator: TextFolding.separator).map(Array.init)
    }

    /// The text a search looks in: id, description, photographer name and username, note and
    /// album names, folded (see ``TextFolding/searchable(_:)``).
    static func searchableText(of record: StoredRecord) -> String {
        let fields: [String?] =
            [record.id.rawValue, record.photo?.description, record.photo?.photographer, record.photo?.photographerUsername, record.note]
            + record.albums.map(\.rawValue)
        return TextFolding.searchable(fields.compactMap { $0 })
    }

    /// Whether every word is in `text`, a searchable text's bytes.
    func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        words.allSatisfy { word in word.withUnsafeBufferPointer { ByteSearch.contains(text, $0) } }
    }
}

/// Substring search over bytes.
enum ByteSearch {
    /// Whether `needle` occurs in `haystack`: memchr for the first byte, then a compare.
    static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count, let base = haystack.baseAddress, let first = needle.baseAddress else { return false }
        let last = haystack.count - needle.count
        var index = 0
        while index <= last {
            guard let found = memchr(base + index, Int32(first.pointee), last - index + 1) else { return false }
            let at = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if memcmp(base + at, first, needle.count) == 0 { return true }
            index = at + 1
        }
        return false
    }
}

/// A colour filter: one hex colour (`#60544D`, matched exactly, case and `#` ignored), or a
/// family, the nearest of twelve reference colours by squared RGB distance (SPEC §8).
enum ColorFilter: Sendable, Hashable {
    case hex(UInt32)
    /// An index into ``families``.
    case family(Int)

    /// The families, in the order that breaks ties.
    static let families: [(name: String, rgb: UInt32)] = [
        ("black", 0x000000), ("white", 0xFFFFFF), ("gray", 0x808080), ("yellow", 0xFFD700), ("orange", 0xFF8C00), ("red", 0xDC143C),
        ("purple", 0x800080), ("magenta", 0xFF00FF), ("green", 0x228B22), ("teal", 0x008080), ("blue", 0x1E90FF), ("brown", 0x8B4513),
    ]

    /// `nil` for text that is neither six hex digits (with or without `#`) nor a family name.
    init?(_ text: String) {
        let value = text.trimmingSpace().lowercased()
        if let index = Self.families.firstIndex(where: { $0.name == value }) {
            self = .family(index)
        } else if let rgb = Self.catalogColor(value).flatMap({ Self.rgb($0.utf8) }) {
            self = .hex(rgb)
        } else {
            return nil
        }
    }

    /// What the catalog keeps of a photo's colour: six lower-case hex digits; `nil` when it has
    /// none or it is not a hex colour (`#60544D`, `60544d`, white space around ignored).
    static func catalogColor(_ color: String?) -> String? {
        guard var digits = color?.trimmingSpace().lowercased() else { return nil }
        if digits.hasPrefix("#") { digits.removeFirst() }
        return rgb(digits.utf8) == nil ? nil : digits
    }

    /// The value of six lower-case hex digits.
    static func rgb(_ digits: some Collection<UInt8>) -> UInt32? {
        guard digits.count == 6 else { return nil }
        var value: UInt32 = 0
        for byte in digits {
            switch byte {
            case 0x30...0x39: value = value << 4 | UInt32(byte - 0x30)
            case 0x61...0x66: value = value << 4 | UInt32(byte - 0x61 + 10)
            default: return nil
            }
        }
        return value
    }

    /// The index of the family nearest to a colour (the first of equally near ones).
    static func family(of rgb: UInt32) -> Int {
        func channels(_ value: UInt32) -> (Int, Int, Int) { (Int(value >> 16), Int(value >> 8 & 0xFF), Int(value & 0xFF)) }
        let (red, green, blue) = channels(rgb)
        var best = (index: 0, distance: Int.max)
        for (index, family) in families.enumerated() {
            let (r, g, b) = channels(family.rgb)
            let distance = (red - r) * (red - r) + (green - g) * (green - g) + (blue - b) * (blue - b)
            if distance < best.distance { best = (index, distance) }
        }
        return best.index
    }

    /// Whether a catalog colour (six hex digits, or `-` for none) passes.
    func matches(catalogColor digits: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let rgb = Self.rgb(digits) else { return false }
        switch self {
        case .hex(let wanted): return rgb == wanted
        case .family(let index): return Self.family(of: rgb) == index
        }
    }
}

extension String {
    /// The text of UTF-8 bytes, or `nil` where they are not UTF-8. Decoding and comparing back
    /// does what `String(validating:as:)` does without its generic path, whose first use in a
    /// process costs a search of the binary's conformances.
    static func validatingUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }
}

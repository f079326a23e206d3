// Text compared as people read it: without case and accents, the same in every locale.

import JPEGCodec

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
package enum TextFolding {
    /// What searchable text holds in place of white space and control characters: no word of a
    /// search contains it, so no word matches across two fields or two words of one.
    static let separator: UInt8 = 0x1F

    /// A Hangul jamo by its value, which the syllable formula keeps within U+1100…U+11FF.
    private static func jamo(_ value: UInt32) -> Unicode.Scalar {
        Unicode.Scalar(value) ?? "\u{FFFD}"
    }

    package static func fold(_ text: String) -> String {
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
                // Hangul syllables: their leading, vowel and trailing jamo (all valid scalars).
                result.append(jamo(0x1100 + index / 588))
                result.append(jamo(0x1161 + index % 588 / 28))
                if index % 28 != 0 { result.append(jamo(0x11A7 + index % 28)) }
            } else if let found = changedIndex(value) {
                for replacement in replacements[Int(replacementStarts[found])..<Int(replacementStarts[found + 1])] {
                    // The generated table holds scalars only; a value that is none is left out.
                    if let replaced = Unicode.Scalar(replacement) { result.append(replaced) }
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
/// text (the README's "Search, colours and pages"), compared as UTF-8 bytes, so as Unicode scalars.
package struct SearchWords: Sendable, Hashable {
    let words: [[UInt8]]

    /// The query folded as record text is, then split where that has separators: at white space
    /// and control characters, including those that folding makes (a no-break space is one).
    package init(_ text: String) {
        words = TextFolding.searchable([text]).utf8.split(separator: TextFolding.separator).map(Array.init)
    }

    /// The text a search looks in: id, description, photographer name and username, note and
    /// album names, folded (see ``TextFolding/searchable(_:)``).
    static func searchableText(of record: StoredRecord) -> String {
        let fields: [String?] =
            [record.id, record.photo?.description, record.photo?.photographer, record.photo?.photographerUsername, record.note]
            + record.albums
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
/// family, read from the colour in OKLCh (Björn Ottosson's OKLab, from sRGB with its transfer
/// function): lightness L, chroma C and hue h in degrees.
///
/// 1. C < 0.035: black when L < 0.30, white when L > 0.90, else gray;
/// 2. otherwise L < 0.22: black;
/// 3. otherwise 20 ≤ h < 100 with C < 0.13 and L < 0.70: brown;
/// 4. otherwise by hue: h < 45 red, < 75 orange, < 110 yellow, < 175 green, < 215 teal, < 285
///    blue, < 320 purple; from 320 magenta when L ≥ 0.55, else purple.
///
/// So a night sky, `#363F56`, is blue, and `#8C7355` brown. (Families were once the nearest of
/// twelve pure colours by RGB distance, which put muted colours in the wrong one.)
package enum ColorFilter: Sendable, Hashable {
    case hex(UInt32)
    /// An index into ``families``.
    case family(Int)

    /// The families' names, in the order the documentation lists them.
    package static let families = ["black", "white", "gray", "yellow", "orange", "red", "purple", "magenta", "green", "teal", "blue", "brown"]

    /// `nil` for text that is neither six hex digits (with or without `#`) nor a family name.
    package init?(_ text: String) {
        let value = text.trimmingSpace().lowercased()
        if let index = Self.families.firstIndex(of: value) {
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

    /// A colour's lightness, chroma and hue (degrees, 0..<360) in OKLCh.
    static func oklch(_ rgb: UInt32) -> (lightness: Double, chroma: Double, hue: Double) {
        let colour = OKLab(red: UInt8(rgb >> 16), green: UInt8(rgb >> 8 & 0xFF), blue: UInt8(rgb & 0xFF))
        let (chroma, hue) = colour.chromaAndHue
        return (colour.l, chroma, hue)
    }

    /// The index of the family a colour is in (see the type's rules).
    package static func family(of rgb: UInt32) -> Int {
        let (lightness, chroma, hue) = oklch(rgb)
        // A name of ``families``; one that is not (a mistake here) counts as the last family.
        func index(_ name: String) -> Int { families.firstIndex(of: name) ?? families.count - 1 }
        if chroma < 0.035 { return index(lightness < 0.30 ? "black" : lightness > 0.90 ? "white" : "gray") }
        if lightness < 0.22 { return index("black") }
        if hue >= 20, hue < 100, chroma < 0.13, lightness < 0.70 { return index("brown") }
        for (bound, name) in hueBounds where hue < bound { return index(name) }
        return index(lightness >= 0.55 ? "magenta" : "purple")
    }

    private static let hueBounds: [(Double, String)] = [
        (45, "red"), (75, "orange"), (110, "yellow"), (175, "green"), (215, "teal"), (285, "blue"), (320, "purple"),
    ]

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

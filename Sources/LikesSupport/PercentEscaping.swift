// The one escaping of names the store writes (storage keys, album names, paths in journal lines)
// and of URI components (the contact sheet's links, the gallery's and photo sources' queries).

/// Writes bytes as themselves or as `%` and two hex digits, and reads back only what it writes.
///
/// Each use keeps its own set of bytes as themselves and escapes the rest; ``unescape(_:)`` and
/// ``isCanonical(_:)`` accept a text only if escaping what it stands for gives that very text
/// back (no byte escaped needlessly, hex digits in the use's case), so every name has one
/// spelling on disk.
package struct PercentEscaping: Sendable {
    /// `kept[byte]`: whether the byte stands for itself.
    private let kept: [Bool]
    private let hexDigits: [UInt8]
    /// Where set, an upper-case ASCII letter is written as this byte and the letter's lower-case
    /// form (storage keys, which must not differ by case alone).
    private let upperCaseMark: UInt8?

    private init(keeping isKept: (UInt8) -> Bool, lowerCaseHex: Bool, upperCaseMark: UInt8? = nil) {
        kept = (0...255).map { isKept(UInt8($0)) }
        hexDigits = Array((lowerCaseHex ? "0123456789abcdef" : "0123456789ABCDEF").utf8)
        self.upperCaseMark = upperCaseMark
    }

    /// File-name stems: `a`–`z`, `0`–`9`, `-`, `_` kept; an upper-case letter as `^` and its
    /// lower-case form; every other byte as `%xx` in lower case (see ``PhotoID/storageKey``).
    package static let storageKey = PercentEscaping(
        keeping: { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F }, lowerCaseHex: true,
        upperCaseMark: UInt8(ascii: "^"))

    /// A journal field: printable ASCII but `%` kept, every other byte (space, control, non-ASCII)
    /// as `%XX` in upper case.
    package static let journalField = PercentEscaping(keeping: { $0 > 0x20 && $0 < 0x7F && $0 != 0x25 }, lowerCaseHex: false)

    /// One album name in a journal line's album list: as ``journalField``, with `,` escaped too.
    package static let albumName = PercentEscaping(keeping: { $0 > 0x20 && $0 < 0x7F && $0 != 0x25 && $0 != 0x2C }, lowerCaseHex: false)

    /// A URI component (RFC 3986): the unreserved bytes `A`–`Z`, `a`–`z`, `0`–`9`, `-`, `.`,
    /// `_`, `~` kept, every other byte as `%XX` in upper case.
    package static let uriComponent = PercentEscaping(
        keeping: { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || [0x2D, 0x2E, 0x5F, 0x7E].contains($0) },
        lowerCaseHex: false)

    /// Appends the escaped form of `bytes` to `out`.
    package func escape(_ bytes: some Sequence<UInt8>, into out: inout [UInt8]) {
        if bytes.withContiguousStorageIfAvailable({ escape(buffer: $0, into: &out) }) == nil {
            Array(bytes).withUnsafeBufferPointer { escape(buffer: $0, into: &out) }
        }
    }

    /// Appends the escaped form of `text`'s UTF-8 to `out`. Not left to the generic form: across
    /// modules that one walks a sequence through its witness tables, a byte at a time, and a
    /// new process first looks those up (a twentieth of a warm `list` went to storage keys).
    package func escape(_ text: String.UTF8View, into out: inout [UInt8]) {
        if text.withContiguousStorageIfAvailable({ escape(buffer: $0, into: &out) }) == nil {
            Array(text).withUnsafeBufferPointer { escape(buffer: $0, into: &out) }
        }
    }

    private func escape(buffer bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        for byte in bytes {
            if kept[Int(byte)] {
                out.append(byte)
            } else if let upperCaseMark, byte >= 0x41, byte <= 0x5A {
                out.append(upperCaseMark)
                out.append(byte + 0x20)
            } else {
                out.append(0x25)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
    }

    package func escape(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        escape(text.utf8, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` stands for, or `nil` unless `text` is exactly what ``escape(_:into:)``
    /// writes for them.
    package func unescape(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        return walk(text) { out.append($0) } ? out : nil
    }

    package func unescape(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { unescape($0) }
    }

    /// Whether `text` is exactly what ``escape(_:into:)`` writes for some bytes; makes nothing.
    package func isCanonical(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        walk(text) { _ in }
    }

    /// Reads `text` a unit at a time, handing each byte it stands for to `emit`; false at the
    /// first unit the writer would not have written.
    private func walk(_ text: UnsafeBufferPointer<UInt8>, _ emit: (UInt8) -> Void) -> Bool {
        var index = 0
        let count = text.count
        while index < count {
            let byte = text[index]
            if kept[Int(byte)] {
                emit(byte)
                index += 1
            } else if let upperCaseMark, byte == upperCaseMark {
                guard index + 1 < count, text[index + 1] >= 0x61, text[index + 1] <= 0x7A else { return false }
                emit(text[index + 1] - 0x20)
                index += 2
            } else if byte == 0x25 {
                guard index + 2 < count, let high = hexValue(text[index + 1]), let low = hexValue(text[index + 2]) else { return false }
                let value = high << 4 | low
                // Only what the writer escapes may be escaped.
                guard !kept[Int(value)], upperCaseMark == nil || value < 0x41 || value > 0x5A else { return false }
                emit(value)
                index += 3
            } else {
                return false
            }
        }
        return true
    }

    private func hexValue(_ digit: UInt8) -> UInt8? {
        if digit >= 0x30, digit <= 0x39 { return digit - 0x30 }
        if let index = hexDigits[10...].firstIndex(of: digit) { return UInt8(index) }
        return nil
    }
}

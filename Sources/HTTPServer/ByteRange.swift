// The one byte range of a `Range: bytes=…` request that the server honours.

package enum ByteRange {
    package enum Outcome: Equatable {
        /// No range, or one not honoured (several ranges, another unit, malformed): the whole.
        case whole
        case part(Range<Int>)
        case unsatisfiable
    }

    /// The range `header` asks of a file of `length` bytes (RFC 9110, 14.1.2).
    package static func parse(_ header: String?, length: Int) -> Outcome {
        guard let header, header.hasPrefix("bytes=") else { return .whole }
        let spec = header.dropFirst(6).trimmed(of: " \t")
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        func number(_ text: Substring) -> Int? {
            guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int(text)
        }
        if first.isEmpty {
            // The last N bytes.
            guard let count = number(last) else { return .whole }
            guard count > 0, length > 0 else { return .unsatisfiable }
            return .part(max(0, length - count)..<length)
        }
        guard let start = number(first) else { return .whole }
        let end: Int
        if last.isEmpty {
            end = length - 1
        } else {
            guard let parsed = number(last), parsed >= start else { return .whole }
            end = min(parsed, length - 1)
        }
        guard start < length else { return .unsatisfiable }
        return .part(start..<(end + 1))
    }
}

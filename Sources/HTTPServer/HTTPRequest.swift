// One parsed HTTP/1.x request: what the parser hands the application.

/// A request as the client sent it, within the server's bounds.
public struct HTTPRequest: Sendable {
    /// The method, as sent (methods are case-sensitive): `GET`, `HEAD`, `POST`…
    public var method: String
    /// The request target as sent, always starting with `/`: path and query, still escaped.
    public var target: String
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var minorVersion: Int
    /// The header fields, in order.
    public var headers: HTTPHeaders
    /// The body: `Content-Length` bytes, none without it.
    public var body: [UInt8]

    /// A request, as the parser makes one or a test needs it.
    public init(method: String, target: String, minorVersion: Int = 1, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.minorVersion = minorVersion
        self.headers = headers
        self.body = body
    }

    /// The target's path, still escaped: everything before the first `?`.
    public var path: String {
        String(target.prefix { $0 != "?" })
    }

    /// The path's segments, unescaped; `nil` when any is one no file name could be: empty (two
    /// slashes), `.` or `..`, or one that unescapes to a slash, a backslash, a control character or
    /// text that is not UTF-8. A trailing slash is no segment.
    public var pathSegments: [String]? {
        var segments: [String] = []
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, part) in parts.enumerated() {
            if part.isEmpty, index == parts.count - 1 { break }
            guard let bytes = Self.unescape(Substring(part), plusIsSpace: false), !bytes.isEmpty,
                !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0x2F || $0 == 0x5C }),
                let text = String(validating: bytes, as: UTF8.self), text != ".", text != ".."
            else { return nil }
            segments.append(text)
        }
        return segments
    }

    /// The query's fields, unescaped (`+` as a space), in order; a field whose name or value
    /// is not UTF-8 once unescaped is left out.
    public var query: [(name: String, value: String)] {
        guard let mark = target.firstIndex(of: "?") else { return [] }
        return Self.fields(target[target.index(after: mark)...])
    }

    /// `name=value` fields joined by `&`, unescaped.
    private static func fields(_ text: Substring) -> [(name: String, value: String)] {
        text.split(separator: "&").compactMap { field in
            let pair = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.unescape(pair[0], plusIsSpace: true).flatMap({ String(validating: $0, as: UTF8.self) }),
                let value = Self.unescape(pair.count > 1 ? pair[1] : "", plusIsSpace: true).flatMap({ String(validating: $0, as: UTF8.self) })
            else { return nil }
            return (name, value)
        }
    }

    /// The fields of a form sent as `application/x-www-form-urlencoded` (what a page's form or
    /// `URLSearchParams` sends), unescaped; none for a body of any other type.
    public var form: [(name: String, value: String)] {
        guard let type = headers["Content-Type"], type.lowercased().hasPrefix("application/x-www-form-urlencoded") else { return [] }
        return Self.fields(Substring(String(decoding: body, as: UTF8.self)))
    }

    /// The value of the first query field named `name`.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// Whether the connection stays open after the response: HTTP/1.1 unless the client said
    /// `close`, HTTP/1.0 only when it asked to keep it alive.
    public var keepsAlive: Bool {
        let options = headers.values("Connection").flatMap { $0.split(separator: ",") }.map {
            $0.trimmed(of: " \t").lowercased()
        }
        return minorVersion >= 1 ? !options.contains("close") : options.contains("keep-alive")
    }

    /// Percent-unescapes `text`; `nil` for a `%` not followed by two hex digits.
    static func unescape(_ text: Substring, plusIsSpace: Bool) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case 0x25:
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                out.append(high << 4 | low)
            case 0x2B where plusIsSpace: out.append(0x20)
            default: out.append(byte)
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}

extension StringProtocol {
    func trimmed(of set: String) -> String {
        let drop = Set(set)
        var slice = Substring(self)
        while let first = slice.first, drop.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, drop.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}

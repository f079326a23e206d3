// Reads requests out of the bytes a connection received, within bounds: what is malformed or too
// large is answered with a 4xx or 5xx status, never trusted.

/// The limits a request must keep.
public struct HTTPLimits: Sendable {
    /// The request line and header fields together, in bytes; more is answered 431.
    public var headerBytes = 16 * 1024
    /// Header fields; more is answered 431.
    public var headerFields = 100
    /// A body's bytes; more is answered 413.
    public var bodyBytes = 1 << 20

    /// The default bounds: 16 KB of header in 100 fields, a body of 1 MB.
    public init() {}
}

/// Why a request was refused: the status to answer with and a short reason for people.
public struct HTTPRequestError: Error, Sendable, Equatable {
    /// The status answered: 400, 408, 413, 431, 501 or 505.
    public var status: Int
    /// Why, in a few words: the body of the answer.
    public var reason: String
}

package enum RequestParser {
    package enum Outcome {
        /// More bytes are needed.
        case incomplete
        /// A request, and how many bytes of the buffer it took.
        case request(HTTPRequest, consumed: Int)
        case refused(HTTPRequestError)
    }

    /// Parses the request at the start of `buffer`.
    package static func parse(_ buffer: UnsafeBufferPointer<UInt8>, limits: HTTPLimits) -> Outcome {
        // Empty lines before a request line are ignored (RFC 9112, 2.2).
        var start = 0
        while start + 1 < buffer.count, buffer[start] == 0x0D, buffer[start + 1] == 0x0A { start += 2 }
        let headEnd: Int
        switch endOfHead(buffer, from: start, limit: start + limits.headerBytes) {
        case .found(let end): headEnd = end
        case .bareLineFeed: return .refused(.init(status: 400, reason: "a bare LF in the header"))
        case .notYet:
            if buffer.count - start > limits.headerBytes { return .refused(.init(status: 431, reason: "the request's header is too large")) }
            return .incomplete
        }
        let lines: [UnsafeBufferPointer<UInt8>]
        switch headLines(UnsafeBufferPointer(rebasing: buffer[start..<headEnd])) {
        case .success(let found): lines = found
        case .failure(let error): return .refused(error)
        }
        guard let requestLine = lines.first else { return .refused(.init(status: 400, reason: "no request line")) }
        let method: String
        let target: String
        let minor: Int
        switch parseRequestLine(requestLine) {
        case .success(let parsed): (method, target, minor) = parsed
        case .failure(let error): return .refused(error)
        }
        guard lines.count - 1 <= limits.headerFields else { return .refused(.init(status: 431, reason: "too many header fields")) }
        let headers: HTTPHeaders
        let length: Int
        switch headerFields(lines.dropFirst(), minorVersion: minor).flatMap(bodyLength) {
        case .success(let parsed): (headers, length) = parsed
        case .failure(let error): return .refused(error)
        }
        guard length <= limits.bodyBytes else { return .refused(.init(status: 413, reason: "the body is too large")) }
        let bodyStart = headEnd + 4
        guard buffer.count - bodyStart >= length else { return .incomplete }
        let body = Array(UnsafeBufferPointer(rebasing: buffer[bodyStart..<(bodyStart + length)]))
        return .request(HTTPRequest(method: method, target: target, minorVersion: minor, headers: headers, body: body), consumed: bodyStart + length)
    }

    /// The head's lines, each ended by CRLF; a bare CR or LF is refused.
    private static func headLines(_ head: UnsafeBufferPointer<UInt8>) -> Result<[UnsafeBufferPointer<UInt8>], HTTPRequestError> {
        var lines: [UnsafeBufferPointer<UInt8>] = []
        var lineStart = 0
        var index = 0
        while index < head.count {
            if head[index] == 0x0D {
                guard index + 1 < head.count, head[index + 1] == 0x0A else { return .failure(.init(status: 400, reason: "a bare CR in the header")) }
                lines.append(UnsafeBufferPointer(rebasing: head[lineStart..<index]))
                index += 2
                lineStart = index
            } else if head[index] == 0x0A {
                return .failure(.init(status: 400, reason: "a bare LF in the header"))
            } else {
                index += 1
            }
        }
        lines.append(UnsafeBufferPointer(rebasing: head[lineStart..<head.count]))
        return .success(lines)
    }

    /// The header fields of `lines`, each `name: value` with its spaces trimmed.
    private static func headerFields(
        _ lines: ArraySlice<UnsafeBufferPointer<UInt8>>, minorVersion minor: Int
    ) -> Result<HTTPHeaders, HTTPRequestError> {
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: 0x3A), colon > 0, line[..<colon].allSatisfy(isTokenByte) else {
                if let first = line.first, first == 0x20 || first == 0x09 {
                    return .failure(.init(status: 400, reason: "a folded header line"))
                }
                return .failure(.init(status: 400, reason: "a malformed header field"))
            }
            var valueStart = colon + 1
            var valueEnd = line.count
            while valueStart < valueEnd, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
            while valueEnd > valueStart, line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09 { valueEnd -= 1 }
            let value = line[valueStart..<valueEnd]
            guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                return .failure(.init(status: 400, reason: "a control character in a header value"))
            }
            headers.add(
                String(decoding: UnsafeBufferPointer(rebasing: line[..<colon]), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(rebasing: value), as: UTF8.self))
        }
        if minor == 1, headers.values("Host").count != 1 {
            return .failure(.init(status: 400, reason: "an HTTP/1.1 request needs exactly one Host"))
        }
        return .success(headers)
    }

    /// The body's length by `Content-Length` (0 without one); transfer codings are refused.
    private static func bodyLength(_ headers: HTTPHeaders) -> Result<(HTTPHeaders, Int), HTTPRequestError> {
        if !headers.values("Transfer-Encoding").isEmpty {
            return .failure(.init(status: 501, reason: "request bodies in transfer codings are not accepted; send Content-Length"))
        }
        let lengths = headers.values("Content-Length")
        guard let first = lengths.first else { return .success((headers, 0)) }
        guard lengths.allSatisfy({ $0 == first }), !first.isEmpty, first.utf8.count <= 12, first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let parsed = Int(first)
        else { return .failure(.init(status: 400, reason: "a malformed Content-Length")) }
        return .success((headers, parsed))
    }

    private enum HeadEnd {
        case found(Int)
        /// A line ended by LF alone: refused at once rather than waited on, since the `\r\n\r\n`
        /// that would end the head may never come.
        case bareLineFeed
        case notYet
    }

    /// The offset of the `\r\n\r\n` that ends the head, searched no further than `limit`.
    private static func endOfHead(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int) -> HeadEnd {
        var index = start
        let end = min(buffer.count, limit + 4)
        while index < end {
            if buffer[index] == 0x0A {
                guard index > start, buffer[index - 1] == 0x0D else { return .bareLineFeed }
                if index + 2 < buffer.count, buffer[index + 1] == 0x0D, buffer[index + 2] == 0x0A { return .found(index - 1) }
            }
            index += 1
        }
        return .notYet
    }

    private static func parseRequestLine(_ line: UnsafeBufferPointer<UInt8>) -> Result<(String, String, Int), HTTPRequestError> {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte) else {
            return .failure(.init(status: 400, reason: "a malformed request line"))
        }
        let version = Array(parts[2])
        guard version.count == 8, version.starts(with: Array("HTTP/".utf8)), version[6] == 0x2E,
            (0x30...0x39).contains(version[5]), (0x30...0x39).contains(version[7])
        else { return .failure(.init(status: 400, reason: "a malformed HTTP version")) }
        guard version[5] == 0x31, version[7] <= 0x31 else { return .failure(.init(status: 505, reason: "only HTTP/1.0 and HTTP/1.1 are served")) }
        let target = parts[1]
        guard target.first == 0x2F, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.init(status: 400, reason: "the request target must be a path"))
        }
        return .success(
            (
                String(decoding: UnsafeBufferPointer(rebasing: parts[0]), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(rebasing: target), as: UTF8.self), Int(version[7] - 0x30)
            ))
    }

    /// `tchar` of RFC 9110: the characters of methods and field names.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}

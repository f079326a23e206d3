// The parser against requests well and badly formed: what it accepts, and the status it answers
// everything else with.

import HTTPServer
import TestSupport
import Testing

@Suite(.ownLane) struct RequestParserTests {
    func parse(_ text: String, limits: HTTPLimits = HTTPLimits()) -> RequestParser.Outcome {
        Array(text.utf8).withUnsafeBufferPointer { RequestParser.parse($0, limits: limits) }
    }

    func refusal(_ text: String, limits: HTTPLimits = HTTPLimits()) -> Int? {
        if case .refused(let error) = parse(text, limits: limits) { return error.status }
        return nil
    }

    @Test func aRequestWithABodyIsReadWholeAndWhatFollowsIsLeft() throws {
        let text = "\r\nPOST /like?id=a%20b&x=1+2 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 5\r\nX-Empty:\r\n\r\nhelloGET"
        guard case .request(let request, let consumed) = parse(text) else {
            Issue.record("not parsed")
            return
        }
        #expect(request.method == "POST")
        #expect(request.target == "/like?id=a%20b&x=1+2")
        #expect(request.path == "/like")
        #expect(request.queryValue("id") == "a b")
        #expect(request.queryValue("x") == "1 2")
        #expect(request.headers["host"] == "127.0.0.1:8080")
        #expect(request.headers["X-Empty"] == "")
        #expect(request.body == Array("hello".utf8))
        #expect(consumed == text.utf8.count - 3)
        #expect(request.keepsAlive)
    }

    @Test func partsOfARequestAskForMore() {
        for text in ["GET / HTTP/1.1\r\nHost: a\r\n", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc", "GE"] {
            guard case .incomplete = parse(text) else {
                Issue.record("\(text.debugDescription) is not incomplete")
                continue
            }
        }
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\nHost: a\n\n", 400),  // bare LF
        ("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n\r\n", 400),  // no Host
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        ("GET / HTTX/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET http://evil.example/ HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\u{1}b\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n", 413),
    ])
    func malformedRequestsAreRefusedWithTheirStatus(text: String, status: Int) {
        #expect(refusal(text) == status, "\(text.debugDescription)")
    }

    @Test func headersOverTheBoundsAreRefused() {
        var limits = HTTPLimits()
        limits.headerBytes = 1024
        #expect(refusal("GET /" + String(repeating: "a", count: 2000), limits: limits) == 431)
        #expect(refusal("GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "b", count: 2000) + "\r\n\r\n", limits: limits) == 431)
        limits.headerFields = 3
        #expect(refusal("GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits) == 431)
        #expect(refusal("GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\n\r\n", limits: limits) == nil)
    }

    @Test func http10KeepsAliveOnlyWhenAsked() {
        guard case .request(let plain, _) = parse("GET / HTTP/1.0\r\n\r\n"),
            case .request(let asked, _) = parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"),
            case .request(let closing, _) = parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        else {
            Issue.record("not parsed")
            return
        }
        #expect(!plain.keepsAlive)
        #expect(asked.keepsAlive)
        #expect(!closing.keepsAlive)
    }

    /// Every way a path could name something outside what it names: none gives segments.
    @Test(arguments: [
        "/photos/../secret", "/photos/%2e%2e/secret", "/photos/%2E%2e", "/photos/.", "/photos/a%2Fb", "/photos/a%2fb",
        "/photos/a%5Cb", "/photos/a\\b", "/photos//a", "/photos/%00", "/photos/%zz", "/photos/%C0%AE%C0%AE", "/photos/%E0%80%AE",
        "/photos/%ff", "/photos/a%0Ab",
    ])
    func pathsThatCouldEscapeHaveNoSegments(path: String) {
        #expect(HTTPRequest(method: "GET", target: path).pathSegments == nil, "\(path)")
    }

    @Test func pathSegmentsAreUnescaped() {
        #expect(HTTPRequest(method: "GET", target: "/photo/abc%20def/").pathSegments == ["photo", "abc def"])
        #expect(HTTPRequest(method: "GET", target: "/photo/caf%C3%A9?x=1").pathSegments == ["photo", "café"])
        #expect(HTTPRequest(method: "GET", target: "/").pathSegments == [])
    }

    @Test(arguments: [
        ("bytes=0-99", ByteRange.Outcome.part(0..<100)), ("bytes=100-", .part(100..<1000)), ("bytes=-10", .part(990..<1000)),
        ("bytes=990-5000", .part(990..<1000)), ("bytes=1000-", .unsatisfiable), ("bytes=-0", .unsatisfiable),
        ("bytes=5-1", .whole), ("bytes=0-1,5-6", .whole), ("items=0-1", .whole), ("bytes=a-b", .whole),
    ])
    func byteRanges(header: String, outcome: ByteRange.Outcome) {
        #expect(ByteRange.parse(header, length: 1000) == outcome)
    }
}

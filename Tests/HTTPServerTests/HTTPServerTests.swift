// The server on a real loopback socket, driven by a raw client: keep-alive, HEAD, ETag, ranges,
// bounds and timeouts, event streams, and serving on after every bad request.

import Dispatch
import Foundation
import HTTPServer
import TestSupport
import Testing

/// A server running on its own thread for one test, stopped when released.
final class RunningServer: Sendable {
    let server: HTTPServer
    private let done = DispatchSemaphore(value: 0)

    init(timeouts: HTTPServer.Timeouts = HTTPServer.Timeouts(), maxConnections: Int = 256, handler: @escaping HTTPServer.Handler) throws {
        server = try HTTPServer(port: 0, timeouts: timeouts, maxConnections: maxConnections, handler: handler)
        let server = self.server
        let done = self.done
        Thread.detachNewThread {
            server.run()
            done.signal()
        }
    }

    deinit {
        server.stop()
        done.wait()
    }
}

/// A raw TCP client with a receive timeout.
final class RawClient {
    let fd: Int32

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything until the server closes the connection (or the timeout).
    func readToEnd() -> [UInt8] {
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return all }
            all += chunk[..<count]
        }
    }

    /// Bytes received past the last response read.
    private var buffer: [UInt8] = []

    /// One response: its head and `Content-Length` bytes of body (none for HEAD or 304).
    func readResponse(bodiless: Bool = false) -> (head: String, body: [UInt8])? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let end = find(buffer, Array("\r\n\r\n".utf8)) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                let want = bodiless ? 0 : length
                while buffer.count < end + 4 + want {
                    let count = recv(fd, &chunk, chunk.count, 0)
                    if count <= 0 { return nil }
                    buffer += chunk[..<count]
                }
                defer { buffer.removeFirst(end + 4 + want) }
                return (head, Array(buffer[(end + 4)..<(end + 4 + want)]))
            }
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer += chunk[..<count]
        }
    }

    private func find(_ haystack: [UInt8], _ needle: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where Array(haystack[index..<(index + needle.count)]) == needle { return index }
        return nil
    }
}

@Suite(.ownLane) struct HTTPServerTests {
    static let echo: HTTPServer.Handler = { request in
        var headers = HTTPHeaders()
        headers.set("ETag", "\"v1\"")
        return HTTPResponse(
            status: 200, contentType: "text/plain", text: "\(request.method) \(request.target) \(request.body.count)", headers: headers)
    }

    @Test func aKeptAliveConnectionServesRequestsInTurnEvenPipelined() throws {
        let running = try RunningServer(handler: Self.echo)
        let client = try RawClient(port: running.server.port)
        client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
        let first = try #require(client.readResponse())
        #expect(first.head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(first.head.contains("Connection: keep-alive"))
        #expect(String(decoding: first.body, as: UTF8.self) == "GET /a 0")
        let second = try #require(client.readResponse())
        #expect(String(decoding: second.body, as: UTF8.self) == "POST /b 3")
        client.send("HEAD /c HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try #require(client.readResponse(bodiless: true))
        #expect(head.head.contains("Content-Length: 9"), "as GET would send: \"HEAD /c 0\"")
        client.send("GET /d HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"v0\", \"v1\"\r\nConnection: close\r\n\r\n")
        let rest = String(decoding: client.readToEnd(), as: UTF8.self)
        #expect(rest.hasPrefix("HTTP/1.1 304 Not Modified\r\n"))
        #expect(rest.hasSuffix("\r\n\r\n"), "a 304 has no body")
        #expect(rest.contains("Connection: close"))
    }

    @Test func aFileIsServedWholeOrByRange() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("httpserver-\(UUID().uuidString)").path
        let content = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        _ = FileManager.default.createFile(atPath: path, contents: Data(content))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let running = try RunningServer { _ in
            let fd = open(path, O_RDONLY)
            return HTTPResponse(status: 200, body: .file(HTTPFile(descriptor: fd, length: 100_000)))
        }
        let client = try RawClient(port: running.server.port)
        client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let whole = try #require(client.readResponse())
        #expect(whole.body == content)
        #expect(whole.head.contains("Accept-Ranges: bytes"))
        client.send("GET / HTTP/1.1\r\nHost: x\r\nRange: bytes=99990-\r\n\r\n")
        let tail = try #require(client.readResponse())
        #expect(tail.head.hasPrefix("HTTP/1.1 206 Partial Content"))
        #expect(tail.head.contains("Content-Range: bytes 99990-99999/100000"))
        #expect(tail.body == Array(content[99990...]))
        client.send("GET / HTTP/1.1\r\nHost: x\r\nRange: bytes=100000-\r\n\r\n")
        let beyond = try #require(client.readResponse())
        #expect(beyond.head.hasPrefix("HTTP/1.1 416 Range Not Satisfiable"))
        #expect(beyond.head.contains("Content-Range: bytes */100000"))
    }

    @Test func badRequestsGetTheirStatusAndTheServerServesOn() throws {
        let running = try RunningServer(handler: Self.echo)
        for bad in ["GARBAGE\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", "GET / HTTP/3.0\r\nHost: x\r\n\r\n", String(repeating: "A", count: 40000)] {
            let client = try RawClient(port: running.server.port)
            client.send(bad)
            let answer = String(decoding: client.readToEnd(), as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 4") || answer.hasPrefix("HTTP/1.1 5"), "\(bad.prefix(30)): \(answer.prefix(60))")
            #expect(answer.contains("Connection: close"))
        }
        let client = try RawClient(port: running.server.port)
        client.send("GET /still HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(client.readResponse().map { String(decoding: $0.body, as: UTF8.self) } == "GET /still 0")
    }

    /// A thousand requests made of a valid one with bytes flipped, cut, repeated or spliced: each
    /// is answered or closed, none stops the server, and a valid request is served after.
    @Test func aThousandMangledRequestsLeaveTheServerServing() throws {
        var timeouts = HTTPServer.Timeouts()
        timeouts.request = 0.3
        let running = try RunningServer(timeouts: timeouts, handler: Self.echo)
        var random = SystemRandomNumberGenerator()
        let valid = Array("POST /a/b?c=d HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\nX-A: b\r\n\r\nbody".utf8)
        var answered = 0
        for _ in 0..<1000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.removeLast(Int.random(in: 0..<bytes.count, using: &random))
                case 2: bytes += bytes.prefix(Int.random(in: 0..<bytes.count, using: &random))
                default:
                    bytes.insert(
                        contentsOf: [0x0D, 0x0A, 0x20, 0x00, 0x25, 0x3A].shuffled(using: &random).prefix(2),
                        at: Int.random(in: 0...bytes.count, using: &random))
                }
                if bytes.isEmpty { bytes = [0x20] }
            }
            let client = try RawClient(port: running.server.port)
            _ = bytes.withUnsafeBytes { Glibc.send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            shutdown(client.fd, Int32(SHUT_WR))
            let reply = client.readToEnd()
            if reply.starts(with: Array("HTTP/1.1 ".utf8)) { answered += 1 }
        }
        #expect(answered > 500, "most mangled requests get an answer, not a silent close")
        let client = try RawClient(port: running.server.port)
        client.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(client.readResponse().map { String(decoding: $0.body, as: UTF8.self) } == "GET /after 0")
    }

    @Test func aSlowRequestIsAnswered408AndAnIdleConnectionClosed() throws {
        var timeouts = HTTPServer.Timeouts()
        timeouts.request = 0.5
        timeouts.idle = 0.5
        let running = try RunningServer(timeouts: timeouts, handler: Self.echo)
        let slow = try RawClient(port: running.server.port)
        slow.send("GET / HTTP/1.1\r\nHo")
        let started = Date()
        let answer = String(decoding: slow.readToEnd(), as: UTF8.self)
        // The answer's coming at all is the timeout (the request never ends); not before it.
        #expect(answer.hasPrefix("HTTP/1.1 408 "))
        #expect(Date().timeIntervalSince(started) >= 0.45, "answered before the request's timeout")
        let idle = try RawClient(port: running.server.port)
        #expect(idle.readToEnd().isEmpty, "closed without a word")
    }

    @Test func connectionsOverTheBoundAreTurnedAway() throws {
        let running = try RunningServer(maxConnections: 2, handler: Self.echo)
        let clients = try (0..<2).map { _ in try RawClient(port: running.server.port) }
        for client in clients {
            client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(client.readResponse() != nil)
        }
        let third = try RawClient(port: running.server.port)
        #expect(String(decoding: third.readToEnd(), as: UTF8.self).hasPrefix("HTTP/1.1 503 "))
    }

    @Test func anEventStreamDeliversWhatIsSentAndHearsTheClientGo() throws {
        let stream = HTTPEventStream()
        let gone = DispatchSemaphore(value: 0)
        stream.onClose { gone.signal() }
        let running = try RunningServer { _ in
            var headers = HTTPHeaders()
            headers.set("Content-Type", "text/event-stream")
            return HTTPResponse(status: 200, headers: headers, body: .events(stream))
        }
        let client = try RawClient(port: running.server.port)
        client.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        Thread.sleep(forTimeInterval: 0.2)
        stream.send(event: "change", data: "one\ntwo")
        var received = ""
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !received.contains("data: two\n\n") {
            let count = recv(client.fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received += String(decoding: chunk[..<count], as: UTF8.self)
        }
        #expect(received.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(!received.contains("Content-Length"))
        #expect(received.hasSuffix("event: change\ndata: one\ndata: two\n\n"))
        shutdown(client.fd, Int32(SHUT_RDWR))
        #expect(gone.wait(timeout: .now() + 3) == .success)
        #expect(stream.isClientGone)
    }
}

// One client connection, owned by the server's loop thread: its bytes in, the request parsed out
// of them, and the response written back as the client takes it.

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

final class Connection {
    enum Phase {
        /// Waiting for (the rest of) a request.
        case reading
        /// The application has the request.
        case handling
        /// A response is being written.
        case writing
        case closed
    }

    let id: Int
    let descriptor: Int32
    private let limits: HTTPLimits
    private(set) var phase = Phase.reading
    private var input: [UInt8] = []
    private var pending: HTTPRequest?
    private var output: [UInt8] = []
    private var written = 0
    private var file: HTTPFile?
    private var fileOffset = 0
    private var fileEnd = 0
    private var events: HTTPEventStream?
    private var keepAlive = true
    /// When the phase began or the last byte moved.
    private var lastActivity: Double
    /// When the first byte of the request being read came.
    private var requestStarted: Double?

    init(id: Int, descriptor: Int32, limits: HTTPLimits, now: Double) {
        self.id = id
        self.descriptor = descriptor
        self.limits = limits
        lastActivity = now
    }

    var isClosed: Bool { phase == .closed }

    var wantedEvents: Int16 {
        switch phase {
        case .reading: Int16(POLLIN)
        case .handling: 0
        case .writing: output.count > written || (file != nil && fileOffset < fileEnd) ? Int16(POLLOUT) : (events != nil ? Int16(POLLIN) : 0)
        case .closed: 0
        }
    }

    /// The request read, for the application; `nil` when there is none waiting.
    func takeRequest() -> HTTPRequest? {
        defer { pending = nil }
        return pending
    }

    func serve(events: Int16, now: Double) {
        if events & Int16(POLLERR | POLLNVAL) != 0 {
            close()
            return
        }
        if events & Int16(POLLIN | POLLHUP) != 0 {
            switch phase {
            case .reading: receive(now: now)
            case .writing where self.events != nil:
                // A stream's client sends nothing more: anything readable is its going.
                var scratch = [UInt8](repeating: 0, count: 512)
                if recv(descriptor, &scratch, scratch.count, 0) <= 0 { close() }
            default: break
            }
        }
        if phase == .writing, events & Int16(POLLOUT) != 0 { flush(now: now) }
    }

    private func receive(now: Double) {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        if count == 0 {
            close()
            return
        }
        if count < 0 {
            if errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR { close() }
            return
        }
        if input.isEmpty { requestStarted = now }
        input += chunk[..<count]
        lastActivity = now
        parse(now: now)
    }

    /// Reads a request out of the input, if it holds one whole.
    private func parse(now: Double) {
        guard phase == .reading, !input.isEmpty else { return }
        let outcome = input.withUnsafeBufferPointer { RequestParser.parse($0, limits: limits) }
        switch outcome {
        case .incomplete:
            return
        case .refused(let error):
            input.removeAll()
            refuse(error.status, error.reason, now: now)
        case .request(let request, let consumed):
            input.removeFirst(consumed)
            requestStarted = input.isEmpty ? nil : now
            pending = request
            phase = .handling
        }
    }

    /// Answers with `status` and closes the connection after.
    private func refuse(_ status: Int, _ reason: String, now: Double) {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "text/plain; charset=utf-8")
        begin(
            HTTPResponse(status: status, headers: headers, body: .bytes(Array((reason + "\n").utf8))), answering: nil, now: now, wake: {})
    }

    /// Starts writing `response` to `request` (`nil`: a refusal, after which the connection closes).
    func begin(_ response: HTTPResponse, answering request: HTTPRequest?, now: Double, wake: @escaping @Sendable () -> Void) {
        guard phase != .closed else {
            if case .events(let stream) = response.body { stream.clientWent() }
            return
        }
        var response = response
        let method = request?.method ?? "GET"
        keepAlive = request?.keepsAlive ?? false
        if let request { Self.applyConditions(&response, request) }
        var length = 0
        file = nil
        events = nil
        switch response.body {
        case .bytes(let bytes):
            let part = Self.requestedPart(of: bytes, &response, request)
            response.body = .bytes(part)
            length = part.count
        case .file(let opened):
            startFile(opened, &response, request)
            length = fileEnd - fileOffset
        case .events(let stream):
            events = stream
            keepAlive = false
            stream.attach(wake: wake)
        }
        let bodiless = method == "HEAD" || response.status == 304 || response.status == 204
        var head = "HTTP/1.1 \(response.status) \(HTTPResponse.reason(response.status))\r\n"
        for field in response.headers where !HTTPHeaders.same(field.name, "Content-Length") && !HTTPHeaders.same(field.name, "Connection") {
            head += field.name + ": " + field.value + "\r\n"
        }
        if events == nil, response.status != 304, response.status != 204 { head += "Content-Length: \(length)\r\n" }
        head += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        output = Array(head.utf8)
        written = 0
        if bodiless {
            file = nil
        } else if case .bytes(let bytes) = response.body {
            output += bytes
        }
        phase = .writing
        lastActivity = now
    }

    /// The part of `bytes` a `Range` asks for, where the response offers ranges
    /// (`Accept-Ranges: bytes`), with the status and `Content-Range` it takes.
    private static func requestedPart(of bytes: [UInt8], _ response: inout HTTPResponse, _ request: HTTPRequest?) -> [UInt8] {
        guard response.status == 200, response.headers["Accept-Ranges"] == "bytes", let request,
            request.method == "GET" || request.method == "HEAD"
        else { return bytes }
        switch ByteRange.parse(request.headers["Range"], length: bytes.count) {
        case .whole:
            return bytes
        case .part(let range):
            response.status = 206
            response.headers.set("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(bytes.count)")
            return Array(bytes[range])
        case .unsatisfiable:
            response.status = 416
            response.headers.set("Content-Range", "bytes */\(bytes.count)")
            return []
        }
    }

    /// Starts sending an open file: the whole of it, or the part a `Range` asks for.
    private func startFile(_ opened: HTTPFile, _ response: inout HTTPResponse, _ request: HTTPRequest?) {
        file = opened
        (fileOffset, fileEnd) = (0, opened.length)
        guard response.status == 200, let request, request.method == "GET" || request.method == "HEAD" else { return }
        response.headers.set("Accept-Ranges", "bytes")
        switch ByteRange.parse(request.headers["Range"], length: opened.length) {
        case .whole: break
        case .part(let range):
            response.status = 206
            response.headers.set("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(opened.length)")
            (fileOffset, fileEnd) = (range.lowerBound, range.upperBound)
        case .unsatisfiable:
            response.status = 416
            response.headers.set("Content-Range", "bytes */\(opened.length)")
            (fileOffset, fileEnd) = (0, 0)
            file = nil
        }
    }

    /// A 304 for a GET or HEAD whose `If-None-Match` names the response's `ETag`.
    private static func applyConditions(_ response: inout HTTPResponse, _ request: HTTPRequest) {
        guard request.method == "GET" || request.method == "HEAD", response.status == 200, let tag = response.headers["ETag"],
            let condition = request.headers["If-None-Match"]
        else { return }
        let tags = condition.split(separator: ",").map { $0.trimmed(of: " \t") }
        guard tags.contains("*") || tags.contains(tag) || tags.contains("W/" + tag) else { return }
        response.status = 304
        response.body = .bytes([])
        response.headers.remove("Content-Type")
    }

    /// Writes what the application sent on this connection's event stream, if it has one.
    func sendEvents(now: Double) {
        if phase == .writing, events != nil { flush(now: now) }
    }

    private func flush(now: Double) {
        while true {
            if written == output.count {
                output.removeAll(keepingCapacity: true)
                written = 0
                if let file, fileOffset < fileEnd {
                    let size = min(64 * 1024, fileEnd - fileOffset)
                    output = [UInt8](repeating: 0, count: size)
                    let count = output.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress, size, off_t(fileOffset)) }
                    guard count > 0 else {
                        close()  // the file shrank under us: the length promised cannot be kept
                        return
                    }
                    output.removeLast(size - count)
                    fileOffset += count
                } else if let events {
                    let taken = events.take()
                    output = taken.bytes
                    if output.isEmpty {
                        if taken.finished { close() }
                        return
                    }
                } else {
                    finishResponse(now: now)
                    return
                }
            }
            let sent = output.withUnsafeBytes { Socket.send(descriptor, UnsafeRawBufferPointer(rebasing: $0[written...])) }
            if sent < 0 {
                close()
                return
            }
            if sent == 0 { return }
            written += sent
            lastActivity = now
        }
    }

    private func finishResponse(now: Double) {
        file = nil
        guard keepAlive else {
            close()
            return
        }
        phase = .reading
        lastActivity = now
        parse(now: now)
    }

    func checkTimeouts(now: Double, timeouts: HTTPServer.Timeouts) {
        switch phase {
        case .reading:
            if let started = requestStarted, now - started > timeouts.request {
                requestStarted = nil
                refuse(408, "the request took too long to arrive", now: now)
            } else if requestStarted == nil, now - lastActivity > timeouts.idle {
                close()
            }
        case .writing:
            if events == nil, now - lastActivity > timeouts.write { close() }
        case .handling, .closed:
            break
        }
    }

    func close() {
        guard phase != .closed else { return }
        phase = .closed
        events?.clientWent()
        events = nil
        file = nil
        #if canImport(Darwin)
            Darwin.close(descriptor)
        #else
            Glibc.close(descriptor)
        #endif
    }
}

// What the application answers: a status, header fields, and bytes, a file or a stream of events.

import LikesSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// A response to one request.
///
/// The server adds `Content-Length` and `Connection`; it answers `HEAD` without the body, a
/// matching `If-None-Match` with 304, and a `Range` of a file, or of bytes sent with
/// `Accept-Ranges: bytes`, with 206 or 416.
public struct HTTPResponse: Sendable {
    /// What follows the header.
    public enum Body: Sendable {
        /// These bytes.
        case bytes([UInt8])
        /// A file's bytes, read as the client takes them.
        case file(HTTPFile)
        /// Server-Sent Events, written as the application sends them, until either side ends it.
        case events(HTTPEventStream)
    }

    /// The status code: 200, 404…
    public var status: Int
    /// The header fields; the server adds `Content-Length` and `Connection`.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Body

    /// A response of `status`, with header fields and a body (none by default).
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response of `text` (UTF-8) with the content type given.
    public init(status: Int, contentType: String, text: String, headers: HTTPHeaders = HTTPHeaders()) {
        var headers = headers
        headers.set("Content-Type", contentType)
        self.init(status: status, headers: headers, body: .bytes(Array(text.utf8)))
    }

    /// The reason phrase of the statuses this server uses.
    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 206: "Partial Content"
        case 303: "See Other"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}

/// An open file to be sent: the server reads it as the client takes it, and closes it after.
public final class HTTPFile: Sendable {
    let descriptor: Int32
    /// The file's length when it was opened: what is sent, however it changes.
    public let length: Int

    /// Takes `descriptor`, a file open for reading of `length` bytes; closed when the response is done.
    public init(descriptor: Int32, length: Int) {
        self.descriptor = descriptor
        self.length = length
    }

    deinit { close(descriptor) }
}

/// A stream of Server-Sent Events to one client.
///
/// ```swift
/// let stream = HTTPEventStream()
/// stream.send(event: "change", data: "{\"id\":\"abc\"}")
/// ```
public final class HTTPEventStream: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var finished = false
        var clientGone = false
        var onClientGone: (@Sendable () -> Void)?
        var wake: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    public init() {}

    /// Sends one event; nothing once the stream has ended.
    public func send(event: String? = nil, data: String) {
        var text = ""
        if let event { text += "event: " + event.filter { $0 != "\n" && $0 != "\r" } + "\n" }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: " + line + "\n" }
        text += "\n"
        enqueue(Array(text.utf8))
    }

    /// Sends a comment line, which keeps idle connections and proxies from closing the stream.
    public func sendHeartbeat() {
        enqueue(Array(": \n\n".utf8))
    }

    /// Ends the stream: the connection closes once what was sent is written.
    public func finish() {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            state.finished = true
            return state.wake
        }
        wake?()
    }

    /// Whether the client has gone (then nothing sent reaches anyone).
    public var isClientGone: Bool { state.withLock { $0.clientGone } }

    /// Runs `body` once when the client goes or the stream ends (at once if it has already).
    public func onClose(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.clientGone { return true }
            state.onClientGone = body
            return false
        }
        if now { body() }
    }

    private func enqueue(_ bytes: [UInt8]) {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.finished, !state.clientGone else { return nil }
            state.pending += bytes
            return state.wake
        }
        wake?()
    }

    // MARK: The server's side

    func attach(wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.wake = wake }
    }

    /// What was sent since the last call, and whether the stream has ended.
    func take() -> (bytes: [UInt8], finished: Bool) {
        state.withLock { state in
            defer { state.pending.removeAll() }
            return (state.pending, state.finished)
        }
    }

    func clientWent() {
        let callback = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.clientGone else { return nil }
            state.clientGone = true
            defer { state.onClientGone = nil }
            return state.onClientGone
        }
        callback?()
    }
}

// An HTTP/1.1 server on 127.0.0.1: one thread polls every connection, the application's handler
// runs on Dispatch's threads. It owns connections, parsing, limits and writing responses, and
// knows nothing of what it serves.

import Dispatch
import LikesSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// A small HTTP/1.1 server bound to the loopback address only.
///
/// Requests are parsed within ``HTTPLimits``; a malformed or oversized one is answered with a 4xx
/// or 5xx status and its connection closed, and the server goes on. Connections are kept alive,
/// and closed when a request takes longer than ``Timeouts/request`` to arrive, when idle for
/// ``Timeouts/idle``, or when a client stops reading for ``Timeouts/write``.
///
/// ```swift
/// let server = try HTTPServer(port: 0) { request in
///     HTTPResponse(status: 200, contentType: "text/plain", text: "hello")
/// }
/// print(server.port)
/// server.run()  // until stop()
/// ```
public final class HTTPServer: Sendable {
    /// How long the server waits on a client.
    public struct Timeouts: Sendable {
        /// From a request's first byte to its last.
        public var request = 10.0
        /// Between requests on a kept-alive connection.
        public var idle = 30.0
        /// A response's bytes not taken by the client.
        public var write = 30.0

        /// 10 seconds for a request, 30 idle, 30 for a response to be taken.
        public init() {}
    }

    /// What answers each request: called on one of Dispatch's threads, many at once.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The port it listens on, 127.0.0.1 only.
    public let port: UInt16
    let limits: HTTPLimits
    let timeouts: Timeouts
    /// Connections at once; more are answered 503 and closed.
    let maxConnections: Int
    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let handler: Handler
    private let shared = Locked(Shared())

    /// What the application's threads hand the loop.
    private struct Shared {
        var stopping = false
        var finished: [(connection: Int, request: HTTPRequest, response: HTTPResponse)] = []
    }

    /// Listens on 127.0.0.1:`port` (0 for any free port, then ``port`` says which).
    ///
    /// - Throws: ``SocketError`` when the port cannot be had.
    public init(
        port: UInt16, limits: HTTPLimits = HTTPLimits(), timeouts: Timeouts = Timeouts(), maxConnections: Int = 256,
        handler: @escaping Handler
    ) throws(SocketError) {
        let (fd, bound) = try Socket.listen(port: port)
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            close(fd)
            throw SocketError(call: "pipe", code: errno)
        }
        Socket.makeNonBlocking(pipeEnds[0])
        Socket.makeNonBlocking(pipeEnds[1])
        listener = fd
        self.port = bound
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
        self.limits = limits
        self.timeouts = timeouts
        self.maxConnections = maxConnections
        self.handler = handler
    }

    deinit {
        close(listener)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Ends ``run()`` soon: connections are closed, event streams told their client has gone.
    /// From any thread, or a signal handler's Dispatch source.
    public func stop() {
        shared.withLock { $0.stopping = true }
        wake()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Serves on the calling thread until ``stop()``.
    public func run() {
        var connections: [Int: Connection] = [:]
        var nextID = 0
        let work = DispatchQueue(label: "HTTPServer.handlers", attributes: .concurrent)
        while true {
            var order: [Int] = []
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            for (id, connection) in connections {
                order.append(id)
                fds.append(pollfd(fd: connection.descriptor, events: connection.wantedEvents, revents: 0))
            }
            _ = poll(&fds, nfds_t(fds.count), 250)
            let now = Socket.now()

            if fds[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 256)
                while read(wakeRead, &drain, drain.count) > 0 {}
            }
            let (stopping, finished) = shared.withLock { state in
                defer { state.finished.removeAll() }
                return (state.stopping, state.finished)
            }
            if stopping { break }
            // An event stream's wake: what was sent goes out now.
            if fds[1].revents != 0 { for connection in connections.values { connection.sendEvents(now: now) } }
            for done in finished {
                guard let connection = connections[done.connection] else { continue }
                connection.begin(done.response, answering: done.request, now: now, wake: { [weak self] in self?.wake() })
            }

            if fds[0].revents & Int16(POLLIN) != 0 { accept(into: &connections, nextID: &nextID, now: now) }

            for (index, id) in order.enumerated() {
                guard let connection = connections[id] else { continue }
                let events = fds[index + 2].revents
                if events != 0 { connection.serve(events: events, now: now) }
                if let request = connection.takeRequest() {
                    let handler = self.handler
                    work.async { [weak self] in
                        let response = handler(request)
                        self?.shared.withLock { $0.finished.append((id, request, response)) }
                        self?.wake()
                    }
                }
                connection.checkTimeouts(now: now, timeouts: timeouts)
                if connection.isClosed { connections[id] = nil }
            }
        }
        for connection in connections.values { connection.close() }
    }

    /// Takes every waiting connection; beyond `maxConnections`, each is answered 503 and closed.
    private func accept(into connections: inout [Int: Connection], nextID: inout Int, now: Double) {
        while let fd = Socket.accept(listener) {
            if connections.count >= maxConnections {
                let busy = Array("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
                _ = busy.withUnsafeBytes { Socket.send(fd, $0) }
                close(fd)
                continue
            }
            nextID += 1
            connections[nextID] = Connection(id: nextID, descriptor: fd, limits: limits, now: now)
        }
    }
}

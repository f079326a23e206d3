// The socket calls whose form differs between Linux and Apple platforms.

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

enum Socket {
    /// A TCP socket listening on 127.0.0.1:`port` (0: any free port), non-blocking; with the
    /// port it got. Throws the `errno` of the call that failed.
    static func listen(port: UInt16) throws(SocketError) -> (descriptor: Int32, port: UInt16) {
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw SocketError(call: "socket", code: errno) }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1: never another interface
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw SocketError(call: "bind", code: code)
        }
        guard systemListen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            throw SocketError(call: "listen", code: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        makeNonBlocking(fd)
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// The next connection waiting on `listener`, non-blocking; `nil` when there is none.
    static func accept(_ listener: Int32) -> Int32? {
        #if canImport(Darwin)
            let fd = Darwin.accept(listener, nil, nil)
        #else
            let fd = Glibc.accept(listener, nil, nil)
        #endif
        guard fd >= 0 else { return nil }
        makeNonBlocking(fd)
        var yes: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
            // A write to a closed connection must fail, not stop the process.
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return fd
    }

    /// Sends what it can of `bytes`: the count sent, 0 when the socket would block, -1 on error.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        #if canImport(Darwin)
            let sent = Darwin.send(fd, bytes.baseAddress, bytes.count, 0)
        #else
            let sent = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        #endif
        if sent < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1 }
        return sent
    }

    static func makeNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    /// Seconds on a clock that never goes back.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 {
    #if canImport(Darwin)
        return Darwin.listen(fd, backlog)
    #else
        return Glibc.listen(fd, backlog)
    #endif
}

/// A socket call that failed.
public struct SocketError: Error, Sendable, CustomStringConvertible {
    /// The call that failed: `socket`, `bind`, `listen` or `pipe`.
    public var call: String
    /// Its `errno`.
    public var code: Int32

    /// The call and the system's message for its `errno`.
    public var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
}

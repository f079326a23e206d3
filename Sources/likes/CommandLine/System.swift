// The little the command line takes from the C library where FoundationEssentials has nothing:
// writing to a descriptor, what kind of file a path names, walking a folder, running the
// download helper. Each is written once here so that `likes` links no more of Foundation.

import LikeKit
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum System {
    /// The process's environment. On Linux read from the C library's `environ`: FoundationEssentials'
    /// `ProcessInfo` took 5 % of a warm `list --limit 20` (`perf`, issue 37) to make.
    static func environment() -> [String: String] {
        #if canImport(Glibc)
            var count = 0
            while environ[count] != nil { count += 1 }
            var values = [String: String](minimumCapacity: count)
            for index in 0..<count {
                guard let pointer = environ[index] else { continue }
                // Name and value made from the bytes on each side of the `=`, and nothing else.
                let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
                guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { continue }
                let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<equals]), as: UTF8.self)
                if values[name] == nil {
                    values[name] = String(decoding: UnsafeBufferPointer(rebasing: bytes[(equals + 1)...]), as: UTF8.self)
                }
            }
            return values
        #else
            return ProcessInfo.processInfo.environment
        #endif
    }

    /// Writes all of `bytes` to `descriptor`, going on after short writes and interruptions;
    /// gives up quietly when the descriptor fails (a closed pipe).
    static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
                let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
            #else
                let written = Darwin.write(descriptor, base + offset, bytes.count - offset)
            #endif
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { System.write(UnsafeRawBufferPointer($0), to: descriptor) }
    }

    enum FileKind { case regular, directory, other }

    /// What `path` names, following symbolic links (`follow`); `nil` when nothing.
    static func kind(of path: String, follow: Bool = true) -> FileKind? {
        kindAndSize(of: path, follow: follow)?.kind
    }

    /// What `path` names and its size in bytes, following symbolic links (`follow`); `nil` when
    /// nothing.
    static func kindAndSize(of path: String, follow: Bool = true) -> (kind: FileKind, size: Int)? {
        var info = stat()
        guard (follow ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return (.regular, Int(info.st_size))
        case S_IFDIR: return (.directory, Int(info.st_size))
        default: return (.other, Int(info.st_size))
        }
    }

    /// Whether this process may read `path`.
    static func isReadable(_ path: String) -> Bool {
        access(path, R_OK) == 0
    }

    /// The paths below `directory` (not following links to folders), in no particular order;
    /// `nil` when `directory` cannot be read.
    static func walk(_ directory: String) -> [String]? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        var result: [String] = []
        for name in names {
            let path = PathText.appending(name, to: directory)
            result.append(path)
            if kind(of: path, follow: false) == .directory { result += walk(path) ?? [] }
        }
        return result
    }

    /// The path of this executable (`/proc/self/exe` on Linux), else how it was called.
    static func executablePath() -> String {
        #if canImport(Glibc)
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
            if length > 0 { return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        #endif
        return CommandLine.arguments[0]
    }

    /// Runs `executable` with `arguments`, stdin from /dev/null; returns its exit status (or 128
    /// plus the signal that ended it), its stdout and its stderr.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: Data, error: Data) {
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0 else { throw POSIXFailure(code: errno) }
        guard pipe(&errPipe) == 0 else {
            close(outPipe[0])
            close(outPipe[1])
            throw POSIXFailure(code: errno)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for descriptor in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, descriptor) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var child = pid_t()
        let status = posix_spawn(&child, executable, &actions, nil, argv, environ)
        close(outPipe[1])
        close(errPipe[1])
        defer {
            close(outPipe[0])
            close(errPipe[0])
        }
        guard status == 0 else { throw POSIXFailure(code: status) }
        // Both pipes read together, so that a child filling one is never left waiting.
        var output = Data()
        var error = Data()
        var open = [outPipe[0], errPipe[0]]
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if poll(&polled, nfds_t(polled.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for entry in polled where entry.revents != 0 {
                let count = read(entry.fd, &chunk, chunk.count)
                if count > 0 {
                    if entry.fd == outPipe[0] { output.append(contentsOf: chunk[..<count]) } else { error.append(contentsOf: chunk[..<count]) }
                } else if count == 0 || errno != EINTR {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        var waited: Int32 = 0
        while waitpid(child, &waited, 0) < 0, errno == EINTR {}
        let exited = waited & 0x7F == 0
        return (exited ? (waited >> 8) & 0xFF : 128 + (waited & 0x7F), output, error)
    }

    /// The local time zone's offset from UTC at `date`, in seconds, as the C library reads it
    /// (`TZ`, else /etc/localtime).
    static func localOffset(at date: Date) -> Int {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }

    /// Local midnight at the start of a day of the Gregorian calendar; `nil` for a day that does
    /// not exist (`2026-02-30`).
    static func localMidnight(year: Int, month: Int, day: Int) -> Date? {
        guard (1...12).contains(month), (1...31).contains(day), year >= 1900 else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_isdst = -1
        let time = mktime(&parts)
        guard time != -1, parts.tm_year == Int32(year - 1900), parts.tm_mon == Int32(month - 1), parts.tm_mday == Int32(day) else {
            return nil
        }
        return Date(timeIntervalSince1970: Double(time))
    }

    /// A C library call that failed, by its errno.
    struct POSIXFailure: Error, CustomStringConvertible {
        let code: Int32
        var description: String { String(cString: strerror(code)) }
    }
}

extension String {
    /// The text padded with spaces at its end to `width` characters (never cut).
    func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    /// The text with every `target` replaced by `replacement`.
    func replacing(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

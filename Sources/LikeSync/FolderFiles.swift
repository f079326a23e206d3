// Owns the system calls on a sync folder's files: a file written whole (a temporary name,
// flushed, renamed, the directory flushed), read without following a link, and names listed.
// Called by SyncFolder only.

import LikesSupport

#if canImport(Darwin)
    import Darwin
    import Foundation
#elseif canImport(Glibc)
    import Glibc
    import FoundationEssentials
#elseif canImport(Musl)
    import Musl
    import FoundationEssentials
#endif

/// A failure on a folder file: what was done, to which path, and the system's error number.
package struct FolderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sync folder itself is not there.
    package static func missing(_ path: String) -> FolderError { FolderError(action: "find the sync folder", path: path, code: ENOENT) }

    package var action: String
    package var path: String
    package var code: Int32

    package var description: String { "could not \(action) \(path) (\(String(cString: strerror(code))))" }
}

enum FolderFiles {
    /// Writes `bytes` to `directory/name` whole: under a temporary name starting with `.` (which
    /// every reader ignores), flushed, then renamed over the name, and the directory flushed. A
    /// reader sees the old file or the new one, never a part.
    static func writeWhole(_ bytes: [UInt8], to name: String, in directory: String) throws {
        try place(bytes, to: name, in: directory, flushFile: FileFlush.fullSync, flushFolder: FileFlush.fullSync)
    }

    /// Writes `bytes` to `directory/name` as one of many files (images): renamed into place
    /// after the flush `flush` asks for each file, which may be none; ``flushBatch(_:flush:)``
    /// then makes them all durable.
    static func writeOneOfMany(_ bytes: [UInt8], to name: String, in directory: String, flush: FolderFlush) throws {
        try place(bytes, to: name, in: directory, flushFile: flush.flushOne)
    }

    /// Makes durable every file ``writeOneOfMany(_:to:in:flush:)`` wrote in `directory`.
    static func flushBatch(_ directory: String, flush: FolderFlush) throws {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FolderError(action: "open", path: directory, code: errno) }
        defer { close(descriptor) }
        guard flush.flushAll(directory: descriptor) == 0 else { throw FolderError(action: "flush", path: directory, code: errno) }
    }

    /// How files written into `directory` are flushed.
    static func flushing(_ directory: String) throws -> FolderFlush {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FolderError(action: "open", path: directory, code: errno) }
        defer { close(descriptor) }
        return FolderFlush(directory: descriptor)
    }

    /// Writes under a temporary name, flushes the file with `flushFile`, renames it over `name`,
    /// and flushes the folder with `flushFolder` where one is given.
    private static func place(
        _ bytes: [UInt8], to name: String, in directory: String, flushFile: @escaping (Int32) -> Int32, flushFolder: ((Int32) -> Int32)? = nil
    ) throws {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FolderError(action: "open", path: directory, code: errno) }
        defer { close(descriptor) }
        do {
            try bytes.withUnsafeBytes { raw in
                try DurableFile.replace(
                    name, in: descriptor, displayPath: directory, with: raw, temporary: ".likes-" + DeviceID.make() + ".tmp", mode: 0o644,
                    flushFile: flushFile, flushFolder: flushFolder)
            }
        } catch let failure as FileStepFailure {
            throw FolderError(action: failure.action, path: failure.path, code: failure.code)
        }
    }

    static func flushDirectory(_ directory: String) throws {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FolderError(action: "open", path: directory, code: errno) }
        defer { close(descriptor) }
        guard FileFlush.fullSync(descriptor) == 0 else { throw FolderError(action: "flush", path: directory, code: errno) }
    }

    /// Removes a file of the device's own, and flushes its directory; nothing when it is not there.
    static func remove(_ path: String) throws {
        guard unlink(path) == 0 else {
            if errno == ENOENT { return }
            throw FolderError(action: "remove", path: path, code: errno)
        }
        var directory = path
        while let last = directory.last, last != "/" { directory.removeLast() }
        if directory.count > 1 { directory.removeLast() }
        try flushDirectory(directory.isEmpty ? "." : directory)
    }

    /// Makes `path` a directory if it is not one (its parent must exist).
    static func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o755) != 0, errno != EEXIST { throw FolderError(action: "make the folder", path: path, code: errno) }
    }

    /// The regular file at `path` opened to read, without following a link, and its size; `nil`
    /// when there is no such regular file (missing, a link, a folder). The caller closes it.
    private static func openRegularFile(_ path: String) throws -> (descriptor: Int32, size: Int)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ELOOP || errno == ENOTDIR { return nil }
            throw FolderError(action: "open", path: path, code: errno)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw FolderError(action: "inspect", path: path, code: code)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            return nil
        }
        return (descriptor, Int(info.st_size))
    }

    /// The bytes of a regular file, read without following a link; `nil` when there is no such
    /// regular file (missing, a link, a folder).
    static func contents(_ path: String) throws -> [UInt8]? {
        guard let (descriptor, size) = try openRegularFile(path) else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes { raw in raw.baseAddress.map { read(descriptor, $0 + done, raw.count - done) } ?? 0 }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw FolderError(action: "read", path: path, code: errno) }
            if count == 0 { break }
            done += count
        }
        return Array(bytes[..<done])
    }

    /// Hands each line of the regular file at `path` to `body` (without its newline), read a
    /// megabyte at a time, so that a file of any size takes a megabyte of memory; then what
    /// follows the last newline (empty for a file that ends with one). `body` returns false to
    /// stop. `nil` when there is no such regular file.
    static func forEachLine(_ path: String, _ body: (ArraySlice<UInt8>) throws -> Bool) throws -> [UInt8]? {
        guard let (descriptor, _) = try openRegularFile(path) else { return nil }
        defer { close(descriptor) }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var carried: [UInt8] = []  // a line begun in the piece before
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw FolderError(action: "read", path: path, code: errno) }
            if count == 0 { return carried }
            var start = 0
            while let newline = chunk[start..<count].firstIndex(of: 0x0A) {
                if carried.isEmpty {
                    guard try body(chunk[start..<newline]) else { return nil }
                } else {
                    carried += chunk[start..<newline]
                    guard try body(carried[...]) else { return nil }
                    carried = []
                }
                start = newline + 1
            }
            carried += chunk[start..<count]
        }
    }

    /// The names in a directory (not `.` and `..`); `nil` when it does not exist.
    static func names(in path: String) throws -> [String]? {
        guard let directory = opendir(path) else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw FolderError(action: "list", path: path, code: errno)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// The size and time of change of `path` (not following a link), as text; `nil` when it is
    /// not there.
    static func fingerprint(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
            let changed = info.st_mtimespec
        #else
            let changed = info.st_mtim
        #endif
        return "\(info.st_size):\(changed.tv_sec).\(changed.tv_nsec)"
    }

    /// The size of a regular file (not following a link); `nil` when there is none.
    static func size(_ path: String) -> Int? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// Whether `path` is a directory (not following a link).
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}

// Owns the one way the package writes a file whole, for the store, its exports and a sync folder:
// written under a temporary name, flushed, renamed over its name, then the folder flushed, so a
// reader (or a power cut) finds the old file or the new one and never a part. Each step can be
// watched, which is how the store's fault injector crashes or tears a write in its tests.

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A step of a durable write that failed: what was being done, to which path, and `errno`.
package struct FileStepFailure: Error, Sendable, Hashable {
    package var action: String
    package var path: String
    package var code: Int32

    package init(action: String, path: String, code: Int32) {
        self.action = action
        self.path = path
        self.code = code
    }
}

/// Files written whole and durably.
package enum DurableFile {
    /// A step of a durable write, as its watcher sees it before it is taken.
    package enum Step: Sendable, Hashable {
        /// The temporary file is created.
        case create(temporary: String)
        /// Its bytes are written; a watcher that answers `true` has half of them written and
        /// the write stop there (a torn write).
        case write(temporary: String)
        /// The temporary file is flushed.
        case flush(temporary: String)
        /// It is renamed over the file's name.
        case rename(temporary: String, name: String)
        /// The folder is flushed.
        case flushFolder
    }

    /// Writes all of `bytes` to `fd`, again after an interrupted call; 0, or the `errno` of the
    /// failure.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let base = bytes.baseAddress else { return 0 }
        var offset = 0
        while offset < bytes.count {
            let count = write(fd, base + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += count
        }
        return 0
    }

    /// Writes `bytes` as the file `name` of the folder open as `directory` (its path
    /// `displayPath`, for messages): under `temporary` (which must not exist, mode `mode`),
    /// flushed by `flushFile` (none when `nil`), renamed over `name`, then the folder flushed by
    /// `flushFolder` (left to the caller when `nil`, who may flush many files at once).
    ///
    /// `step` is asked before each step; it may throw (a crash or a failing disk, in tests) and
    /// answers whether a write is torn: half the bytes written, then `torn()` thrown. On a
    /// failure the temporary file is removed, unless `keepOnThrow` says the throw stands for a
    /// crash, which leaves what a crash would.
    package static func replace(
        _ name: String, in directory: Int32, displayPath: String, with bytes: UnsafeRawBufferPointer, temporary: String,
        mode: mode_t = 0o600, flushFile: ((Int32) -> Int32)?, flushFolder: ((Int32) -> Int32)?,
        step: (Step) throws -> Bool = { _ in false }, torn: () -> any Error = { TornWrite() }, keepOnThrow: () -> Bool = { false }
    ) throws {
        func failure(_ action: String, _ file: String, _ code: Int32) -> FileStepFailure {
            FileStepFailure(action: action, path: displayPath + "/" + file, code: code)
        }
        _ = try step(.create(temporary: temporary))
        let fd = openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw failure("create", temporary, errno) }
        var placed = false
        defer {
            if !placed, !keepOnThrow() { unlinkat(directory, temporary, 0) }
        }
        do {
            defer { close(fd) }
            if try step(.write(temporary: temporary)) {
                _ = writeAll(fd, UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count / 2)]))
                throw torn()
            }
            let written = writeAll(fd, bytes)
            if written != 0 { throw failure("write", temporary, written) }
            if let flushFile {
                _ = try step(.flush(temporary: temporary))
                // A failed flush is never retried: the kernel may have dropped the dirty pages.
                if flushFile(fd) != 0 { throw failure("flush", temporary, errno) }
            }
        }
        _ = try step(.rename(temporary: temporary, name: name))
        guard renameat(directory, temporary, directory, name) == 0 else { throw failure("rename into place", name, errno) }
        placed = true
        if let flushFolder {
            _ = try step(.flushFolder)
            if flushFolder(directory) != 0 { throw FileStepFailure(action: "flush", path: displayPath, code: errno) }
        }
    }

    /// What a durable write throws by default after the torn write its watcher asked for.
    package struct TornWrite: Error, Sendable {}
}

// Owns reading a JPEG that a like takes from a file outside the store: its size and version, and
// its copy a piece at a time (the header check reads through a window, see PhotoCheck), so that
// a 300 MB photo never costs 300 MB of memory. Used by
// StoreRequest (the check) and StoreDirectory (the copy, checksummed as it goes).

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An image file outside the store, open for reading.
package struct ImageFileReader {
    /// How much is read and written at a time.
    static let pieceSize = 1 << 20

    /// What tells one version of a file from another: a change to its bytes changes its size,
    /// its modification time or (for a file put in its place) its inode.
    struct Version: Equatable, Sendable {
        var inode: UInt64
        var size: Int
        var modifiedSeconds: Int
        var modifiedNanoseconds: Int
    }

    package let path: String
    let descriptor: Int32
    let version: Version
    package var size: Int { version.size }

    /// Opens `path`; fails with ``StoreError/io(action:path:code:)`` when it cannot be
    /// read or is not a regular file.
    init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.io(action: "open the image", path: path, code: Platform.errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = Platform.errno
            _ = Platform.sysClose(fd)
            throw StoreError.io(action: "read the image", path: path, code: code)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            _ = Platform.sysClose(fd)
            throw StoreError.io(action: "read the image", path: path, code: EISDIR)
        }
        self.path = path
        descriptor = fd
        version = Self.version(info)
    }

    /// The version the open file has now: another than ``version`` once it was written to.
    func currentVersion() throws -> Version {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw StoreError.io(action: "read the image", path: path, code: Platform.errno) }
        return Self.version(info)
    }

    private static func version(_ info: stat) -> Version {
        #if canImport(Darwin)
            let modified = info.st_mtimespec
        #else
            let modified = info.st_mtim
        #endif
        return Version(
            inode: UInt64(info.st_ino), size: Int(info.st_size), modifiedSeconds: Int(modified.tv_sec), modifiedNanoseconds: Int(modified.tv_nsec))
    }

    func close() { _ = Platform.sysClose(descriptor) }

    /// Reads the file from its start a piece at a time, calling `body` with each; fails when the
    /// file's length is no longer the one it had when opened.
    package func forEachPiece(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.pieceSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset = 0
        while true {
            let count = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
            if count < 0 {
                if Platform.errno == EINTR { continue }
                throw StoreError.io(action: "read the image", path: path, code: Platform.errno)
            }
            if count == 0 { break }
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            offset += count
        }
        guard offset == size else {
            throw StoreError.notJPEG(image: .image, reason: "the file changed while it was being read (\(size) bytes, then \(offset))")
        }
    }
}

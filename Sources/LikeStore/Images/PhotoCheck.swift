// The check every image passes on its way into the store, JPEGCodec's checked header read, with
// its errors in the store's words; and the file window it reads a photo's file through.

import JPEGCodec

#if canImport(Darwin)
    import Darwin
    import Foundation
#elseif canImport(Glibc)
    import FoundationEssentials
    import Glibc
#endif

/// Checks images as the store takes them: a whole JPEG file, its segments in place, EOI last.
package enum PhotoCheck {
    /// The frame header of the JPEG in `data`, checked as ``JPEGHeader/init(checking:)`` does.
    ///
    /// - Throws: ``StoreError/notJPEG(image:reason:)`` naming `kind` and what is wrong.
    package static func header(of data: some ContiguousBytes, kind: StoreError.ImageRole = .image) throws(StoreError) -> JPEGHeader {
        let result: Result<JPEGHeader, JPEGError> = data.withUnsafeBytes { buffer in
            Result { () throws(JPEGError) in try JPEGHeader(checking: buffer) }
        }
        switch result {
        case .success(let header): return header
        case .failure(let error): throw .notJPEG(image: kind, reason: error.reason)
        }
    }

    /// The frame header of the JPEG in an open file, checked as ``header(of:kind:)`` checks bytes,
    /// reading only the few bytes of each marker segment it passes and the last two: a file of
    /// any size, however many segments it has, costs a window of 64 KB of memory.
    ///
    /// - Throws: ``StoreError/notJPEG(image:reason:)``, or `io` when the file cannot be
    ///   read.
    package static func header(ofFile descriptor: Int32, size: Int, path: String, kind: StoreError.ImageRole = .image) throws(StoreError)
        -> JPEGHeader
    {
        let window = FileWindow(descriptor: descriptor, count: size)
        defer { window.release() }
        do {
            return try JPEGHeader(checking: window)
        } catch {
            if let code = window.readError.value { throw .io(action: "read the image", path: path, code: code) }
            throw .notJPEG(image: kind, reason: error.reason)
        }
    }
}

extension JPEGError {
    /// The reason alone, without the sentence around it.
    var reason: String {
        switch self {
        case .notJPEG(let reason), .unsupported(let reason), .damaged(let reason), .tooLarge(let reason): reason
        }
    }
}

/// A file read through a window of 64 KB, moved with `pread` to wherever the walk reads: a marker
/// walk that jumps from segment to segment reads a window per segment, never the file.
///
/// Copies share the window: the walk takes a copy, and the caller reads ``readError`` from its own.
private struct FileWindow: JPEGByteSource {
    static let size = 64 * 1024
    let descriptor: Int32
    let count: Int
    private let memory = UnsafeMutableRawPointer.allocate(byteCount: FileWindow.size, alignment: 16)
    /// The `errno` of a read that failed: the walk sees a JPEG error, the caller an I/O one.
    let readError = ReadError()
    private var start = 0
    private var length = 0

    final class ReadError {
        var value: Int32?
    }

    init(descriptor: Int32, count: Int) {
        self.descriptor = descriptor
        self.count = count
    }

    func release() { memory.deallocate() }

    mutating func byte(at offset: Int) throws(JPEGError) -> UInt8 {
        if offset < start || offset >= start + length {
            start = offset
            length = 0
            while length == 0 {
                let read = Platform.sysPread(descriptor, memory, FileWindow.size, off_t(offset))
                if read < 0 {
                    if Platform.errno == EINTR { continue }
                    readError.value = Platform.errno
                    throw .notJPEG(reason: "the file could not be read")
                }
                guard read > 0 else { throw .notJPEG(reason: "the file changed while it was being read") }
                length = read
            }
        }
        return memory.load(fromByteOffset: offset - start, as: UInt8.self)
    }
}

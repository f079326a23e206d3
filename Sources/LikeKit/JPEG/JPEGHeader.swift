// Our JPEG check: the marker walk up to the frame header, and the EOI at the very end.

#if canImport(Darwin)
    import Darwin
    import Foundation
#elseif canImport(Glibc)
    import FoundationEssentials
    import Glibc
#endif

/// What the frame header of a JPEG says about it.
struct JPEGHeader: Sendable, Hashable {
    var width: Int
    var height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses `bytes` as a complete JPEG.
    ///
    /// Accepts data that starts with SOI (FF D8), has a well-formed sequence of marker
    /// segments up to a frame header (SOF0–SOF15 except DHT, JPG and DAC), and ends with EOI
    /// (FF D9) as its last two bytes. Fill bytes (FF) before a marker are skipped, as libjpeg
    /// does. The entropy-coded data between the frame header and EOI is not decoded.
    ///
    /// - Throws: ``LikeRepositoryError/notJPEG(image:reason:)`` saying what is wrong.
    init(parsing bytes: UnsafeRawBufferPointer) throws(LikeRepositoryError) {
        var source = bytes
        try self.init(walking: &source)
    }

    /// Parses the JPEG in an open file as ``init(parsing:)-(UnsafeRawBufferPointer)`` parses
    /// bytes, reading only the few bytes of each marker segment it passes and the last two: a
    /// file of any size, however many segments it has, costs a window of 64 KB of memory.
    init(file descriptor: Int32, size: Int, path: String) throws(LikeRepositoryError) {
        var source = FileWindow(descriptor: descriptor, count: size, path: path)
        defer { source.release() }
        try self.init(walking: &source)
    }

    /// The marker walk itself, over bytes in memory or a file read a window at a time.
    private init(walking bytes: inout some JPEGByteSource) throws(LikeRepositoryError) {
        let count = bytes.count
        if count == 0 { throw .notJPEG(image: .image, reason: "the data is empty") }
        guard count >= 4, try bytes.byte(0) == 0xFF, try bytes.byte(1) == 0xD8 else {
            throw .notJPEG(image: .image, reason: "it does not start with the JPEG SOI marker (FF D8)")
        }
        var offset = 2
        while true {
            guard offset < count, try bytes.byte(offset) == 0xFF else {
                if offset >= count { throw .notJPEG(image: .image, reason: "the data ends before a frame header") }
                throw .notJPEG(image: .image, reason: "expected a marker at byte \(offset)")
            }
            while offset < count, try bytes.byte(offset) == 0xFF { offset += 1 }
            guard offset < count else { throw .notJPEG(image: .image, reason: "the data ends before a frame header") }
            let marker = try bytes.byte(offset)
            let markerOffset = offset - 1
            offset += 1
            switch marker {
            case 0x00, 0x01, 0xD0...0xD9:
                // Stuffed zero, TEM, RSTn, SOI or EOI cannot stand before the frame header.
                throw .notJPEG(image: .image, reason: "unexpected marker FF \(Self.hex(marker)) at byte \(markerOffset) before the frame header")
            default:
                break
            }
            guard offset + 2 <= count else {
                throw .notJPEG(image: .image, reason: "the data ends inside the marker segment at byte \(markerOffset)")
            }
            let length = Int(try bytes.byte(offset)) << 8 | Int(try bytes.byte(offset + 1))
            guard length >= 2 else {
                throw .notJPEG(image: .image, reason: "the marker segment at byte \(markerOffset) has an invalid length \(length)")
            }
            guard offset + length <= count else {
                throw .notJPEG(image: .image, reason: "the data ends inside the marker segment at byte \(markerOffset)")
            }
            if Self.isStartOfFrame(marker) {
                guard length >= 8 else { throw .notJPEG(image: .image, reason: "the frame header at byte \(markerOffset) is too short") }
                let height = Int(try bytes.byte(offset + 3)) << 8 | Int(try bytes.byte(offset + 4))
                let width = Int(try bytes.byte(offset + 5)) << 8 | Int(try bytes.byte(offset + 6))
                guard width > 0, height > 0 else {
                    throw .notJPEG(image: .image, reason: "the frame header gives a size of \(width)×\(height)")
                }
                guard try bytes.byte(count - 2) == 0xFF, try bytes.byte(count - 1) == 0xD9, count >= offset + length + 2 else {
                    throw .notJPEG(image: .image, reason: "it does not end with the EOI marker (FF D9), so it is probably cut short")
                }
                self.width = width
                self.height = height
                return
            }
            offset += length
        }
    }

    init(parsing data: some ContiguousBytes) throws(LikeRepositoryError) {
        let result: Result<JPEGHeader, LikeRepositoryError> = data.withUnsafeBytes { buffer in
            do throws(LikeRepositoryError) {
                return .success(try JPEGHeader(parsing: buffer))
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    static func isStartOfFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    private static func hex(_ byte: UInt8) -> String {
        let text = String(byte, radix: 16, uppercase: true)
        return byte < 16 ? "0" + text : text
    }
}

/// Bytes the marker walk reads, one at a time, by offset.
private protocol JPEGByteSource {
    var count: Int { get }
    mutating func byte(_ offset: Int) throws(LikeRepositoryError) -> UInt8
}

extension UnsafeRawBufferPointer: JPEGByteSource {
    fileprivate func byte(_ offset: Int) -> UInt8 { self[offset] }
}

/// A file read through a window of 64 KB, moved with `pread` to wherever the walk reads: a marker
/// walk that jumps from segment to segment reads a window per segment, never the file.
private struct FileWindow: JPEGByteSource {
    static let size = 64 * 1024
    let descriptor: Int32
    let count: Int
    let path: String
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileWindow.size, alignment: 16)
    private var start = 0
    private var length = 0

    init(descriptor: Int32, count: Int, path: String) {
        self.descriptor = descriptor
        self.count = count
        self.path = path
    }

    func release() { buffer.deallocate() }

    mutating func byte(_ offset: Int) throws(LikeRepositoryError) -> UInt8 {
        if offset < start || offset >= start + length {
            start = offset
            length = 0
            while length == 0 {
                let read = Platform.sysPread(descriptor, buffer.baseAddress!, buffer.count, off_t(offset))
                if read < 0 {
                    if Platform.errno == EINTR { continue }
                    throw .io(action: "read the image", path: path, code: Platform.errno)
                }
                guard read > 0 else { throw .notJPEG(image: .image, reason: "the file changed while it was being read") }
                length = read
            }
        }
        return buffer[offset - start]
    }
}

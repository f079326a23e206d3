// Our JPEG check: the marker walk up to the frame header, and the EOI at the very end.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
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
        let count = bytes.count
        if count == 0 { throw .notJPEG(image: .image, reason: "the data is empty") }
        guard count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw .notJPEG(image: .image, reason: "it does not start with the JPEG SOI marker (FF D8)")
        }
        var offset = 2
        while true {
            guard offset < count, bytes[offset] == 0xFF else {
                if offset >= count { throw .notJPEG(image: .image, reason: "the data ends before a frame header") }
                throw .notJPEG(image: .image, reason: "expected a marker at byte \(offset)")
            }
            while offset < count, bytes[offset] == 0xFF { offset += 1 }
            guard offset < count else { throw .notJPEG(image: .image, reason: "the data ends before a frame header") }
            let marker = bytes[offset]
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
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard length >= 2 else {
                throw .notJPEG(image: .image, reason: "the marker segment at byte \(markerOffset) has an invalid length \(length)")
            }
            guard offset + length <= count else {
                throw .notJPEG(image: .image, reason: "the data ends inside the marker segment at byte \(markerOffset)")
            }
            if Self.isStartOfFrame(marker) {
                guard length >= 8 else { throw .notJPEG(image: .image, reason: "the frame header at byte \(markerOffset) is too short") }
                let height = Int(bytes[offset + 3]) << 8 | Int(bytes[offset + 4])
                let width = Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6])
                guard width > 0, height > 0 else {
                    throw .notJPEG(image: .image, reason: "the frame header gives a size of \(width)×\(height)")
                }
                guard bytes[count - 2] == 0xFF, bytes[count - 1] == 0xD9, count >= offset + length + 2 else {
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

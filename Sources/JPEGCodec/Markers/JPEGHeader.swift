// What a JPEG's frame header says, read two ways over the one segment walk: checked, as the store
// accepts a photo (a whole file, every segment in place, EOI last), or leniently, as the decoder
// reads a file it will decode whatever its damage.

/// The size a JPEG's frame header gives.
public struct JPEGHeader: Sendable, Hashable {
    /// The width in pixels.
    public var width: Int
    /// The height in pixels.
    public var height: Int
    /// What the file's Exif segment (the first APP1 before the frame header) says: orientation
    /// and camera facts. Empty when there is none.
    public var exif = ExifFacts()

    /// The size as the photo is displayed: the frame's, swapped for orientations 5 to 8.
    public var displayedSize: (width: Int, height: Int) { exif.orientation >= 5 ? (height, width) : (width, height) }

    /// A header of the given size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Checks that `bytes` are a complete JPEG file and reads its size.
    ///
    /// The first Exif segment before the frame header is read too (see ``exif``).
    ///
    /// Accepts data that starts with SOI (`FF D8`), has a well-formed sequence of marker segments
    /// up to a frame header (SOF0–SOF15), and ends with EOI (`FF D9`) as its last two bytes. Fill
    /// bytes (`FF`) before a marker are skipped, as libjpeg does. The entropy-coded data between
    /// the frame header and EOI is not decoded. Only the bytes of each segment's marker and length
    /// are read, and the last two: a source that reads a file through a window reads a window per
    /// segment.
    ///
    /// - Throws: ``JPEGError/notJPEG(reason:)`` saying what is wrong and at which byte, or what
    ///   `bytes` throws.
    public init(checking bytes: some JPEGByteSource) throws(JPEGError) {
        var segments = try JPEGSegments(bytes, strictness: .strict)
        var exif: ExifFacts?
        while true {
            guard let segment = try segments.next() else { throw .notJPEG(reason: "the data ends before a frame header") }
            if exif == nil { exif = try Self.exif(in: segment, &segments) }
            guard segment.marker.isStartOfFrame else { continue }
            guard segment.payloadCount >= 6 else { throw .notJPEG(reason: "the frame header at byte \(segment.offset) is too short") }
            let height = try segments.number(at: segment.payloadOffset + 1)
            let width = try segments.number(at: segment.payloadOffset + 3)
            guard width > 0, height > 0 else { throw .notJPEG(reason: "the frame header gives a size of \(width)×\(height)") }
            let count = bytes.count
            guard count >= segment.end + 2, try segments.byte(at: count - 2) == 0xFF,
                try segments.byte(at: count - 1) == JPEGMarker.endOfImage.rawValue
            else {
                throw .notJPEG(reason: "it does not end with the EOI marker (FF D9), so it is probably cut short")
            }
            self.init(width: width, height: height)
            self.exif = exif ?? ExifFacts()
            return
        }
    }

    /// Reads the size from the frame header of `bytes` as the decoder finds it, stepping over
    /// whatever it can, without decoding anything.
    ///
    /// - Throws: ``JPEGError`` when there is no frame header, or it is cut short or gives no size.
    public init(reading bytes: some JPEGByteSource) throws(JPEGError) {
        var segments = try JPEGSegments(bytes, strictness: .lenient)
        var exif: ExifFacts?
        while let segment = try segments.next() {
            if exif == nil { exif = try Self.exif(in: segment, &segments) }
            guard segment.marker.isStartOfFrame else { continue }
            guard segment.payloadCount >= 5 else { throw .damaged(reason: "the frame header is cut short") }
            let height = try segments.number(at: segment.payloadOffset + 1)
            let width = try segments.number(at: segment.payloadOffset + 3)
            guard width > 0, height > 0 else { throw .unsupported(reason: "the frame header gives no size") }
            self.init(width: width, height: height)
            self.exif = exif ?? ExifFacts()
            return
        }
        throw .notJPEG(reason: "it has no frame header")
    }

    /// What an APP1 segment holding Exif says; `nil` for any other segment. A segment is at most
    /// 64 KB, and read whole only when it starts as Exif does.
    private static func exif<Bytes>(in segment: JPEGSegment, _ segments: inout JPEGSegments<Bytes>) throws(JPEGError) -> ExifFacts? {
        guard segment.marker == .application1, segment.payloadCount > ExifFacts.signature.count else { return nil }
        var payload: [UInt8] = []
        for offset in segment.payloadOffset..<(segment.payloadOffset + ExifFacts.signature.count) { payload.append(try segments.byte(at: offset)) }
        guard payload == ExifFacts.signature else { return nil }
        payload.reserveCapacity(segment.payloadCount)
        for offset in (segment.payloadOffset + payload.count)..<segment.end { payload.append(try segments.byte(at: offset)) }
        return ExifFacts(app1: payload)
    }
}

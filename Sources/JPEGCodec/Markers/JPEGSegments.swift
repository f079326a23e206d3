// The one walk over a JPEG's marker segments, shared by the header check, the frame-size reader
// and the decoder: from SOI, marker by marker, each segment's length stepped over. It reads bytes
// by offset from any source, so a file read through a window walks as bytes in memory do.

/// Bytes a marker walk reads by offset: a buffer in memory, or a file read a window at a time.
public protocol JPEGByteSource {
    /// How many bytes there are.
    var count: Int { get }
    /// The byte at `offset`, which is below ``count``.
    ///
    /// - Throws: ``JPEGError`` when the byte cannot be had (a file that shrank while it was read).
    mutating func byte(at offset: Int) throws(JPEGError) -> UInt8
}

extension UnsafeRawBufferPointer: JPEGByteSource {
    /// The byte at `offset`.
    public func byte(at offset: Int) -> UInt8 { self[offset] }
}

/// One marker segment: its marker, where it stands, and where its payload is.
public struct JPEGSegment: Sendable, Hashable {
    /// The segment's kind.
    public let marker: JPEGMarker
    /// The offset of the `FF` before the marker code.
    public let offset: Int
    /// The offset of the payload's first byte, after the two bytes of length.
    public let payloadOffset: Int
    /// The payload's length in bytes: the segment's length field less its own two bytes.
    public let payloadCount: Int

    /// The offset just past the payload: where the next marker (or a scan's data) starts.
    public var end: Int { payloadOffset + payloadCount }
}

/// A walk over the marker segments of a JPEG, one ``next()`` at a time.
///
/// Strict, it is the check a file must pass up to its frame header: SOI first, then segment after
/// segment with nothing between them but fill bytes (`FF`), no marker that stands alone, each
/// length inside the data. Lenient, it is the decoder's walk, which reads what libjpeg reads:
/// bytes between segments are skipped, stray restart markers too, and EOI ends the walk.
public struct JPEGSegments<Bytes: JPEGByteSource> {
    /// How much the walk forgives.
    public enum Strictness: Sendable {
        /// The structure a whole file has before its frame header; anything else is thrown.
        case strict
        /// Whatever a decoder can step over is stepped over.
        case lenient
    }

    /// The bytes walked.
    public private(set) var bytes: Bytes
    /// Where the next marker is looked for. The decoder moves it past a scan's entropy-coded data.
    public var position: Int
    private let strictness: Strictness

    /// Starts a walk after the SOI marker that `bytes` must begin with.
    ///
    /// - Throws: ``JPEGError/notJPEG(reason:)`` for bytes that do not start with `FF D8`.
    public init(_ bytes: Bytes, strictness: Strictness) throws(JPEGError) {
        self.bytes = bytes
        self.strictness = strictness
        position = 2
        let count = bytes.count
        switch strictness {
        case .strict:
            if count == 0 { throw .notJPEG(reason: "the data is empty") }
            guard count >= 4, try self.bytes.byte(at: 0) == 0xFF, try self.bytes.byte(at: 1) == JPEGMarker.startOfImage.rawValue else {
                var lead: [UInt8] = []
                for index in 0..<min(count, 12) { lead.append(try self.bytes.byte(at: index)) }
                if let format = OtherImageFormat.name(of: lead) {
                    throw .notJPEG(reason: "it is \(format.hasPrefix("A") ? "an" : "a") \(format) image, not a JPEG")
                }
                throw .notJPEG(reason: "it does not start with the JPEG SOI marker (FF D8)")
            }
        case .lenient:
            guard count >= 4, try self.bytes.byte(at: 0) == 0xFF, try self.bytes.byte(at: 1) == JPEGMarker.startOfImage.rawValue else {
                throw .notJPEG(reason: "it does not start with FF D8")
            }
        }
    }

    /// The next segment, or `nil` where the walk ends: strict, never (the data ending first is
    /// thrown); lenient, at EOI or at the end of the data.
    ///
    /// - Throws: ``JPEGError/notJPEG(reason:)`` (strict) saying what is wrong and at which byte;
    ///   ``JPEGError/damaged(reason:)`` (lenient) for a segment that runs past the end.
    public mutating func next() throws(JPEGError) -> JPEGSegment? {
        switch strictness {
        case .strict: try nextStrictly()
        case .lenient: try nextLeniently()
        }
    }

    private mutating func nextStrictly() throws(JPEGError) -> JPEGSegment {
        let count = bytes.count
        guard position < count else { throw .notJPEG(reason: "the data ends before a frame header") }
        guard try bytes.byte(at: position) == 0xFF else { throw .notJPEG(reason: "expected a marker at byte \(position)") }
        while position < count, try bytes.byte(at: position) == 0xFF { position += 1 }
        guard position < count else { throw .notJPEG(reason: "the data ends before a frame header") }
        let marker = JPEGMarker(rawValue: try bytes.byte(at: position))
        let offset = position - 1
        position += 1
        if marker.standsAlone {
            throw .notJPEG(reason: "unexpected marker \(marker) at byte \(offset) before the frame header")
        }
        guard position + 2 <= count else { throw .notJPEG(reason: "the data ends inside the marker segment at byte \(offset)") }
        let length = try number(at: position)
        guard length >= 2 else { throw .notJPEG(reason: "the marker segment at byte \(offset) has an invalid length \(length)") }
        guard position + length <= count else { throw .notJPEG(reason: "the data ends inside the marker segment at byte \(offset)") }
        let segment = JPEGSegment(marker: marker, offset: offset, payloadOffset: position + 2, payloadCount: length - 2)
        position = segment.end
        return segment
    }

    private mutating func nextLeniently() throws(JPEGError) -> JPEGSegment? {
        let count = bytes.count
        while true {
            // Anything between segments is skipped up to an FF, then the fill bytes before the code.
            while position < count, try bytes.byte(at: position) != 0xFF { position += 1 }
            while position < count, try bytes.byte(at: position) == 0xFF { position += 1 }
            guard position < count else { return nil }
            let marker = JPEGMarker(rawValue: try bytes.byte(at: position))
            let offset = position - 1
            position += 1
            if marker == .endOfImage { return nil }
            if marker.standsAlone { continue }  // a stray restart marker, TEM, SOI or stuffed zero
            guard position + 2 <= count else { return nil }
            let length = try number(at: position)
            guard length >= 2, position + length <= count else { throw .damaged(reason: "a segment runs past the end of the file") }
            let segment = JPEGSegment(marker: marker, offset: offset, payloadOffset: position + 2, payloadCount: length - 2)
            position = segment.end
            return segment
        }
    }

    /// The big-endian 16-bit number at `offset`, which with the next byte must lie in the data.
    mutating func number(at offset: Int) throws(JPEGError) -> Int {
        Int(try bytes.byte(at: offset)) << 8 | Int(try bytes.byte(at: offset + 1))
    }

    /// The byte at `offset`, which must lie in the data.
    mutating func byte(at offset: Int) throws(JPEGError) -> UInt8 { try bytes.byte(at: offset) }
}

// What a JPEG says of itself beyond its frame header, read from the segments before its first
// scan: Exif (orientation and camera facts) and the ICC colour profile, which may be split over
// several APP2 segments. Every image made from a photo takes both along (upright, same profile).

/// The Exif facts and ICC profile of a JPEG file.
public struct JPEGMetadata: Sendable, Hashable {
    /// What the first Exif segment says; an empty one when there is none.
    public var exif = ExifFacts()
    /// The ICC profile, its chunks joined in order; `nil` when there is none or its chunks do
    /// not make a whole (one missing, numbered twice, or counted differently).
    public var iccProfile: [UInt8]?

    /// Reads the segments of `bytes` before the first scan, stepping over what a decoder would.
    public init(reading bytes: UnsafeRawBufferPointer) {
        guard var segments = try? JPEGSegments(bytes, strictness: .lenient) else { return }
        var chunks: [Int: [UInt8]] = [:]
        var chunkCount: Int?
        var consistent = true
        var sawExif = false
        while let segment = try? segments.next(), segment.marker != .startOfScan {
            let payload = UnsafeRawBufferPointer(rebasing: bytes[segment.payloadOffset..<segment.end])
            if segment.marker == .application1, !sawExif, payload.starts(with: ExifFacts.signature) {
                exif = ExifFacts(app1: payload)
                sawExif = true
            } else if segment.marker == .application2, payload.count > Self.iccSignature.count + 2, payload.starts(with: Self.iccSignature) {
                let number = Int(payload[Self.iccSignature.count])
                let count = Int(payload[Self.iccSignature.count + 1])
                if number == 0 || number > count || chunks[number] != nil || (chunkCount != nil && chunkCount != count) { consistent = false }
                chunkCount = count
                chunks[number] = Array(payload[(Self.iccSignature.count + 2)...])
            }
        }
        if consistent, let chunkCount, chunks.count == chunkCount {
            iccProfile = (1...chunkCount).flatMap { chunks[$0] ?? [] }
        }
    }

    /// Reads the segments of `bytes` before the first scan.
    public init(reading bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { JPEGMetadata(reading: $0) }
    }

    /// A JPEG's metadata as given.
    public init(exif: ExifFacts = ExifFacts(), iccProfile: [UInt8]? = nil) {
        self.exif = exif
        self.iccProfile = iccProfile
    }

    /// What an APP2 payload holding a chunk of an ICC profile starts with: `ICC_PROFILE\0`.
    static let iccSignature: [UInt8] = Array("ICC_PROFILE".utf8) + [0]

    /// The most profile bytes one APP2 segment carries: its 65,535 less the length field, the
    /// signature and the two chunk numbers.
    package static let iccChunkSize = 65_535 - 2 - 14

    /// The APP2 segments that carry `profile`, numbered from 1; none for an empty profile or
    /// one too large for the 255 chunks the numbering allows.
    package static func iccSegments(_ profile: [UInt8]) -> [UInt8] {
        let count = (profile.count + iccChunkSize - 1) / iccChunkSize
        guard count > 0, count <= 255 else { return [] }
        var output: [UInt8] = []
        output.reserveCapacity(profile.count + 18 * count)
        for index in 0..<count {
            let chunk = profile[(index * iccChunkSize)..<min(profile.count, (index + 1) * iccChunkSize)]
            let length = chunk.count + 2 + 14
            output += [0xFF, JPEGMarker.application2.rawValue, UInt8(length >> 8), UInt8(length & 0xFF)]
            output += iccSignature + [UInt8(index + 1), UInt8(count)]
            output += chunk
        }
        return output
    }
}

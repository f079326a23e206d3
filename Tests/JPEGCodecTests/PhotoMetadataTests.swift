// Photos as cameras make them: Exif written as cameras write it (both byte orders), every
// orientation drawn upright, ICC profiles in one and in several chunks carried into what is
// made, and hostile Exif read without harm.

import Foundation
import JPEGCodec
import TestSupport
import Testing

/// Writes Exif blocks as a camera does: a TIFF header in either byte order, IFD0 with the
/// orientation, make and model and a link to the Exif IFD, whose values sit after the IFDs.
struct ExifWriter {
    enum Value {
        case short(Int)
        case long(Int)
        case ascii(String)
        case rational(Int, Int)
    }

    var littleEndian: Bool
    var first: [(Int, Value)]
    var exif: [(Int, Value)] = []

    /// The APP1 segment (marker and length included).
    func segment() -> [UInt8] {
        let payload = Array("Exif".utf8) + [0, 0] + tiff()
        return [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }

    func number(_ value: Int, _ size: Int) -> [UInt8] {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * (size - 1 - $0))) }
        return littleEndian ? bytes.reversed() : bytes
    }

    func tiff() -> [UInt8] {
        var entries0 = first
        let exifEntries = exif.sorted { $0.0 < $1.0 }
        if !exifEntries.isEmpty { entries0.append((0x8769, .long(0))) }
        entries0.sort { $0.0 < $1.0 }
        let ifd0Size = 2 + 12 * entries0.count + 4
        let exifOffset = 8 + ifd0Size
        let exifSize = exifEntries.isEmpty ? 0 : 2 + 12 * exifEntries.count + 4
        var dataOffset = exifOffset + exifSize
        var data: [UInt8] = []
        func directory(_ entries: [(Int, Value)]) -> [UInt8] {
            var out = number(entries.count, 2)
            for (tag, value) in entries {
                let (type, count, bytes): (Int, Int, [UInt8])
                switch value {
                case .short(let number): (type, count, bytes) = (3, 1, self.number(number, 2) + [0, 0])
                case .long(let number):
                    (type, count, bytes) = (4, 1, self.number(tag == 0x8769 ? exifOffset : number, 4))
                case .ascii(let text): (type, count, bytes) = (2, text.utf8.count + 1, Array(text.utf8) + [0])
                case .rational(let top, let bottom): (type, count, bytes) = (5, 1, self.number(top, 4) + self.number(bottom, 4))
                }
                out += number(tag, 2) + number(type, 2) + number(count, 4)
                if bytes.count <= 4 {
                    out += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
                } else {
                    out += number(dataOffset, 4)
                    data += bytes
                    dataOffset += bytes.count
                }
            }
            return out + number(0, 4)
        }
        let header: [UInt8] = (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]) + number(42, 2) + number(8, 4)
        let ifd0 = directory(entries0)
        let exifIFD = exifEntries.isEmpty ? [] : directory(exifEntries)
        return header + ifd0 + exifIFD + data
    }

    /// `jpeg` with `segments` put right after its SOI.
    static func inserting(_ segments: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        Array(jpeg[0..<2]) + segments + Array(jpeg[2...])
    }
}

@Suite(.ownLane) struct PhotoMetadataTests {
    /// An upright picture of four quadrants of distinct lightness, wider than high.
    static let width = 64
    static let height = 32
    static func quadrant(x: Int, y: Int) -> UInt8 {
        [40, 100, 160, 220][(y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)]
    }

    /// The stored picture that orientation `value` shows as the upright one, built from the
    /// TIFF table's wording: which side of the displayed photo the stored 0th row and 0th column
    /// are.
    static func stored(orientation value: Int) -> PlanarImage {
        let sides: [Int: (row: String, column: String)] = [
            1: ("top", "left"), 2: ("top", "right"), 3: ("bottom", "right"), 4: ("bottom", "left"),
            5: ("left", "top"), 6: ("right", "top"), 7: ("right", "bottom"), 8: ("left", "bottom"),
        ]
        let (row, column) = sides[value]!  // unwrap: the table has all eight
        let swapped = value >= 5
        let storedWidth = swapped ? height : width
        let storedHeight = swapped ? width : height
        var luma = [UInt8](repeating: 0, count: storedWidth * storedHeight)
        for r in 0..<storedHeight {
            for c in 0..<storedWidth {
                let x: Int
                let y: Int
                if swapped {
                    x = row == "left" ? r : width - 1 - r
                    y = column == "top" ? c : height - 1 - c
                } else {
                    y = row == "top" ? r : height - 1 - r
                    x = column == "left" ? c : width - 1 - c
                }
                luma[r * storedWidth + c] = quadrant(x: x, y: y)
            }
        }
        let flat = [UInt8](repeating: 128, count: luma.count)
        return PlanarImage(width: storedWidth, height: storedHeight, planes: [luma, flat, flat])
    }

    @Test(arguments: [false, true])
    func everyOrientationIsDrawnUpright(littleEndian: Bool) throws {
        for value in 1...8 {
            let picture = Self.stored(orientation: value)
            let exif = ExifWriter(littleEndian: littleEndian, first: [(0x0112, .short(value)), (0x010F, .ascii("Camera"))])
            let file = ExifWriter.inserting(exif.segment(), into: JPEGEncoder.encode(picture, quality: 95))
            let header = try file.withUnsafeBytes { try JPEGHeader(checking: $0) }
            #expect(header.exif.orientation == value)
            #expect(header.displayedSize == (Self.width, Self.height), "orientation \(value)")
            let thumbnail = try JPEGThumbnail.make(fromJPEG: file, longSide: 64)
            #expect((thumbnail.width, thumbnail.height) == (Self.width, Self.height), "orientation \(value)")
            let drawn = try JPEGDecoder.decode(thumbnail.jpeg)
            for (x, y) in [(8, 4), (56, 4), (8, 28), (56, 28)] {
                let seen = Int(drawn.planes[0][y * drawn.width + x])
                #expect(abs(seen - Int(Self.quadrant(x: x, y: y))) < 12, "orientation \(value) at \(x),\(y): \(seen)")
            }
            // What is made says no orientation: it has no Exif at all.
            #expect(JPEGMetadata(reading: thumbnail.jpeg).exif.orientation == 1)
        }
    }

    @Test(arguments: [false, true])
    func cameraFactsAreReadAsCamerasWriteThem(littleEndian: Bool) throws {
        let exif = ExifWriter(
            littleEndian: littleEndian,
            first: [(0x0112, .short(6)), (0x010F, .ascii("Apple")), (0x0110, .ascii("iPhone 15 Pro"))],
            exif: [
                (0x829A, .rational(1, 250)), (0x829D, .rational(18, 10)), (0x8827, .short(64)),
                (0x9003, .ascii("2026:05:03 11:00:28")), (0x9011, .ascii("+02:00")), (0x920A, .rational(6860, 1000)),
                (0xA434, .ascii("iPhone 15 Pro back triple camera 6.86mm f/1.78")),
            ])
        let facts = ExifFacts(app1: exif.segment().dropFirst(4))
        #expect(facts.orientation == 6)
        #expect(
            facts.camera
                == CameraFacts(
                    make: "Apple", model: "iPhone 15 Pro", lens: "iPhone 15 Pro back triple camera 6.86mm f/1.78", focalLength: 6.86,
                    fNumber: 1.8, exposureTime: "1/250", iso: 64, takenAt: "2026-05-03T11:00:28+02:00"))
        let withoutOffset = ExifWriter(
            littleEndian: littleEndian, first: [], exif: [(0x9003, .ascii("2019:12:31 23:59:59")), (0x829A, .rational(2, 1))])
        let read = ExifFacts(app1: withoutOffset.segment().dropFirst(4))
        #expect(read.camera.takenAt == "2019-12-31T23:59:59")
        #expect(read.camera.exposureTime == "2")
        #expect(read.orientation == 1)
    }

    @Test func aPillowPhotoWithExifIsRead() throws {
        let header = try Reference.pillow("orientation_rectangle.jpg").withUnsafeBytes { try JPEGHeader(checking: $0) }
        #expect((1...8).contains(header.exif.orientation))
        #expect(header.exif.orientation != 1)
    }

    @Test func hostileExifIsReadWithoutHarm() throws {
        let good = ExifWriter(
            littleEndian: false, first: [(0x0112, .short(3)), (0x010F, .ascii("Maker"))],
            exif: [(0x829A, .rational(1, 60)), (0x9003, .ascii("2020:01:02 03:04:05"))]
        ).segment()
        let base = JPEGEncoder.encode(Self.stored(orientation: 1))
        // Offsets outside the segment, an Exif IFD that points back at IFD0, absurd counts.
        var outside = good
        outside[4 + 6 + 4..<4 + 6 + 8] = [0x7F, 0xFF, 0xFF, 0xF0]
        #expect(ExifFacts(app1: outside.dropFirst(4)) == ExifFacts())
        var looping = ExifWriter(littleEndian: true, first: [(0x0112, .short(8))]).tiff()
        // IFD0's one entry made an Exif IFD link to IFD0 itself.
        looping[10..<22] = [0x69, 0x87, 4, 0, 1, 0, 0, 0, 8, 0, 0, 0]
        #expect(ExifFacts(app1: Array("Exif".utf8) + [0, 0] + looping).orientation == 1)
        var counted = good
        counted[4 + 6 + 8 + 2 + 4..<4 + 6 + 8 + 2 + 8] = [0xFF, 0xFF, 0xFF, 0xFF]
        #expect(ExifFacts(app1: counted.dropFirst(4)).camera.make == nil)
        // Found by Fuzz/run.sh: an entry whose inline value lies past the end of the block.
        let cut = Array(Data(base64Encoded: "TU0AKgAAAAgACgECAAMAAAADAAAAhgEPAAIAAAAFAAAAjAEQAAIAAAAE")!)  // unwrap: valid base64
        #expect(ExifFacts(app1: ExifFacts.signature + cut).camera.model == nil)
        // Random damage anywhere in the block: the parser never traps, and the photo is still
        // a JPEG whose size is read.
        var generator = SystemRandomNumberGenerator()
        for round in 0..<3000 {
            var segment = good
            for _ in 0..<(1 + round % 6) {
                let index = Int.random(in: 4..<segment.count, using: &generator)
                segment[index] = UInt8.random(in: 0...255, using: &generator)
            }
            if round % 7 == 0 { segment.removeLast(Int.random(in: 0..<(segment.count - 8), using: &generator)) }
            let length = segment.count - 2
            segment[2] = UInt8(length >> 8)
            segment[3] = UInt8(length & 0xFF)
            let facts = ExifFacts(app1: segment.dropFirst(4))
            #expect((1...8).contains(facts.orientation))
            let file = ExifWriter.inserting(segment, into: base)
            let header = try file.withUnsafeBytes { try JPEGHeader(checking: $0) }
            #expect(header.width == Self.width)
        }
    }

    @Test(arguments: [1, 3])
    func theColourProfileIsCarriedIntoThumbnails(chunks: Int) throws {
        // A profile of made-up bytes large enough to need `chunks` segments, written in order.
        let size = chunks == 1 ? 3144 : 2 * JPEGMetadata.iccChunkSize + 777
        let profile = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 31 + 7) }
        let segments = JPEGMetadata.iccSegments(profile)
        let file = ExifWriter.inserting(segments, into: JPEGEncoder.encode(Self.stored(orientation: 1)))
        #expect(JPEGMetadata(reading: file).iccProfile == profile)
        let thumbnail = try JPEGThumbnail.make(fromJPEG: file, longSide: 32)
        #expect(JPEGMetadata(reading: thumbnail.jpeg).iccProfile == profile)
        // Chunks out of order are put in order; one missing leaves no profile.
        if chunks == 3 {
            let parts = split(segments)
            #expect(JPEGMetadata(reading: ExifWriter.inserting(parts[2] + parts[0] + parts[1], into: file)).iccProfile == nil)
            let reordered = ExifWriter.inserting(parts[2] + parts[0] + parts[1], into: JPEGEncoder.encode(Self.stored(orientation: 1)))
            #expect(JPEGMetadata(reading: reordered).iccProfile == profile)
            let missing = ExifWriter.inserting(parts[0] + parts[2], into: JPEGEncoder.encode(Self.stored(orientation: 1)))
            #expect(JPEGMetadata(reading: missing).iccProfile == nil)
        }
        let big = try Reference.pillow("icc_profile_big.jpg")
        let read = JPEGMetadata(reading: big).iccProfile
        #expect((read?.count ?? 0) > JPEGMetadata.iccChunkSize)
        #expect(JPEGMetadata(reading: try JPEGThumbnail.make(fromJPEG: big, longSide: 64).jpeg).iccProfile == read)
    }

    /// The APP2 segments one after another, each with its marker.
    private func split(_ segments: [UInt8]) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        var index = 0
        while index < segments.count {
            let length = Int(segments[index + 2]) << 8 | Int(segments[index + 3])
            parts.append(Array(segments[index..<(index + 2 + length)]))
            index += 2 + length
        }
        return parts
    }
}

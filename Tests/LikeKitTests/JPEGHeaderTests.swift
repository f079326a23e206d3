// The JPEG check: real photos pass with their sizes; everything else is refused with a reason.

import Foundation
import Testing

@testable import LikeKit

@Suite struct JPEGHeaderTests {
    @Test(arguments: [
        ("rocket.jpg", 640, 427), ("chelsea.jpg", 451, 300), ("coffee.jpg", 600, 400),
        ("astronaut.jpg", 512, 512), ("hubble_deep_field.jpg", 1000, 872), ("retina.jpg", 1411, 1411),
    ])
    func realPhotosGiveTheirFrameSize(name: String, width: Int, height: Int) throws {
        let header = try JPEGHeader(parsing: Samples.photo(name))
        #expect(header == JPEGHeader(width: width, height: height))
    }

    @Test func madeUpBaselineJPEGParses() throws {
        #expect(try JPEGHeader(parsing: Samples.jpeg(width: 4000, height: 3000)) == JPEGHeader(width: 4000, height: 3000))
    }

    @Test func emptyDataIsRefused() {
        #expect(throws: LikeRepositoryError.notJPEG(image: .image, reason: "the data is empty")) { try JPEGHeader(parsing: Data()) }
    }

    @Test func pngIsRefusedForItsSignature() {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        #expect(throws: LikeRepositoryError.notJPEG(image: .image, reason: "it does not start with the JPEG SOI marker (FF D8)")) {
            try JPEGHeader(parsing: png)
        }
    }

    @Test(arguments: [0.999, 0.9, 0.5, 0.01])
    func truncatedDownloadIsRefused(fraction: Double) {
        let whole = Samples.rocket
        let cut = whole.prefix(Int(Double(whole.count) * fraction))
        #expect(throws: LikeRepositoryError.self) { try JPEGHeader(parsing: cut) }
    }

    @Test func missingEndMarkerIsNamedInTheError() {
        var bytes = Samples.chelsea
        bytes.removeLast(2)
        #expect(
            throws: LikeRepositoryError.notJPEG(image: .image, reason: "it does not end with the EOI marker (FF D9), so it is probably cut short")
        ) {
            try JPEGHeader(parsing: bytes)
        }
    }

    @Test func fillBytesBeforeAMarkerAreSkipped() throws {
        var bytes = [UInt8](Samples.jpeg(width: 10, height: 20))
        bytes.insert(contentsOf: [0xFF, 0xFF, 0xFF], at: 2)  // before APP0
        #expect(try JPEGHeader(parsing: Data(bytes)) == JPEGHeader(width: 10, height: 20))
    }

    @Test func garbageBetweenMarkersIsRefused() {
        var bytes = [UInt8](Samples.jpeg())
        bytes.insert(contentsOf: [0x12, 0x34], at: 2)
        #expect(throws: LikeRepositoryError.notJPEG(image: .image, reason: "expected a marker at byte 2")) { try JPEGHeader(parsing: Data(bytes)) }
    }

    @Test(arguments: [UInt8(0xC4), 0xC8, 0xCC])
    func tablesThatShareTheFrameRangeAreNotFrames(marker: UInt8) throws {
        // A DHT/JPG/DAC segment whose bytes would read as a tiny frame must be skipped.
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, marker, 0x00, 0x08, 0x08, 0x00, 0x01, 0x00, 0x01, 0x03]
        bytes += [UInt8](Samples.jpeg(width: 321, height: 123)).dropFirst(2)
        #expect(try JPEGHeader(parsing: Data(bytes)) == JPEGHeader(width: 321, height: 123))
    }

    @Test func progressiveFrameCounts() throws {
        var bytes = [UInt8](Samples.jpeg(width: 77, height: 66))
        let sof = bytes.firstIndex(of: 0xC0)!
        bytes[sof] = 0xC2
        #expect(try JPEGHeader(parsing: Data(bytes)) == JPEGHeader(width: 77, height: 66))
    }

    @Test func zeroWidthIsRefused() {
        #expect(throws: LikeRepositoryError.notJPEG(image: .image, reason: "the frame header gives a size of 0×48")) {
            try JPEGHeader(parsing: Samples.jpeg(width: 0, height: 48))
        }
    }

    @Test func segmentLengthPastTheEndIsRefused() {
        let bytes = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x40, 0x00, 0x01, 0x02, 0xFF, 0xD9])
        #expect(throws: LikeRepositoryError.notJPEG(image: .image, reason: "the data ends inside the marker segment at byte 2")) {
            try JPEGHeader(parsing: bytes)
        }
    }

    @Test func endMarkerBeforeAnyFrameIsRefused() {
        #expect(throws: LikeRepositoryError.notJPEG(image: .image, reason: "unexpected marker FF D9 at byte 2 before the frame header")) {
            try JPEGHeader(parsing: Data([0xFF, 0xD8, 0xFF, 0xD9]))
        }
    }
}

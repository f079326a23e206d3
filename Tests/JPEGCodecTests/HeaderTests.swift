// The marker walk and the header reads over it: real photos pass the check with their sizes;
// everything else is refused with a reason and the byte it is at; the lenient walk steps over
// what a decoder steps over.

import Foundation
import JPEGCodec
import TestSupport
import Testing

/// The checked read, over bytes in memory.
private func checked(_ bytes: some Collection<UInt8>) throws(JPEGError) -> JPEGHeader {
    let array = Array(bytes)
    let result: Result<JPEGHeader, JPEGError> = array.withUnsafeBytes { raw in Result { () throws(JPEGError) in try JPEGHeader(checking: raw) } }
    return try result.get()
}

/// The lenient read, over bytes in memory.
private func read(_ bytes: [UInt8]) throws(JPEGError) -> JPEGHeader {
    let result: Result<JPEGHeader, JPEGError> = bytes.withUnsafeBytes { raw in Result { () throws(JPEGError) in try JPEGHeader(reading: raw) } }
    return try result.get()
}

/// The markers of every segment the lenient walk finds, in order.
private func markers(_ bytes: [UInt8]) throws -> [JPEGMarker] {
    try bytes.withUnsafeBytes { raw in
        var segments = try JPEGSegments(raw, strictness: .lenient)
        var found: [JPEGMarker] = []
        while let segment = try segments.next() {
            found.append(segment.marker)
            // A scan's entropy-coded data is the decoder's to step over: here, to the next marker.
            if segment.marker == .startOfScan { segments.position = BitReader(bytes: raw, position: segment.end).nextMarker() }
        }
        return found
    }
}

@Suite(.ownLane) struct JPEGHeaderTests {
    @Test(arguments: [
        ("rocket.jpg", 640, 427), ("chelsea.jpg", 451, 300), ("coffee.jpg", 600, 400),
        ("astronaut.jpg", 512, 512), ("hubble_deep_field.jpg", 1000, 872), ("retina.jpg", 1411, 1411),
    ])
    func realPhotosGiveTheirFrameSize(name: String, width: Int, height: Int) throws {
        let header = try checked(Reference.photo(name))
        #expect(header == JPEGHeader(width: width, height: height))
    }

    @Test func madeUpBaselineJPEGParses() throws {
        #expect(try checked(Reference.madeUp(width: 4000, height: 3000)) == JPEGHeader(width: 4000, height: 3000))
    }

    @Test func emptyDataIsRefused() {
        #expect(throws: JPEGError.notJPEG(reason: "the data is empty")) { try checked([]) }
    }

    @Test func pngIsRefusedForItsSignature() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        #expect(throws: JPEGError.notJPEG(reason: "it is a PNG image, not a JPEG")) {
            try checked(png)
        }
    }

    /// The formats most often named .jpg by mistake are called what they are; anything else is
    /// told by the marker it lacks.
    static let otherFormats: [(bytes: [UInt8], reason: String)] = [
        (Array("GIF87a".utf8) + [1, 0, 1, 0, 0, 0], "it is a GIF image, not a JPEG"),
        ([0, 0, 0, 28] + Array("ftypavif".utf8), "it is an AVIF image, not a JPEG"),
        ([0, 0, 0, 24] + Array("ftypmif1".utf8), "it is a HEIC image, not a JPEG"),
        ([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0], "it is a TIFF image, not a JPEG"),
        (Array("RIFF".utf8) + [16, 0, 0, 0] + Array("WEBPVP8 ".utf8), "it is a WebP image, not a JPEG"),
        (Array("plain text, not an image".utf8), "it does not start with the JPEG SOI marker (FF D8)"),
        ([0, 0, 0, 24] + Array("ftypisom".utf8), "it does not start with the JPEG SOI marker (FF D8)"),
    ]

    @Test(arguments: otherFormats)
    func otherFormatsAreNamed(bytes: [UInt8], reason: String) {
        #expect(throws: JPEGError.notJPEG(reason: reason)) { try checked(bytes) }
    }

    @Test(arguments: [0.999, 0.9, 0.5, 0.01])
    func truncatedDownloadIsRefused(fraction: Double) throws {
        let whole = try Reference.photo("rocket.jpg")
        let cut = whole.prefix(Int(Double(whole.count) * fraction))
        #expect(throws: JPEGError.self) { try checked(cut) }
    }

    @Test func missingEndMarkerIsNamedInTheError() throws {
        var bytes = try Reference.photo("chelsea.jpg")
        bytes.removeLast(2)
        #expect(
            throws: JPEGError.notJPEG(reason: "it does not end with the EOI marker (FF D9), so it is probably cut short")
        ) {
            try checked(bytes)
        }
    }

    @Test func fillBytesBeforeAMarkerAreSkipped() throws {
        var bytes = Reference.madeUp(width: 10, height: 20)
        bytes.insert(contentsOf: [0xFF, 0xFF, 0xFF], at: 2)  // before APP0
        #expect(try checked(bytes) == JPEGHeader(width: 10, height: 20))
    }

    @Test func garbageBetweenMarkersIsRefused() {
        var bytes = Reference.madeUp()
        bytes.insert(contentsOf: [0x12, 0x34], at: 2)
        #expect(throws: JPEGError.notJPEG(reason: "expected a marker at byte 2")) { try checked(bytes) }
    }

    @Test(arguments: [UInt8(0xC4), 0xC8, 0xCC])
    func tablesThatShareTheFrameRangeAreNotFrames(marker: UInt8) throws {
        // A DHT/JPG/DAC segment whose bytes would read as a tiny frame must be skipped.
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, marker, 0x00, 0x08, 0x08, 0x00, 0x01, 0x00, 0x01, 0x03]
        bytes += Reference.madeUp(width: 321, height: 123).dropFirst(2)
        #expect(try checked(bytes) == JPEGHeader(width: 321, height: 123))
    }

    @Test func progressiveFrameCounts() throws {
        var bytes = Reference.madeUp(width: 77, height: 66)
        let sof = try #require(bytes.firstIndex(of: 0xC0))
        bytes[sof] = 0xC2
        #expect(try checked(bytes) == JPEGHeader(width: 77, height: 66))
    }

    @Test func zeroWidthIsRefused() {
        #expect(throws: JPEGError.notJPEG(reason: "the frame header gives a size of 0×48")) {
            try checked(Reference.madeUp(width: 0, height: 48))
        }
    }

    @Test func segmentLengthPastTheEndIsRefused() {
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x40, 0x00, 0x01, 0x02, 0xFF, 0xD9]
        #expect(throws: JPEGError.notJPEG(reason: "the data ends inside the marker segment at byte 2")) {
            try checked(bytes)
        }
    }

    @Test func endMarkerBeforeAnyFrameIsRefused() {
        #expect(throws: JPEGError.notJPEG(reason: "unexpected marker FF D9 at byte 2 before the frame header")) {
            try checked([0xFF, 0xD8, 0xFF, 0xD9])
        }
    }

    @Test func bothReadsAgreeOnEveryBundledPhoto() throws {
        for name in Reference.photos {
            let bytes = try Reference.photo(name)
            #expect(try read(bytes) == checked(bytes), "\(name)")
        }
    }
}

@Suite(.ownLane) struct SegmentWalkTests {
    @Test func aMadeUpFileIsWalkedSegmentBySegment() throws {
        #expect(try markers(Reference.madeUp()) == [.jfif, .quantizationTables, .baseline, .startOfScan])
    }

    @Test func theLenientWalkStepsOverWhatADecoderStepsOver() throws {
        var bytes = Reference.madeUp(width: 30, height: 20)
        // Garbage and a stray restart marker before APP0, fill bytes before DQT.
        bytes.insert(contentsOf: [0x12, 0x34, 0xFF, 0xD3], at: 2)
        let dqt = try #require(bytes.firstIndex(of: 0xDB)) - 1
        bytes.insert(contentsOf: [0xFF, 0xFF], at: dqt)
        #expect(try markers(bytes) == [.jfif, .quantizationTables, .baseline, .startOfScan])
        #expect(try read(bytes) == JPEGHeader(width: 30, height: 20))
        #expect(throws: JPEGError.notJPEG(reason: "expected a marker at byte 2")) { try checked(bytes) }
    }

    @Test func theLenientWalkEndsAtEndOfImage() throws {
        var bytes = Reference.madeUp()
        bytes += [0xFF, 0xFE, 0x00, 0x04, 0x41, 0x42]  // a comment after EOI is not walked
        #expect(try markers(bytes) == [.jfif, .quantizationTables, .baseline, .startOfScan])
    }

    @Test func aSegmentPastTheEndIsDamageToTheLenientWalk() {
        #expect(throws: JPEGError.damaged(reason: "a segment runs past the end of the file")) {
            try read([0xFF, 0xD8, 0xFF, 0xE0, 0x40, 0x00, 0x01, 0x02])
        }
    }

    @Test func noFrameHeaderIsNamedByTheLenientRead() {
        #expect(throws: JPEGError.notJPEG(reason: "it has no frame header")) { try read([0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x02, 0xFF, 0xD9]) }
    }

    @Test func markersKnowTheirKinds() {
        #expect(JPEGMarker.progressive.isStartOfFrame && JPEGMarker(rawValue: 0xCF).isStartOfFrame)
        #expect(
            !JPEGMarker.huffmanTables.isStartOfFrame && !JPEGMarker(rawValue: 0xC8).isStartOfFrame
                && !JPEGMarker.arithmeticConditioning.isStartOfFrame)
        #expect((0..<8).allSatisfy { JPEGMarker.restart($0).isRestart && JPEGMarker.restart($0).standsAlone })
        #expect(JPEGMarker.startOfImage.standsAlone && JPEGMarker.endOfImage.standsAlone && !JPEGMarker.startOfScan.standsAlone)
        #expect(JPEGMarker.restart(9) == .restart(1))
        #expect(JPEGMarker.startOfScan.description == "FF DA" && JPEGMarker.temporary.description == "FF 01")
    }
}

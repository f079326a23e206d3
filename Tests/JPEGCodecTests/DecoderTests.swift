// The decoder against libjpeg: every bundled photo and every Pillow test JPEG, and variants made
// from them with libjpeg's own tools (progressive, restart markers, every sampling, grayscale),
// decode at every scale to djpeg's size and nearly its pixels; kinds the decoder does not read are
// refused with their name.

import Foundation
import JPEGCodec
import TestSupport
import Testing

@Suite(.ownLane) struct DecoderTests {
    @Test(
        .enabled(if: Reference.isRequired, "needs libjpeg-turbo-progs (apt-get install libjpeg-turbo-progs)"), arguments: Reference.photos,
        JPEGScale.allCases)
    func bundledPhotosDecodeAsLibjpegDoes(name: String, scale: JPEGScale) throws {
        try expectSameAsLibjpeg(try Reference.photo(name), scale: scale, name: name)
    }

    @Test(.enabled(if: Reference.isRequired, "needs libjpeg-turbo-progs (apt-get install libjpeg-turbo-progs)"), arguments: Reference.pillowDecodable)
    func pillowTestImagesDecodeAsLibjpegDoes(name: String) throws {
        let jpeg = try Reference.pillow(name)
        // iptc.jpg and sugarshack_bad_mpo_header.jpg are 4:2:2: see Reference.Variant.floor.
        let floor = name == "iptc.jpg" || name == "sugarshack_bad_mpo_header.jpg" ? 33.0 : 40
        for scale in JPEGScale.allCases { try expectSameAsLibjpeg(jpeg, scale: scale, name: name, floor: floor) }
    }

    /// Variants of one photo written by cjpeg and jpegtran: every coding the decoder promises.
    @Test(.enabled(if: Reference.isRequired, "needs libjpeg-turbo-progs (apt-get install libjpeg-turbo-progs)"), arguments: Reference.variants)
    func libjpegVariantsDecodeAsLibjpegDoes(variant: Reference.Variant) throws {
        let jpeg = try Reference.make(variant, from: try Reference.photo("astronaut.jpg"))
        for scale in JPEGScale.allCases { try expectSameAsLibjpeg(jpeg, scale: scale, name: variant.name, floor: variant.floor) }
    }

    /// A thumbnail's decode at 1/8 that keeps only each chroma block's mean: its luma is the
    /// full decode's, and over every 2x2 that a 4:2:0 encode averages, its chroma (one value
    /// repeated) is the mean of the full decode's chroma there. Photos without subsampled
    /// chroma decode the same either way.
    @Test(arguments: Reference.photos)
    func chromaMeansAtAnEighthAreWhatTheFullChromaAverages(name: String) throws {
        let jpeg = try Reference.photo(name)
        let (full, means, subsampled) = try jpeg.withUnsafeBytes { raw in
            let decoder = FrameDecoder(bytes: raw, blockSize: 1, subsampled: .meansRepeated)
            let means = try decoder.decode()
            return (try FrameDecoder(bytes: raw, blockSize: 1).decode(), means, decoder.subsamplesChroma)
        }
        #expect(means.width == full.width && means.height == full.height)
        #expect(means.planes[0] == full.planes[0])
        guard subsampled else {
            #expect(means.planes == full.planes, "\(name): no subsampled chroma, yet the decodes differ")
            return
        }
        var cells = 0
        var worst = 0.0
        var total = 0.0
        for plane in 1...2 {
            let meanPlane = means.planes[plane]
            let fullPlane = full.planes[plane]
            for y in stride(from: 0, to: full.height - 1, by: 2) {
                for x in stride(from: 0, to: full.width - 1, by: 2) {
                    let cell = [y * full.width + x, y * full.width + x + 1, (y + 1) * full.width + x, (y + 1) * full.width + x + 1]
                    #expect(Set(cell.map { meanPlane[$0] }).count == 1, "\(name): the mean is not repeated over (\(x), \(y))")
                    let average = Double(cell.reduce(0) { $0 + Int(fullPlane[$1]) }) / 4
                    let difference = abs(Double(meanPlane[cell[0]]) - average)
                    worst = max(worst, difference)
                    total += difference
                    cells += 1
                }
            }
        }
        #expect(cells > 0)
        // Each of the full decode's samples is rounded (and clamped) on its own: within 2.
        #expect(worst <= 2, "\(name): a mean \(worst) away from the full chroma's")
        #expect(total / Double(cells) < 0.5, "\(name): means \(total / Double(cells)) away on average")
    }

    @Test(arguments: [
        ("pil_sample_cmyk.jpg", JPEGError.unsupported(reason: "four colour components (CMYK or YCCK)"))
    ])
    func unsupportedKindsAreNamed(name: String, error: JPEGError) throws {
        let jpeg = try Reference.pillow(name)
        #expect(throws: error) { try JPEGDecoder.decode(jpeg, scale: .eighth) }
    }

    @Test func twelveBitSamplesAreUnsupported() throws {
        var jpeg = try Reference.photo("chelsea.jpg")
        let frame = try #require(jpeg.indices.first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg[frame + 1] = 0xC1
        jpeg[frame + 4] = 12
        #expect(throws: JPEGError.unsupported(reason: "12-bit samples (only 8-bit JPEGs are decoded)")) { try JPEGDecoder.decode(jpeg) }
    }

    @Test(arguments: [(0xC3, "a lossless JPEG"), (0xC9, "arithmetic coding"), (0xC5, "a hierarchical JPEG")])
    func otherCodingsAreUnsupported(marker: UInt8, reason: String) throws {
        var jpeg = try Reference.photo("chelsea.jpg")
        let frame = try #require(jpeg.indices.first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg[frame + 1] = marker
        #expect(throws: JPEGError.unsupported(reason: reason)) { try JPEGDecoder.decode(jpeg) }
    }

    @Test func aHugeFrameOverAFewBytesIsRefusedBeforeAllocating() throws {
        var jpeg = try Reference.photo("chelsea.jpg")
        let frame = try #require(jpeg.indices.first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg.replaceSubrange((frame + 5)..<(frame + 9), with: [0xFF, 0xDC, 0xFF, 0xDC])  // 65500 x 65500
        #expect(throws: JPEGError.tooLarge(reason: "its header claims 65500x65500 pixels, more than its \(jpeg.count) bytes can hold")) {
            try JPEGDecoder.decode(jpeg, scale: .eighth)
        }
    }

    @Test func notAJPEGIsRefused() {
        #expect(throws: JPEGError.notJPEG(reason: "it does not start with FF D8")) { try JPEGDecoder.decode(Array("GIF89a..".utf8)) }
    }

    /// Decodes `jpeg` with ours and djpeg at `scale`: the same size and, unless libjpeg found the
    /// data corrupt (then each recovers in its own way), a PSNR of at least `floor` between the
    /// two: the same picture, up to rounding and the reduced IDCTs' details.
    private func expectSameAsLibjpeg(_ jpeg: [UInt8], scale: JPEGScale, name: String, floor: Double = 40) throws {
        let ours = try JPEGDecoder.decode(jpeg, scale: scale)
        let reference = try Reference.djpeg(jpeg, scale: scale)
        #expect(ours.width == reference.width, "\(name) at \(scale.rawValue)/8")
        #expect(ours.height == reference.height, "\(name) at \(scale.rawValue)/8")
        guard ours.width == reference.width, ours.height == reference.height, !reference.corrupt else { return }
        let quality = psnr(ours.rgb(), reference.rgb)
        #expect(quality > floor, "\(name) at \(scale.rawValue)/8: \(quality) dB")
    }
}

/// Bytes from anywhere: the decoder's work is bounded by the file's size, whatever its headers say.
@Suite(.ownLane) struct HostileJPEGTests {
    /// A progressive 10000x10000 grayscale frame (as many blocks as 200 KB can claim) followed by
    /// 20,000 scans with no data. Each empty scan ends at its first block, as libjpeg's do: a
    /// pass over 1.56 million blocks per scan would take hours.
    ///
    /// The work is counted, not timed: a test's time limit is wall time, and in CI, where other
    /// tests wait on processes for minutes, these decodes of half a second were seen to finish
    /// 580 seconds after they started.
    @Test func manyEmptyScansCostNoPassOverTheBlocksEach() throws {
        var jpeg: [UInt8] = [0xFF, 0xD8]
        jpeg += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        jpeg += [0xFF, 0xC2, 0x00, 0x0B, 0x08, 0x27, 0x10, 0x27, 0x10, 0x01, 0x01, 0x11, 0x00]
        jpeg += [0xFF, 0xC4, 0x00, 0x14, 0x00] + [1] + [UInt8](repeating: 0, count: 15) + [0x00]
        for _ in 0..<20_000 { jpeg += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x00, 0x10] }
        jpeg += [0xFF, 0xD9]
        let (image, visited) = try Self.decode(jpeg)
        #expect(image.width == 1250 && image.height == 1250)
        #expect(Set(image.planes[0]) == [128], "no data: every block is level")
        #expect(visited <= 2 * 20_000, "\(visited) MCUs for 20,000 empty scans")
    }

    /// The same with a restart marker after every MCU: each empty interval must not cost a search.
    @Test func emptyScansWithRestartIntervalsEndAtTheirMarker() throws {
        var jpeg: [UInt8] = [0xFF, 0xD8]
        jpeg += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        jpeg += [0xFF, 0xDD, 0x00, 0x04, 0x00, 0x01]
        jpeg += [0xFF, 0xC2, 0x00, 0x0B, 0x08, 0x27, 0x10, 0x27, 0x10, 0x01, 0x01, 0x11, 0x00]
        jpeg += [0xFF, 0xC4, 0x00, 0x14, 0x00] + [1] + [UInt8](repeating: 0, count: 15) + [0x00]
        for _ in 0..<20_000 { jpeg += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x00, 0x10] }
        jpeg += [0xFF, 0xD9]
        let (image, visited) = try Self.decode(jpeg)
        #expect(image.width == 1250)
        #expect(visited <= 2 * 20_000, "\(visited) MCUs for 20,000 empty scans")
    }

    /// The image at 1/8, as `JPEGDecoder.decode` gives it, and the MCUs its scans went through.
    static func decode(_ jpeg: [UInt8]) throws -> (PlanarImage, Int) {
        try jpeg.withUnsafeBytes { bytes in
            let decoder = FrameDecoder(bytes: bytes, blockSize: JPEGScale.eighth.rawValue)
            return (try decoder.decode(), decoder.mcusVisited)
        }
    }
}

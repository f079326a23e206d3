// Thumbnails against libjpeg: for every photo of a real corpus (the bundled photos,
// Pillow's test JPEGs, damaged ones included, and 12- and 24-megapixel photos in every coding),
// the thumbnail decodes in Pillow, keeps the aspect ratio, has the promised size, and is within
// 2 dB (PSNR against Pillow's decode of the photo box-resized to the same size) of what libjpeg's
// scaled decode and re-encode achieve on the same file.

import Foundation
import JPEGCodec
import TestSupport
import Testing

@Suite(.ownLane) struct ThumbnailTests {
    struct Comparison: Decodable {
        let source: String
        let width: Int
        let height: Int
        let format: String
        let oursPSNR: Double
        let libjpegPSNR: Double
    }

    @Test(
        .enabled(
            if: Reference.thumbnailReferenceIsRequired, "needs libjpeg-turbo-progs and python3-pil (apt-get install libjpeg-turbo-progs python3-pil)")
    )
    func everyPhotoOfTheCorpusGetsAThumbnailAsGoodAsLibjpegs() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbnails-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let python = try Reference.pythonWithPillow()
        let script = Reference.root.appendingPathComponent("Tests/Tools/thumbnail_quality.py").path
        _ = try Reference.run([python, script, "make", directory.path], input: [])

        var sources = Reference.photos.map { Reference.root.appendingPathComponent("Samples/photos/\($0)") }
        // Every one of Pillow's test JPEGs that is baseline or progressive, 8-bit, gray or YCbCr,
        // damaged ones too (cut short, junk before a marker, a corrupt restart interval).
        sources += Reference.pillowDecodable.map { Reference.pillowDirectory.appendingPathComponent($0) }
        let made = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(made.count == 15)
        sources += made.map { directory.appendingPathComponent($0) }

        // The store's thumbnails (at most 512, as cheaply as the DCT allows) of every photo; and
        // `likes thumbnail`'s, exactly 512 on the long side, of every photo that is not damaged
        // (where a damaged file is decoded in full, the few blocks a code no table holds spoils
        // come out otherwise than libjpeg makes them up: the comparison would measure that).
        var pairs: [String] = []
        var sizes: [String: (width: Int, height: Int)] = [:]
        var exact = 0
        for (index, source) in sources.enumerated() {
            let bytes = [UInt8](try Data(contentsOf: source))
            let stored = try bytes.withUnsafeBytes { try JPEGThumbnail.make(fromJPEG: $0, size: .atMost(512)) }
            let output = directory.appendingPathComponent("thumbnail-\(index).jpeg")
            try Data(stored.jpeg).write(to: output)
            pairs += [source.path, output.path]
            sizes[source.lastPathComponent] = try bytes.withUnsafeBytes { raw in
                // As displayed: thumbnails are upright.
                let header = try JPEGHeader(reading: raw)
                let turned = JPEGMetadata(reading: raw).exif.orientation >= 5
                return turned ? (header.height, header.width) : (header.width, header.height)
            }
            let sized = try JPEGThumbnail.make(fromJPEG: bytes)
            let long = min(512, max(sizes[source.lastPathComponent]!.width, sizes[source.lastPathComponent]!.height))
            #expect(max(sized.width, sized.height) == long, "\(source.lastPathComponent): \(sized.width)×\(sized.height)")
            if sized.damage == nil, sized.width != stored.width {
                let copy = directory.appendingPathComponent("exact-\(index)-" + source.lastPathComponent)
                try FileManager.default.copyItem(at: source, to: copy)
                sizes[copy.lastPathComponent] = sizes[source.lastPathComponent]
                let sizedOutput = directory.appendingPathComponent("thumbnail-exact-\(index).jpeg")
                try Data(sized.jpeg).write(to: sizedOutput)
                pairs += [copy.path, sizedOutput.path]
                exact += 1
            }
        }
        #expect(exact >= 15, "the exact size was compared on \(exact) photos only")
        let lines = try Reference.run([python, script, "compare", "85"] + pairs, input: [])
        let comparisons = try String(decoding: lines, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(Comparison.self, from: Data($0.utf8))
        }
        #expect(comparisons.count == pairs.count / 2)
        for comparison in comparisons {
            let photo = try #require(sizes[comparison.source])
            let long = max(comparison.width, comparison.height)
            #expect(comparison.format == "JPEG")
            #expect(long <= 512, "\(comparison.source)")
            if max(photo.width, photo.height) > 512 { #expect(long >= 160, "\(comparison.source)") }
            let aspect = Double(photo.width) / Double(photo.height)
            let kept = Double(comparison.width) / Double(comparison.height)
            if min(comparison.width, comparison.height) >= 50 {
                #expect(abs(kept / aspect - 1) <= 0.02, "\(comparison.source): \(kept) for \(aspect)")
            }
            #expect(
                comparison.oursPSNR >= comparison.libjpegPSNR - 2,
                "\(comparison.source): \(comparison.oursPSNR) dB, libjpeg \(comparison.libjpegPSNR) dB")
        }
    }
}

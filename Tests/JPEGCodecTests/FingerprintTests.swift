// Fingerprints on the bundled photos: every copy a collection gathers (made here by the codec
// itself from the photo's pixels: another size, quality, a cropped border, the pixels turned with
// an orientation that turns them back) is the same picture; another moment (a part of the
// picture moved, the view panned) and another photo are not. Benchmarks/duplicates measures the
// same on a corpus of 583 files, against imagehash.

import Foundation
import JPEGCodec
import TestSupport
import Testing

@Suite(.ownLane) struct FingerprintTests {
    /// The photo's pixels, decoded whole.
    static func picture(_ name: String) throws -> PlanarImage {
        try JPEGDecoder.decode(try Reference.photo(name))
    }

    static func fingerprint(of picture: PlanarImage, quality: Int = 90, orientation: Int = 1) throws -> PictureFingerprint {
        let bytes = JPEGEncoder.encode(picture, quality: quality)
        return PictureFingerprint(picture: try JPEGDecoder.decode(bytes), orientation: orientation)
    }

    /// `picture` less `left`, `top`, `right` and `bottom` pixels at its edges.
    static func cropped(_ picture: PlanarImage, left: Int, top: Int, right: Int, bottom: Int) -> PlanarImage {
        let width = picture.width - left - right
        let height = picture.height - top - bottom
        let planes = picture.planes.map { plane in
            (top..<(top + height)).flatMap { y in plane[(y * picture.width + left)..<(y * picture.width + left + width)] }
        }
        return PlanarImage(width: width, height: height, planes: planes)
    }

    /// `picture` with its luma through `curve` (clamped to 0–255), its colours as they were.
    static func toned(_ picture: PlanarImage, _ curve: (Double) -> Double) -> PlanarImage {
        let table = (0...255).map { UInt8(min(max(curve(Double($0)).rounded(), 0), 255)) }
        var planes = picture.planes
        planes[0] = planes[0].map { table[Int($0)] }
        return PlanarImage(width: picture.width, height: picture.height, planes: planes)
    }

    /// `picture` with a square of `fraction` of its short side, at its busiest of a few places,
    /// copied `shift` of its width to the right: a subject that moved.
    static func moved(_ picture: PlanarImage, fraction: Double, shift: Double) -> PlanarImage {
        let size = Int(Double(min(picture.width, picture.height)) * fraction)
        let step = Int(Double(picture.width) * shift)
        let luma = picture.planes[0]
        func change(_ x: Int, _ y: Int) -> Int {
            var total = 0
            for row in y..<(y + size) {
                for column in Swift.stride(from: x, to: x + size, by: 4) {
                    total += abs(Int(luma[row * picture.width + column]) - Int(luma[row * picture.width + column + step]))
                }
            }
            return total
        }
        let places = (0..<5).flatMap { i in
            (0..<5).map { j in ((picture.width - size - step) * i / 4, (picture.height - size) * j / 4) }
        }
        let (x, y) = places.max { change($0.0, $0.1) < change($1.0, $1.1) }!
        var planes = picture.planes
        for index in planes.indices {
            for row in y..<(y + size) {
                for column in x..<(x + size) {
                    planes[index][row * picture.width + column + step] = picture.planes[index][row * picture.width + column]
                }
            }
        }
        return PlanarImage(width: picture.width, height: picture.height, planes: planes)
    }

    @Test(arguments: ["chelsea.jpg", "coffee.jpg", "astronaut.jpg", "rocket.jpg"])
    func everyCopyOfAPhotoIsTheSamePictureAndAnotherMomentIsNot(_ name: String) throws {
        let photo = try Self.picture(name)
        let original = try Self.fingerprint(of: photo, quality: 95)
        let border = max(1, min(photo.width, photo.height) * 15 / 1000)
        let long = max(photo.width, photo.height)
        let thumbnail = photo.resized(width: photo.width * 256 / long, height: photo.height * 256 / long)
        let copies: [(String, PictureFingerprint)] = [
            ("256 px at quality 50", try Self.fingerprint(of: thumbnail, quality: 50)),
            ("quality 50", try Self.fingerprint(of: photo, quality: 50)),
            ("a border of 1.5 % cropped", try Self.fingerprint(of: Self.cropped(photo, left: border, top: border, right: border, bottom: border))),
            ("one pixel cropped at the left", try Self.fingerprint(of: Self.cropped(photo, left: 1, top: 0, right: 0, bottom: 0))),
            // Stored turned a quarter anticlockwise, shown a quarter clockwise: upright again.
            ("orientation 6", try Self.fingerprint(of: photo.upright(orientation: 8), orientation: 6)),
            ("orientation 3", try Self.fingerprint(of: photo.upright(orientation: 3), orientation: 3)),
            // An edit of the tones is the same picture: the fit takes a tone curve.
            ("contrast raised by a fifth", try Self.fingerprint(of: Self.toned(photo) { 1.2 * ($0 - 128) + 128 })),
            ("brighter, with a gamma of 0.8", try Self.fingerprint(of: Self.toned(photo) { 255 * pow($0 / 255, 0.8) })),
        ]
        for (kind, copy) in copies {
            let likeness = original.likeness(to: copy)
            #expect(likeness.isSamePicture, "\(name), \(kind): \(String(describing: likeness.difference))")
            #expect(copy.likeness(to: original) == likeness, "\(name), \(kind): the same both ways")
        }
        let window = Self.cropped(photo, left: 0, top: 0, right: photo.width / 4, bottom: 0)
        let pan = photo.width * 4 / 100
        let others: [(String, PictureFingerprint)] = [
            ("a subject moved", try Self.fingerprint(of: Self.moved(photo, fraction: 0.12, shift: 0.06))),
            ("a small subject moved", try Self.fingerprint(of: Self.moved(photo, fraction: 0.08, shift: 0.05))),
            ("a pan of 4 %", try Self.fingerprint(of: Self.cropped(photo, left: pan, top: 0, right: photo.width / 4 - pan, bottom: 0))),
        ]
        let windowPrint = try Self.fingerprint(of: window)
        for (kind, other) in others {
            let against = kind.hasPrefix("a pan") ? windowPrint : original
            let likeness = against.likeness(to: other)
            #expect(!likeness.isSamePicture, "\(name), \(kind): \(String(describing: likeness.difference))")
        }
    }

    @Test func twoPhotosOfTheSameShapeAreNotTheSamePicture() throws {
        let prints = try Reference.photos.map { try PictureFingerprint.make(fromJPEG: try Reference.photo($0)) }
        for i in prints.indices {
            for j in prints.indices where j != i {
                #expect(!prints[i].likeness(to: prints[j]).isSamePicture, "\(Reference.photos[i]) and \(Reference.photos[j])")
            }
            #expect(prints[i].likeness(to: prints[i]).difference != nil, "\(Reference.photos[i]) is fitted onto itself")
        }
    }

    @Test func aFingerprintReadsBackFromItsBytes() throws {
        let fingerprint = try PictureFingerprint.make(fromJPEG: try Reference.photo("chelsea.jpg"))
        #expect(fingerprint.bytes.count == PictureFingerprint.byteCount)
        #expect(PictureFingerprint(bytes: fingerprint.bytes) == fingerprint)
        #expect(fingerprint.aspect == Float(451) / 300)
        var damaged = fingerprint.bytes
        damaged[0] = 9
        #expect(PictureFingerprint(bytes: damaged) == nil)
        #expect(PictureFingerprint(bytes: fingerprint.bytes.dropLast()) == nil)
    }
}

@Suite(.ownLane) struct ThumbnailFingerprintTests {
    @Test(arguments: Reference.photos)
    func theThumbnailAndTheFingerprintComeFromOneDecode(_ name: String) throws {
        let bytes = try Reference.photo(name)
        let made = try bytes.withUnsafeBytes { raw in
            try JPEGThumbnail.makeWithFingerprint(fromJPEG: raw, size: .atMost(512))
        }
        let thumbnail = try bytes.withUnsafeBytes { raw in try JPEGThumbnail.make(fromJPEG: raw, size: .atMost(512)) }
        #expect(made.thumbnail == thumbnail)
        #expect(made.fingerprint == (try PictureFingerprint.make(fromJPEG: bytes)))
        // The thumbnail's own fingerprint, from its decode, is the same picture.
        #expect(made.fingerprint.likeness(to: try PictureFingerprint.make(fromJPEG: thumbnail.jpeg)).isSamePicture)
    }
}

@Suite(.ownLane) struct MedianSelectionTests {
    @Test func theSelectionFindsWhatASortPutsAtEachPlace() {
        var generator = SystemRandomNumberGenerator()
        for count in [1, 2, 3, 10, 101, 3_600] {
            // Ties too: values from a few levels.
            let values = (0..<count).map { _ in Double(Int.random(in: 0..<(count / 3 + 2), using: &generator)) / 4 }
            let sorted = values.sorted()
            for k in Set([0, count / 2, count - 1, Int.random(in: 0..<count, using: &generator)]) {
                var copy = values
                #expect(Likeness.select(&copy, k) == sorted[k], "count \(count), place \(k)")
                #expect(copy[..<k].allSatisfy { $0 <= sorted[k] } && copy[k...].allSatisfy { $0 >= sorted[k] })
            }
        }
    }
}

@Suite(.ownLane) struct ExponentialTests {
    @Test(arguments: [0.0, 0.5, 1, 2, 4.5, 8, 12.5])
    func theSeriesIsFoundationsExponential(_ x: Double) {
        let ours = Likeness.exponential(x)
        #expect(abs(ours - exp(x)) <= exp(x) * 1e-14, "e^\(x): \(ours) against \(exp(x))")
    }
}

// The codec's entry points: decode at a scale, and make a thumbnail (decode at the smallest DCT
// scale that is large enough, shrink the rest of the way by averaging, encode as baseline).

/// How much the decoder shrinks the picture while decoding, in the DCT domain.
public enum JPEGScale: Int, Sendable, CaseIterable {
    /// The image's own size: blocks of 8x8 pixels.
    case full = 8
    /// Half the size: each block gives 4x4 pixels.
    case half = 4
    /// A quarter of the size: each block gives 2x2 pixels.
    case quarter = 2
    /// An eighth of the size: each block gives one pixel, its DC coefficient.
    case eighth = 1

    /// The decoded size of a side of `length` pixels at this scale (rounded up, as libjpeg does).
    public func scaled(_ length: Int) -> Int { (length * rawValue + 7) / 8 }
}

/// Decodes baseline and progressive 8-bit JPEGs, grayscale or YCbCr, at 1/8, 1/4, 1/2 or full
/// size.
public enum JPEGDecoder {
    /// Decodes `bytes` at `scale`.
    ///
    /// For example, a 4000x3000 photo at ``JPEGScale/eighth`` gives 500x375 samples, read from
    /// the DC coefficients of its blocks alone.
    ///
    /// - Throws: ``JPEGError``: ``JPEGError/unsupported(reason:)`` for kinds the decoder does not
    ///   read (CMYK, 12-bit, lossless, arithmetic coding), ``JPEGError/tooLarge(reason:)`` for
    ///   frames larger than the data could hold; damage in the entropy-coded data is decoded as
    ///   libjpeg does (zeros past the end), not thrown.
    public static func decode(_ bytes: UnsafeRawBufferPointer, scale: JPEGScale = .full) throws(JPEGError) -> PlanarImage {
        guard let base = bytes.baseAddress, bytes.count >= 4 else { throw .notJPEG(reason: "it is shorter than 4 bytes") }
        let decoder = Decoder(bytes: base.assumingMemoryBound(to: UInt8.self), count: bytes.count, blockSize: scale.rawValue)
        return try decoder.decode()
    }

    /// Decodes `bytes` at `scale`.
    public static func decode(_ bytes: [UInt8], scale: JPEGScale = .full) throws(JPEGError) -> PlanarImage {
        let result: Result<PlanarImage, JPEGError> = bytes.withUnsafeBytes { raw in Result { () throws(JPEGError) in try decode(raw, scale: scale) } }
        return try result.get()
    }
}

/// A small baseline JPEG made from a larger one.
public struct JPEGThumbnail: Sendable, Equatable {
    /// The bytes of the thumbnail's JPEG file.
    public let jpeg: [UInt8]
    /// The thumbnail's width in pixels.
    public let width: Int
    /// The thumbnail's height in pixels.
    public let height: Int
    /// What was wrong with the photo's JPEG data, when something was: the thumbnail shows what
    /// could be read (see ``PlanarImage/damage``).
    public let damage: String?

    /// The long side of a thumbnail unless asked otherwise.
    public static let defaultLongSide = 512

    /// How long a thumbnail's long side is to be.
    public enum Size: Sendable, Hashable {
        /// Exactly this many pixels, unless the photo is smaller (it is never enlarged): the photo
        /// is decoded at the smallest DCT scale that is at least that long, then shrunk to it.
        case longSide(Int)
        /// At most this many pixels, and at least half as many (and at least 160, for a photo
        /// that long), as cheaply as the DCT allows: the photo is decoded at the smallest scale
        /// that reaches half, and shrunk only when that is longer than the most. A 12-megapixel
        /// photo gives 500 pixels at 1/8 for 512.
        case atMost(Int)
    }

    /// Makes a thumbnail of the JPEG in `bytes` whose long side is `longSide` pixels (512 by
    /// default), with the photo's aspect ratio; a photo smaller than that is not enlarged.
    ///
    /// The photo is decoded at the smallest DCT scale that leaves its long side at least
    /// `longSide` (a 12-megapixel photo asked for 320 pixels at 1/8, from its DC coefficients
    /// alone), shrunk the rest of the way by averaging, and encoded as a 4:2:0 (or grayscale)
    /// baseline JPEG at `quality`.
    ///
    /// - Throws: ``JPEGError`` when the bytes are no JPEG the decoder reads. Damaged data that
    ///   decodes in part gives a thumbnail of what could be read, naming the damage in ``damage``.
    public static func make(fromJPEG bytes: UnsafeRawBufferPointer, longSide: Int = defaultLongSide, quality: Int = 85) throws(JPEGError)
        -> JPEGThumbnail
    {
        try make(fromJPEG: bytes, size: .longSide(longSide), quality: quality)
    }

    /// Makes a thumbnail of the JPEG in `bytes` of the size `size` asks for: see ``Size``.
    ///
    /// - Throws: ``JPEGError`` when the bytes are no JPEG the decoder reads.
    public static func make(fromJPEG bytes: UnsafeRawBufferPointer, size: Size, quality: Int = 85) throws(JPEGError) -> JPEGThumbnail {
        guard let base = bytes.baseAddress, bytes.count >= 4 else { throw .notJPEG(reason: "it is shorter than 4 bytes") }
        let frame = try Self.frameSize(bytes)
        let plan = Self.plan(width: frame.width, height: frame.height, size: size)
        let decoder = Decoder(bytes: base.assumingMemoryBound(to: UInt8.self), count: bytes.count, blockSize: plan.scale.rawValue)
        var image = try decoder.decode()
        if image.width != plan.width || image.height != plan.height { image = image.resized(width: plan.width, height: plan.height) }
        return JPEGThumbnail(jpeg: JPEGEncoder.encode(image, quality: quality), width: image.width, height: image.height, damage: image.damage)
    }

    /// Makes a thumbnail of the JPEG in `bytes`; see ``make(fromJPEG:longSide:quality:)-(UnsafeRawBufferPointer,_,_)``.
    public static func make(fromJPEG bytes: [UInt8], longSide: Int = defaultLongSide, quality: Int = 85) throws(JPEGError) -> JPEGThumbnail {
        let result: Result<JPEGThumbnail, JPEGError> = bytes.withUnsafeBytes { raw in
            Result { () throws(JPEGError) in try make(fromJPEG: raw, longSide: longSide, quality: quality) }
        }
        return try result.get()
    }

    /// The size of the thumbnail ``make(fromJPEG:longSide:quality:)-(UnsafeRawBufferPointer,_,_)``
    /// makes of a `width` x `height` photo.
    public static func size(ofWidth width: Int, height: Int, longSide: Int = defaultLongSide) -> (width: Int, height: Int) {
        size(ofWidth: width, height: height, size: .longSide(longSide))
    }

    /// The size of the thumbnail ``make(fromJPEG:size:quality:)`` makes of a `width` x `height`
    /// photo.
    public static func size(ofWidth width: Int, height: Int, size: Size) -> (width: Int, height: Int) {
        let plan = plan(width: width, height: height, size: size)
        return (plan.width, plan.height)
    }

    /// The DCT scale a photo is decoded at, and the thumbnail's size: the smallest scale whose
    /// long side reaches `enough`, then a box resize down to `target` if still longer.
    static func plan(width: Int, height: Int, size: Size) -> (scale: JPEGScale, width: Int, height: Int) {
        let long = max(width, height)
        let target: Int
        let enough: Int
        switch size {
        case .longSide(let side):
            target = max(1, min(side, long))
            enough = target
        case .atMost(let side):
            target = max(1, min(side, long))
            enough = max(min(target, 160), target / 2)
        }
        let scale = JPEGScale.allCases.reversed().first { $0.scaled(long) >= enough } ?? .full
        let scaled = (width: scale.scaled(width), height: scale.scaled(height))
        guard max(scaled.width, scaled.height) > target else { return (scale, scaled.width, scaled.height) }
        let short = max(1, Int((Double(min(width, height)) * Double(target) / Double(long)).rounded()))
        return width >= height ? (scale, target, short) : (scale, short, target)
    }

    /// The frame header's width and height, read without decoding.
    static func frameSize(_ bytes: UnsafeRawBufferPointer) throws(JPEGError) -> (width: Int, height: Int) {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw .notJPEG(reason: "it does not start with FF D8") }
        var position = 2
        while position + 4 <= bytes.count {
            guard bytes[position] == 0xFF else {
                position += 1
                continue
            }
            let marker = bytes[position + 1]
            if marker == 0xFF {
                position += 1
                continue
            }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
                position += 2
                continue
            }
            let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                guard length >= 7, position + 2 + length <= bytes.count else { throw .damaged(reason: "the frame header is cut short") }
                let height = Int(bytes[position + 5]) << 8 | Int(bytes[position + 6])
                let width = Int(bytes[position + 7]) << 8 | Int(bytes[position + 8])
                guard width > 0, height > 0 else { throw .unsupported(reason: "the frame header gives no size") }
                return (width, height)
            }
            guard length >= 2 else { throw .damaged(reason: "a segment has a length below 2") }
            position += 2 + length
        }
        throw .notJPEG(reason: "it has no frame header")
    }
}

extension PlanarImage {
    /// The picture as interleaved 8-bit RGB (JFIF's YCbCr conversion; gray repeated three times).
    public func rgb() -> [UInt8] {
        var result = [UInt8](repeating: 0, count: width * height * 3)
        for index in 0..<(width * height) {
            let y = Float(planes[0][index])
            if isGrayscale {
                result[3 * index] = planes[0][index]
                result[3 * index + 1] = planes[0][index]
                result[3 * index + 2] = planes[0][index]
                continue
            }
            let cb = Float(planes[1][index]) - 128
            let cr = Float(planes[2][index]) - 128
            func byte(_ value: Float) -> UInt8 { UInt8(min(max(value + 0.5, 0), 255)) }
            result[3 * index] = byte(y + 1.402 * cr)
            result[3 * index + 1] = byte(y - 0.344136 * cb - 0.714136 * cr)
            result[3 * index + 2] = byte(y + 1.772 * cb)
        }
        return result
    }
}

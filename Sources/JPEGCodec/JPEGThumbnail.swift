// Thumbnails: a photo decoded at the smallest DCT scale that is large enough, shrunk the rest of
// the way by averaging, and encoded as baseline.

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
    /// baseline JPEG at `quality`, upright (as the photo's Exif orientation says it is shown) and
    /// with the photo's ICC profile. Where a photo at 1/8 is the thumbnail's size, its subsampled
    /// chroma is read from each block's DC alone too: the 4:2:0 encode keeps one chroma sample
    /// per 16x16 pixels, the mean of the chroma blocks that cover them.
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
        let (image, metadata, _) = try picture(fromJPEG: bytes, size: size)
        let jpeg = JPEGEncoder.encode(image, quality: quality, iccProfile: metadata.iccProfile)
        return JPEGThumbnail(jpeg: jpeg, width: image.width, height: image.height, damage: image.damage)
    }

    /// Makes the thumbnail of the JPEG in `bytes` of the size `size` asks for, and the
    /// photo's fingerprint from the same picture (``PictureFingerprint/init(picture:orientation:aspect:)``
    /// of the upright thumbnail, before it is encoded, with the photo's own aspect ratio): one
    /// decode for both.
    ///
    /// - Throws: ``JPEGError`` when the bytes are no JPEG the decoder reads.
    public static func makeWithFingerprint(fromJPEG bytes: UnsafeRawBufferPointer, size: Size, quality: Int = 85) throws(JPEGError)
        -> (thumbnail: JPEGThumbnail, fingerprint: PictureFingerprint)
    {
        let (image, metadata, aspect) = try picture(fromJPEG: bytes, size: size)
        let jpeg = JPEGEncoder.encode(image, quality: quality, iccProfile: metadata.iccProfile)
        let thumbnail = JPEGThumbnail(jpeg: jpeg, width: image.width, height: image.height, damage: image.damage)
        return (thumbnail, PictureFingerprint(picture: image, orientation: 1, aspect: aspect))
    }

    /// The upright picture a thumbnail of `size` is encoded from, the photo's metadata and its
    /// aspect ratio as displayed (from its frame: the picture's own is rounded by the scale).
    static func picture(fromJPEG bytes: UnsafeRawBufferPointer, size: Size) throws(JPEGError) -> (PlanarImage, JPEGMetadata, Float) {
        let frame = try JPEGHeader(reading: bytes)
        let metadata = JPEGMetadata(reading: bytes)
        let plan = Self.plan(width: frame.width, height: frame.height, size: size)
        // At 1/8 the encode's 4:2:0 chroma needs only each chroma block's mean when the picture
        // keeps its decoded size. A resize needs the chroma's detail: from its DC alone, even
        // interpolated, a 24-megapixel photo's 512-pixel thumbnail loses 0.25 dB.
        let scaled = (width: plan.scale.scaled(frame.width), height: plan.scale.scaled(frame.height))
        let resizing = scaled.width != plan.width || scaled.height != plan.height
        let decoder = FrameDecoder(bytes: bytes, blockSize: plan.scale.rawValue, subsampled: resizing ? .fromCoefficients : .meansRepeated)
        var image = try decoder.decode()
        if image.width != plan.width || image.height != plan.height { image = image.resized(width: plan.width, height: plan.height) }
        let shown = frame.displayedSize
        return (image.upright(orientation: metadata.exif.orientation), metadata, Float(shown.width) / Float(shown.height))
    }

    /// Whether the thumbnail of `size` of a photo whose frame is `width` x `height` is its DC
    /// picture itself (``JPEGDecoder/decodeDC(_:)``), unresized: then
    /// ``make(fromDCPicture:metadata:quality:)`` makes it without decoding the photo again.
    public static func isDCPicture(width: Int, height: Int, size: Size) -> Bool {
        let plan = plan(width: width, height: height, size: size)
        return plan.scale == .eighth && plan.width == JPEGScale.eighth.scaled(width) && plan.height == JPEGScale.eighth.scaled(height)
    }

    /// The thumbnail ``make(fromJPEG:size:quality:)`` makes of a photo whose DC picture
    /// (``JPEGDecoder/decodeDC(_:)``) is `picture` and whose metadata is `metadata`, where
    /// ``isDCPicture(width:height:size:)`` holds: byte for byte the same, from the decode a
    /// caller already made (a like measuring the photo's colour).
    public static func make(fromDCPicture picture: PlanarImage, metadata: JPEGMetadata, quality: Int = 85) -> JPEGThumbnail {
        let image = picture.upright(orientation: metadata.exif.orientation)
        let jpeg = JPEGEncoder.encode(image, quality: quality, iccProfile: metadata.iccProfile)
        return JPEGThumbnail(jpeg: jpeg, width: image.width, height: image.height, damage: image.damage)
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
    /// photo (give the size as displayed, and it is the thumbnail's as displayed).
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
}

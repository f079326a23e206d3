// The decoder's entry point: a JPEG decoded at one of the scales the DCT gives for the price of
// fewer coefficients.

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
        try FrameDecoder(bytes: bytes, blockSize: scale.rawValue).decode()
    }

    /// Decodes `bytes` at `scale`.
    public static func decode(_ bytes: [UInt8], scale: JPEGScale = .full) throws(JPEGError) -> PlanarImage {
        let result: Result<PlanarImage, JPEGError> = bytes.withUnsafeBytes { raw in Result { () throws(JPEGError) in try decode(raw, scale: scale) } }
        return try result.get()
    }
}

// The picture a photo's colour is measured from: each block's DC coefficient, chroma blocks' means
// repeated (a 1/8 decode), which still reads every coefficient's code but transforms none.

extension JPEGDecoder {
    /// The photo in `bytes` at 1/8 of its size from the DC coefficients of its blocks alone, each
    /// chroma block's mean repeated over the luma samples it covers: what a mean colour needs.
    ///
    /// - Throws: ``JPEGError`` when the bytes are no JPEG the decoder reads.
    public static func decodeDC(_ bytes: UnsafeRawBufferPointer) throws(JPEGError) -> PlanarImage {
        try FrameDecoder(bytes: bytes, blockSize: JPEGScale.eighth.rawValue, subsampled: .meansRepeated).decode()
    }
}

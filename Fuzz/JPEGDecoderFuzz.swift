// libFuzzer harness: the JPEG decoder and thumbnailer must take any bytes without crashing,
// hanging or allocating without bound, and what they return must be whole. Built by Fuzz/run.sh.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEGDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    // The first byte picks the scale, so every path of the decoder is reached.
    let scale = JPEGScale.allCases[Int(size > 0 ? data[0] : 0) % 4]
    if let image = try? JPEGDecoder.decode(bytes, scale: scale) {
        precondition(image.width > 0 && image.height > 0 && image.planes.allSatisfy { $0.count == image.width * image.height })
    }
    if let thumbnail = try? JPEGThumbnail.make(fromJPEG: bytes, longSide: 64) {
        precondition(thumbnail.width <= 64 && thumbnail.height <= 64 && thumbnail.jpeg.count > 4)
        precondition((try? JPEGDecoder.decode(thumbnail.jpeg)) != nil, "a thumbnail the decoder cannot read back")
    }
    return 0
}

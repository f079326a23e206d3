// From the decoder's YCbCr planes to the RGB that screens and image files want: JFIF's full-range
// conversion (ITU-R BT.601 coefficients), gray repeated three times.

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

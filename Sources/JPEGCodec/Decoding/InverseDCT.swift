// The inverse DCT of one 8x8 block of dequantized coefficients to 8, 4, 2 or 1 pixels a side:
// scaling in the DCT domain. A reduced output is the mean of the full transform's pixels it
// covers, worked out from all 64 coefficients at once (as libjpeg's reduced transforms are), so a
// block decoded at 1/2 equals its full decode box-filtered, for less work.

/// Separable inverse DCTs from an 8x8 coefficient block to `width` x `height` pixels, each of
/// 1, 2, 4 or 8 (the two may differ: a chroma block of 4:2:2 grows twice as wide as high).
enum InverseDCT {
    /// For each output size 1, 2, 4 and 8, `size` rows of 8 factors at ``offset(_:)``: row `x`
    /// holds, for each frequency `u`, the mean over the pixels `x` covers of the 8-point basis
    /// `0.5 * C(u) * cos((2n + 1) u pi / 16)` (JPEG A.3.3). Made once; never freed.
    nonisolated(unsafe) static let factors: UnsafePointer<Float> = {  // filled once by this initializer, then only read
        let table = UnsafeMutablePointer<Float>.allocate(capacity: 15 * 8)
        table.initialize(repeating: 0, count: 15 * 8)
        for size in [1, 2, 4, 8] {
            let span = 8 / size
            for x in 0..<size {
                for u in 0..<8 {
                    let c: Double = u == 0 ? 1 / 2.0.squareRoot() : 1
                    var sum = 0.0
                    for n in (x * span)..<((x + 1) * span) { sum += 0.5 * c * cosine(Double(2 * n + 1) * Double(u) * Double.pi / 16) }
                    table[offset(size) + x * 8 + u] = Float(sum / Double(span))
                }
            }
        }
        return UnsafePointer(table)
    }()

    @inline(__always)
    static func offset(_ size: Int) -> Int { (size - 1) * 8 }

    /// Transforms `coefficients` (64, natural order, dequantized) into `width` x `height` samples
    /// at `output`, `stride` bytes a row apart, level-shifted by 128 and clamped to 0...255.
    /// `scratch` holds 64 floats between the two passes.
    @inline(__always)
    static func transform(
        _ coefficients: UnsafePointer<Float>, width: Int, height: Int, into output: UnsafeMutablePointer<UInt8>, stride: Int,
        scratch: UnsafeMutablePointer<Float>
    ) {
        if width == 1 && height == 1 {
            output[0] = clamp(coefficients[0] * 0.125)
            return
        }
        let horizontal = factors + offset(width)
        let vertical = factors + offset(height)
        // A side of one pixel is the mean of all eight: only frequency 0 counts.
        let columns = width == 1 ? 1 : 8
        let rows = height == 1 ? 1 : 8
        // Rows first: for each vertical frequency v, the row's samples at each x.
        for v in 0..<rows {
            let row = coefficients + v * 8
            for x in 0..<width {
                let weights = horizontal + x * 8
                var sum: Float = 0
                for u in 0..<columns { sum += weights[u] * row[u] }
                scratch[v * 8 + x] = sum
            }
        }
        for y in 0..<height {
            let weights = vertical + y * 8
            let line = output + y * stride
            for x in 0..<width {
                var sum: Float = 0
                for v in 0..<rows { sum += weights[v] * scratch[v * 8 + x] }
                line[x] = clamp(sum)
            }
        }
    }

    /// A sample level-shifted by 128, rounded and clamped to a byte.
    @inline(__always)
    static func clamp(_ value: Float) -> UInt8 {
        let shifted = value + 128.5
        if shifted <= 0 { return 0 }
        if shifted >= 255 { return 255 }
        return UInt8(truncatingIfNeeded: Int(shifted))
    }

    /// cos by its Taylor series after reduction to [-pi, pi], for the tables: the codec needs no
    /// C library.
    static func cosine(_ angle: Double) -> Double {
        var x = angle.truncatingRemainder(dividingBy: 2 * Double.pi)
        if x > Double.pi { x -= 2 * Double.pi }
        if x < -Double.pi { x += 2 * Double.pi }
        var term = 1.0
        var sum = 1.0
        for n in 1...24 {
            term *= -x * x / Double((2 * n - 1) * (2 * n))
            sum += term
        }
        return sum
    }
}

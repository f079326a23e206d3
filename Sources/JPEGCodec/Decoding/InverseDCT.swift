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
        if width == 8 && height == 8 {
            square(coefficients, columns: columns8, into: output, stride: stride)
            return
        }
        if width == 4 && height == 4 {
            square(coefficients, columns: columns4, into: output, stride: stride)
            return
        }
        if width == 2 && height == 2 {
            square(coefficients, columns: columns2, into: output, stride: stride)
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

    /// For a square output of 2, 4 or 8 a side, each frequency `u`'s factors for every output
    /// column at once (the table's rows, read across).
    static let columns2: [SIMD2<Float>] = (0..<8).map { u in SIMD2((0..<2).map { x in factors[offset(2) + x * 8 + u] }) }
    static let columns4: [SIMD4<Float>] = (0..<8).map { u in SIMD4((0..<4).map { x in factors[offset(4) + x * 8 + u] }) }
    static let columns8: [SIMD8<Float>] = (0..<8).map { u in SIMD8((0..<8).map { x in factors[offset(8) + x * 8 + u] }) }

    /// The transform to a square of N = 2, 4 or 8 samples a side, a row of N at a time: first each
    /// coefficient row's samples at every x (a row of zeros, the commonest, skipped), then each
    /// output row the weighed sum of those, in the order the scalar passes add them, so the
    /// samples are the same.
    @inline(__always)
    private static func square<Vector: SIMD>(
        _ coefficients: UnsafePointer<Float>, columns: [Vector], into output: UnsafeMutablePointer<UInt8>, stride: Int
    ) where Vector.Scalar == Float {
        let size = Vector.scalarCount
        withUnsafeTemporaryAllocation(of: Vector.self, capacity: 8) { rows in
            var used = 0
            var nonzero: UInt8 = 0
            columns.withUnsafeBufferPointer { columns in
                for v in 0..<8 {
                    let row = coefficients + v * 8
                    var sum = Vector()
                    var any = false
                    for u in 0..<8 where row[u] != 0 {
                        sum += row[u] * columns[u]
                        any = true
                    }
                    rows[v] = sum
                    if any {
                        nonzero |= 1 << v
                        used = v + 1
                    }
                }
                for y in 0..<size {
                    var sum = Vector()
                    for v in 0..<used where nonzero & (1 << v) != 0 { sum += columns[v][y] * rows[v] }
                    let shifted = (sum + 128.5).clamped(lowerBound: Vector(), upperBound: Vector(repeating: 255))
                    let line = output + y * stride
                    for x in 0..<size { line[x] = UInt8(truncatingIfNeeded: Int32(shifted[x])) }
                }
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

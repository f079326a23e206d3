// The encoder's transform: 8x8 samples to 64 coefficients, by the factor matrix of JPEG A.3.3.

/// The forward DCT of JPEG A.3.3 by its factor matrix, rows then columns.
enum ForwardDCT {
    /// `0.5 * C(u) * cos((2x + 1) u pi / 16)` at `u * 8 + x`.
    nonisolated(unsafe) private static let factors: UnsafePointer<Float> = {  // filled once by this initializer, then only read
        let table = UnsafeMutablePointer<Float>.allocate(capacity: 64)
        for u in 0..<8 {
            for x in 0..<8 {
                let c: Double = u == 0 ? 1 / 2.0.squareRoot() : 1
                table[u * 8 + x] = Float(0.5 * c * InverseDCT.cosine(Double(2 * x + 1) * Double(u) * Double.pi / 16))
            }
        }
        return UnsafePointer(table)
    }()

    /// `factors` by column: entry `x` holds `factors[u * 8 + x]` for the eight `u`.
    nonisolated(unsafe) private static let columns: UnsafePointer<SIMD8<Float>> = {  // filled once by this initializer, then only read
        let table = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: 8)
        for x in 0..<8 { table[x] = SIMD8((0..<8).map { factors[$0 * 8 + x] }) }
        return UnsafePointer(table)
    }()

    /// Transforms the 64 level-shifted samples at `block` in place into coefficients.
    ///
    /// Eight outputs at a time, each a sum taken in the same order as one at a time would take
    /// it (a product, then a sum, never fused), so the result is the same to the last bit.
    static func transform(_ block: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let rows = UnsafeMutableRawPointer(scratch)
        for y in 0..<8 {
            var sum = SIMD8<Float>(repeating: 0)
            for x in 0..<8 { sum = sum + columns[x] * SIMD8(repeating: block[y * 8 + x]) }
            rows.storeBytes(of: sum, toByteOffset: y * 32, as: SIMD8<Float>.self)
        }
        let output = UnsafeMutableRawPointer(block)
        for v in 0..<8 {
            var sum = SIMD8<Float>(repeating: 0)
            for y in 0..<8 {
                sum = sum + SIMD8(repeating: factors[v * 8 + y]) * rows.loadUnaligned(fromByteOffset: y * 32, as: SIMD8<Float>.self)
            }
            output.storeBytes(of: sum, toByteOffset: v * 32, as: SIMD8<Float>.self)
        }
    }
}

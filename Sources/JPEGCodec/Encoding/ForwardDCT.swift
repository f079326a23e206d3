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

    /// Transforms the 64 level-shifted samples at `block` in place into coefficients.
    static func transform(_ block: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        for y in 0..<8 {
            for u in 0..<8 {
                var sum: Float = 0
                for x in 0..<8 { sum += factors[u * 8 + x] * block[y * 8 + x] }
                scratch[y * 8 + u] = sum
            }
        }
        for v in 0..<8 {
            for u in 0..<8 {
                var sum: Float = 0
                for y in 0..<8 { sum += factors[v * 8 + y] * scratch[y * 8 + u] }
                block[v * 8 + u] = sum
            }
        }
    }
}

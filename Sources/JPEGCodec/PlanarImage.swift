// A decoded picture as the codec passes it around: one plane of 8-bit samples per component,
// Y (or gray) then Cb and Cr, all of one size. Colour stays YCbCr from decoder to encoder.

/// A picture of `width` x `height` samples in one plane (grayscale) or three (Y, Cb, Cr; JFIF's
/// full-range YCbCr), each stored row by row.
public struct PlanarImage: Sendable, Equatable {
    /// The width in samples (pixels).
    public let width: Int
    /// The height in samples (pixels).
    public let height: Int
    /// `planes[i][y * width + x]`: one plane for grayscale, three for YCbCr.
    public var planes: [[UInt8]]
    /// What was wrong with the JPEG's data, when something was (cut short, a code no Huffman
    /// table has, a restart marker missing): the picture shows what could be read, as libjpeg's
    /// does when it warns. `nil` for a sound file.
    public var damage: String?

    /// A picture of the given planes, each `width * height` samples row by row: one (gray) or
    /// three (Y, Cb, Cr).
    public init(width: Int, height: Int, planes: [[UInt8]]) {
        precondition(width > 0 && height > 0 && (planes.count == 1 || planes.count == 3))
        precondition(planes.allSatisfy { $0.count == width * height })
        self.width = width
        self.height = height
        self.planes = planes
    }

    /// Whether the picture has one plane.
    public var isGrayscale: Bool { planes.count == 1 }

    /// The picture scaled to `width` x `height` by averaging the samples each output sample
    /// covers (a box filter, as Pillow's `Image.BOX`), for shrinking.
    public func resized(width newWidth: Int, height newHeight: Int) -> PlanarImage {
        precondition(newWidth > 0 && newHeight > 0)
        if newWidth == width && newHeight == height { return self }
        let horizontal = BoxWeights(from: width, to: newWidth)
        let vertical = BoxWeights(from: height, to: newHeight)
        let planes = planes.map { plane in
            // Rows first into floats, then columns, each output sample the covered area's mean.
            var rows = [Float](repeating: 0, count: newWidth * height)
            plane.withUnsafeBufferPointer { source in
                rows.withUnsafeMutableBufferPointer { target in
                    for y in 0..<height {
                        let line = source.baseAddress! + y * width
                        for x in 0..<newWidth {
                            var sum: Float = 0
                            let span = horizontal.spans[x]
                            for index in 0..<span.weights.count { sum += Float(line[span.first + index]) * span.weights[index] }
                            target[y * newWidth + x] = sum
                        }
                    }
                }
            }
            var result = [UInt8](repeating: 0, count: newWidth * newHeight)
            rows.withUnsafeBufferPointer { source in
                result.withUnsafeMutableBufferPointer { target in
                    for y in 0..<newHeight {
                        let span = vertical.spans[y]
                        for x in 0..<newWidth {
                            var sum: Float = 0
                            for index in 0..<span.weights.count { sum += source[(span.first + index) * newWidth + x] * span.weights[index] }
                            target[y * newWidth + x] = UInt8(min(max(sum + 0.5, 0), 255))
                        }
                    }
                }
            }
            return result
        }
        var resized = PlanarImage(width: newWidth, height: newHeight, planes: planes)
        resized.damage = damage
        return resized
    }
}

/// For each output sample of a box resize along one axis, the input samples it takes and the
/// share of each (summing to 1), as Pillow's `Image.BOX` computes them: the samples whose
/// centres fall within the output sample's span of the input, each counted whole.
struct BoxWeights {
    struct Span {
        let first: Int
        let weights: [Float]
    }

    let spans: [Span]

    init(from source: Int, to target: Int) {
        let scale = Double(source) / Double(target)
        let support = 0.5 * max(scale, 1)
        let inverse = 1 / max(scale, 1)
        spans = (0..<target).map { index in
            let center = (Double(index) + 0.5) * scale
            let first = max(Int(center - support + 0.5), 0)
            let last = min(Int(center + support + 0.5), source)
            var weights: [Double] = []
            for sample in first..<max(first + 1, last) {
                let x = (Double(sample) - center + 0.5) * inverse
                weights.append(x > -0.5 && x <= 0.5 ? 1 : 0)
            }
            let total = weights.reduce(0, +)
            return Span(first: first, weights: weights.map { Float(total > 0 ? $0 / total : 1 / Double(weights.count)) })
        }
    }
}

/// Brings a decoded plane to the output's size: crops its padding and, for a component sampled
/// more coarsely than the DCT could make up, upsamples it by whole factors (linear between
/// sample centres for 2, as libjpeg's "fancy" upsampling; repeated samples otherwise).
enum Upsampling {
    static func plane(
        _ samples: UnsafePointer<UInt8>, stride: Int, validWidth: Int, validHeight: Int, factorX: Int, factorY: Int, width: Int, height: Int
    ) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: width * height)
        if factorX == 1 && factorY == 1 {
            result.withUnsafeMutableBufferPointer { target in
                for y in 0..<height {
                    let row = samples + min(y, validHeight - 1) * stride
                    for x in 0..<width { target[y * width + x] = row[min(x, validWidth - 1)] }
                }
            }
            return result
        }
        // As libjpeg: a plane of one or two samples a row is repeated, not interpolated.
        let linear = validWidth > 2
        result.withUnsafeMutableBufferPointer { target in
            // Column positions in the source for each output column: the two nearest samples and
            // the weight of the second.
            let columns = (0..<width).map { taps(for: $0, factor: factorX, limit: validWidth, linear: linear) }
            for y in 0..<height {
                let row = taps(for: y, factor: factorY, limit: validHeight, linear: linear)
                let upper = samples + row.first * stride
                let lower = samples + row.second * stride
                for x in 0..<width {
                    let column = columns[x]
                    let top = Float(upper[column.first]) * (1 - column.weight) + Float(upper[column.second]) * column.weight
                    let bottom = Float(lower[column.first]) * (1 - column.weight) + Float(lower[column.second]) * column.weight
                    let value = top * (1 - row.weight) + bottom * row.weight
                    target[y * width + x] = UInt8(min(max(value + 0.5, 0), 255))
                }
            }
        }
        return result
    }

    private struct Taps {
        let first: Int
        let second: Int
        let weight: Float
    }

    private static func taps(for index: Int, factor: Int, limit: Int, linear: Bool) -> Taps {
        if factor == 1 {
            let clamped = min(index, limit - 1)
            return Taps(first: clamped, second: clamped, weight: 0)
        }
        if factor != 2 || !linear {
            let clamped = min(index / factor, limit - 1)
            return Taps(first: clamped, second: clamped, weight: 0)
        }
        // Output sample i sits at source position (i + 0.5) / 2 - 0.5.
        let position = (Float(index) + 0.5) / 2 - 0.5
        let first = Int(position.rounded(.down))
        let weight = position - Float(first)
        let low = min(max(first, 0), limit - 1)
        let high = min(max(first + 1, 0), limit - 1)
        return Taps(first: low, second: high, weight: weight)
    }
}

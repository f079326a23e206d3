// Shrinking a picture: a box filter, each output sample the mean of the input samples whose
// centres fall in its span (Pillow's Image.BOX), rows first, then columns.

extension PlanarImage {
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
                        let line = y * width
                        for x in 0..<newWidth {
                            var sum: Float = 0
                            let span = horizontal.spans[x]
                            for index in 0..<span.weights.count { sum += Float(source[line + span.first + index]) * span.weights[index] }
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

// Shrinking a picture: a box filter, each output sample the mean of the input samples whose
// centres fall in its span (Pillow's Image.BOX), rows first, then columns.

extension PlanarImage {
    // long: one pass per direction over raw buffers; split, the passes' pointers would cross calls.
    /// The picture scaled to `width` x `height` by averaging the samples each output sample
    /// covers (a box filter, as Pillow's `Image.BOX`), for shrinking.
    public func resized(width newWidth: Int, height newHeight: Int) -> PlanarImage {
        precondition(newWidth > 0 && newHeight > 0)
        if newWidth == width && newHeight == height { return self }
        let horizontal = BoxWeights(from: width, to: newWidth)
        let vertical = BoxWeights(from: height, to: newHeight)
        // One buffer of row sums for every plane, every element written before it is read.
        var rows = [UInt32](unsafeUninitializedCapacity: newWidth * height) { _, count in count = newWidth * height }
        let planes = planes.map { plane in
            // Rows first: each output column's sum of the samples it takes (whole integers, the
            // box's weights being equal), then columns, each sum divided once by the count of
            // samples it took, rounded.
            plane.withUnsafeBufferPointer { source in
                rows.withUnsafeMutableBufferPointer { target in
                    horizontal.first.withUnsafeBufferPointer { first in
                        horizontal.count.withUnsafeBufferPointer { count in
                            for y in 0..<height {
                                let line = y * width
                                let out = y * newWidth
                                for x in 0..<newWidth {
                                    var sum: UInt32 = 0
                                    var index = line &+ first[x]
                                    let end = index &+ count[x]
                                    while index < end {
                                        sum &+= UInt32(source[index])
                                        index &+= 1
                                    }
                                    target[out &+ x] = sum
                                }
                            }
                        }
                    }
                }
            }
            var result = [UInt8](unsafeUninitializedCapacity: newWidth * newHeight) { _, count in count = newWidth * newHeight }
            rows.withUnsafeBufferPointer { source in
                result.withUnsafeMutableBufferPointer { target in
                    horizontal.count.withUnsafeBufferPointer { columnCounts in
                        var sums = [UInt32](repeating: 0, count: newWidth)
                        // Division by the count of samples, as a multiplication: for each count
                        // d, ⌈2³²/d⌉, exact for sums far below 2³²/d (these are below 2¹⁶·d).
                        let largest = (columnCounts.max() ?? 1) * (vertical.count.max() ?? 1)
                        let reciprocals = (0...largest).map { $0 == 0 ? UInt64(0) : ((UInt64(1) << 32) + UInt64($0) - 1) / UInt64($0) }
                        reciprocals.withUnsafeBufferPointer { reciprocals in
                            sums.withUnsafeMutableBufferPointer { sums in
                                for y in 0..<newHeight {
                                    let first = vertical.first[y]
                                    let taken = vertical.count[y]
                                    for x in 0..<newWidth { sums[x] = 0 }
                                    for row in first..<(first &+ taken) {
                                        let line = row &* newWidth
                                        for x in 0..<newWidth { sums[x] &+= source[line &+ x] }
                                    }
                                    let out = y &* newWidth
                                    for x in 0..<newWidth {
                                        let divisor = columnCounts[x] &* taken
                                        let rounded = UInt64(sums[x] &+ UInt32(truncatingIfNeeded: divisor >> 1))
                                        let mean = (rounded &* reciprocals[divisor]) >> 32
                                        target[out &+ x] = UInt8(truncatingIfNeeded: min(mean, 255))
                                    }
                                }
                            }
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
    /// For each output sample, the first input sample it takes and how many.
    let first: [Int]
    let count: [Int]

    init(from source: Int, to target: Int) {
        let scale = Double(source) / Double(target)
        let support = 0.5 * max(scale, 1)
        let inverse = 1 / max(scale, 1)
        var first: [Int] = []
        var count: [Int] = []
        first.reserveCapacity(target)
        count.reserveCapacity(target)
        for index in 0..<target {
            let center = (Double(index) + 0.5) * scale
            let lower = max(Int(center - support + 0.5), 0)
            let upper = min(Int(center + support + 0.5), source)
            // The samples whose centres fall within the span (a run, the test being monotonic);
            // where none does, every sample of the range alike.
            let range = lower..<max(lower + 1, upper)
            let taken = range.filter { sample in
                let x = (Double(sample) - center + 0.5) * inverse
                return x > -0.5 && x <= 0.5
            }
            first.append(taken.first ?? range.lowerBound)
            count.append(taken.isEmpty ? range.count : taken.count)
        }
        self.first = first
        self.count = count
    }
}

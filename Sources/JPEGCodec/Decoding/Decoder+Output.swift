// The decode's last stage: each component's plane cropped to the picture and, where it was
// sampled more coarsely than the DCT could make up, upsampled to the output size.

extension FrameDecoder {
    /// The planes cropped to the output size, subsampled ones upsampled to it.
    func output(_ frame: Frame) -> PlanarImage {
        let width = (frame.width * blockSize + 7) / 8
        let height = (frame.height * blockSize + 7) / 8
        var result: [[UInt8]] = []
        for (index, component) in frame.components.enumerated() {
            let stride = component.paddedWide * component.sampleWidth
            // Samples that come from the component's coded blocks; beyond them is padding.
            let validWide = min(
                stride, (frame.width * component.horizontal * component.sampleWidth + 8 * frame.maxHorizontal - 1) / (8 * frame.maxHorizontal))
            let validHigh = min(
                component.paddedHigh * component.sampleHeight,
                (frame.height * component.vertical * component.sampleHeight + 8 * frame.maxVertical - 1) / (8 * frame.maxVertical))
            result.append(
                Upsampling.plane(
                    planes[index], stride: stride, validWidth: max(validWide, 1), validHeight: max(validHigh, 1), factorX: component.upsampleX,
                    factorY: component.upsampleY, width: width, height: height,
                    interpolating: subsampled != .meansRepeated))
        }
        return PlanarImage(width: width, height: height, planes: result)
    }
}

/// Brings a decoded plane to the output's size: crops its padding and, for a component sampled
/// more coarsely than the DCT could make up, upsamples it by whole factors (linear between
/// sample centres for 2, as libjpeg's "fancy" upsampling, unless not `interpolating`; repeated
/// samples otherwise).
enum Upsampling {
    static func plane(
        _ samples: UnsafePointer<UInt8>, stride: Int, validWidth: Int, validHeight: Int, factorX: Int, factorY: Int, width: Int, height: Int,
        interpolating: Bool = true
    ) -> [UInt8] {
        // Every sample is written below before it is read.
        var result = [UInt8](unsafeUninitializedCapacity: width * height) { _, count in count = width * height }
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
        let linear = interpolating && validWidth > 2
        if !linear || (factorX != 2 && factorY != 2) {
            // Each sample repeated: the nearest source sample, found once per column.
            let columns = (0..<width).map { min($0 / factorX, validWidth - 1) }
            result.withUnsafeMutableBufferPointer { target in
                columns.withUnsafeBufferPointer { columns in
                    for y in 0..<height {
                        let row = samples + min(y / factorY, validHeight - 1) * stride
                        let line = target.baseAddress! + y * width  // unwrap: width × height > 0 samples (a frame of no size is refused)
                        for x in 0..<width { line[x] = row[columns[x]] }
                    }
                }
            }
            return result
        }
        if factorX == 2 && factorY == 2 {
            h2v2(samples, stride: stride, validWidth: validWidth, validHeight: validHeight, width: width, height: height, into: &result)
            return result
        }
        result.withUnsafeMutableBufferPointer { target in
            // Column positions in the source for each output column: the two nearest samples and
            // the weight of the second.
            let columns = (0..<width).map { taps(for: $0, factor: factorX, limit: validWidth) }
            for y in 0..<height {
                let row = taps(for: y, factor: factorY, limit: validHeight)
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

    /// Linear upsampling by 2 both ways (4:2:0 chroma, the commonest) in integers: each output
    /// sample weighs its nearest source sample 9, the two beside it 3 each and the diagonal 1
    /// (sixteenths), as the float path's weights of 3/4 and 1/4 each way make it, rounded the same.
    private static func h2v2(
        _ samples: UnsafePointer<UInt8>, stride: Int, validWidth: Int, validHeight: Int, width: Int, height: Int, into result: inout [UInt8]
    ) {
        // For each output column: the nearest source column and the other one weighed.
        let near = (0..<width).map { x in min(x / 2, validWidth - 1) }
        let far = (0..<width).map { x in min(max(x & 1 == 0 ? x / 2 - 1 : x / 2 + 1, 0), validWidth - 1) }
        result.withUnsafeMutableBufferPointer { target in
            near.withUnsafeBufferPointer { near in
                far.withUnsafeBufferPointer { far in
                    for y in 0..<height {
                        let nearRow = samples + min(y / 2, validHeight - 1) * stride
                        let farRow = samples + min(max(y & 1 == 0 ? y / 2 - 1 : y / 2 + 1, 0), validHeight - 1) * stride
                        let line = y * width
                        for x in 0..<width {
                            let (n, f) = (near[x], far[x])
                            let value = 9 * Int32(nearRow[n]) + 3 * Int32(nearRow[f]) + 3 * Int32(farRow[n]) + Int32(farRow[f])
                            target[line + x] = UInt8(truncatingIfNeeded: (value + 8) >> 4)
                        }
                    }
                }
            }
        }
    }

    private struct Taps {
        let first: Int
        let second: Int
        let weight: Float
    }

    private static func taps(for index: Int, factor: Int, limit: Int) -> Taps {
        if factor == 1 {
            let clamped = min(index, limit - 1)
            return Taps(first: clamped, second: clamped, weight: 0)
        }
        if factor != 2 {
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

// A baseline JPEG encoder for thumbnails: JFIF, 4:2:0 YCbCr or grayscale, the quantization
// tables of JPEG Annex K scaled by a quality as the IJG's do, and the standard Huffman tables.

/// Encodes planar pictures as baseline JPEG files.
public enum JPEGEncoder {
    /// Encodes `image` at `quality` (1...100; 85 by default). Three planes are written as YCbCr
    /// with chroma halved both ways (4:2:0); one plane as grayscale.
    ///
    /// - Returns: the bytes of a complete JFIF file.
    public static func encode(_ image: PlanarImage, quality: Int = 85) -> [UInt8] {
        var writer = JPEGWriter(image: image, quality: min(max(quality, 1), 100))
        return writer.write()
    }
}

/// The tables and state of one encode.
struct JPEGWriter {
    let image: PlanarImage
    let luminance: [Float]
    let chrominance: [Float]
    var output: [UInt8] = []
    private var bits: UInt64 = 0
    private var count = 0

    init(image: PlanarImage, quality: Int) {
        self.image = image
        // Quality to a percentage of the base tables, as the IJG's libjpeg scales them.
        let percent = quality < 50 ? 5000 / quality : 200 - 2 * quality
        func scaled(_ base: [Int]) -> [Int] { base.map { min(max(($0 * percent + 50) / 100, 1), 255) } }
        lumaTable = scaled(StandardTables.luminanceQuantization)
        chromaTable = scaled(StandardTables.chrominanceQuantization)
        luminance = lumaTable.map { 1 / Float($0) }
        chrominance = chromaTable.map { 1 / Float($0) }
        output.reserveCapacity(image.width * image.height / 2 + 1024)
    }

    private let lumaTable: [Int]
    private let chromaTable: [Int]

    mutating func write() -> [UInt8] {
        let gray = image.isGrayscale
        output += [0xFF, JPEGMarker.startOfImage.rawValue]
        // JFIF 1.01, no units, 1:1 pixels.
        output += [0xFF, JPEGMarker.jfif.rawValue, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
        writeQuantization(slot: 0, lumaTable)
        if !gray { writeQuantization(slot: 1, chromaTable) }
        // SOF0: 8-bit, the size, then each component's id, sampling factors and table.
        let components: [(UInt8, UInt8, UInt8)] = gray ? [(1, 0x11, 0)] : [(1, 0x22, 0), (2, 0x11, 1), (3, 0x11, 1)]
        output +=
            [0xFF, JPEGMarker.baseline.rawValue] + bigEndian(8 + 3 * components.count) + [8] + bigEndian(image.height) + bigEndian(image.width) + [
                UInt8(components.count)
            ]
        for component in components { output += [component.0, component.1, component.2] }
        let luma = StandardTables.luminance
        let chroma = StandardTables.chrominance
        writeHuffman(class: 0, slot: 0, luma.dc)
        writeHuffman(class: 1, slot: 0, luma.ac)
        if !gray {
            writeHuffman(class: 0, slot: 1, chroma.dc)
            writeHuffman(class: 1, slot: 1, chroma.ac)
        }
        output += [0xFF, JPEGMarker.startOfScan.rawValue] + bigEndian(6 + 2 * components.count) + [UInt8(components.count)]
        for (index, component) in components.enumerated() { output += [component.0, index == 0 ? 0x00 : 0x11] }
        output += [0, 63, 0]
        encodeScan()
        output += [0xFF, JPEGMarker.endOfImage.rawValue]
        return output
    }

    private func bigEndian(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    private mutating func writeQuantization(slot: UInt8, _ table: [Int]) {
        output += [0xFF, JPEGMarker.quantizationTables.rawValue, 0x00, 0x43, slot]
        for k in 0..<64 { output.append(UInt8(table[zigzagToNatural[k]])) }
    }

    private mutating func writeHuffman(class kind: UInt8, slot: UInt8, _ table: StandardTables.Table) {
        output += [0xFF, JPEGMarker.huffmanTables.rawValue] + bigEndian(3 + 16 + table.symbols.count) + [kind << 4 | slot]
        output += table.counts.map { UInt8($0) }
        output += table.symbols
    }

    // MARK: The scan

    private mutating func encodeScan() {
        let luma = StandardTables.luminance.encoding
        let chroma = StandardTables.chrominance.encoding
        let block = UnsafeMutablePointer<Float>.allocate(capacity: 64)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 64)
        let quantized = UnsafeMutablePointer<Int>.allocate(capacity: 64)
        defer {
            block.deallocate()
            scratch.deallocate()
            quantized.deallocate()
        }
        var predictors = [0, 0, 0]
        let width = image.width
        let height = image.height
        let planes = image.planes
        if image.isGrayscale {
            for blockY in stride(from: 0, to: height, by: 8) {
                for blockX in stride(from: 0, to: width, by: 8) {
                    load(planes[0], x: blockX, y: blockY, step: 1, into: block)
                    encodeBlock(block, scratch: scratch, quantized: quantized, divisors: luminance, codes: luma, predictor: &predictors[0])
                }
            }
        } else {
            for mcuY in stride(from: 0, to: height, by: 16) {
                for mcuX in stride(from: 0, to: width, by: 16) {
                    for (dy, dx) in [(0, 0), (0, 8), (8, 0), (8, 8)] {
                        load(planes[0], x: mcuX + dx, y: mcuY + dy, step: 1, into: block)
                        encodeBlock(block, scratch: scratch, quantized: quantized, divisors: luminance, codes: luma, predictor: &predictors[0])
                    }
                    for plane in 1...2 {
                        load(planes[plane], x: mcuX, y: mcuY, step: 2, into: block)
                        encodeBlock(
                            block, scratch: scratch, quantized: quantized, divisors: chrominance, codes: chroma, predictor: &predictors[plane])
                    }
                }
            }
        }
        // Pad the last byte with 1 bits (JPEG F.1.2.3).
        if count > 0 { emit(0x7F, length: 7) }
    }

    /// Loads the 8x8 block at (`x`, `y`), level-shifted; `step` 2 averages 2x2 samples (the
    /// chroma of 4:2:0). Samples past the edge repeat the last row or column.
    private func load(_ plane: [UInt8], x: Int, y: Int, step: Int, into block: UnsafeMutablePointer<Float>) {
        let width = image.width
        let height = image.height
        plane.withUnsafeBufferPointer { samples in
            for row in 0..<8 {
                for column in 0..<8 {
                    if step == 1 {
                        let sy = min(y + row, height - 1)
                        let sx = min(x + column, width - 1)
                        block[row * 8 + column] = Float(samples[sy * width + sx]) - 128
                    } else {
                        var sum = 0
                        for dy in 0..<2 {
                            for dx in 0..<2 {
                                let sy = min(y + 2 * row + dy, height - 1)
                                let sx = min(x + 2 * column + dx, width - 1)
                                sum += Int(samples[sy * width + sx])
                            }
                        }
                        block[row * 8 + column] = Float(sum) * 0.25 - 128
                    }
                }
            }
        }
    }

    /// Forward DCT, quantization and Huffman coding of one block.
    private mutating func encodeBlock(
        _ block: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>, quantized: UnsafeMutablePointer<Int>, divisors: [Float],
        codes: StandardTables.Encoding, predictor: inout Int
    ) {
        ForwardDCT.transform(block, scratch: scratch)
        for natural in 0..<64 {
            let value = block[natural] * divisors[natural]
            quantized[natural] = Int((value + (value >= 0 ? 0.5 : -0.5)).rounded(.towardZero))
        }
        let difference = quantized[0] - predictor
        predictor = quantized[0]
        let size = magnitudeBits(difference)
        emit(codes.dc[size].code, length: codes.dc[size].length)
        if size > 0 { emit(extraBits(difference, size), length: size) }
        var run = 0
        for k in 1..<64 {
            let value = quantized[zigzagToNatural[k]]
            if value == 0 {
                run += 1
                continue
            }
            while run > 15 {
                emit(codes.ac[0xF0].code, length: codes.ac[0xF0].length)
                run -= 16
            }
            let size = magnitudeBits(value)
            let symbol = run << 4 | size
            emit(codes.ac[symbol].code, length: codes.ac[symbol].length)
            emit(extraBits(value, size), length: size)
            run = 0
        }
        if run > 0 { emit(codes.ac[0x00].code, length: codes.ac[0x00].length) }
    }

    private func magnitudeBits(_ value: Int) -> Int {
        var magnitude = value < 0 ? -value : value
        var bits = 0
        while magnitude > 0 {
            bits += 1
            magnitude >>= 1
        }
        return bits
    }

    /// A coefficient's extra bits: the value itself when positive, its ones' complement when not.
    private func extraBits(_ value: Int, _ size: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: value < 0 ? value - 1 : value) & ((1 << UInt32(size)) - 1)
    }

    /// Appends `length` bits of `code`, stuffing a 0 byte after every FF.
    private mutating func emit(_ code: UInt32, length: Int) {
        guard length > 0 else { return }
        bits = bits << UInt64(length) | UInt64(code & ((1 << UInt32(length)) - 1))
        count += length
        while count >= 8 {
            count -= 8
            let byte = UInt8(truncatingIfNeeded: bits >> UInt64(count))
            output.append(byte)
            if byte == 0xFF { output.append(0) }
        }
        bits &= (1 << UInt64(count)) - 1
    }
}

// A baseline JPEG encoder for thumbnails: JFIF, 4:2:0 YCbCr or grayscale, the quantization
// tables of JPEG Annex K scaled by a quality as the IJG's do, and the standard Huffman tables.

/// Encodes planar pictures as baseline JPEG files.
public enum JPEGEncoder {
    /// Encodes `image` at `quality` (1...100; 85 by default). Three planes are written as YCbCr
    /// with chroma halved both ways (4:2:0); one plane as grayscale.
    ///
    /// With an `iccProfile`, the file carries it in APP2 segments (as many as it needs), so that
    /// what is made from a Display P3 or Adobe RGB photo keeps its colours. Nothing else of the
    /// photo's metadata is written: the picture is taken to be upright (orientation 1).
    ///
    /// - Returns: the bytes of a complete JFIF file.
    public static func encode(_ image: PlanarImage, quality: Int = 85, iccProfile: [UInt8]? = nil) -> [UInt8] {
        var writer = JPEGWriter(image: image, quality: min(max(quality, 1), 100))
        writer.iccProfile = iccProfile
        return writer.write()
    }
}

/// The tables and state of one encode.
struct JPEGWriter {
    let image: PlanarImage
    let luminance: [Float]
    let chrominance: [Float]
    var output: [UInt8] = []
    var iccProfile: [UInt8]?

    init(image: PlanarImage, quality: Int) {
        self.image = image
        // Quality to a percentage of the base tables, as the IJG's libjpeg scales them.
        let percent = quality < 50 ? 5000 / quality : 200 - 2 * quality
        func scaled(_ base: [Int]) -> [Int] { base.map { min(max(($0 * percent + 50) / 100, 1), 255) } }
        lumaTable = scaled(StandardTables.luminanceQuantization)
        chromaTable = scaled(StandardTables.chrominanceQuantization)
        luminance = lumaTable.map { 1 / Float($0) }
        chrominance = chromaTable.map { 1 / Float($0) }
        output.reserveCapacity(1024)  // the headers; the scan, written apart, is appended once
    }

    private let lumaTable: [Int]
    private let chromaTable: [Int]

    mutating func write() -> [UInt8] {
        let gray = image.isGrayscale
        output += [0xFF, JPEGMarker.startOfImage.rawValue]
        // JFIF 1.01, no units, 1:1 pixels.
        output += [0xFF, JPEGMarker.jfif.rawValue, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
        if let iccProfile { output += JPEGMetadata.iccSegments(iccProfile) }
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
        var scan = ScanWriter(capacity: image.width * image.height / 2 + 1024)
        let luma = ScanCodes(StandardTables.luminance.encoding, divisors: luminance)
        let chroma = ScanCodes(StandardTables.chrominance.encoding, divisors: chrominance)
        defer {
            luma.free()
            chroma.free()
        }
        let width = image.width
        let height = image.height
        let planes = image.planes
        planes[0].withUnsafeBufferPointer { y in
            let luminance = Plane(samples: y.baseAddress!, width: width, height: height)  // unwrap: a plane has width × height > 0 samples
            if planes.count == 1 {
                for blockY in stride(from: 0, to: height, by: 8) {
                    for blockX in stride(from: 0, to: width, by: 8) {
                        luminance.load(x: blockX, y: blockY, step: 1, into: scan.block)
                        scan.encodeBlock(luma, component: 0)
                    }
                }
                return
            }
            planes[1].withUnsafeBufferPointer { cb in
                planes[2].withUnsafeBufferPointer { cr in
                    let blue = Plane(samples: cb.baseAddress!, width: width, height: height)  // unwrap: a plane is never empty
                    let red = Plane(samples: cr.baseAddress!, width: width, height: height)  // unwrap: a plane is never empty
                    for mcuY in stride(from: 0, to: height, by: 16) {
                        for mcuX in stride(from: 0, to: width, by: 16) {
                            for (dy, dx) in [(0, 0), (0, 8), (8, 0), (8, 8)] {
                                luminance.load(x: mcuX + dx, y: mcuY + dy, step: 1, into: scan.block)
                                scan.encodeBlock(luma, component: 0)
                            }
                            blue.load(x: mcuX, y: mcuY, step: 2, into: scan.block)
                            scan.encodeBlock(chroma, component: 1)
                            red.load(x: mcuX, y: mcuY, step: 2, into: scan.block)
                            scan.encodeBlock(chroma, component: 2)
                        }
                    }
                }
            }
        }
        scan.finish()
        output.append(contentsOf: UnsafeBufferPointer(start: scan.bytes, count: scan.written))
        scan.free()
    }
}

/// One plane of the picture as raw memory, for the block loads.
private struct Plane {
    let samples: UnsafePointer<UInt8>
    let width: Int
    let height: Int

    /// Loads the 8x8 block at (`x`, `y`), level-shifted; `step` 2 averages 2x2 samples (the
    /// chroma of 4:2:0). Samples past the edge repeat the last row or column.
    @inline(__always)
    func load(x: Int, y: Int, step: Int, into block: UnsafeMutablePointer<Float>) {
        let inside = x + 8 * step <= width && y + 8 * step <= height
        if inside {
            // A row at a time, with the same arithmetic as the sample-by-sample loop below.
            let rows = UnsafeMutableRawPointer(block)
            for row in 0..<8 {
                let line = UnsafeRawPointer(samples + (y + step * row) * width + x)
                let values: SIMD8<Float>
                if step == 1 {
                    values = SIMD8<Float>(line.loadUnaligned(as: SIMD8<UInt8>.self)) - 128
                } else {
                    let sums =
                        SIMD16<UInt16>(truncatingIfNeeded: line.loadUnaligned(as: SIMD16<UInt8>.self))
                        &+ SIMD16<UInt16>(truncatingIfNeeded: (line + width).loadUnaligned(as: SIMD16<UInt8>.self))
                    values = SIMD8<Float>(sums.evenHalf &+ sums.oddHalf) * 0.25 - 128
                }
                rows.storeBytes(of: values, toByteOffset: row * 32, as: SIMD8<Float>.self)
            }
            return
        }
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

/// A DC and an AC table's codes, `length << 16 | code` by symbol, and the quantization's
/// divisors, as raw memory the block loop reads without bounds checks or reference counting.
private struct ScanCodes {
    let dc: UnsafeMutablePointer<UInt32>
    let ac: UnsafeMutablePointer<UInt32>
    let divisors: UnsafeMutablePointer<Float>

    init(_ encoding: StandardTables.Encoding, divisors table: [Float]) {
        dc = .allocate(capacity: encoding.dc.count)
        dc.initialize(from: encoding.dc.map { UInt32($0.length) << 16 | $0.code }, count: encoding.dc.count)
        ac = .allocate(capacity: encoding.ac.count)
        ac.initialize(from: encoding.ac.map { UInt32($0.length) << 16 | $0.code }, count: encoding.ac.count)
        divisors = .allocate(capacity: 64)
        divisors.initialize(from: table, count: 64)
    }

    func free() {
        dc.deallocate()
        ac.deallocate()
        divisors.deallocate()
    }
}

/// The entropy-coded segment as it is written: each block transformed, quantized and coded,
/// its bits gathered in a word and stored four bytes at a time when none is FF.
private struct ScanWriter {
    /// The 64 samples, then coefficients, of the block being coded.
    let block = UnsafeMutablePointer<Float>.allocate(capacity: 64)
    private let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 64)
    private let quantized = UnsafeMutablePointer<Int>.allocate(capacity: 64)
    private(set) var bytes: UnsafeMutablePointer<UInt8>
    private(set) var written = 0
    private var capacity: Int
    /// The bits not yet stored, right-aligned: `count` of them.
    private var bits: UInt64 = 0
    private var count = 0
    private var predictors = (0, 0, 0)

    init(capacity: Int) {
        self.capacity = max(capacity, 1024)
        bytes = .allocate(capacity: self.capacity)
    }

    func free() {
        block.deallocate()
        scratch.deallocate()
        quantized.deallocate()
        bytes.deallocate()
    }

    /// Forward DCT, quantization and Huffman coding of ``block``, of component 0, 1 or 2.
    mutating func encodeBlock(_ codes: ScanCodes, component: Int) {
        ForwardDCT.transform(block, scratch: scratch)
        for natural in 0..<64 {
            let value = block[natural] * codes.divisors[natural]
            quantized[natural] = Int(value + (value >= 0 ? 0.5 : -0.5))
        }
        // A block of 64 coefficients takes at most 64 codes of 27 bits, each byte maybe stuffed.
        if written + 512 > capacity { grow() }
        let previous = component == 0 ? predictors.0 : component == 1 ? predictors.1 : predictors.2
        let difference = quantized[0] - previous
        switch component {
        case 0: predictors.0 = quantized[0]
        case 1: predictors.1 = quantized[0]
        default: predictors.2 = quantized[0]
        }
        let size = Self.magnitudeBits(difference)
        emit(codes.dc[size], extra: Self.extraBits(difference, size), size: size)
        let order = Zigzag.order
        var run = 0
        for k in 1..<64 {
            let value = quantized[order[k]]
            if value == 0 {
                run += 1
                continue
            }
            while run > 15 {
                emit(codes.ac[0xF0], extra: 0, size: 0)
                run -= 16
            }
            let size = Self.magnitudeBits(value)
            emit(codes.ac[run << 4 | size], extra: Self.extraBits(value, size), size: size)
            run = 0
        }
        if run > 0 { emit(codes.ac[0x00], extra: 0, size: 0) }
    }

    /// Pads the last byte with 1 bits (JPEG F.1.2.3) and stores every whole byte held.
    mutating func finish() {
        if written + 16 > capacity { grow() }
        if count > 0 { emit(7 << 16 | 0x7F, extra: 0, size: 0) }
        store(bytes: count / 8)
    }

    private mutating func grow() {
        capacity *= 2
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        larger.initialize(from: bytes, count: written)
        bytes.deallocate()
        bytes = larger
    }

    @inline(__always)
    private static func magnitudeBits(_ value: Int) -> Int {
        Int.bitWidth - (value < 0 ? -value : value).leadingZeroBitCount
    }

    /// A coefficient's extra bits: the value itself when positive, its ones' complement when not.
    @inline(__always)
    private static func extraBits(_ value: Int, _ size: Int) -> UInt64 {
        UInt64(truncatingIfNeeded: value < 0 ? value - 1 : value) & ((1 << UInt64(size)) - 1)
    }

    /// Appends a code (`length << 16 | code`) and `size` extra bits, at most 16 + 16 in all.
    @inline(__always)
    private mutating func emit(_ code: UInt32, extra: UInt64, size: Int) {
        let length = Int(code >> 16)
        bits = (bits &<< UInt64(length + size)) | UInt64(code & 0xFFFF) &<< UInt64(size) | extra
        count += length + size
        if count >= 32 { store(bytes: 4) }
    }

    /// Stores the oldest `n` whole bytes of the bits held (at most 4), stuffing a 0 after each FF.
    @inline(__always)
    private mutating func store(bytes n: Int) {
        guard n > 0 else { return }
        count -= 8 * n
        let word = UInt32(truncatingIfNeeded: bits &>> UInt64(count))
        if n == 4, !Self.holdsFF(word) {
            UnsafeMutableRawPointer(bytes + written).storeBytes(of: word.bigEndian, as: UInt32.self)
            written += 4
        } else {
            for index in stride(from: n - 1, through: 0, by: -1) {
                let byte = UInt8(truncatingIfNeeded: word &>> UInt32(8 * index))
                bytes[written] = byte
                written += 1
                if byte == 0xFF {
                    bytes[written] = 0
                    written += 1
                }
            }
        }
        bits &= (1 &<< UInt64(count)) &- 1
    }

    @inline(__always)
    private static func holdsFF(_ word: UInt32) -> Bool {
        let inverted = ~word
        return (inverted &- 0x0101_0101) & ~inverted & 0x8080_8080 != 0
    }
}

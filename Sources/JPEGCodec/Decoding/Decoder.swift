// Decodes a JPEG's scans into one plane of samples per component, at 1/8, 1/4, 1/2 or full
// size. This file is the decode's outline: the segment walk, the tables, the frame's memory, and
// each scan handed to its kind; the stages are beside it (Decoder+Sequential, Decoder+Progressive,
// InverseDCT, Decoder+Output).

/// Zigzag position to natural (row-major) position within an 8x8 block (JPEG figure A.6), with
/// 16 extra entries so that a damaged run past the end stays in bounds.
let zigzagToNatural: [Int] =
    [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ] + [Int](repeating: 63, count: 16)

/// ``zigzagToNatural`` as raw memory, for the block loops.
enum Zigzag {
    nonisolated(unsafe) static let order: UnsafePointer<Int> = {  // filled once by this initializer, then only read
        let table = UnsafeMutablePointer<Int>.allocate(capacity: zigzagToNatural.count)
        table.initialize(from: zigzagToNatural, count: zigzagToNatural.count)
        return UnsafePointer(table)
    }()
}

/// One decode of one file. Holds raw memory for planes and coefficients, freed with it.
package final class FrameDecoder {
    /// The most samples the decoder keeps in memory for one image (planes and coefficients, in
    /// bytes), whatever a frame header claims.
    static let memoryLimit = 1 << 30

    let bytes: UnsafeRawBufferPointer
    /// Samples per block side for the components at full resolution: 8, 4, 2 or 1.
    let blockSize: Int

    private(set) var frame: Frame?
    /// Whether the frame read so far samples its second component (the chroma) at less than the
    /// full resolution: what a test asks before it trusts a photo to be 4:2:0 or 4:2:2.
    package var subsamplesChroma: Bool {
        guard let frame, frame.components.count > 1 else { return false }
        return frame.components[1].horizontal < frame.maxHorizontal
    }
    /// Four tables of 64 factors, natural order; `hasQuantization[i]` once table i was read.
    let quantization = UnsafeMutablePointer<Float>.allocate(capacity: 4 * 64)
    private var hasQuantization = [false, false, false, false]
    private var dcTables = [HuffmanTable?](repeating: nil, count: 4)
    private var acTables = [HuffmanTable?](repeating: nil, count: 4)
    private(set) var restartInterval = 0
    private var adobeTransform: Int?
    private var sawJFIF = false
    private var scansDecoded = 0
    /// The MCUs the scans went through, all scans together: the decoder's work, which the file's
    /// size bounds whatever its headers claim (tests count it; one add a scan).
    package var mcusVisited = 0
    /// What was wrong with the entropy-coded data, first found: the decode shows what could be
    /// read, as libjpeg's does when it warns.
    private(set) var damage: String?

    /// One plane per component, `paddedWide * sampleWidth` samples a row.
    private(set) var planes: [UnsafeMutablePointer<UInt8>] = []
    /// Progressive only: each block's coefficients (64, natural order, not dequantized) or, for a
    /// component whose blocks give one sample, its DC alone.
    private(set) var coefficients: [UnsafeMutablePointer<Int16>] = []
    private(set) var coefficientsPerBlock: [Int] = []
    /// Progressive only: how many more blocks of the current band are all zero.
    var endOfBandRun = 0

    /// One block's coefficients, and room for the transform's first pass.
    let block = UnsafeMutablePointer<Float>.allocate(capacity: 64)
    let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 64)

    /// How a subsampled component is decoded at 1/8.
    let subsampled: Subsampled

    /// How a component sampled at half the resolution or less (the chroma of 4:2:0 or 4:2:2) is
    /// decoded at 1/8, where each of its blocks covers more than one output sample.
    package enum Subsampled {
        /// As many samples as each block covers (2x2 for 4:2:0), from all its coefficients.
        case fromCoefficients
        /// Each block's mean, from its DC alone, repeated over the samples it covers. A 4:2:0
        /// encode of the picture at this size averages those samples back to that mean, the
        /// mean of the same pixels the full decode would average: no detail it keeps is lost,
        /// and the AC coefficients of chroma are stepped over unread.
        case meansRepeated
    }

    /// - Parameters:
    ///   - blockSize: samples per block side for full-resolution components: 8, 4, 2 or 1.
    ///   - subsampled: at 1/8, how a subsampled component's blocks are decoded.
    package init(bytes: UnsafeRawBufferPointer, blockSize: Int, subsampled: Subsampled = .fromCoefficients) {
        self.bytes = bytes
        self.blockSize = blockSize
        self.subsampled = blockSize == 1 ? subsampled : .fromCoefficients
    }

    deinit {
        for plane in planes { plane.deallocate() }
        for buffer in coefficients { buffer.deallocate() }
        block.deallocate()
        scratch.deallocate()
        quantization.deallocate()
    }

    // MARK: Segments

    /// Reads every segment and scan up to EOI (or the end of the data) and returns the decoded
    /// planes, cropped and upsampled to the output size.
    package func decode() throws(JPEGError) -> PlanarImage {
        var segments = try JPEGSegments(bytes, strictness: .lenient)
        while let segment = try segments.next() {
            let payload = UnsafeRawBufferPointer(rebasing: bytes[segment.payloadOffset..<segment.end])
            if segment.marker == .startOfScan {
                guard let frame else { throw .damaged(reason: "a scan comes before the frame header") }
                let scan = try ScanHeader(payload: payload, frame: frame)
                segments.position = try decodeScan(scan, frame: frame, from: segment.end)
                scansDecoded += 1
            } else {
                try read(segment.marker, payload)
            }
        }
        guard let frame else { throw .notJPEG(reason: "it has no frame header") }
        guard scansDecoded > 0 else { throw .damaged(reason: "it has no scan") }
        if frame.progressive { finishProgressive(frame) }
        var image = output(frame)
        image.damage = damage
        return image
    }

    /// Takes in one segment that is not a scan: a frame header, tables, or an application
    /// segment that says how colour is coded. Others (comments, Exif, ICC) are stepped over.
    private func read(_ marker: JPEGMarker, _ payload: UnsafeRawBufferPointer) throws(JPEGError) {
        switch marker.rawValue {
        case 0xC0, 0xC1, 0xC2:
            guard frame == nil else { throw .damaged(reason: "the file has two frame headers") }
            try startFrame(Frame(payload: payload, progressive: marker == .progressive))
        case 0xC3, 0xC5, 0xC6, 0xC7, 0xCB, 0xCD, 0xCE, 0xCF:
            throw .unsupported(
                reason: marker.rawValue == 0xC3
                    ? "a lossless JPEG" : marker.rawValue < 0xC8 ? "a hierarchical JPEG" : "a lossless arithmetic-coded JPEG")
        case 0xC9, 0xCA, JPEGMarker.arithmeticConditioning.rawValue:
            throw .unsupported(reason: "arithmetic coding")
        case JPEGMarker.huffmanTables.rawValue:
            try readHuffmanTables(payload)
        case JPEGMarker.quantizationTables.rawValue:
            try readQuantizationTables(payload)
        case JPEGMarker.restartInterval.rawValue:
            guard payload.count >= 2 else { throw .damaged(reason: "the restart interval segment is cut short") }
            restartInterval = Int(payload[0]) << 8 | Int(payload[1])
        case JPEGMarker.adobe.rawValue:
            // Adobe's APP14: its transform flag says RGB (0), YCbCr (1) or YCCK (2).
            if payload.count >= 12, payload[0..<5].elementsEqual("Adobe".utf8) { adobeTransform = Int(payload[11]) }
        case JPEGMarker.jfif.rawValue:
            if payload.count >= 5, payload[0..<5].elementsEqual("JFIF\0".utf8) { sawJFIF = true }
        case JPEGMarker.numberOfLines.rawValue:
            throw .unsupported(reason: "the height is given after the first scan (a DNL marker)")
        default:
            break
        }
    }

    private func readHuffmanTables(_ payload: UnsafeRawBufferPointer) throws(JPEGError) {
        var index = 0
        while index < payload.count {
            guard index + 17 <= payload.count else { throw .damaged(reason: "a Huffman table segment is cut short") }
            let kind = Int(payload[index]) >> 4
            let slot = Int(payload[index]) & 15
            guard kind <= 1, slot < 4 else { throw .damaged(reason: "a Huffman table has a class or slot out of range") }
            let counts = (0..<16).map { Int(payload[index + 1 + $0]) }
            let total = counts.reduce(0, +)
            guard index + 17 + total <= payload.count else { throw .damaged(reason: "a Huffman table segment is cut short") }
            let symbols = Array(payload[(index + 17)..<(index + 17 + total)])
            let table = try HuffmanTable(counts: counts, symbols: symbols, forAC: kind == 1)
            if kind == 0 { dcTables[slot] = table } else { acTables[slot] = table }
            index += 17 + total
        }
    }

    private func readQuantizationTables(_ payload: UnsafeRawBufferPointer) throws(JPEGError) {
        var index = 0
        while index < payload.count {
            let precision = Int(payload[index]) >> 4
            let slot = Int(payload[index]) & 15
            let size = precision == 0 ? 64 : 128
            guard precision <= 1, slot < 4, index + 1 + size <= payload.count else {
                throw .damaged(reason: "a quantization table segment is cut short or out of range")
            }
            for k in 0..<64 {
                let value = precision == 0 ? Int(payload[index + 1 + k]) : Int(payload[index + 1 + 2 * k]) << 8 | Int(payload[index + 2 + 2 * k])
                quantization[slot * 64 + zigzagToNatural[k]] = Float(value)
            }
            hasQuantization[slot] = true
            index += 1 + size
        }
    }

    // MARK: Frame

    private func startFrame(_ header: Frame) throws(JPEGError) {
        var header = header
        // Three components are YCbCr unless Adobe's marker says RGB or, without it or JFIF's,
        // the components are named R, G and B (libjpeg's reading).
        let rgb = adobeTransform.map { $0 == 0 } ?? (!sawJFIF && header.components.map(\.id) == [82, 71, 66])
        if header.components.count == 3, rgb {
            throw .unsupported(reason: "RGB colour (only YCbCr and grayscale)")
        }
        header.scale(blockSize: blockSize, meansOnly: subsampled == .meansRepeated)
        // A valid scan spends at least one bit on each block: a frame claiming far more blocks
        // than the file has bits is refused before anything is allocated for it.
        let blocks = header.components.reduce(0) { $0 + $1.paddedWide * $1.paddedHigh }
        guard blocks <= 8 * bytes.count + 64 else {
            throw .tooLarge(reason: "its header claims \(header.width)x\(header.height) pixels, more than its \(bytes.count) bytes can hold")
        }
        var memory = 0
        for component in header.components {
            memory += component.paddedWide * component.sampleWidth * component.paddedHigh * component.sampleHeight
            if header.progressive { memory += component.paddedWide * component.paddedHigh * Self.coefficientsPerBlock(component) * 2 }
        }
        guard memory <= Self.memoryLimit else {
            throw .tooLarge(reason: "\(header.width)x\(header.height) pixels need more than \(Self.memoryLimit >> 20) MB at this scale")
        }
        for component in header.components {
            let size = component.paddedWide * component.sampleWidth * component.paddedHigh * component.sampleHeight
            let plane = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
            plane.initialize(repeating: 128, count: size)
            planes.append(plane)
            if header.progressive {
                let perBlock = Self.coefficientsPerBlock(component)
                let blocks = component.paddedWide * component.paddedHigh * perBlock
                let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: blocks)
                buffer.initialize(repeating: 0, count: blocks)
                coefficients.append(buffer)
                coefficientsPerBlock.append(perBlock)
            }
        }
        frame = header
    }

    /// A progressive component keeps 64 coefficients a block, or its DC alone when each block
    /// gives one sample.
    private static func coefficientsPerBlock(_ component: FrameComponent) -> Int {
        component.sampleWidth == 1 && component.sampleHeight == 1 ? 1 : 64
    }

    // MARK: Scans

    /// Decodes one scan starting at `start` and returns the position of the marker after it,
    /// noting the first damage its data shows.
    private func decodeScan(_ scan: ScanHeader, frame: Frame, from start: Int) throws(JPEGError) -> Int {
        var reader = BitReader(bytes: bytes, position: start)
        if frame.progressive {
            // Bands a scaled decode cannot use are stepped over unread: at 1/8, every AC band of
            // the full-resolution components.
            if scan.spectralStart > 0, coefficientsPerBlock[scan.members[0].component] == 1 { return reader.nextMarker() }
            let tables = try tables(
                for: scan, frame: frame, needsDC: scan.spectralStart == 0 && scan.successiveHigh == 0, needsAC: scan.spectralStart > 0)
            decodeProgressiveScan(scan, frame: frame, tables: tables, reader: &reader)
        } else {
            let tables = try tables(for: scan, frame: frame, needsDC: true, needsAC: true)
            decodeSequentialScan(scan, frame: frame, tables: tables, reader: &reader)
        }
        let end = reader.nextMarker()
        if damage == nil {
            if reader.sawBadCode {
                damage = "its data holds a code no Huffman table has (corrupt data)"
            } else if reader.sawMissingRestart {
                damage = "a restart marker is missing or out of order"
            } else if reader.isExhausted || end >= bytes.count {
                damage = "its data ends before its last scan does (cut short)"
            }
        }
        return end
    }

    /// The Huffman tables each of a scan's components is read with, in the scan's order: the ones
    /// the scan needs must have been given, and each component's quantization table.
    private func tables(for scan: ScanHeader, frame: Frame, needsDC: Bool, needsAC: Bool) throws(JPEGError) -> [ScanTables] {
        var result: [ScanTables] = []
        for member in scan.members {
            guard hasQuantization[frame.components[member.component].quantizationTable] else {
                throw .damaged(reason: "a component's quantization table is missing")
            }
            let dc = dcTables[member.dcTable]?.codes
            let ac = acTables[member.acTable]?.codes
            if needsDC, dc == nil { throw .damaged(reason: "a scan's DC Huffman table is missing") }
            if needsAC, ac == nil { throw .damaged(reason: "a scan's AC Huffman table is missing") }
            result.append(ScanTables(dc: dc ?? HuffmanTable.empty.codes, ac: ac ?? HuffmanTable.empty.codes))
        }
        return result
    }
}

/// The Huffman codes one component of a scan is read with.
struct ScanTables {
    let dc: HuffmanCodes
    let ac: HuffmanCodes
}

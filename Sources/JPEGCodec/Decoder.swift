// Decodes a JPEG's scans into one plane of samples per component, at 1/8, 1/4, 1/2 or full
// size: the marker loop, sequential (baseline) scans decoded block by block straight into the
// planes, and progressive scans gathered as coefficients first. Bands a scaled decode cannot
// use are skipped, not decoded.

/// Zigzag position to natural (row-major) position within an 8x8 block (JPEG figure A.6), with
/// 16 extra entries so that a damaged run past the end stays in bounds.
let zigzagToNatural: [Int] =
    [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ] + [Int](repeating: 63, count: 16)

/// One decode of one file. Holds raw memory for planes and coefficients, freed with it.
final class Decoder {
    /// The most samples the decoder keeps in memory for one image (planes and coefficients, in
    /// bytes), whatever a frame header claims.
    static let memoryLimit = 1 << 30

    private let bytes: UnsafePointer<UInt8>
    private let count: Int
    private let blockSize: Int

    private(set) var frame: Frame?
    /// Four tables of 64 factors, natural order; `hasQuantization[i]` once table i was read.
    private let quantization = UnsafeMutablePointer<Float>.allocate(capacity: 4 * 64)
    private var hasQuantization = [false, false, false, false]
    private var dcTables = [HuffmanTable?](repeating: nil, count: 4)
    private var acTables = [HuffmanTable?](repeating: nil, count: 4)
    private var restartInterval = 0
    private var adobeTransform: Int?
    private var sawJFIF = false
    private var scansDecoded = 0
    /// What was wrong with the entropy-coded data, first found: the decode shows what could be
    /// read, as libjpeg's does when it warns.
    private(set) var damage: String?

    /// One plane per component, `paddedWide * sampleWidth` samples a row.
    private var planes: [UnsafeMutablePointer<UInt8>] = []
    /// Progressive only: each block's coefficients (64, natural order, not dequantized) or, for a
    /// component whose blocks give one sample, its DC alone.
    private var coefficients: [UnsafeMutablePointer<Int16>] = []
    private var coefficientsPerBlock: [Int] = []
    private var endOfBandRun = 0

    private let block = UnsafeMutablePointer<Float>.allocate(capacity: 64)
    private let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 64)

    /// - Parameter blockSize: samples per block side for full-resolution components: 8, 4, 2 or 1.
    init(bytes: UnsafePointer<UInt8>, count: Int, blockSize: Int) {
        self.bytes = bytes
        self.count = count
        self.blockSize = blockSize
    }

    deinit {
        for plane in planes { plane.deallocate() }
        for buffer in coefficients { buffer.deallocate() }
        block.deallocate()
        scratch.deallocate()
        quantization.deallocate()
    }

    // MARK: Markers

    /// Reads every segment and scan up to EOI (or the end of the data) and returns the decoded
    /// planes, cropped and upsampled to the output size.
    func decode() throws(JPEGError) -> PlanarImage {
        guard count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw .notJPEG(reason: "it does not start with FF D8") }
        var position = 2
        segments: while true {
            // Markers may be preceded by fill bytes (FF); anything else between segments is skipped.
            while position < count && bytes[position] != 0xFF { position += 1 }
            while position < count && bytes[position] == 0xFF { position += 1 }
            guard position < count else { break }
            let marker = bytes[position]
            position += 1
            switch marker {
            case 0xD9:
                break segments
            case 0xD0...0xD7, 0x01:
                continue  // stray restart marker or TEM: no payload
            default:
                break
            }
            guard position + 2 <= count else { break }
            let length = Int(bytes[position]) << 8 | Int(bytes[position + 1])
            guard length >= 2, position + length <= count else { throw .damaged(reason: "a segment runs past the end of the file") }
            let payload = UnsafeBufferPointer(start: bytes + position + 2, count: length - 2)
            position += length
            switch marker {
            case 0xC0, 0xC1, 0xC2:
                guard frame == nil else { throw .damaged(reason: "the file has two frame headers") }
                try startFrame(Frame(payload: payload, progressive: marker == 0xC2))
            case 0xC3, 0xC5, 0xC6, 0xC7, 0xCB, 0xCD, 0xCE, 0xCF:
                throw .unsupported(
                    reason: marker == 0xC3 ? "a lossless JPEG" : marker < 0xC8 ? "a hierarchical JPEG" : "a lossless arithmetic-coded JPEG")
            case 0xC9, 0xCA:
                throw .unsupported(reason: "arithmetic coding")
            case 0xC4:
                try readHuffmanTables(payload)
            case 0xCC:
                throw .unsupported(reason: "arithmetic coding")
            case 0xDB:
                try readQuantizationTables(payload)
            case 0xDD:
                guard payload.count >= 2 else { throw .damaged(reason: "the restart interval segment is cut short") }
                restartInterval = Int(payload[0]) << 8 | Int(payload[1])
            case 0xEE:
                // Adobe's APP14: its transform flag says RGB (0), YCbCr (1) or YCCK (2).
                if payload.count >= 12, Array(payload[0..<5]) == Array("Adobe".utf8) { adobeTransform = Int(payload[11]) }
            case 0xE0:
                if payload.count >= 5, Array(payload[0..<5]) == Array("JFIF\0".utf8) { sawJFIF = true }
            case 0xDA:
                guard let frame else { throw .damaged(reason: "a scan comes before the frame header") }
                let scan = try ScanHeader(payload: payload, frame: frame)
                position = try decodeScan(scan, from: position)
                scansDecoded += 1
            case 0xDC:
                throw .unsupported(reason: "the height is given after the first scan (a DNL marker)")
            default:
                continue  // APPn, COM and anything else: skipped by its length
            }
        }
        guard let frame else { throw .notJPEG(reason: "it has no frame header") }
        guard scansDecoded > 0 else { throw .damaged(reason: "it has no scan") }
        if frame.progressive { finishProgressive() }
        var image = output()
        image.damage = damage
        return image
    }

    private func readHuffmanTables(_ payload: UnsafeBufferPointer<UInt8>) throws(JPEGError) {
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
            let table = try HuffmanTable(counts: counts, symbols: symbols)
            if kind == 0 { dcTables[slot] = table } else { acTables[slot] = table }
            index += 17 + total
        }
    }

    private func readQuantizationTables(_ payload: UnsafeBufferPointer<UInt8>) throws(JPEGError) {
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
        header.scale(blockSize: blockSize)
        // A valid scan spends at least one bit on each block: a frame claiming far more blocks
        // than the file has bits is refused before anything is allocated for it.
        let blocks = header.components.reduce(0) { $0 + $1.paddedWide * $1.paddedHigh }
        guard blocks <= 8 * count + 64 else {
            throw .tooLarge(reason: "its header claims \(header.width)x\(header.height) pixels, more than its \(count) bytes can hold")
        }
        var memory = 0
        for component in header.components {
            memory += component.paddedWide * component.sampleWidth * component.paddedHigh * component.sampleHeight
            if header.progressive {
                let perBlock = component.sampleWidth == 1 && component.sampleHeight == 1 ? 1 : 64
                memory += component.paddedWide * component.paddedHigh * perBlock * 2
            }
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
                let perBlock = component.sampleWidth == 1 && component.sampleHeight == 1 ? 1 : 64
                let blocks = component.paddedWide * component.paddedHigh * perBlock
                let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: blocks)
                buffer.initialize(repeating: 0, count: blocks)
                coefficients.append(buffer)
                coefficientsPerBlock.append(perBlock)
            }
        }
        frame = header
    }

    // MARK: Scans

    /// Decodes one scan starting at `start` and returns the position of the marker after it,
    /// noting the first damage its data shows.
    private func decodeScan(_ scan: ScanHeader, from start: Int) throws(JPEGError) -> Int {
        var reader = BitReader(bytes: bytes, count: count, position: start)
        let end = try decodeScan(scan, with: &reader)
        if damage == nil {
            if reader.sawBadCode {
                damage = "its data holds a code no Huffman table has (corrupt data)"
            } else if reader.sawMissingRestart {
                damage = "a restart marker is missing or out of order"
            } else if reader.isExhausted || end >= count {
                damage = "its data ends before its last scan does (cut short)"
            }
        }
        return end
    }

    private func decodeScan(_ scan: ScanHeader, with reader: inout BitReader) throws(JPEGError) -> Int {
        guard let frame else { return reader.position }
        if frame.progressive {
            // Bands a scaled decode cannot use are stepped over unread: at 1/8, every AC band of
            // the full-resolution components.
            if scan.spectralStart > 0, coefficientsPerBlock[scan.members[0].component] == 1 { return reader.nextMarker() }
            try checkTables(scan, needsDC: scan.spectralStart == 0 && scan.successiveHigh == 0, needsAC: scan.spectralStart > 0)
        } else {
            try checkTables(scan, needsDC: true, needsAC: true)
        }
        if !frame.progressive {
            decodeSequentialScan(scan, frame: frame, reader: &reader)
            return reader.nextMarker()
        }
        var predictors = [Int](repeating: 0, count: frame.components.count)
        endOfBandRun = 0
        let single = scan.members.count == 1
        let first = frame.components[scan.members[0].component]
        let mcusWide = single ? first.blocksWide : frame.mcusWide
        let mcusHigh = single ? first.blocksHigh : frame.mcusHigh
        var mcu = 0
        for mcuY in 0..<mcusHigh {
            for mcuX in 0..<mcusWide {
                if restartInterval > 0, mcu > 0, mcu % restartInterval == 0 {
                    reader.restart()
                    for index in predictors.indices { predictors[index] = 0 }
                    endOfBandRun = 0
                    if reader.reachedMarker { return reader.nextMarker() }
                }
                mcu += 1
                // Out of data: skip to the next interval, or end the scan (as libjpeg does).
                if reader.isExhausted {
                    guard restartInterval > 0 else { return reader.nextMarker() }
                    continue
                }
                for member in scan.members {
                    let component = frame.components[member.component]
                    let across = single ? 1 : component.horizontal
                    let down = single ? 1 : component.vertical
                    for blockY in 0..<down {
                        for blockX in 0..<across {
                            let x = single ? mcuX : mcuX * component.horizontal + blockX
                            let y = single ? mcuY : mcuY * component.vertical + blockY
                            decodeProgressive(scan, member: member, x: x, y: y, reader: &reader, predictor: &predictors[member.component])
                        }
                    }
                }
            }
        }
        return reader.nextMarker()
    }

    private func checkTables(_ scan: ScanHeader, needsDC: Bool, needsAC: Bool) throws(JPEGError) {
        for member in scan.members {
            guard hasQuantization[frame!.components[member.component].quantizationTable] else {
                throw .damaged(reason: "a component's quantization table is missing")
            }
            if needsDC, dcTables[member.dcTable] == nil { throw .damaged(reason: "a scan's DC Huffman table is missing") }
            if needsAC, acTables[member.acTable] == nil { throw .damaged(reason: "a scan's AC Huffman table is missing") }
        }
    }

    /// What a sequential scan needs of one of its components, as plain values and pointers, so
    /// that the block loop touches no reference-counted or exclusivity-checked state.
    private struct SequentialMember {
        let dc: HuffmanCodes
        let ac: HuffmanCodes
        let quantization: UnsafePointer<Float>
        let plane: UnsafeMutablePointer<UInt8>
        let stride: Int
        let sampleWidth: Int
        let sampleHeight: Int
        let horizontal: Int
        let vertical: Int
    }

    /// A sequential scan: each block decoded, dequantized and transformed into its plane at once.
    private func decodeSequentialScan(_ scan: ScanHeader, frame: Frame, reader: inout BitReader) {
        let members = scan.members.map { member in
            let component = frame.components[member.component]
            return SequentialMember(
                dc: dcTables[member.dcTable]!.codes, ac: acTables[member.acTable]!.codes,
                quantization: UnsafePointer(quantization + component.quantizationTable * 64), plane: planes[member.component],
                stride: component.paddedWide * component.sampleWidth, sampleWidth: component.sampleWidth, sampleHeight: component.sampleHeight,
                horizontal: scan.members.count == 1 ? 1 : component.horizontal, vertical: scan.members.count == 1 ? 1 : component.vertical)
        }
        let single = scan.members.count == 1
        let first = frame.components[scan.members[0].component]
        let mcusWide = single ? first.blocksWide : frame.mcusWide
        let mcusHigh = single ? first.blocksHigh : frame.mcusHigh
        var predictors = (0, 0, 0, 0)
        let restartInterval = restartInterval
        let block = block
        let scratch = scratch
        // The reader is copied in and out so that its bits stay in registers through the loop.
        var local = reader
        defer { reader = local }
        zigzagToNatural.withUnsafeBufferPointer { order in
            withUnsafeMutableBytes(of: &predictors) { raw in
                let predictor = raw.baseAddress!.assumingMemoryBound(to: Int.self)
                var mcu = 0
                for mcuY in 0..<mcusHigh {
                    for mcuX in 0..<mcusWide {
                        if restartInterval > 0, mcu > 0, mcu % restartInterval == 0 {
                            local.restart()
                            for index in 0..<4 { predictor[index] = 0 }
                            if local.reachedMarker { return }  // the scan's end: no more intervals
                        }
                        mcu += 1
                        // Out of data: skip to the next interval, or end the scan.
                        if local.isExhausted {
                            guard restartInterval > 0 else { return }
                            continue
                        }
                        for (index, member) in members.enumerated() {
                            for blockY in 0..<member.vertical {
                                for blockX in 0..<member.horizontal {
                                    let x = mcuX * member.horizontal + blockX
                                    let y = mcuY * member.vertical + blockY
                                    Self.decodeSequentialBlock(
                                        member, into: member.plane + y * member.sampleHeight * member.stride + x * member.sampleWidth,
                                        reader: &local, predictor: &predictor[index], order: order.baseAddress!, block: block, scratch: scratch)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// One block of a sequential scan. When the block gives one sample, only its DC counts and
    /// the rest is read and dropped.
    @inline(__always)
    private static func decodeSequentialBlock(
        _ member: SequentialMember, into target: UnsafeMutablePointer<UInt8>, reader: inout BitReader, predictor: inout Int,
        order: UnsafePointer<Int>, block: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        let q = member.quantization
        reader.fill()
        let size = min(reader.decode(member.dc), 16)
        predictor += reader.receiveExtend(size)
        let dc = Float(Int32(truncatingIfNeeded: predictor)) * q[0]
        if member.sampleWidth == 1 && member.sampleHeight == 1 {
            readAC(member.ac, reader: &reader, order: order) { _, _ in }
            target[0] = InverseDCT.clamp(dc * 0.125)
            return
        }
        let width = member.sampleWidth
        let height = member.sampleHeight
        if width * height <= 16 {
            // A reduced block is the sum of each nonzero coefficient's share of its few samples:
            // cheaper than the transform, since most coefficients are zero.
            let horizontal = InverseDCT.factors + InverseDCT.offset(width)
            let vertical = InverseDCT.factors + InverseDCT.offset(height)
            block.update(repeating: dc * horizontal[0] * vertical[0], count: width * height)
            readAC(member.ac, reader: &reader, order: order) { natural, value in
                let share = Float(value) * q[natural]
                let u = natural & 7
                let v = natural >> 3
                for y in 0..<height {
                    let row = share * vertical[y * 8 + v]
                    for x in 0..<width { block[y * width + x] += row * horizontal[x * 8 + u] }
                }
            }
            for y in 0..<height {
                for x in 0..<width { target[y * member.stride + x] = InverseDCT.clamp(block[y * width + x]) }
            }
            return
        }
        block.update(repeating: 0, count: 64)
        block[0] = dc
        readAC(member.ac, reader: &reader, order: order) { natural, value in block[natural] = Float(value) * q[natural] }
        InverseDCT.transform(block, width: member.sampleWidth, height: member.sampleHeight, into: target, stride: member.stride, scratch: scratch)
    }

    /// Reads a sequential block's AC coefficients (JPEG F.2.2.2), handing each nonzero one to
    /// `visit` with its natural position; most come whole from one lookup of code and value.
    @inline(__always)
    private static func readAC(
        _ table: HuffmanCodes, reader: inout BitReader, order: UnsafePointer<Int>, _ visit: (_ natural: Int, _ value: Int) -> Void
    ) {
        var k = 1
        while k < 64 {
            reader.fill()
            let fast = table.coefficients[reader.peek(HuffmanTable.lookupBits)]
            if fast != 0 {
                reader.skip(Int(fast & 0xFF))
                k += Int((fast >> 8) & 0xFF)
                visit(order[k], Int(fast >> 16))
                k += 1
                continue
            }
            let symbol = reader.decode(table)
            let run = symbol >> 4
            let size = symbol & 15
            if size == 0 {
                if run != 15 { break }
                k += 16
                continue
            }
            k += run
            visit(order[k], reader.receiveExtend(size))
            k += 1
        }
    }

    // MARK: Progressive

    @inline(__always)
    private func decodeProgressive(_ scan: ScanHeader, member: ScanHeader.Member, x: Int, y: Int, reader: inout BitReader, predictor: inout Int) {
        let component = frame!.components[member.component]
        let perBlock = coefficientsPerBlock[member.component]
        let coefficients = self.coefficients[member.component] + (y * component.paddedWide + x) * perBlock
        if scan.spectralStart == 0 {
            if scan.successiveHigh == 0 {
                reader.fill()
                let size = min(reader.decode(dcTables[member.dcTable]!.codes), 16)
                predictor += reader.receiveExtend(size)
                coefficients[0] = Int16(truncatingIfNeeded: predictor << scan.successiveLow)
            } else if reader.readBit() != 0 {
                coefficients[0] |= Int16(truncatingIfNeeded: 1 << scan.successiveLow)
            }
            return
        }
        let table = acTables[member.acTable]!.codes
        zigzagToNatural.withUnsafeBufferPointer { order in
            if scan.successiveHigh == 0 {
                firstACPass(scan, table: table, order: order.baseAddress!, into: coefficients, reader: &reader)
            } else {
                refineACPass(scan, table: table, order: order.baseAddress!, into: coefficients, reader: &reader)
            }
        }
    }

    /// The first pass over a band (JPEG G.1.2.2): runs of zeros, values, and runs of blocks whose
    /// band is all zero.
    @inline(__always)
    private func firstACPass(
        _ scan: ScanHeader, table: HuffmanCodes, order: UnsafePointer<Int>, into block: UnsafeMutablePointer<Int16>, reader: inout BitReader
    ) {
        if endOfBandRun > 0 {
            endOfBandRun -= 1
            return
        }
        var k = scan.spectralStart
        while k <= scan.spectralEnd {
            reader.fill()
            let symbol = reader.decode(table)
            let run = symbol >> 4
            let size = symbol & 15
            if size == 0 {
                if run < 15 {
                    endOfBandRun = (1 << run) - 1
                    if run > 0 { endOfBandRun += reader.read(run) }
                    break
                }
                k += 16
                continue
            }
            k += run
            let value = reader.receiveExtend(size)
            block[order[k]] = Int16(truncatingIfNeeded: value << scan.successiveLow)
            k += 1
        }
    }

    /// A refinement pass over a band (JPEG G.1.2.3): one more bit of every coefficient already
    /// nonzero, and new coefficients of magnitude 1 placed among the zeros.
    @inline(__always)
    private func refineACPass(
        _ scan: ScanHeader, table: HuffmanCodes, order: UnsafePointer<Int>, into block: UnsafeMutablePointer<Int16>, reader: inout BitReader
    ) {
        let plus = 1 << scan.successiveLow
        let minus = -1 << scan.successiveLow
        var k = scan.spectralStart
        @inline(__always) func refine(_ natural: Int) {
            if reader.readBit() != 0 {
                let value = Int(block[natural])
                if value & plus == 0 { block[natural] = Int16(truncatingIfNeeded: value >= 0 ? value + plus : value + minus) }
            }
        }
        if endOfBandRun == 0 {
            while k <= scan.spectralEnd {
                reader.fill()
                let symbol = reader.decode(table)
                var run = symbol >> 4
                let size = symbol & 15
                var value = 0
                if size != 0 {
                    value = reader.read(1) != 0 ? plus : minus
                } else if run != 15 {
                    endOfBandRun = 1 << run
                    if run > 0 { endOfBandRun += reader.read(run) }
                    break
                }
                while k <= scan.spectralEnd {
                    let natural = order[k]
                    if block[natural] != 0 {
                        refine(natural)
                    } else {
                        if run == 0 {
                            if value != 0 { block[natural] = Int16(truncatingIfNeeded: value) }
                            k += 1
                            break
                        }
                        run -= 1
                    }
                    k += 1
                }
            }
        }
        if endOfBandRun > 0 {
            while k <= scan.spectralEnd {
                let natural = order[k]
                if block[natural] != 0 { refine(natural) }
                k += 1
            }
            endOfBandRun -= 1
        }
    }

    /// Dequantizes and transforms every block gathered by the progressive scans.
    private func finishProgressive() {
        guard let frame else { return }
        for (index, component) in frame.components.enumerated() {
            let perBlock = coefficientsPerBlock[index]
            let width = component.sampleWidth
            let height = component.sampleHeight
            let stride = component.paddedWide * width
            do {
                let q = quantization + component.quantizationTable * 64
                for y in 0..<component.paddedHigh {
                    for x in 0..<component.paddedWide {
                        let source = coefficients[index] + (y * component.paddedWide + x) * perBlock
                        let target = planes[index] + y * height * stride + x * width
                        if perBlock == 1 {
                            target[0] = InverseDCT.clamp(Float(source[0]) * q[0] * 0.125)
                            continue
                        }
                        for index in 0..<64 { block[index] = Float(source[index]) * q[index] }
                        InverseDCT.transform(block, width: width, height: height, into: target, stride: stride, scratch: scratch)
                    }
                }
            }
        }
    }

    // MARK: Output

    /// The planes cropped to the output size, subsampled ones upsampled to it.
    private func output() -> PlanarImage {
        let frame = frame!
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
                    factorY: component.upsampleY, width: width, height: height))
        }
        return PlanarImage(width: width, height: height, planes: result)
    }
}

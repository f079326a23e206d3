// Sequential (baseline and extended) scans: each block's Huffman-coded coefficients read
// (JPEG F.2.2), dequantized and transformed straight into its plane, one MCU after another.

extension Decoder {
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
    func decodeSequentialScan(_ scan: ScanHeader, frame: Frame, tables: [ScanTables], reader: inout BitReader) {
        let members = zip(scan.members, tables).map { member, tables in
            let component = frame.components[member.component]
            return SequentialMember(
                dc: tables.dc, ac: tables.ac,
                quantization: UnsafePointer(quantization + component.quantizationTable * 64), plane: planes[member.component],
                stride: component.paddedWide * component.sampleWidth, sampleWidth: component.sampleWidth, sampleHeight: component.sampleHeight,
                horizontal: scan.members.count == 1 ? 1 : component.horizontal, vertical: scan.members.count == 1 ? 1 : component.vertical)
        }
        let single = scan.members.count == 1
        let first = frame.components[scan.members[0].component]
        let mcusWide = single ? first.blocksWide : frame.mcusWide
        let mcusHigh = single ? first.blocksHigh : frame.mcusHigh
        let restartInterval = restartInterval
        let block = block
        let scratch = scratch
        let order = Zigzag.order
        let predictor = UnsafeMutablePointer<Int>.allocate(capacity: 4)
        predictor.initialize(repeating: 0, count: 4)
        defer { predictor.deallocate() }
        // The reader is copied in and out so that its bits stay in registers through the loop.
        var local = reader
        defer { reader = local }
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
                                reader: &local, predictor: &predictor[index], order: order, block: block, scratch: scratch)
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
}

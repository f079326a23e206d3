// Sequential (baseline and extended) scans: each block's Huffman-coded coefficients read
// (JPEG F.2.2), dequantized and transformed straight into its plane, one MCU after another.

extension FrameDecoder {
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
        /// For a block of 5 to 16 samples: each coefficient's dequantized share of every sample,
        /// row by row, at its natural position; `nil` for any other block.
        let shares: UnsafeMutablePointer<SIMD16<Float>>?
        /// The same for a block of 2 to 4 samples (a 1/4 decode), four lanes wide.
        let smallShares: UnsafeMutablePointer<SIMD4<Float>>?

        /// The shares of a block of `width` x `height` samples dequantized by `quantization`, in
        /// vectors of `Vector`'s lanes (as many as the samples, or more), or `nil` when a block
        /// of that size is not summed from shares.
        static func shares<Vector: SIMD>(
            width: Int, height: Int, quantization: UnsafePointer<Float>, as: Vector.Type
        ) -> UnsafeMutablePointer<Vector>? where Vector.Scalar == Float {
            guard width * height > 1, width * height <= Vector.scalarCount, width * height > Vector.scalarCount / 4 else { return nil }
            let horizontal = InverseDCT.factors + InverseDCT.offset(width)
            let vertical = InverseDCT.factors + InverseDCT.offset(height)
            let shares = UnsafeMutablePointer<Vector>.allocate(capacity: 64)
            for natural in 0..<64 {
                var share = Vector()
                for y in 0..<height {
                    for x in 0..<width {
                        share[y * width + x] = quantization[natural] * vertical[y * 8 + (natural >> 3)] * horizontal[x * 8 + (natural & 7)]
                    }
                }
                shares[natural] = share
            }
            return shares
        }
    }

    // long: the decoder's hot loop, kept whole so that its state stays in registers.
    /// A sequential scan: each block decoded, dequantized and transformed into its plane at once.
    func decodeSequentialScan(_ scan: ScanHeader, frame: Frame, tables: [ScanTables], reader: inout BitReader) {
        let described = zip(scan.members, tables).map { member, tables in
            let component = frame.components[member.component]
            let table = UnsafePointer(quantization + component.quantizationTable * 64)
            return SequentialMember(
                dc: tables.dc, ac: tables.ac, quantization: table, plane: planes[member.component],
                stride: component.paddedWide * component.sampleWidth, sampleWidth: component.sampleWidth, sampleHeight: component.sampleHeight,
                horizontal: scan.members.count == 1 ? 1 : component.horizontal, vertical: scan.members.count == 1 ? 1 : component.vertical,
                shares: SequentialMember.shares(
                    width: component.sampleWidth, height: component.sampleHeight, quantization: table, as: SIMD16<Float>.self),
                smallShares: SequentialMember.shares(
                    width: component.sampleWidth, height: component.sampleHeight, quantization: table, as: SIMD4<Float>.self))
        }
        defer {
            for member in described {
                member.shares?.deallocate()
                member.smallShares?.deallocate()
            }
        }
        // Raw memory, so that the block loop reads each member in place: no copy, no reference.
        let members = UnsafeMutableBufferPointer<SequentialMember>.allocate(capacity: described.count)
        _ = members.initialize(from: described)
        defer { members.deallocate() }
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
        defer { mcusVisited += mcu }
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
                for index in 0..<members.count {
                    let member = members.baseAddress! + index  // unwrap: index < members.count, so the buffer is not empty
                    for blockY in 0..<member.pointee.vertical {
                        for blockX in 0..<member.pointee.horizontal {
                            let x = mcuX * member.pointee.horizontal + blockX
                            let y = mcuY * member.pointee.vertical + blockY
                            Self.decodeSequentialBlock(
                                member, x: x, y: y, reader: &local, predictor: &predictor[index], order: order, block: block, scratch: scratch)
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
        _ described: UnsafePointer<SequentialMember>, x: Int, y: Int, reader: inout BitReader, predictor: inout Int,
        order: UnsafePointer<Int>, block: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        let member = described.pointee
        let target = member.plane + y * member.sampleHeight * member.stride + x * member.sampleWidth
        let q = member.quantization
        // A copy whose address never leaves this function keeps its bits in registers.
        var local = reader
        defer { reader = local }
        local.fill()
        // The difference's code and bits in one lookup when both fit in it (and the symbol is a
        // size, as in any sound DC table).
        let fast = Int(member.dc.coefficients[local.peek(HuffmanTable.lookupBits)])
        if fast != 0, (fast >> 8) & 0xFF == 0 {
            local.skip(fast & 0xFF)
            predictor &+= fast >> 16
        } else {
            let size = min(local.decode(member.dc), 16)
            predictor &+= local.receiveExtend(size)
        }
        let dc = Float(Int32(truncatingIfNeeded: predictor)) * q[0]
        if member.sampleWidth == 1 && member.sampleHeight == 1 {
            skipAC(member.ac, reader: &local)
            target[0] = InverseDCT.clamp(dc * 0.125)
            return
        }
        let width = member.sampleWidth
        let height = member.sampleHeight
        if let shares = member.smallShares {
            var sum = Float(Int32(truncatingIfNeeded: predictor)) * shares[0]
            readAC(member.ac, reader: &local, order: order) { natural, value in sum += Float(Int32(truncatingIfNeeded: value)) * shares[natural] }
            for y in 0..<height {
                for x in 0..<width { target[y * member.stride + x] = InverseDCT.clamp(sum[y * width + x]) }
            }
            return
        }
        if let shares = member.shares {
            // A reduced block is the sum of each nonzero coefficient's share of its few samples:
            // cheaper than the transform, since most coefficients are zero.
            var sum = Float(Int32(truncatingIfNeeded: predictor)) * shares[0]
            readAC(member.ac, reader: &local, order: order) { natural, value in sum += Float(Int32(truncatingIfNeeded: value)) * shares[natural] }
            for y in 0..<height {
                for x in 0..<width { target[y * member.stride + x] = InverseDCT.clamp(sum[y * width + x]) }
            }
            return
        }
        block.update(repeating: 0, count: 64)
        block[0] = dc
        readAC(member.ac, reader: &local, order: order) { natural, value in block[natural] = Float(value) * q[natural] }
        InverseDCT.transform(block, width: member.sampleWidth, height: member.sampleHeight, into: target, stride: member.stride, scratch: scratch)
    }

    /// Steps over a sequential block's AC coefficients, whose values a block of one sample does
    /// not need: each code of up to ``HuffmanTable/lookupBits`` bits says at once how many bits it
    /// and its value take and how far it moves along the block.
    @inline(__always)
    private static func skipAC(_ table: HuffmanCodes, reader: inout BitReader) {
        var local = reader
        defer { reader = local }
        var k = 1
        while k < 64 {
            local.fill()
            // Several codes at once, when the block does not end before the last of them.
            let group = Int(table.groups[local.peek(HuffmanTable.groupBits)])
            if group != 0, k &+ (group >> 16) < 64 {
                local.skip(group & 0xFF)
                k &+= (group >> 8) & 0xFF
                continue
            }
            let entry = Int(table.skips[local.peek(HuffmanTable.lookupBits)])
            if entry != 0 {
                local.skip(entry & 0xFF)
                k &+= entry >> 8
                continue
            }
            let symbol = local.decode(table)
            let size = symbol & 15
            if size == 0 {
                if symbol != 0xF0 { break }
                k &+= 16
                continue
            }
            local.skip(size)
            k &+= (symbol >> 4) &+ 1
        }
    }

    /// Reads a sequential block's AC coefficients (JPEG F.2.2.2), handing each nonzero one to
    /// `visit` with its natural position; most come whole from one lookup of code and value.
    @inline(__always)
    private static func readAC(
        _ table: HuffmanCodes, reader: inout BitReader, order: UnsafePointer<Int>, _ visit: (_ natural: Int, _ value: Int) -> Void
    ) {
        var local = reader
        defer { reader = local }
        var k = 1
        while k < 64 {
            local.fill()
            let fast = table.coefficients[local.peek(HuffmanTable.lookupBits)]
            if fast != 0 {
                local.skip(Int(fast & 0xFF))
                k += Int((fast >> 8) & 0xFF)
                visit(order[k], Int(fast >> 16))
                k += 1
                continue
            }
            let symbol = local.decode(table)
            let run = symbol >> 4
            let size = symbol & 15
            if size == 0 {
                if run != 15 { break }
                k += 16
                continue
            }
            k += run
            visit(order[k], local.receiveExtend(size))
            k += 1
        }
    }
}

// Progressive scans (JPEG G.1.2): each scan adds a band of coefficients, or one more bit of one,
// to every block; the coefficients are kept until the last scan, then dequantized and transformed.

extension FrameDecoder {
    /// A progressive scan: one band of coefficients (or one more bit of it) for every block, kept
    /// until all scans are read.
    func decodeProgressiveScan(_ scan: ScanHeader, frame: Frame, tables: [ScanTables], reader: inout BitReader) {
        var predictors = [Int](repeating: 0, count: frame.components.count)
        endOfBandRun = 0
        let single = scan.members.count == 1
        let first = frame.components[scan.members[0].component]
        let mcusWide = single ? first.blocksWide : frame.mcusWide
        let mcusHigh = single ? first.blocksHigh : frame.mcusHigh
        var mcu = 0
        defer { mcusVisited += mcu }
        for mcuY in 0..<mcusHigh {
            for mcuX in 0..<mcusWide {
                if restartInterval > 0, mcu > 0, mcu % restartInterval == 0 {
                    reader.restart()
                    for index in predictors.indices { predictors[index] = 0 }
                    endOfBandRun = 0
                    if reader.reachedMarker { return }
                }
                mcu += 1
                // Out of data: skip to the next interval, or end the scan (as libjpeg does).
                if reader.isExhausted {
                    guard restartInterval > 0 else { return }
                    continue
                }
                for (member, tables) in zip(scan.members, tables) {
                    let component = frame.components[member.component]
                    let across = single ? 1 : component.horizontal
                    let down = single ? 1 : component.vertical
                    for blockY in 0..<down {
                        for blockX in 0..<across {
                            let x = single ? mcuX : mcuX * component.horizontal + blockX
                            let y = single ? mcuY : mcuY * component.vertical + blockY
                            decodeProgressive(
                                scan, member: member, component: component, tables: tables, x: x, y: y, reader: &reader,
                                predictor: &predictors[member.component])
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    private func decodeProgressive(
        _ scan: ScanHeader, member: ScanHeader.Member, component: FrameComponent, tables: ScanTables, x: Int, y: Int, reader: inout BitReader,
        predictor: inout Int
    ) {
        let perBlock = coefficientsPerBlock[member.component]
        let coefficients = self.coefficients[member.component] + (y * component.paddedWide + x) * perBlock
        if scan.spectralStart == 0 {
            if scan.successiveHigh == 0 {
                reader.fill()
                let size = min(reader.decode(tables.dc), 16)
                predictor += reader.receiveExtend(size)
                coefficients[0] = Int16(truncatingIfNeeded: predictor << scan.successiveLow)
            } else if reader.readBit() != 0 {
                coefficients[0] |= Int16(truncatingIfNeeded: 1 << scan.successiveLow)
            }
            return
        }
        if scan.successiveHigh == 0 {
            firstACPass(scan, table: tables.ac, order: Zigzag.order, into: coefficients, reader: &reader)
        } else {
            refineACPass(scan, table: tables.ac, order: Zigzag.order, into: coefficients, reader: &reader)
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
    func finishProgressive(_ frame: Frame) {
        for (index, component) in frame.components.enumerated() {
            let perBlock = coefficientsPerBlock[index]
            let width = component.sampleWidth
            let height = component.sampleHeight
            let stride = component.paddedWide * width
            let q = quantization + component.quantizationTable * 64
            for y in 0..<component.paddedHigh {
                for x in 0..<component.paddedWide {
                    let source = coefficients[index] + (y * component.paddedWide + x) * perBlock
                    let target = planes[index] + y * height * stride + x * width
                    if perBlock == 1 {
                        target[0] = InverseDCT.clamp(Float(source[0]) * q[0] * 0.125)
                        continue
                    }
                    for k in 0..<64 { block[k] = Float(source[k]) * q[k] }
                    InverseDCT.transform(block, width: width, height: height, into: target, stride: stride, scratch: scratch)
                }
            }
        }
    }
}

// The frame header (SOF) and scan header (SOS) of a JPEG, parsed into plain values, with what the
// decoder works out from them: blocks per component, and how each is scaled to the output.

/// One colour component of a frame.
struct FrameComponent {
    let id: Int
    /// Sampling factors, 1...4.
    let horizontal: Int
    let vertical: Int
    /// The quantization table it uses, 0...3.
    let quantizationTable: Int

    /// Blocks a single-component scan codes: the component's own extent, in blocks.
    var blocksWide = 0
    var blocksHigh = 0
    /// Blocks an interleaved scan codes, whole MCUs: at least `blocksWide` x `blocksHigh`.
    var paddedWide = 0
    var paddedHigh = 0
    /// Samples each block gives in the decoded plane, 1, 2, 4 or 8 a side.
    var sampleWidth = 8
    var sampleHeight = 8
    /// How many output pixels each decoded sample covers, after the DCT's own scaling.
    var upsampleX = 1
    var upsampleY = 1
}

/// A frame header: the image's size, its components and how it is coded.
struct Frame {
    let progressive: Bool
    let width: Int
    let height: Int
    var components: [FrameComponent]
    let maxHorizontal: Int
    let maxVertical: Int
    let mcusWide: Int
    let mcusHigh: Int

    /// Parses the payload of an SOF0, SOF1 or SOF2 segment (after its length).
    init(payload: UnsafeRawBufferPointer, progressive: Bool) throws(JPEGError) {
        guard payload.count >= 6 else { throw .damaged(reason: "the frame header is cut short") }
        guard payload[0] == 8 else {
            throw .unsupported(reason: "\(payload[0])-bit samples (only 8-bit JPEGs are decoded)")
        }
        height = Int(payload[1]) << 8 | Int(payload[2])
        width = Int(payload[3]) << 8 | Int(payload[4])
        let count = Int(payload[5])
        guard width > 0 else { throw .damaged(reason: "the frame header gives a width of 0") }
        guard height > 0 else {
            throw .unsupported(reason: "the height is given after the first scan (a DNL marker)")
        }
        guard count == 1 || count == 3 else {
            throw .unsupported(
                reason: count == 4 ? "four colour components (CMYK or YCCK)" : "\(count) colour components (only grayscale and YCbCr)")
        }
        guard payload.count >= 6 + 3 * count else { throw .damaged(reason: "the frame header is cut short") }
        var components: [FrameComponent] = []
        for index in 0..<count {
            let base = 6 + 3 * index
            let factors = Int(payload[base + 1])
            let component = FrameComponent(
                id: Int(payload[base]), horizontal: factors >> 4, vertical: factors & 15, quantizationTable: Int(payload[base + 2]))
            guard (1...4).contains(component.horizontal), (1...4).contains(component.vertical), component.quantizationTable < 4 else {
                throw .damaged(reason: "a component of the frame header has sampling factors or a table out of range")
            }
            guard !components.contains(where: { $0.id == component.id }) else {
                throw .damaged(reason: "two components of the frame share an id")
            }
            components.append(component)
        }
        if count == 1 {
            // A single component is never interleaved: its blocks are its own, whatever its factors.
            components[0] = FrameComponent(id: components[0].id, horizontal: 1, vertical: 1, quantizationTable: components[0].quantizationTable)
        }
        self.progressive = progressive
        maxHorizontal = components.map(\.horizontal).max() ?? 1
        maxVertical = components.map(\.vertical).max() ?? 1
        mcusWide = (width + 8 * maxHorizontal - 1) / (8 * maxHorizontal)
        mcusHigh = (height + 8 * maxVertical - 1) / (8 * maxVertical)
        for index in components.indices {
            let component = components[index]
            guard maxHorizontal % component.horizontal == 0, maxVertical % component.vertical == 0 else {
                throw .unsupported(reason: "sampling factors that are not whole multiples of each other")
            }
            let samplesWide = (width * component.horizontal + maxHorizontal - 1) / maxHorizontal
            let samplesHigh = (height * component.vertical + maxVertical - 1) / maxVertical
            components[index].blocksWide = (samplesWide + 7) / 8
            components[index].blocksHigh = (samplesHigh + 7) / 8
            components[index].paddedWide = mcusWide * component.horizontal
            components[index].paddedHigh = mcusHigh * component.vertical
        }
        self.components = components
    }

    /// Chooses each component's output: `blockSize` samples a side for the components at full
    /// resolution (8 for the image's own size, 4, 2 or 1 for 1/2, 1/4 or 1/8); a subsampled
    /// component is decoded larger where the DCT can (a 4:2:0 chroma block at 1/8 gives 2x2
    /// samples) and upsampled by whole factors where it cannot. With `meansOnly`, a component
    /// subsampled by at most 2 each way gives one sample a block, its mean, and is upsampled.
    mutating func scale(blockSize: Int, meansOnly: Bool = false) {
        for index in components.indices {
            let factorX = maxHorizontal / components[index].horizontal
            let factorY = maxVertical / components[index].vertical
            func split(_ factor: Int) -> (samples: Int, upsample: Int) {
                let grown = blockSize * factor
                if meansOnly, factor <= 2 { return (blockSize, factor) }
                return grown <= 8 && (grown & (grown - 1)) == 0 ? (grown, 1) : (blockSize, factor)
            }
            (components[index].sampleWidth, components[index].upsampleX) = split(factorX)
            (components[index].sampleHeight, components[index].upsampleY) = split(factorY)
        }
    }
}

/// A scan header: which components the scan codes, with which tables, and for a progressive
/// scan which band of coefficients and which bits.
struct ScanHeader {
    struct Member {
        /// Index into the frame's components.
        let component: Int
        let dcTable: Int
        let acTable: Int
    }

    let members: [Member]
    let spectralStart: Int
    let spectralEnd: Int
    let successiveHigh: Int
    let successiveLow: Int

    init(payload: UnsafeRawBufferPointer, frame: Frame) throws(JPEGError) {
        guard payload.count >= 1 else { throw .damaged(reason: "a scan header is cut short") }
        let count = Int(payload[0])
        guard (1...4).contains(count), payload.count >= 1 + 2 * count + 3 else { throw .damaged(reason: "a scan header is cut short") }
        var members: [Member] = []
        for index in 0..<count {
            let id = Int(payload[1 + 2 * index])
            let tables = Int(payload[2 + 2 * index])
            guard let component = frame.components.firstIndex(where: { $0.id == id }) else {
                throw .damaged(reason: "a scan names a component the frame does not have")
            }
            guard tables >> 4 < 4, tables & 15 < 4, !members.contains(where: { $0.component == component }) else {
                throw .damaged(reason: "a scan header names a table out of range or a component twice")
            }
            members.append(Member(component: component, dcTable: tables >> 4, acTable: tables & 15))
        }
        self.members = members
        let tail = 1 + 2 * count
        spectralStart = Int(payload[tail])
        spectralEnd = Int(payload[tail + 1])
        successiveHigh = Int(payload[tail + 2]) >> 4
        successiveLow = Int(payload[tail + 2]) & 15
        if frame.progressive {
            let valid =
                spectralStart <= spectralEnd && spectralEnd <= 63 && successiveLow <= 13
                && (spectralStart == 0 ? spectralEnd == 0 : count == 1)
            guard valid else { throw .damaged(reason: "a progressive scan's band or bits are out of range") }
        }
        // A sequential scan's MCU holds at most 10 blocks (JPEG B.2.3).
        let blocks = count == 1 ? 1 : members.reduce(0) { $0 + frame.components[$1.component].horizontal * frame.components[$1.component].vertical }
        guard blocks <= 10 else { throw .damaged(reason: "a scan's MCU holds more than 10 blocks") }
    }
}

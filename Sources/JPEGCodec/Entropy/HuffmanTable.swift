// Huffman decoding tables, built once per DHT segment: a 9-bit lookup for the common short codes
// and the canonical code limits (JPEG Annex C and F.2.2.3) for the rest.

/// One decoding table: `lookup` answers every code of up to ``lookupBits`` bits in one step.
///
/// A class over raw memory so that the scan loop reads it without copies or bounds checks; the
/// memory is owned here and freed with the table.
final class HuffmanTable {
    static let lookupBits = 9

    /// Indexed by the next `lookupBits` bits: `length << 8 | symbol`, or 0 when the code is longer.
    let lookup: UnsafeMutablePointer<UInt16>
    /// `maxCode[l]`: the largest code of length `l`, -1 when there is none; `maxCode[17]` is a
    /// sentinel larger than any code.
    let maxCode: UnsafeMutablePointer<Int32>
    /// Added to a code of length `l` to find its symbol's index in `symbols`.
    let valueOffset: UnsafeMutablePointer<Int32>
    /// The symbols in code order, padded to 256 so that a damaged code still reads in bounds.
    let symbols: UnsafeMutablePointer<UInt8>
    /// For AC tables, indexed like `lookup`: a coefficient whose code and extra bits both fit in
    /// `lookupBits`, decoded whole: `value << 16 | run << 8 | bits used`; 0 otherwise.
    let coefficients: UnsafeMutablePointer<Int32>
    /// For AC tables, indexed like `lookup`, for a block whose coefficients are stepped over
    /// unread: `advance << 8 | bits` for a code of up to `lookupBits` bits, where `bits` counts
    /// its extra bits too and `advance` is how far it moves along the block (a coefficient's
    /// run and itself, 16 for a run of zeros, 64 for the end of the block); 0 otherwise.
    let skips: UnsafeMutablePointer<UInt16>
    /// For AC tables (`forAC`; all zeros otherwise), indexed by the next ``groupBits`` bits, for a block stepped over unread:
    /// the codes (with their extra bits) that fit whole in those bits, up to the block's end,
    /// taken together as `last << 16 | advance << 8 | bits`, where `advance` is how far all of
    /// them move along the block (64 once one ends it) and `last` how far all but the last do;
    /// 0 when even the first does not fit.
    let groups: UnsafeMutablePointer<UInt32>
    static let groupBits = 12

    /// The same memory as plain pointers, for the scan loop.
    var codes: HuffmanCodes {
        HuffmanCodes(
            lookup: lookup, maxCode: maxCode, valueOffset: valueOffset, symbols: symbols, coefficients: coefficients, skips: skips, groups: groups)
    }

    /// A table that holds no code, for a scan's table it never reads: every lookup misses.
    nonisolated(unsafe) static let empty = HuffmanTable()  // never written after this initializer

    private init() {
        lookup = .allocate(capacity: 1 << Self.lookupBits)
        lookup.initialize(repeating: 0, count: 1 << Self.lookupBits)
        maxCode = .allocate(capacity: 18)
        maxCode.initialize(repeating: -1, count: 18)
        maxCode[17] = Int32.max
        valueOffset = .allocate(capacity: 18)
        valueOffset.initialize(repeating: 0, count: 18)
        symbols = .allocate(capacity: 256)
        symbols.initialize(repeating: 0, count: 256)
        coefficients = .allocate(capacity: 1 << Self.lookupBits)
        coefficients.initialize(repeating: 0, count: 1 << Self.lookupBits)
        skips = .allocate(capacity: 1 << Self.lookupBits)
        skips.initialize(repeating: 0, count: 1 << Self.lookupBits)
        groups = .allocate(capacity: 1 << Self.groupBits)
        groups.initialize(repeating: 0, count: 1 << Self.groupBits)
    }

    /// Builds a table from a DHT segment's 16 counts (codes of each length 1...16) and symbols.
    convenience init(counts: [Int], symbols values: [UInt8], forAC: Bool) throws(JPEGError) {
        self.init()
        guard counts.count == 16, counts.reduce(0, +) == values.count, values.count <= 256 else {
            throw .damaged(reason: "a Huffman table's counts do not match its symbols")
        }
        for (index, value) in values.enumerated() { symbols[index] = value }
        var code: Int32 = 0
        var index: Int32 = 0
        for length in 1...16 {
            let count = Int32(counts[length - 1])
            valueOffset[length] = index - code
            if count > 0 {
                code += count
                index += count
                maxCode[length] = code - 1
            }
            // The codes of one length must fit in it (Annex C), or the table is no prefix code.
            guard code <= (1 << length) else { throw .damaged(reason: "a Huffman table has more codes than its lengths hold") }
            code <<= 1
        }
        // Each code of length l <= lookupBits owns 2^(lookupBits - l) consecutive entries.
        code = 0
        index = 0
        for length in 1...Self.lookupBits {
            for _ in 0..<counts[length - 1] {
                let shift = Self.lookupBits - length
                let first = Int(code) << shift
                let entry = UInt16(length) << 8 | UInt16(values[Int(index)])
                for slot in first..<(first + (1 << shift)) { lookup[slot] = entry }
                code += 1
                index += 1
            }
            code <<= 1
        }
        for slot in 0..<(1 << Self.lookupBits) {
            let entry = lookup[slot]
            guard entry != 0 else { continue }
            let length = Int(entry >> 8)
            let symbol = Int(entry & 0xFF)
            let size = symbol & 15
            let advance = size > 0 ? (symbol >> 4) + 1 : symbol == 0xF0 ? 16 : 64
            skips[slot] = UInt16(advance << 8 | (length + size))
            guard size > 0, length + size <= Self.lookupBits else { continue }
            let bits = (slot >> (Self.lookupBits - length - size)) & ((1 << size) - 1)
            let value = bits < (1 << (size - 1)) ? bits - (1 << size) + 1 : bits
            coefficients[slot] = Int32(value) << 16 | Int32(symbol >> 4) << 8 | Int32(length + size)
        }
        if forAC {
            for window in 0..<(1 << Self.groupBits) { groups[window] = group(window) }
        }
    }

    /// The ``groups`` entry of the next ``groupBits`` bits `window`.
    private func group(_ window: Int) -> UInt32 {
        var used = 0
        var advance = 0
        var last = 0
        while advance < 64, let (length, symbol) = code(in: window, at: used) {
            let size = symbol & 15
            guard used + length + size <= Self.groupBits else { break }
            used += length + size
            last = advance
            advance += size > 0 ? (symbol >> 4) + 1 : symbol == 0xF0 ? 16 : 64
        }
        return used == 0 ? 0 : UInt32(min(last, 255)) << 16 | UInt32(min(advance, 255)) << 8 | UInt32(used)
    }

    /// The code that starts `at` bits into the ``groupBits`` bits `window`, when it ends in them:
    /// its length and symbol, decoded by the code limits as JPEG F.2.2.3 does.
    private func code(in window: Int, at start: Int) -> (length: Int, symbol: Int)? {
        if start + Self.lookupBits <= Self.groupBits {
            let entry = lookup[(window >> (Self.groupBits - start - Self.lookupBits)) & ((1 << Self.lookupBits) - 1)]
            if entry != 0 { return (Int(entry >> 8), Int(entry & 0xFF)) }
        }
        var length = 1
        while start + length <= Self.groupBits, length <= 16 {
            let code = Int32((window >> (Self.groupBits - start - length)) & ((1 << length) - 1))
            if code <= maxCode[length] { return (length, Int(symbols[Int(code + valueOffset[length]) & 0xFF])) }
            length += 1
        }
        return nil
    }

    deinit {
        lookup.deallocate()
        maxCode.deallocate()
        valueOffset.deallocate()
        symbols.deallocate()
        coefficients.deallocate()
        skips.deallocate()
        groups.deallocate()
    }
}

/// A ``HuffmanTable``'s memory as plain pointers, valid while the table lives: what the scan
/// loop passes around, with no reference counting.
struct HuffmanCodes {
    let lookup: UnsafeMutablePointer<UInt16>
    let maxCode: UnsafeMutablePointer<Int32>
    let valueOffset: UnsafeMutablePointer<Int32>
    let symbols: UnsafeMutablePointer<UInt8>
    let coefficients: UnsafeMutablePointer<Int32>
    let skips: UnsafeMutablePointer<UInt16>
    let groups: UnsafeMutablePointer<UInt32>
}

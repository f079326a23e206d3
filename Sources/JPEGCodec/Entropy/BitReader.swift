// Reads entropy-coded data bit by bit: stuffed bytes (FF 00) undone, and zeros fed once a marker
// is reached, as libjpeg does for data cut short, so that damage never reads out of bounds.

/// The bits of one scan's entropy-coded segment, most significant first.
///
/// Bits are kept left-aligned in a 64-bit word and refilled a byte at a time only when fewer than
/// 32 remain, so that a symbol and its extra bits (at most 16 + 16) are read without a check per
/// bit.
package struct BitReader {
    // Every field is a whole word, so that a copy of the reader in and out of a block's loop is
    // a few aligned moves the processor forwards at once: the flags share one word.
    private let bytes: UnsafeRawBufferPointer
    /// The next byte to load.
    private(set) var position: Int
    private var bits: UInt64 = 0
    private var count = 0
    /// How many of the bits held at the end are zeros made up past the data.
    private var padded = 0
    /// ``Flags`` and, from bit 8, the number (0–7) of the restart marker due next.
    private var state = 0

    private enum Flags {
        static let reachedMarker = 1
        static let sawBadCode = 2
        static let sawMissingRestart = 4
    }

    /// Set once a marker stopped the loading: every later bit is 0.
    private(set) var reachedMarker: Bool {
        get { state & Flags.reachedMarker != 0 }
        set { state = newValue ? state | Flags.reachedMarker : state & ~Flags.reachedMarker }
    }
    /// Set once a code was read that no table holds: the data is damaged.
    private(set) var sawBadCode: Bool {
        get { state & Flags.sawBadCode != 0 }
        set { state = newValue ? state | Flags.sawBadCode : state & ~Flags.sawBadCode }
    }
    /// Set once a restart marker was not where the interval put it, or not the one due.
    private(set) var sawMissingRestart: Bool {
        get { state & Flags.sawMissingRestart != 0 }
        set { state = newValue ? state | Flags.sawMissingRestart : state & ~Flags.sawMissingRestart }
    }
    /// The number (0–7) of the restart marker due next.
    private var nextRestart: UInt8 {
        get { UInt8(truncatingIfNeeded: state >> 8) & 7 }
        set { state = state & 0xFF | Int(newValue & 7) << 8 }
    }
    private var end: Int { bytes.count }

    /// Whether a made-up bit was read: the scan's data ran out before its blocks did. libjpeg
    /// then leaves the rest of the scan (up to the next restart marker) undecoded, and so do we:
    /// which also keeps a file of many empty scans from costing a pass over every block each.
    var isExhausted: Bool { count < padded }

    package init(bytes: UnsafeRawBufferPointer, position: Int) {
        self.bytes = bytes
        self.position = position
    }

    /// Loads bytes until at least 32 bits are held (57 or more when data remains).
    ///
    /// The common case is inline: the next 8 bytes hold no FF (no stuffing, no marker), so as
    /// many whole bytes as fit are taken in one load. The rest is a call that takes and returns
    /// the reader by value, never its address, so that a loop's reader can live in registers.
    @inline(__always)
    mutating func fill() {
        if count >= 32 { return }
        if !reachedMarker, position &+ 8 <= end {
            let word = bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self).bigEndian
            let inverted = ~word
            if (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080 == 0 {
                let taken = (64 &- count) >> 3
                bits |= (word &>> UInt64(64 &- 8 &* taken)) &<< UInt64(64 &- count &- 8 &* taken)
                count &+= 8 &* taken
                position &+= taken
                return
            }
        }
        self = refilled()
    }

    /// This reader with bytes loaded one at a time, stuffing undone and markers stopped at.
    @inline(never)
    private func refilled() -> BitReader {
        var copy = self
        copy.refill()
        return copy
    }

    private mutating func refill() {
        while count <= 56 {
            var byte: UInt64 = 0
            var real = false
            if !reachedMarker, position < end {
                let value = bytes[position]
                if value != 0xFF {
                    position += 1
                    byte = UInt64(value)
                    real = true
                } else {
                    let next = position + 1 < end ? bytes[position + 1] : 0xD9
                    if next == 0x00 {
                        position += 2
                        byte = 0xFF
                        real = true
                    } else if next == 0xFF {
                        position += 1  // a fill byte before a marker
                        continue
                    } else {
                        reachedMarker = true
                    }
                }
            }
            bits |= byte << UInt64(56 - count)
            count += 8
            if !real { padded += 8 }
        }
    }

    /// The next `n` bits (1...16) without consuming them; ``fill()`` first.
    @inline(__always)
    func peek(_ n: Int) -> Int { Int(truncatingIfNeeded: bits &>> UInt64(truncatingIfNeeded: 64 &- n)) }

    @inline(__always)
    mutating func skip(_ n: Int) {
        bits &<<= UInt64(truncatingIfNeeded: n)
        count &-= n
    }

    /// Reads `n` bits (0...16) as an unsigned number; ``fill()`` first.
    @inline(__always)
    mutating func read(_ n: Int) -> Int {
        if n == 0 { return 0 }
        let value = peek(n)
        skip(n)
        return value
    }

    /// Reads one bit, filling as needed.
    @inline(__always)
    mutating func readBit() -> Int {
        fill()
        return read(1)
    }

    /// Reads `n` extra bits and extends them to a signed coefficient (JPEG F.2.2.1, EXTEND).
    @inline(__always)
    mutating func receiveExtend(_ n: Int) -> Int {
        if n == 0 { return 0 }
        let value = read(n)
        return value < (1 << (n - 1)) ? value - (1 << n) + 1 : value
    }

    /// Decodes one Huffman symbol with `table`; ``fill()`` first. A code that is in no table (damage)
    /// reads as symbol 0 after 17 bits, as libjpeg reads it, so that both decode damage alike.
    @inline(__always)
    mutating func decode(_ table: HuffmanCodes) -> Int {
        let entry = table.lookup[peek(HuffmanTable.lookupBits)]
        if entry != 0 {
            skip(Int(entry >> 8))
            return Int(entry & 0xFF)
        }
        var length = HuffmanTable.lookupBits + 1
        var code = Int32(peek(length))
        while code > table.maxCode[length] {
            length += 1
            if length > 16 {
                skip(17)  // as libjpeg: the 17 bits looked at are gone, and the symbol reads as 0
                sawBadCode = true
                return 0
            }
            code = Int32(peek(length))
        }
        skip(length)
        let index = Int(code + table.valueOffset[length])
        return Int(table.symbols[index & 0xFF])
    }

    /// Drops the bits held, then steps over the restart marker `RSTn` expected next (or, if the
    /// data was damaged, the next one found), so that decoding goes on from a byte boundary.
    mutating func restart() {
        bits = 0
        count = 0
        padded = 0
        reachedMarker = false
        let due = nextRestart
        nextRestart = (nextRestart + 1) & 7
        var skipped = false
        while position + 1 < end {
            if bytes[position] == 0xFF {
                let marker = JPEGMarker(rawValue: bytes[position + 1])
                if marker.isRestart {
                    // Another one than the one due, or bytes before it: some data was lost.
                    if marker != .restart(Int(due)) || skipped { sawMissingRestart = true }
                    position += 2
                    return
                }
                if marker.rawValue == 0xFF {  // a fill byte before the marker
                    position += 1
                    continue
                }
                if marker.rawValue != 0x00 {
                    reachedMarker = true  // another marker: the rest of this scan is missing
                    sawMissingRestart = true
                    return
                }
            }
            skipped = true
            position += 1
        }
        sawMissingRestart = true
    }

    /// The position of the marker that ends this scan, from where the headers go on.
    package func nextMarker() -> Int {
        var index = position
        while index + 1 < end {
            if bytes[index] == 0xFF {
                let marker = JPEGMarker(rawValue: bytes[index + 1])
                if marker.rawValue != 0x00 && marker.rawValue != 0xFF && !marker.isRestart { return index }
            }
            index += 1
        }
        return end
    }
}

// Owns likes.newest: a derived file that says where each like is in the journal and, for the
// photos changed since they were liked, where their newest line is, so that a listing's walk
// costs the photos it walks and not the notes and album edits written since. Written whole by a
// reader under the shared lock (OpenStore.scanCatalog) when its walk passed many changes the file
// did not cover; read in place by CatalogScan. Never flushed, never trusted across a restart.

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The places of a journal's likes and of its photos' newest lines, as of one length of it.
///
/// The file, little-endian, 64-bit numbers:
///
/// ```
/// 0    "likes.newest 1\n" and a zero byte
/// 16   the boot it was written in (the system's boot id, zero-padded to 48 bytes)
/// 64   the journal's inode
/// 72   a hash of the journal's header line (a journal written anew has a header of its own)
/// 80   covered: the journal's length it describes, a line's end, every line before it settled
/// 88   the number of likes, L
/// 96   the number of slots, S (a power of two)
/// 104  the number of photos in slots
/// 112  a hash of the journal's line that ends at covered
/// 120  zeros to 128
/// 128  L offsets: the start of every settled `L` line before covered, in the journal's order
/// ...  S slots of three numbers: a hash of a photo's key (0: an empty slot), the start of that
///      photo's newest settled line before covered, and the start of its current like where it
///      was liked more than once (0 while its only `L` line is its like)
/// ```
///
/// A photo has a slot once it has any line but its first `L` line: an `M` or `U` line, or a
/// second like (which always follows a `U` line, so the photo has a slot by then). A photo
/// without one was liked once and never changed since: its `L` line is its newest. So a walk over
/// the likes, newest first, looks each photo up once, passes over its earlier likes by the slot's
/// like, and reads its newest line with one jump, whatever was written between.
///
/// Nothing here is flushed, and nothing needs to be: the file is derived. It is trusted only
/// while its boot, journal inode and header are the journal's, its covered length ends a line of
/// the journal that is the line it saw there, and (checked by the walk) no `A` line after covered
/// takes back the line before it. Within one boot, what a process wrote is what the next one
/// reads, even after a kill; a power cut starts another boot, after which the file is written
/// again. (Where a journal lost unflushed lines without a new boot, as a disk pulled out and put
/// back may leave it, or the power-cut tests' file system, which keeps each file whole or as last
/// flushed, and lines were written again past covered, the line at covered is another.) A file that turns out
/// to disagree with the journal on the way (a slot naming a line of another photo, a like after
/// its photo's newest line) ends the walk as damage: the reading then takes the sure path, and the
/// file is written again from the journal alone.
package enum NewestLines {
    package static let fileName = "likes.newest"
    /// Changes (`M` and `U` lines) a walk may pass after covered before the file is written again.
    package static let refreshAfter = 256
    private static let headerSize = 128
    private static let slotSize = 24
    private static let bootFieldSize = 48

    /// Where the header's own parts are, in bytes from the file's start (the layout above), after
    /// those that tie it to the journal (``tie``): read and written by these names alone.
    private enum Offset {
        static let likeCount = 88
        static let slotCount = 96
        static let photosInSlots = 104
        static let coveredLine = 112
    }

    /// How the file is tied to one length of the journal.
    private static let tie = JournalTie(
        fileName: fileName, magic: Array("likes.newest 1\n\0".utf8), headerSize: headerSize, coveredLineOffset: Offset.coveredLine)

    /// Where a slot's parts are, in bytes from its start.
    private enum Slot {
        static let hash = 0
        static let newest = 8
        static let like = 16
    }

    /// The system's boot id; `nil` where it cannot be read (the file is then neither read nor
    /// written: walks take the whole journal, as before the file existed).
    static let bootID: [UInt8]? = {
        #if canImport(Darwin)
            // sysctl(3): kern.bootsessionuuid, a UUID string made anew at every boot.
            var size = 0
            guard sysctlbyname("kern.bootsessionuuid", nil, &size, nil, 0) == 0, size > 1, size <= bootFieldSize else { return nil }
            var bytes = [UInt8](repeating: 0, count: size)
            guard sysctlbyname("kern.bootsessionuuid", &bytes, &size, nil, 0) == 0 else { return nil }
            let text = Array(bytes.prefix { $0 != 0 })
        #else
            // proc(5): a random UUID made anew at every boot.
            let fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var bytes = [UInt8](repeating: 0, count: bootFieldSize)
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            let text = Array(bytes[..<count].prefix { $0 != 0x0A })
        #endif
        guard !text.isEmpty, text.count <= bootFieldSize else { return nil }
        return text + [UInt8](repeating: 0, count: bootFieldSize - text.count)
    }()

    /// A hash of the journal's header line, which holds a generation of its own; `nil` when
    /// `journal` has no complete first line.
    static func headerHash(_ journal: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard let base = journal.baseAddress, let found = memchr(base, 0x0A, min(journal.count, 4096)) else { return nil }
        let length = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        return KeyTable.hash(UnsafeBufferPointer(start: base, count: length))
    }

    /// A hash of the line of `journal` that ends (with its newline) at `end`; `nil` where no line
    /// ends there.
    static func lineHash(_ journal: UnsafeBufferPointer<UInt8>, endingAt end: Int) -> UInt64? {
        guard end > 0, end <= journal.count, journal[end - 1] == 0x0A else { return nil }
        var start = end - 1
        while start > 0, journal[start - 1] != 0x0A { start -= 1 }
        return KeyTable.hash(UnsafeBufferPointer(rebasing: journal[start..<(end - 1)]))
    }

    /// The line that starts at `offset` of `journal`, before `limit`, parsed as a scan parses it.
    static func line(at offset: Int, in journal: UnsafeBufferPointer<UInt8>, before limit: Int) -> JournalLine.View? {
        guard offset >= 0, offset < limit, limit <= journal.count, let base = journal.baseAddress,
            offset == 0 || base[offset - 1] == 0x0A,
            let found = memchr(base + offset, 0x0A, limit - offset)
        else { return nil }
        let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        return JournalLine.View(UnsafeBufferPointer(start: base + offset, count: end - offset), checkingEveryField: false)
    }

    // MARK: Reading in place

    /// The file mapped into memory, checked against the journal it was opened for.
    package final class Mapped {
        private let mapping: FileMapping
        private let address: UnsafeRawPointer
        private let size: Int
        /// The journal's length the file describes.
        package let covered: Int
        package let likeCount: Int
        private let slotCount: Int

        /// `address`: the start of `mapping`, which this holds, so that it stays valid.
        private init(mapping: FileMapping, address: UnsafeRawPointer, size: Int, covered: Int, likeCount: Int, slotCount: Int) {
            (self.mapping, self.address, self.size) = (mapping, address, size)
            (self.covered, self.likeCount, self.slotCount) = (covered, likeCount, slotCount)
        }

        private func number(at offset: Int) -> Int {
            Int(truncatingIfNeeded: UInt64(littleEndian: UnsafeRawPointer(address + offset).loadUnaligned(as: UInt64.self)))
        }

        /// The start of the `index`th like (0 the oldest).
        func like(_ index: Int) -> Int { number(at: NewestLines.headerSize + 8 * index) }

        private var slotsStart: Int { NewestLines.headerSize + 8 * likeCount }

        /// Every slot's hash, newest line and like, for writing the file again.
        func forEachSlot(_ body: (UInt64, Int, Int) -> Void) {
            for slot in 0..<slotCount {
                let start = slotsStart + NewestLines.slotSize * slot
                let hash = UInt64(truncatingIfNeeded: number(at: start + Slot.hash))
                if hash != 0 { body(hash, number(at: start + Slot.newest), number(at: start + Slot.like)) }
            }
        }

        enum Lookup {
            /// The photo has no slot: its only line is its like.
            case none
            /// The like is an earlier one of the photo, which was liked again since.
            case earlierLike
            /// The start of the photo's newest line.
            case newest(Int)
            /// A slot names a line that cannot be one of this photo's: the file cannot be trusted.
            case inconsistent
        }

        /// Where the photo with `key`, liked by the `L` line at `like`, has its newest line: read
        /// from the slots and checked against the line named.
        func lookUp(_ key: UnsafeBufferPointer<UInt8>, like: Int, in journal: UnsafeBufferPointer<UInt8>) -> Lookup {
            let hash = KeyTable.hash(key)
            let mask = slotCount - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            for _ in 0..<slotCount {
                let start = slotsStart + NewestLines.slotSize * slot
                let stored = UInt64(truncatingIfNeeded: number(at: start + Slot.hash))
                if stored == 0 { return .none }
                if stored == hash {
                    let current = number(at: start + Slot.like)
                    if current != 0, current != like { return current > like ? .earlierLike : .inconsistent }
                    // Two keys of one 64-bit hash are left to chance (about 2⁻⁶⁴ a pair): a slot
                    // of this hash naming another photo's line is a file not to be believed.
                    let offset = number(at: start + Slot.newest)
                    guard offset >= like, let line = NewestLines.line(at: offset, in: journal, before: covered), line.key.elementsEqual(key)
                    else { return .inconsistent }
                    return .newest(offset)
                }
                slot = (slot + 1) & mask
            }
            return .inconsistent
        }

        /// The file in `root`, if it describes `journal` (mapped whole) as the file `inode` now.
        package static func open(in root: StoreDirectory, journal: UnsafeBufferPointer<UInt8>, inode: UInt64) -> Mapped? {
            guard let (mapping, address, size, covered) = NewestLines.tie.open(in: root, journal: journal, inode: inode) else { return nil }
            let (likes, slots) = (JournalTie.number(address, Offset.likeCount), JournalTie.number(address, Offset.slotCount))
            guard likes >= 0, likes < size / 8, slots >= 8, slots < size / NewestLines.slotSize, slots & (slots - 1) == 0,
                size == NewestLines.headerSize + 8 * likes + NewestLines.slotSize * slots
            else { return nil }
            return Mapped(mapping: mapping, address: address, size: size, covered: covered, likeCount: likes, slotCount: slots)
        }
    }

    // MARK: Writing

    /// Writes the file for the journal `reader` reads (mapped whole as `journal`, file `inode`)
    /// as of its settled end: from `previous` and the lines after what it covered, or from the
    /// whole journal. Under the store's shared lock (no writer changes the journal meanwhile); a
    /// failure (a full disk, a read-only store, a malformed line) leaves things as they were.
    package static func write(
        in root: StoreDirectory, reader: JournalReader, journal: UnsafeBufferPointer<UInt8>, inode: UInt64, previous: Mapped?
    ) {
        guard bootID != nil, headerHash(journal) != nil else { return }
        // Where no file can be made (a store on a read-only file system), the reading is not
        // done at all: every walk would otherwise pay for it again.
        let temporary = fileName + "." + String(getpid()) + ".tmp"
        try? root.remove(temporary)
        guard (try? root.createFile(temporary, bytes: UnsafeRawBufferPointer(start: nil, count: 0), durable: false)) != nil else { return }
        defer { try? root.remove(temporary) }
        var likes: [UInt64] = []
        var table = SlotTable(capacity: 1024)
        if let previous {
            likes.reserveCapacity(previous.likeCount + 1024)
            for index in 0..<previous.likeCount { likes.append(UInt64(previous.like(index))) }
            previous.forEachSlot { hash, newest, like in table.insertNew(hash: hash, newest: newest, like: like) }
        }
        var malformed = false
        guard
            let end = try? reader.forward(
                from: previous?.covered ?? 0,
                { item in
                    guard item.line != nil, item.end <= journal.count, let line = NewestLines.line(at: item.start, in: journal, before: item.end)
                    else {
                        malformed = true
                        return false
                    }
                    switch line.operation {
                    case .liked:
                        likes.append(UInt64(item.start))
                        table.update(line.key, to: item.start, in: journal, liked: true)
                    case .updated, .unliked:
                        table.update(line.key, to: item.start, in: journal, liked: false)
                    case .header, .aborted, .purged:
                        break
                    }
                    return true
                }), !malformed, end.end > 0
        else { return }
        guard var bytes = tie.header(journal: journal, inode: inode, covered: end.end) else { return }
        bytes.storeLittleEndian(UInt64(likes.count), at: Offset.likeCount)
        bytes.storeLittleEndian(UInt64(table.capacity), at: Offset.slotCount)
        bytes.storeLittleEndian(UInt64(table.count), at: Offset.photosInSlots)
        bytes.reserveCapacity(headerSize + 8 * likes.count + slotSize * table.capacity)
        for like in likes { withUnsafeBytes(of: like.littleEndian) { bytes += $0 } }
        table.appendSlots(to: &bytes)
        // A failure leaves the file before in place, which the next walk goes on from.
        try? root.remove(temporary)
        if (try? bytes.withUnsafeBytes({ try root.createFile(temporary, bytes: $0, durable: false) })) != nil {
            try? root.rename(temporary, to: fileName)
        }
    }

    /// The slots being written: open addressing over hashes, newest lines and likes, half full
    /// at most.
    private struct SlotTable {
        private(set) var hashes: [UInt64]
        private(set) var newest: [UInt64]
        private(set) var likes: [UInt64]
        private(set) var count = 0
        var capacity: Int { hashes.count }

        init(capacity: Int) {
            hashes = [UInt64](repeating: 0, count: capacity)
            newest = hashes
            likes = hashes
        }

        /// Puts a photo known not to be in the table yet.
        mutating func insertNew(hash: UInt64, newest line: Int, like: Int) {
            if 2 * (count + 1) > capacity { grow() }
            var slot = Int(truncatingIfNeeded: hash) & (capacity - 1)
            while hashes[slot] != 0 { slot = (slot + 1) & (capacity - 1) }
            (hashes[slot], newest[slot], likes[slot]) = (hash, UInt64(line), UInt64(like))
            count += 1
        }

        /// Moves the photo with `key` to its line at `offset`, a like (`liked`) or a change. A
        /// photo without a slot gets one at a change (its only like stays its like, 0); a like
        /// of a photo with a slot becomes its like. (A like of a photo without one is its first.)
        mutating func update(_ key: UnsafeBufferPointer<UInt8>, to offset: Int, in journal: UnsafeBufferPointer<UInt8>, liked: Bool) {
            let hash = KeyTable.hash(key)
            var slot = Int(truncatingIfNeeded: hash) & (capacity - 1)
            while hashes[slot] != 0 {
                if hashes[slot] == hash, let line = NewestLines.line(at: Int(newest[slot]), in: journal, before: journal.count),
                    line.key.elementsEqual(key)
                {
                    newest[slot] = UInt64(offset)
                    if liked { likes[slot] = UInt64(offset) }
                    return
                }
                slot = (slot + 1) & (capacity - 1)
            }
            if !liked { insertNew(hash: hash, newest: offset, like: 0) }
        }

        private mutating func grow() {
            let (oldHashes, oldNewest, oldLikes) = (hashes, newest, likes)
            hashes = [UInt64](repeating: 0, count: 2 * oldHashes.count)
            newest = hashes
            likes = hashes
            count = 0
            for index in oldHashes.indices where oldHashes[index] != 0 {
                insertNew(hash: oldHashes[index], newest: Int(oldNewest[index]), like: Int(oldLikes[index]))
            }
        }

        func appendSlots(to bytes: inout [UInt8]) {
            for slot in 0..<capacity {
                let start = bytes.count
                bytes += repeatElement(0, count: NewestLines.slotSize)
                bytes.storeLittleEndian(hashes[slot], at: start + Slot.hash)
                bytes.storeLittleEndian(newest[slot], at: start + Slot.newest)
                bytes.storeLittleEndian(likes[slot], at: start + Slot.like)
            }
        }
    }
}

extension Array where Element == UInt8 {
    /// Writes `value` as eight little-endian bytes at `offset`, which the array must hold: how
    /// the derived files (``NewestLines``, ``TakenOrder``) put each number at its named place.
    mutating func storeLittleEndian(_ value: UInt64, at offset: Int) {
        Swift.withUnsafeBytes(of: value.littleEndian) { replaceSubrange(offset..<(offset + 8), with: $0) }
    }
}

/// The part of a derived file's header that ties it to one length of one journal, shared by
/// ``NewestLines`` and ``TakenOrder``: bytes 0–15 the file's magic (its name and layout), 16–63
/// the boot it was written in, 64 the journal's inode, 72 a hash of the journal's header line, 80
/// the journal's length it covers, and at `coveredLineOffset` a hash of the line that ends there.
/// Little-endian 64-bit numbers.
struct JournalTie {
    static let bootOffset = 16
    static let inodeOffset = 64
    static let journalHeaderOffset = 72
    static let coveredOffset = 80

    let fileName: String
    let magic: [UInt8]
    let headerSize: Int
    let coveredLineOffset: Int

    /// The eight bytes at `offset` of a mapped file, as a number.
    static func number(_ address: UnsafeRawPointer, _ offset: Int) -> Int {
        Int(truncatingIfNeeded: UInt64(littleEndian: (address + offset).loadUnaligned(as: UInt64.self)))
    }

    /// The file in `root` mapped whole, with the journal's length it covers, where it is tied to
    /// `journal` (mapped whole) as the file `inode` is now: its magic, boot, inode and header, and
    /// the line that ends at covered.
    func open(
        in root: StoreDirectory, journal: UnsafeBufferPointer<UInt8>, inode: UInt64
    ) -> (mapping: FileMapping, address: UnsafeRawPointer, size: Int, covered: Int)? {
        guard let boot = NewestLines.bootID, let header = NewestLines.headerHash(journal), let file = try? root.openForReading(fileName),
            file.sizeWhenOpened >= headerSize, let mapping = file.mapping(covering: file.sizeWhenOpened),
            let start = mapping.bytes(file.sizeWhenOpened).baseAddress
        else { return nil }
        let address = UnsafeRawPointer(start)
        let bytes = UnsafeRawBufferPointer(start: address, count: file.sizeWhenOpened)
        let covered = Self.number(address, Self.coveredOffset)
        guard bytes[..<Self.bootOffset].elementsEqual(magic), bytes[Self.bootOffset..<Self.inodeOffset].elementsEqual(boot),
            UInt64(truncatingIfNeeded: Self.number(address, Self.inodeOffset)) == inode,
            UInt64(truncatingIfNeeded: Self.number(address, Self.journalHeaderOffset)) == header, covered > 0, covered <= journal.count,
            NewestLines.lineHash(journal, endingAt: covered) == UInt64(truncatingIfNeeded: Self.number(address, coveredLineOffset))
        else { return nil }
        return (mapping, address, file.sizeWhenOpened, covered)
    }

    /// A header tied to `journal` (the file `inode`) as of `covered`, zeros where the file's own
    /// numbers go; `nil` where the boot, the journal's header or a line ending at covered cannot
    /// be had.
    func header(journal: UnsafeBufferPointer<UInt8>, inode: UInt64, covered: Int) -> [UInt8]? {
        guard let boot = NewestLines.bootID, let header = NewestLines.headerHash(journal),
            let line = NewestLines.lineHash(journal, endingAt: covered)
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: headerSize)
        bytes.replaceSubrange(0..<Self.bootOffset, with: magic)
        bytes.replaceSubrange(Self.bootOffset..<Self.inodeOffset, with: boot)
        bytes.storeLittleEndian(inode, at: Self.inodeOffset)
        bytes.storeLittleEndian(header, at: Self.journalHeaderOffset)
        bytes.storeLittleEndian(UInt64(covered), at: Self.coveredOffset)
        bytes.storeLittleEndian(line, at: coveredLineOffset)
        return bytes
    }
}

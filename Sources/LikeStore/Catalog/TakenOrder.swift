// Owns likes.taken: a derived file of every live photo's place in the order by date taken, as of
// one length of the journal, so that the newest page by date taken costs the page (and the lines
// written since), not a walk of the whole catalog. Written whole by a reader under the shared lock
// (OpenStore.takenOrderPage) when it is missing, stale or many lines behind; read in place.
// Never flushed, never trusted across a restart.

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The live photos of a journal in the order by date taken, as of one length of it.
///
/// The file, little-endian, 64-bit numbers but where said:
///
/// ```
/// 0    "likes.taken 1\n" and two zero bytes
/// 16   the boot it was written in (the system's boot id, zero-padded to 48 bytes)
/// 64   the journal's inode
/// 72   a hash of the journal's header line
/// 80   covered: the journal's length it describes, a line's end, every line before it settled
/// 88   the number of photos, N
/// 96   a hash of the journal's line that ends at covered
/// 104  the bytes of the keys, K
/// 112  zeros to 128
/// 128  N entries, sorted by date taken and then by key (bytes compared), oldest first: the
///      date taken (ms), the date liked (ms), and the key's start in the keys and its length
///      (32 bits each)
/// ...  K bytes: the keys, one after another
/// ```
///
/// Trusted as ``NewestLines`` is: while its boot, journal inode and header are the journal's and
/// its covered length ends the line of the journal it saw there. The lines after covered are read
/// at each use and win over the entries: a photo they touch is placed by its newest line there,
/// or left out where they unlike it. Every record a page names is read and must say the date
/// taken (and, for an entry, the date liked) the file says; one that does not ends the use as
/// damage, and the page takes the catalog's walk, which writes nothing of this file.
package enum TakenOrder {
    package static let fileName = "likes.taken"
    /// Lines after covered a page may read before the file is written again.
    static let refreshAfter = 256
    private static let headerSize = 128
    private static let entrySize = 24

    /// Where the header's own parts are, in bytes from the file's start (the layout above), after
    /// those that tie it to the journal (``tie``): read and written by these names alone.
    private enum Offset {
        static let count = 88
        static let coveredLine = 96
        static let keys = 104
    }

    /// How the file is tied to one length of the journal, as ``NewestLines`` is.
    private static let tie = JournalTie(
        fileName: fileName, magic: Array("likes.taken 1\n\0\0".utf8), headerSize: headerSize, coveredLineOffset: Offset.coveredLine)

    /// Where an entry's parts are, in bytes from its start.
    private enum Entry {
        static let taken = 0
        static let likedAt = 8
        /// The key's start in the keys (the low 32 bits) and its length (the high 32).
        static let key = 16
    }

    /// One photo's place: its date taken and key, and its date liked.
    struct Place {
        var taken: Int64
        var likedAt: Int64?
        var key: [UInt8]

        /// Whether this comes before `other` oldest first (by date taken, then key).
        func precedes(_ other: Place) -> Bool {
            taken != other.taken ? taken < other.taken : key.lexicographicallyPrecedes(other.key)
        }
    }

    // MARK: Reading in place

    /// The file mapped into memory, checked against the journal it was opened for.
    final class Mapped {
        private let mapping: FileMapping
        private let address: UnsafeRawPointer
        /// The journal's length the file describes.
        let covered: Int
        let count: Int
        private let keysStart: Int
        private let keysSize: Int

        private init(mapping: FileMapping, address: UnsafeRawPointer, covered: Int, count: Int, keysSize: Int) {
            (self.mapping, self.address, self.covered, self.count, self.keysSize) = (mapping, address, covered, count, keysSize)
            keysStart = TakenOrder.headerSize + TakenOrder.entrySize * count
        }

        private func number(at offset: Int) -> Int64 {
            Int64(littleEndian: UnsafeRawPointer(address + offset).loadUnaligned(as: Int64.self))
        }

        /// The date taken of the `index`th photo, oldest first.
        func taken(_ index: Int) -> Int64 { number(at: TakenOrder.headerSize + TakenOrder.entrySize * index + Entry.taken) }

        /// The date liked of the `index`th photo.
        func likedAt(_ index: Int) -> Int64 { number(at: TakenOrder.headerSize + TakenOrder.entrySize * index + Entry.likedAt) }

        /// The key of the `index`th photo, valid while this is; empty where the entry points
        /// outside the keys (a file to distrust: no record has an empty key).
        func key(_ index: Int) -> UnsafeBufferPointer<UInt8> {
            let place = UInt64(
                littleEndian: UnsafeRawPointer(address + TakenOrder.headerSize + TakenOrder.entrySize * index + Entry.key).loadUnaligned(
                    as: UInt64.self))
            let (start, length) = (Int(place & 0xFFFF_FFFF), Int(place >> 32))
            guard start + length <= keysSize else { return UnsafeBufferPointer(start: nil, count: 0) }
            return UnsafeBufferPointer(start: (address + keysStart + start).assumingMemoryBound(to: UInt8.self), count: length)
        }

        func place(_ index: Int) -> Place { Place(taken: taken(index), likedAt: likedAt(index), key: Array(key(index))) }

        /// Whether the `index`th photo comes before `place` oldest first.
        func precedes(_ index: Int, _ place: Place) -> Bool {
            let at = taken(index)
            if at != place.taken { return at < place.taken }
            return place.key.withUnsafeBufferPointer { key(index).lexicographicallyPrecedes($0) }
        }

        /// The number of photos that come before `place` oldest first (a binary search).
        func countBefore(_ place: Place) -> Int {
            var (low, high) = (0, count)
            while low < high {
                let middle = (low + high) / 2
                if precedes(middle, place) { low = middle + 1 } else { high = middle }
            }
            return low
        }

        /// The file in `root`, if it describes `journal` (mapped whole) as the file `inode` now.
        static func open(in root: StoreDirectory, journal: UnsafeBufferPointer<UInt8>, inode: UInt64) -> Mapped? {
            guard let (mapping, address, size, covered) = TakenOrder.tie.open(in: root, journal: journal, inode: inode) else { return nil }
            let (count, keys) = (JournalTie.number(address, Offset.count), JournalTie.number(address, Offset.keys))
            guard count >= 0, count < size / TakenOrder.entrySize, keys >= 0, keys < size,
                size == TakenOrder.headerSize + TakenOrder.entrySize * count + keys
            else { return nil }
            return Mapped(mapping: mapping, address: address, covered: covered, count: count, keysSize: keys)
        }
    }

    // MARK: The lines after covered

    /// What the lines after covered say of the photos they touch: each one's place where it is
    /// live after them (`nil`: unliked), and how many lines there were. `nil` where a line is
    /// malformed, lacks its date taken, or takes back a line the file covers.
    struct Tail {
        var touched: [[UInt8]: Place?] = [:]
        var lineCount = 0

        init?(reader: JournalReader, journal: UnsafeBufferPointer<UInt8>, from covered: Int) throws {
            // An `A` line first would take back the line the file saw last, which a forward read
            // from here would pass over as having nothing to take back.
            if covered < journal.count, journal[covered] == JournalLine.Operation.aborted.rawValue { return nil }
            var damaged = false
            var touched: [[UInt8]: Place?] = [:]
            var lines = 0
            try reader.forward(from: covered) { item in
                lines += 1
                guard let line = item.line else {
                    damaged = true
                    return false
                }
                let key = Array(line.key.utf8)
                switch line.operation {
                case .liked, .updated:
                    guard let taken = line.catalog?.taken else {
                        damaged = true
                        return false
                    }
                    // A change keeps the date liked of the like before it, where the tail saw it.
                    let likedAt = line.operation == .liked ? line.at : (touched[key] ?? nil)?.likedAt
                    touched[key] = .some(Place(taken: taken, likedAt: likedAt, key: key))
                case .unliked:
                    touched[key] = .some(nil)
                case .header, .aborted, .purged:
                    break
                }
                return true
            }
            guard !damaged else { return nil }
            (self.touched, self.lineCount) = (touched, lines)
        }

        /// The photos live after the lines, oldest first.
        var livePlaces: [Place] {
            touched.values.compactMap { $0 }.sorted { $0.precedes($1) }
        }
    }

    // MARK: Writing

    /// Writes the file for the journal (mapped whole as `journal`, file `inode`) as of `covered`
    /// with `places`, which must be every live photo then, oldest first. Under the store's shared
    /// lock; a failure (a full disk, a read-only store) leaves things as they were.
    static func write(in root: StoreDirectory, journal: UnsafeBufferPointer<UInt8>, inode: UInt64, covered: Int, places: [Place]) {
        guard var bytes = tie.header(journal: journal, inode: inode, covered: covered) else { return }
        var keys: [UInt8] = []
        var entries: [UInt8] = []
        entries.reserveCapacity(entrySize * places.count)
        for place in places {
            guard !place.key.isEmpty, place.key.count < 1 << 31, let likedAt = place.likedAt else { return }
            let span = UInt64(keys.count) | UInt64(place.key.count) << 32
            let start = entries.count
            entries += repeatElement(0, count: entrySize)
            entries.storeLittleEndian(UInt64(bitPattern: place.taken), at: start + Entry.taken)
            entries.storeLittleEndian(UInt64(bitPattern: likedAt), at: start + Entry.likedAt)
            entries.storeLittleEndian(span, at: start + Entry.key)
            keys += place.key
        }
        guard keys.count < 1 << 32 else { return }
        bytes.storeLittleEndian(UInt64(places.count), at: Offset.count)
        bytes.storeLittleEndian(UInt64(keys.count), at: Offset.keys)
        bytes += entries
        bytes += keys
        let temporary = fileName + "." + String(getpid()) + ".tmp"
        try? root.remove(temporary)
        defer { try? root.remove(temporary) }
        if (try? bytes.withUnsafeBytes({ try root.createFile(temporary, bytes: $0, durable: false) })) != nil {
            try? root.rename(temporary, to: fileName)
        }
    }

    /// Every live photo after `tail`, oldest first: the file's entries that the tail does not
    /// touch, merged with the tail's live photos (each given the date liked of its entry where
    /// the tail saw only a change to it). `nil` where a photo's date liked is not known.
    static func merged(_ mapped: Mapped, _ tail: Tail) -> [Place]? {
        var tail = tail
        var kept: [Place] = []
        kept.reserveCapacity(mapped.count + tail.touched.count)
        for index in 0..<mapped.count {
            let key = Array(mapped.key(index))
            if let state = tail.touched[key] {
                if var place = state, place.likedAt == nil {
                    place.likedAt = mapped.likedAt(index)
                    tail.touched[key] = .some(place)
                }
                continue
            }
            kept.append(Place(taken: mapped.taken(index), likedAt: mapped.likedAt(index), key: key))
        }
        let live = tail.livePlaces
        guard live.allSatisfy({ $0.likedAt != nil }) else { return nil }
        var result: [Place] = []
        result.reserveCapacity(kept.count + live.count)
        var (left, right) = (0, 0)
        while left < kept.count || right < live.count {
            if right == live.count || (left < kept.count && kept[left].precedes(live[right])) {
                result.append(kept[left])
                left += 1
            } else {
                result.append(live[right])
                right += 1
            }
        }
        return result
    }
}

extension OpenStore {
    /// The page `query` asks for in the order by date taken, where it has no filter but its
    /// cursor and offset, from likes.taken and the lines after what it covers; written first
    /// where it is missing or stale, and again when many lines follow it. `nil` where the file
    /// cannot be had or trusted: the catalog's walk answers then. Under the shared lock (`locked`).
    func takenOrderPage(_ query: CatalogQuery, records: RecordFiles, reader: JournalReader) throws -> (records: [StoredRecord], more: Bool)? {
        guard query.hasNoFilter, let inode = reader.source.identity
        else { return nil }
        let found: (places: [TakenOrder.Place], more: Bool)?? = try reader.source.withMappedBytes { journal in
            var mapped = TakenOrder.Mapped.open(in: root, journal: journal, inode: inode)
            if mapped == nil {
                guard let places = try allTakenPlaces(), let covered = try? reader.settledEnd() else { return nil }
                TakenOrder.write(in: root, journal: journal, inode: inode, covered: covered, places: places)
                mapped = TakenOrder.Mapped.open(in: root, journal: journal, inode: inode)
            }
            guard let mapped, let tail = try TakenOrder.Tail(reader: reader, journal: journal, from: mapped.covered) else { return nil }
            let page = Self.firstPlaces(of: mapped, tail, query)
            if tail.lineCount >= TakenOrder.refreshAfter, let places = TakenOrder.merged(mapped, tail),
                let covered = try? reader.settledEnd()
            {
                TakenOrder.write(in: root, journal: journal, inode: inode, covered: covered, places: places)
            }
            return page
        }
        guard let found = found ?? nil else { return nil }
        let matches = found.places.dropFirst(query.offset)
        let page = Array(matches.prefix(query.limit ?? matches.count))
        var result: [StoredRecord] = []
        let reads = records.read(keys: page.map { String(decoding: $0.key, as: UTF8.self) })
        for offset in reads.indices {
            // A record that does not say what the file says: the catalog's walk tells.
            guard let stored = try? reads[offset].get(), stored.taken.at == page[offset].taken,
                page[offset].likedAt.map({ $0 == stored.likedAt }) ?? true
            else {
                try? root.remove(TakenOrder.fileName)
                return nil
            }
            result.append(stored)
        }
        return (result, found.more)
    }

    /// The first places the query asks for (its offset, its page and one more), past its cursor,
    /// in its order: the file's entries merged with the tail's live photos.
    private static func firstPlaces(of mapped: TakenOrder.Mapped, _ tail: TakenOrder.Tail, _ query: CatalogQuery) -> (
        places: [TakenOrder.Place], more: Bool
    ) {
        let wanted = query.limit.map { query.offset + $0 } ?? Int.max
        let cursor = query.after.map { TakenOrder.Place(taken: $0.likedAt, likedAt: nil, key: Array($0.key.utf8)) }
        var live = tail.livePlaces
        if let cursor {
            live = live.filter { query.newestFirst ? $0.precedes(cursor) : cursor.precedes($0) }
        }
        if query.newestFirst { live.reverse() }
        // The file's entries past the cursor: below it newest first, above it oldest first.
        var index: Int
        if query.newestFirst {
            index = (cursor.map { mapped.countBefore($0) } ?? mapped.count) - 1
        } else {
            index =
                cursor.map { place in
                    let before = mapped.countBefore(place)
                    let same = before < mapped.count && mapped.taken(before) == place.taken && mapped.key(before).elementsEqual(place.key)
                    return same ? before + 1 : before
                } ?? 0
        }
        var places: [TakenOrder.Place] = []
        var next = 0
        while places.count <= wanted {
            // The next entry of the file the tail does not touch.
            var entry: TakenOrder.Place?
            while index >= 0 && index < mapped.count {
                if tail.touched.isEmpty || tail.touched[Array(mapped.key(index))] == nil {
                    entry = mapped.place(index)
                    break
                }
                index += query.newestFirst ? -1 : 1
            }
            let fromTail = next < live.count ? live[next] : nil
            guard entry != nil || fromTail != nil else { break }
            if let entry, fromTail.map({ query.newestFirst ? $0.precedes(entry) : entry.precedes($0) }) ?? true {
                places.append(entry)
                index += query.newestFirst ? -1 : 1
            } else if let fromTail {
                places.append(fromTail)
                next += 1
            }
        }
        let more = places.count > wanted
        return (Array(places.prefix(wanted)), more)
    }

    /// Every live photo's place by date taken, oldest first, from one walk of the catalog; `nil`
    /// where it cannot answer (damage, a line without its date taken).
    private func allTakenPlaces() throws -> [TakenOrder.Place]? {
        var places: [TakenOrder.Place] = []
        var unanswerable = false
        let end = try scanCatalog(locked: true) { photo in
            guard let taken = photo.newest.taken else {
                unanswerable = true
                return false
            }
            places.append(TakenOrder.Place(taken: taken, likedAt: photo.liked.at, key: Array(photo.liked.key)))
            return true
        }
        guard !unanswerable, end == .complete else { return nil }
        places.sort { $0.precedes($1) }
        return places
    }
}

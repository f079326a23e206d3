// Owns the catalog: what the journal's `L` and `M` lines keep of each photo for queries (its
// colour and folded searchable text, beside its likedAt, bytes and albums), and the one scan that
// reads it back, newest first. The lines are written through JournalLine by WriteSession and
// Journal.rewrite; the scan is called by OpenStore's queries (CatalogQuery.swift).

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension StoredRecord {
    /// Six lower-case hex digits of a colour as a photo's metadata gives it (`#60544D`); `nil`
    /// when it is no hex colour.
    package static func catalogColor(_ color: String?) -> String? { ColorFilter.catalogColor(color) }

    /// Where a photo's date taken comes from.
    package enum TakenSource: String, Sendable {
        /// Exif's DateTimeOriginal (with OffsetTimeOriginal where the camera wrote one).
        case exif
        /// The source's own date (``StoredPhoto/createdAt``: Unsplash's `created_at`, Flickr's
        /// `datetaken`).
        case source
        /// Neither: the time it was liked.
        case liked
    }

    /// When the photo was taken, in milliseconds since 1970, as the listing by date taken orders
    /// it: the camera's date, else the source's, else the like's. A camera's date without an
    /// offset is read as UTC: the wall-clock time it shows is then the one written, in every zone.
    package var taken: (at: Int64, source: TakenSource) {
        if let text = image.exif?.takenAt {
            let zoned = text.utf8.count == 19 ? text + "Z" : text
            if let milliseconds = Timestamp.parse(zoned) { return (milliseconds, .exif) }
        }
        if let created = photo?.createdAt { return (Timestamp.milliseconds(created), .source) }
        return (likedAt, .liked)
    }
}

/// What the catalog keeps of a photo beyond what every `L` and `M` line has: derived from its
/// record, so that a query reads one line instead of decoding the record.
package struct CatalogFields: Hashable, Sendable {
    /// Six lower-case hex digits; `nil` when the photo has no colour or it is not a hex colour.
    var color: String?
    /// The id, description, photographer name and username, note and album names, folded and
    /// joined as ``TextFolding/searchable(_:)`` does.
    var text: String
    /// When the photo was taken (``StoredRecord/taken``), in milliseconds; `nil` in a line of
    /// the format before it (`likes-journal-2`).
    var taken: Int64?

    init(color: String?, text: String, taken: Int64?) {
        self.color = color
        self.text = text
        self.taken = taken
    }

    init(record: StoredRecord) {
        color = ColorFilter.catalogColor(record.photo?.color) ?? record.image.color
        text = SearchWords.searchableText(of: record)
        taken = record.taken.at
    }
}

/// How much of the catalog a line has: none (`likes-journal-1`), all but the date taken
/// (`likes-journal-2`), or all of it.
enum CatalogDepth: Hashable, Sendable {
    case none, withoutTaken, whole

    init(_ line: JournalLine.View) {
        self = line.text == nil ? .none : line.taken == nil ? .withoutTaken : .whole
    }

    init(_ catalog: CatalogFields?) {
        self = catalog == nil ? .none : catalog?.taken == nil ? .withoutTaken : .whole
    }
}

/// One walk back through the journal that meets each live photo once, at the `L` line that
/// liked it, together with its newest line: how queries, `albums` and `stats` read the catalog.
///
/// Walking back, the first line met for a photo is its newest: a `U` line means it is unliked,
/// an `M` line carries what it is now (kept until its `L` line is reached), an `L` line both.
/// The `L` lines themselves come in the listing's order, newest first, since a writer's clock
/// never goes back and a rewritten journal is sorted; the scan checks that as it goes (a journal
/// from before the clock ticked once per line may hold two likes of one millisecond out of key
/// order) and ends `unordered` where it does not hold. The cost is that of the lines walked: one
/// hash of each key, no string made, no record read.
///
/// The table of photos met holds only those met first at an `M` or `U` line. A photo met first at
/// its `L` line needs no place: its older lines belong to an earlier like, and a writer puts a
/// `U` line between two likes of one photo, which the walk meets first and marks the photo by.
/// The full parse (`checkingEveryField`, for `verify`) keeps every photo, as the index does.
/// While the table is empty (in a journal rewritten whole, until the first `M` or `U` line), an
/// `L` line's key is not even looked up: 13 % of the walk, hashing keys that could not be there.
package enum CatalogScan {
    /// A live photo met by the scan; its views are valid during the call that hands it on.
    package struct Photo {
        /// The `L` line that liked it: its `likedAt` and key.
        let liked: JournalLine.View
        /// Its newest line (that `L` line or a later `M` line): what it is now.
        let newest: JournalLine.View

        package var listingKey: ListingKey { ListingKey(likedAt: liked.at, key: String(decoding: liked.key, as: UTF8.self)) }

        /// A digest of everything the catalog says of the photo (key, generation, `likedAt`,
        /// bytes, image generations, albums, and where the line has them, colour and text):
        /// `verify` compares it with the same digest of the line the photo's record makes.
        var digest: Int {
            var hasher = Hasher()
            func add(_ field: UnsafeBufferPointer<UInt8>?) {
                hasher.combine(field?.count ?? -1)
                if let field { hasher.combine(bytes: UnsafeRawBufferPointer(field)) }
            }
            add(liked.key)
            hasher.combine(liked.at)
            for field in [newest.generation, newest.image, newest.userImage, newest.last, newest.color, newest.text] { add(field) }
            hasher.combine(newest.bytes)
            hasher.combine(newest.taken)
            return hasher.finalize()
        }

        /// The digest of the `L` line `entry` makes, with as much of its catalog as `depth`.
        static func digest(of entry: LiveEntry, depth: CatalogDepth) -> Int {
            var entry = entry
            switch depth {
            case .none: entry.catalog = nil
            case .withoutTaken: entry.catalog?.taken = nil
            case .whole: break
            }
            let line = JournalLine.describing(entry, operation: .liked, at: entry.likedAt).encoded.dropLast()
            return line.withUnsafeBufferPointer { bytes in
                JournalLine.View(bytes).map { Photo(liked: $0, newest: $0).digest } ?? 0
            }
        }
    }

    package enum End: Equatable {
        /// Every line was read.
        case complete
        /// `body` asked to stop.
        case stopped
        /// A malformed line, or no header: the index must be read the sure way.
        case damaged
        /// Two `L` lines out of the listing's order: the listing must be sorted.
        case unordered
    }

    /// Hands each live photo to `body`, newest first, until it returns false. `checkingEveryField`:
    /// each line is parsed as the index parses it (for `verify`), not only as far as a query reads.
    package static func photos(in reader: JournalReader, checkingEveryField: Bool = false, _ body: (Photo) throws -> Bool) throws -> End {
        var lines = 0
        return try photos(in: reader, checkingEveryField: checkingEveryField, lineCount: &lines, body)
    }

    /// As ``photos(in:checkingEveryField:_:)``, counting in `lineCount` the settled lines walked.
    static func photos(
        in reader: JournalReader, checkingEveryField: Bool, lineCount: inout Int, _ body: (Photo) throws -> Bool
    ) throws -> End {
        var changes = 0
        return try photos(in: reader, checkingEveryField: checkingEveryField, newest: nil, lineCount: &lineCount, changesWalked: &changes, body)
    }

    /// As ``photos(in:checkingEveryField:_:)``, with the journal's ``NewestLines`` where there is a
    /// file of them: the lines after what it covers are walked back as ever, then its likes,
    /// newest first, each photo looked up in it (see ``NewestLines``) rather than every line
    /// walked. `changesWalked` counts the `M` and `U` lines walked back (the caller writes the
    /// file again when they are many). Ends `damaged` where the file and the journal disagree.
    static func photos(
        in reader: JournalReader, checkingEveryField: Bool, newest: NewestLines.Mapped?, lineCount: inout Int, changesWalked: inout Int,
        _ body: (Photo) throws -> Bool
    ) throws -> End {
        var table = KeyTable()
        defer { table.release() }
        var updates: [[UInt8]] = []  // `M` lines met before their photo's `L` line
        var order = ListingOrder()
        let end = try reader.backwardViews(checkingEveryField: checkingEveryField, floor: newest?.covered ?? 0) { view in
            lineCount += 1
            switch view.operation {
            case .unliked, .updated:
                changesWalked += 1
                let found = table.find(view.key)
                guard found.mark == nil else { return true }
                if view.operation == .unliked {
                    table.set(.unliked, for: view.key, at: found.slot)
                } else {
                    table.set(.updated(updates.count), for: view.key, at: found.slot)
                    updates.append(Array(view.line))
                }
                return true
            case .liked:
                guard order.admits(view) else { return false }
                // Nothing met yet (as in a journal rewritten whole): no key to hash, no place to take.
                if table.isEmpty, !checkingEveryField { return try body(Photo(liked: view, newest: view)) }
                let found = table.find(view.key)
                switch found.mark {
                case .unliked?, .listed?:
                    return true
                case .updated(let index)?:
                    table.set(.listed, for: view.key, at: found.slot)
                    return try updates[index].withUnsafeBufferPointer { line in
                        // It was read as this view once already.
                        guard let newest = JournalLine.View(line, checkingEveryField: checkingEveryField) else { return true }
                        return try body(Photo(liked: view, newest: newest))
                    }
                case nil:
                    // An earlier like's lines come after the `U` line that ended it, which marks
                    // the photo: only photos changed since their like need a place (see above).
                    if checkingEveryField { table.set(.listed, for: view.key, at: found.slot) }
                    return try body(Photo(liked: view, newest: view))
                }
            case .header, .aborted, .purged:
                return true
            }
        }
        if order.broken { return .unordered }
        switch end {
        case .header: return .complete
        case .stopped: return .stopped
        case .damaged: return .damaged
        case .floor:
            guard let newest else { return .damaged }
            return try reader.source.withMappedBytes { journal in
                try likes(of: newest, in: journal, table: &table, updates: updates, order: &order, lineCount: &lineCount, body)
            } ?? .damaged
        }
    }

    /// The order a walk meets `L` lines in: each must come before the one met before it in the
    /// listing's order (see ``CatalogScan``); `broken` once one did not.
    struct ListingOrder {
        private var previousAt = Int64.max
        private var previousKey: [UInt8] = []
        private(set) var broken = false

        /// Whether the `L` line `view` comes before the one met before it, which it then becomes.
        mutating func admits(_ view: JournalLine.View) -> Bool {
            guard view.at < previousAt || (view.at == previousAt && view.key.lexicographicallyPrecedes(previousKey)) else {
                broken = true
                return false
            }
            previousAt = view.at
            previousKey.removeAll(keepingCapacity: true)
            previousKey.append(contentsOf: view.key)
            return true
        }
    }

    /// The likes `newest` covers, newest first, each photo's newest line found through it or, when
    /// the walk after what it covers met the photo, through `table` (see ``photos(in:checkingEveryField:newest:lineCount:changesWalked:_:)``).
    /// The journal's pages walked are let go of as the walk goes on (see ``JournalReader``), so that
    /// a walk through every like does not hold the whole journal.
    private static func likes(
        of newest: NewestLines.Mapped, in journal: UnsafeBufferPointer<UInt8>, table: inout KeyTable, updates: [[UInt8]],
        order: inout ListingOrder, lineCount: inout Int, _ body: (Photo) throws -> Bool
    ) throws -> End {
        var index = newest.likeCount
        var keptFrom = newest.covered  // the walk's pages from here to covered are still held
        while index > 0 {
            index -= 1
            let start = newest.like(index)
            guard let view = NewestLines.line(at: start, in: journal, before: newest.covered), view.operation == .liked else { return .damaged }
            lineCount += 1
            guard order.admits(view) else { return .unordered }
            if keptFrom - start > 8 << 20 {
                JournalReader.letGo(journal, start..<keptFrom)
                keptFrom = start
            }
            // What the walk after covered met of the photo is newer than anything the file says.
            if !table.isEmpty {
                let found = table.find(view.key)
                switch found.mark {
                case .unliked?, .listed?:
                    continue
                case .updated(let kept)?:
                    table.set(.listed, for: view.key, at: found.slot)
                    let going = try updates[kept].withUnsafeBufferPointer { line in
                        guard let newest = JournalLine.View(line, checkingEveryField: false) else { return true }
                        return try body(Photo(liked: view, newest: newest))
                    }
                    if !going { return .stopped }
                    continue
                case nil:
                    break
                }
            }
            switch newest.lookUp(view.key, like: start, in: journal) {
            case .inconsistent:
                return .damaged
            case .earlierLike:
                continue
            case .none:
                // Liked once and never changed: no other line of it anywhere.
                if try !body(Photo(liked: view, newest: view)) { return .stopped }
            case .newest(let offset) where offset == start:
                if try !body(Photo(liked: view, newest: view)) { return .stopped }
            case .newest(let offset):
                guard let line = NewestLines.line(at: offset, in: journal, before: newest.covered) else { return .damaged }
                switch line.operation {
                case .unliked:
                    continue
                case .updated:
                    if try !body(Photo(liked: view, newest: line)) { return .stopped }
                default:
                    return .damaged  // another like where this one is the photo's current like
                }
            }
        }
        return .complete
    }
}

/// The keys a backward scan has met and what it decided for each: open addressing over the
/// keys' bytes, which are kept in one buffer, so that meeting a key makes no string. A value
/// held in one local variable of the scan (so that its accesses are checked when compiled, not
/// at run time) over memory of its own, which ``release()`` gives back.
struct KeyTable {
    enum Mark: Equatable {
        /// Its newest line unliked it.
        case unliked
        /// Its `L` line was met and handed on (or passed over): older lines say nothing more.
        case listed
        /// Its newest line is an `M` line, kept at this index until its `L` line comes.
        case updated(Int)
    }

    /// 16 bytes: `mark` 0 is unliked, 1 listed, 2 + n updated(n).
    private struct Slot {
        /// 0 for an empty slot.
        var hash: UInt64
        var start: UInt32
        var length: UInt16
        var mark: UInt16
    }

    private static let empty = Slot(hash: 0, start: 0, length: 0, mark: 0)
    private var slots: UnsafeMutableBufferPointer<Slot>
    private var keys: UnsafeMutableBufferPointer<UInt8>
    private var keyBytes = 0
    private var count = 0
    /// Whether no key has been added yet.
    var isEmpty: Bool { count == 0 }
    /// Marks of `M` lines numbered past what 16 bits hold, by slot.
    private var overflow: [Int: Int] = [:]

    init() {
        slots = .allocate(capacity: 1024)
        slots.initialize(repeating: Self.empty)
        keys = .allocate(capacity: 16 * 1024)
    }

    /// Gives back the table's memory; it must not be used after.
    func release() {
        slots.deallocate()
        keys.deallocate()
    }

    /// Whether the table's key bytes at `start` are `key`'s (`key` not empty).
    private static func same(_ key: UnsafeBufferPointer<UInt8>, _ keys: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Bool {
        guard let stored = keys.baseAddress, let given = key.baseAddress else { return false }
        return memcmp(stored + start, given, key.count) == 0
    }

    /// The slot where `key` is, or would go, and its mark if it is there.
    mutating func find(_ key: UnsafeBufferPointer<UInt8>) -> (slot: Int, mark: Mark?) {
        if 2 * (count + 1) > slots.count { grow() }
        let hash = Self.hash(key)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let current = slots[slot]
            if current.hash == 0 { return (slot, nil) }
            if current.hash == hash, Int(current.length) == key.count,
                key.isEmpty || Self.same(key, keys, at: Int(current.start))
            {
                switch current.mark {
                case 0: return (slot, .unliked)
                case 1: return (slot, .listed)
                case .max: return (slot, .updated(overflow[slot] ?? 0))
                default: return (slot, .updated(Int(current.mark) - 2))
                }
            }
            slot = (slot + 1) & mask
        }
    }

    /// Sets the mark of `key` in the slot ``find(_:)`` gave for it, adding the key if new.
    mutating func set(_ mark: Mark, for key: UnsafeBufferPointer<UInt8>, at slot: Int) {
        var code: UInt16
        switch mark {
        case .unliked: code = 0
        case .listed: code = 1
        case .updated(let index) where index < Int(UInt16.max) - 2: code = UInt16(index + 2)
        case .updated(let index):
            code = .max
            overflow[slot] = index
        }
        guard slots[slot].hash == 0 else {
            slots[slot].mark = code
            return
        }
        if keyBytes + key.count > keys.count {
            let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 2 * keys.count + key.count)
            _ = larger.initialize(from: keys[..<keyBytes])
            keys.deallocate()
            keys = larger
        }
        _ = UnsafeMutableBufferPointer(rebasing: keys[keyBytes...]).initialize(from: key)
        // Keys are at most 200 bytes, and a journal holds far fewer than 4 GB of them.
        slots[slot] = Slot(
            hash: Self.hash(key), start: UInt32(truncatingIfNeeded: keyBytes), length: UInt16(truncatingIfNeeded: key.count), mark: code)
        keyBytes += key.count
        count += 1
    }

    /// Four times as many slots: a scan through a large journal grows the table a few times,
    /// not a dozen.
    private mutating func grow() {
        let old = slots
        slots = .allocate(capacity: 4 * old.count)
        slots.initialize(repeating: Self.empty)
        let mask = slots.count - 1
        var moved: [Int: Int] = [:]
        for index in old.indices where old[index].hash != 0 {
            var slot = Int(truncatingIfNeeded: old[index].hash) & mask
            while slots[slot].hash != 0 { slot = (slot + 1) & mask }
            slots[slot] = old[index]
            if let kept = overflow[index] { moved[slot] = kept }
        }
        overflow = moved
        old.deallocate()
    }

    /// Eight bytes at a time, each word multiplied in, then MurmurHash3's finalizer so that
    /// every bit of the key reaches the low bits that pick a slot; never 0.
    static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard let base = key.baseAddress else { return 1 }
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(key.count)
        var index = 0
        while index + 8 <= key.count {
            hash = (hash ^ UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            hash ^= hash >> 31
            index += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while index < key.count {
            tail |= UInt64(base[index]) << shift
            shift += 8
            index += 1
        }
        hash = (hash ^ tail) &* 0x94D0_49BB_1331_11EB
        hash ^= hash >> 33
        hash &*= 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash &*= 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return hash == 0 ? 1 : hash
    }
}

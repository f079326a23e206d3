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

/// What the catalog keeps of a photo beyond what every `L` and `M` line has: derived from its
/// record, so that a query reads one line instead of decoding the record.
struct CatalogFields: Hashable, Sendable {
    /// Six lower-case hex digits; `nil` when the photo has no colour or it is not a hex colour.
    var color: String?
    /// The id, description, photographer name and username, note and album names, folded and
    /// joined as ``TextFolding/searchable(_:)`` does.
    var text: String

    init(color: String?, text: String) {
        self.color = color
        self.text = text
    }

    init(record: StoredRecord) {
        color = ColorFilter.catalogColor(record.photo?.color)
        text = SearchWords.searchableText(of: record)
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
enum CatalogScan {
    /// A live photo met by the scan; its views are valid during the call that hands it on.
    struct Photo {
        /// The `L` line that liked it: its `likedAt` and key.
        let liked: JournalLine.View
        /// Its newest line (that `L` line or a later `M` line): what it is now.
        let newest: JournalLine.View

        var listingKey: ListingKey { ListingKey(likedAt: liked.at, key: String(decoding: liked.key, as: UTF8.self)) }
    }

    enum End: Equatable {
        /// Every line was read.
        case complete
        /// `body` asked to stop.
        case stopped
        /// A malformed line, or no header: the index must be read the sure way.
        case damaged
        /// Two `L` lines out of the listing's order: the listing must be sorted.
        case unordered
    }

    /// Hands each live photo to `body`, newest first, until it returns false.
    static func photos(in reader: JournalReader, _ body: (Photo) throws -> Bool) throws -> End {
        var table = KeyTable()
        var updates: [[UInt8]] = []  // `M` lines met before their photo's `L` line
        var previousAt = Int64.max
        var previousKey: [UInt8] = []
        var unordered = false
        let end = try reader.backwardViews { view in
            switch view.operation {
            case .unliked, .updated:
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
                guard view.at < previousAt || (view.at == previousAt && view.key.lexicographicallyPrecedes(previousKey)) else {
                    unordered = true
                    return false
                }
                previousAt = view.at
                previousKey.removeAll(keepingCapacity: true)
                previousKey.append(contentsOf: view.key)
                let found = table.find(view.key)
                switch found.mark {
                case .unliked?, .listed?:
                    return true
                case .updated(let index)?:
                    table.set(.listed, for: view.key, at: found.slot)
                    return try updates[index].withUnsafeBufferPointer { line in
                        // It was read as this view once already.
                        guard let newest = JournalLine.View(line) else { return true }
                        return try body(Photo(liked: view, newest: newest))
                    }
                case nil:
                    table.set(.listed, for: view.key, at: found.slot)
                    return try body(Photo(liked: view, newest: view))
                }
            case .header, .aborted, .purged:
                return true
            }
        }
        if unordered { return .unordered }
        switch end {
        case .header: return .complete
        case .stopped: return .stopped
        case .damaged: return .damaged
        }
    }
}

/// The keys a backward scan has met and what it decided for each: open addressing over the
/// keys' bytes, which are kept in one buffer, so that meeting a key makes no string.
struct KeyTable {
    enum Mark: Equatable {
        /// Its newest line unliked it.
        case unliked
        /// Its `L` line was met and handed on (or passed over): older lines say nothing more.
        case listed
        /// Its newest line is an `M` line, kept at this index until its `L` line comes.
        case updated(Int)
    }

    private struct Slot {
        /// 0 for an empty slot.
        var hash: UInt64 = 0
        var start = 0
        var length = 0
        var mark = Mark.listed
    }

    private var slots = [Slot](repeating: Slot(), count: 1024)
    private var keys: [UInt8] = []
    private var count = 0

    /// The slot where `key` is, or would go, and its mark if it is there.
    mutating func find(_ key: UnsafeBufferPointer<UInt8>) -> (slot: Int, mark: Mark?) {
        if 2 * (count + 1) > slots.count { grow() }
        let hash = Self.hash(key)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let current = slots[slot]
            if current.hash == 0 { return (slot, nil) }
            if current.hash == hash, current.length == key.count, keysEqual(current.start, key) { return (slot, current.mark) }
            slot = (slot + 1) & mask
        }
    }

    /// Sets the mark of `key` in the slot ``find(_:)`` gave for it, adding the key if new.
    mutating func set(_ mark: Mark, for key: UnsafeBufferPointer<UInt8>, at slot: Int) {
        if slots[slot].hash == 0 {
            slots[slot] = Slot(hash: Self.hash(key), start: keys.count, length: key.count, mark: mark)
            keys.append(contentsOf: key)
            count += 1
        } else {
            slots[slot].mark = mark
        }
    }

    private func keysEqual(_ start: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        keys.withUnsafeBufferPointer { stored in
            key.isEmpty || memcmp(stored.baseAddress! + start, key.baseAddress!, key.count) == 0
        }
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(), count: 2 * old.count)
        let mask = slots.count - 1
        for entry in old where entry.hash != 0 {
            var slot = Int(truncatingIfNeeded: entry.hash) & mask
            while slots[slot].hash != 0 { slot = (slot + 1) & mask }
            slots[slot] = entry
        }
    }

    /// FNV-1a, its high half folded into the low half that picks the slot; never 0.
    private static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        hash ^= hash >> 32
        return hash == 0 ? 1 : hash
    }
}

// Owns the questions the catalog answers in one scan: a listing's page (filters, cursor, order,
// offset), the albums with their counts, and the statistics. Called by the store's reading and
// albums (Store+Reading); each answer is nil where the catalog cannot give it (no journal, damage, a line
// without a catalog that a filter needs, lines out of order), and the reading then takes the
// sure path through the index and the record files.

import LikesSupport

/// What a listing asks of the catalog, in its terms.
package struct CatalogQuery {
    var newestFirst = true
    /// Ordered by the date taken, which every line of the catalog must then carry.
    var byTaken = false
    var limit: Int?
    var offset = 0
    /// Only photos past this place in the listing's order.
    var after: ListingKey?
    /// Only photos liked at or after this time (milliseconds).
    var since: Int64?
    /// Only photos in this album, its name escaped as in journal lines.
    var album: [UInt8]?
    var color: ColorFilter?
    var words: SearchWords?

    /// Whether the query has no album, date, colour or search filter (a cursor and an offset are
    /// no filters).
    var hasNoFilter: Bool { album == nil && since == nil && color == nil && words == nil }

    /// Whether `photo` passes the album, colour and search filters; `nil` when its newest line
    /// has no catalog and the colour or search needs one.
    func admits(_ photo: CatalogScan.Photo) -> Bool? {
        let newest = photo.newest
        if let album, !Self.albumField(newest.last, contains: album) { return false }
        guard color != nil || words != nil else { return true }
        guard let catalogColor = newest.color, let text = newest.text else { return nil }
        if let color, !color.matches(catalogColor: catalogColor) { return false }
        if let words, !words.matches(text) { return false }
        return true
    }

    /// Whether an album field (escaped names joined by commas) holds `name` (escaped), without
    /// regard to case: names compared byte by byte with ASCII case folded, which decides for
    /// names of ASCII alone (an escape's hex digits are written in one case, and no letter is
    /// escaped); a name with other characters (escaped as `%XX` from `%80` up) unescaped and
    /// compared as ``Names/sameAlbum(_:_:)`` does. (Unescaping every name with a space in it
    /// took a tenth of the walk for an album's page.)
    package static func albumField(_ field: UnsafeBufferPointer<UInt8>?, contains name: [UInt8]) -> Bool {
        guard let field else { return false }
        var start = 0
        for end in 0...field.count where end == field.count || field[end] == 0x2C {
            let candidate = UnsafeBufferPointer(rebasing: field[start..<end])
            if candidate.count == name.count, candidate.elementsEqual(name, by: { Self.asciiFolded($0) == Self.asciiFolded($1) }) {
                // Equal but for ASCII case; an escape's hex digits are written in one case.
                return true
            }
            if Self.escapesBeyondASCII(candidate) || Self.escapesBeyondASCII(name), let left = PercentEscaping.albumName.unescape(candidate),
                let right = name.withUnsafeBufferPointer({ PercentEscaping.albumName.unescape($0) }),
                Names.sameAlbum(String(decoding: left, as: UTF8.self), String(decoding: right, as: UTF8.self))
            {
                return true
            }
            start = end + 1
        }
        return false
    }

    /// Whether `name` has an escape of a byte beyond ASCII (`%` and a first hex digit from 8 up),
    /// in either case: one that needs ``Names/sameAlbum(_:_:)``.
    private static func escapesBeyondASCII(_ name: some Collection<UInt8>) -> Bool {
        var afterPercent = false
        for byte in name {
            if afterPercent, (0x38...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte) { return true }
            afterPercent = byte == 0x25
        }
        return false
    }

    private static func asciiFolded(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }
}

extension OpenStore {
    /// The page `query` asks for, from one scan of the catalog, and whether more photos follow
    /// it; only the page's records are decoded. `nil` where the catalog cannot answer.
    ///
    /// Newest first, the scan stops once the page and one photo more are found; oldest first,
    /// it reads back to the oldest photo (or to `since`), keeping only keys.
    func catalogPage(_ query: CatalogQuery) throws -> (records: [StoredRecord], more: Bool)? {
        guard let records else { return ([], false) }
        let lock = try sharedLock()
        defer { _ = lock }
        if query.byTaken { return try takenPage(query, records: records, locked: lock != nil) }
        if query.album == nil, query.color == nil, query.words == nil, query.after != nil || !query.newestFirst,
            let page = try jumpingPage(query, records: records, locked: lock != nil)
        {
            return page
        }
        var found: [ListingKey] = []
        var skipped = 0
        var unanswerable = false
        let end = try scanCatalog(locked: lock != nil) { photo in
            if let since = query.since, photo.liked.at < since { return false }
            if let after = query.after {
                let place = photo.listingKey
                if query.newestFirst, !(place < after) { return true }
                if !query.newestFirst, !(after < place) { return false }  // all the rest come before it
            }
            guard let admitted = query.admits(photo) else {
                unanswerable = true
                return false
            }
            guard admitted else { return true }
            if query.newestFirst, skipped < query.offset {
                skipped += 1
                return true
            }
            found.append(photo.listingKey)
            return !query.newestFirst || query.limit.map { found.count <= $0 } ?? true
        }
        guard !unanswerable, end == .complete || end == .stopped else { return nil }
        let matches = query.newestFirst ? found[...] : found.reversed().dropFirst(query.offset)
        let page = matches.prefix(query.limit ?? matches.count)
        var result: [StoredRecord] = []
        let reads = records.read(keys: page.map(\.key))
        // By index, not `zip`: the runtime makes a `Zip2Sequence` of these types once a process,
        // searching its conformance tables, which took 4 % of a warm `list --limit 20`.
        for offset in reads.indices {
            let place = page[page.startIndex + offset]
            let stored: StoredRecord?
            do {
                stored = try reads[offset].get()
            } catch StoreError.damagedRecord {
                return nil  // the sure path names it
            }
            // A record that does not say what its line says: the sure path tells.
            guard let stored, stored.likedAt == place.likedAt else { return nil }
            result.append(stored)
        }
        return (result, matches.count > page.count)
    }

    /// A page in the order by date taken: from likes.taken where the query has no filter (see
    /// ``takenOrderPage(_:records:reader:)``), else from one scan of the whole catalog that keeps
    /// the places of the page, what it skips and one more (see ``FirstPlaces``); only the page's
    /// records are decoded. `nil` where a line has no date taken (a journal of the format before
    /// it, until its next writer) or the catalog cannot answer.
    private func takenPage(_ query: CatalogQuery, records: RecordFiles, locked: Bool) throws -> (records: [StoredRecord], more: Bool)? {
        if locked, query.hasNoFilter, let reader = try catalogReader(mapped: true),
            let page = try takenOrderPage(query, records: records, reader: reader)
        {
            return page
        }
        var kept = FirstPlaces(capacity: query.limit.map { query.offset + $0 + 1 }, newestFirst: query.newestFirst, after: query.after)
        var unanswerable = false
        let end = try scanCatalog(locked: locked) { photo in
            if let since = query.since, photo.liked.at < since { return false }  // the rest were liked before it
            guard let taken = photo.newest.taken, let admitted = query.admits(photo) else {
                unanswerable = true
                return false
            }
            if admitted { kept.offer(at: taken, key: photo.liked.key, likedAt: photo.liked.at) }
            return true
        }
        guard !unanswerable, end == .complete || end == .stopped else { return nil }
        let matches = kept.ordered().dropFirst(query.offset)
        let page = Array(matches.prefix(query.limit ?? matches.count))
        var result: [StoredRecord] = []
        let reads = records.read(keys: page.map { String(decoding: $0.key, as: UTF8.self) })
        for offset in reads.indices {
            let stored: StoredRecord?
            do {
                stored = try reads[offset].get()
            } catch StoreError.damagedRecord {
                return nil  // the sure path names it
            }
            // A record that does not say what its line says: the sure path tells.
            guard let stored, stored.likedAt == page[offset].likedAt, stored.taken.at == page[offset].at else { return nil }
            result.append(stored)
        }
        return (result, matches.count > page.count)
    }

    /// A page without album, colour or search filters, from a jump to its place (see
    /// ``JournalReader/likedLines(after:newestFirst:_:)``): its cost is the page's, however deep.
    /// Each like met is confirmed by its record; `nil` where the journal cannot be jumped in.
    private func jumpingPage(_ query: CatalogQuery, records: RecordFiles, locked: Bool) throws -> (records: [StoredRecord], more: Bool)? {
        guard locked, let reader = try catalogReader(mapped: true) else { return nil }
        var page: [StoredRecord] = []
        var skipped = 0
        var more = false
        var damaged = false
        let start = query.after ?? ListingKey(likedAt: .min, key: "")
        let ordered = try reader.likedLines(after: start, newestFirst: query.newestFirst) { line in
            if let since = query.since, line.at < since { return !query.newestFirst }  // newest first, all the rest are older
            let stored: StoredRecord?
            do {
                stored = try records.read(key: String(decoding: line.key, as: UTF8.self))
            } catch StoreError.damagedRecord {
                damaged = true  // the sure path names it
                return false
            }
            // Unliked since, liked again since, or taken back: not this like any more.
            guard let stored, stored.likedAt == line.at else { return true }
            if skipped < query.offset {
                skipped += 1
                return true
            }
            if let limit = query.limit, page.count == limit {
                more = true
                return false
            }
            page.append(stored)
            return true
        }
        guard ordered == true, !damaged else { return nil }
        return (page, more)
    }

    /// Each album's photo count, bytes and newest photo, from one scan of the catalog; `nil`
    /// where it cannot answer. Names are as escaped in journal lines.
    func catalogAlbums() throws -> [(name: [UInt8], count: Int, bytes: Int64, newest: ListingKey, covers: [String])]? {
        let lock = try sharedLock()
        defer { _ = lock }
        var albums: [(name: [UInt8], count: Int, bytes: Int64, newest: ListingKey, covers: [String])] = []
        var indexes: [[UInt8]: Int] = [:]
        let end = try scanCatalog(locked: lock != nil) { photo in
            guard let field = photo.newest.last else { return true }
            var start = 0
            for end in 0...field.count where end == field.count || field[end] == 0x2C {
                let entry = UnsafeBufferPointer(rebasing: field[start..<end])
                start = end + 1
                if JournalLine.isCoverEntry(entry) {
                    // After the photo's memberships, so its album is counted already.
                    if let index = indexes[Array(entry.dropFirst(2))] {
                        albums[index].covers.append(String(decoding: photo.liked.key, as: UTF8.self))
                    }
                    continue
                }
                let name = Array(entry)
                if let index = indexes[name] {
                    albums[index].count += 1
                    albums[index].bytes += photo.newest.bytes
                } else {
                    // The scan meets photos newest first: the first of an album is its newest.
                    indexes[name] = albums.count
                    albums.append((name, 1, photo.newest.bytes, photo.listingKey, []))
                }
            }
            return true
        }
        return end == .complete ? albums : nil
    }

    /// How many photos are liked, their bytes, and the oldest and newest `likedAt`, from one
    /// scan of the catalog; `nil` where it cannot answer.
    func catalogStatistics() throws -> (count: Int, bytes: Int64, oldest: Int64?, newest: Int64?)? {
        let lock = try sharedLock()
        defer { _ = lock }
        var statistics: (count: Int, bytes: Int64, oldest: Int64?, newest: Int64?) = (0, 0, nil, nil)
        let end = try scanCatalog(locked: lock != nil) { photo in
            statistics.count += 1
            statistics.bytes += photo.newest.bytes
            statistics.newest = statistics.newest ?? photo.liked.at
            statistics.oldest = photo.liked.at
            return true
        }
        return end == .complete ? statistics : nil
    }

    /// The digests (see ``CatalogScan/Photo/digest``) of every live photo the catalog names,
    /// added up (wrapping), with their number, and whether every photo's line has a catalog
    /// (`nil` where some have one and some not): what `verify` compares the records with, in
    /// memory that does not grow with the collection. `nil` as ``catalogDigests()``.
    func catalogDigestSum() throws -> (count: Int, sum: Int, depth: CatalogDepth?)? {
        var (count, sum) = (0, 0)
        var depths: Set<CatalogDepth> = []
        let complete = try forEachCatalogPhoto { photo in
            count += 1
            sum &+= photo.digest
            depths.insert(CatalogDepth(photo.newest))
        }
        return complete ? (count, sum, depths.count > 1 ? nil : depths.first ?? .whole) : nil
    }

    /// What the catalog says of each live photo, as a digest by key (see
    /// ``CatalogScan/Photo/digest``), and whether its line has a catalog; `nil` where the journal
    /// is damaged, missing, cut short or out of order (the index then says which). Reads the
    /// journal in chunks, under a lock the caller holds: memory grows with the keys only.
    func catalogDigests() throws -> [String: (digest: Int, depth: CatalogDepth)]? {
        var digests: [String: (digest: Int, depth: CatalogDepth)] = [:]
        let complete = try forEachCatalogPhoto { photo in
            digests[String(decoding: photo.liked.key, as: UTF8.self)] = (photo.digest, CatalogDepth(photo.newest))
        }
        return complete ? digests : nil
    }

    /// Hands every live photo of the catalog to `body`, each field checked, reading the journal in
    /// chunks; false where the catalog cannot be read whole.
    private func forEachCatalogPhoto(_ body: (CatalogScan.Photo) -> Void) throws -> Bool {
        guard let reader = try catalogReader() else { return false }
        return try CatalogScan.photos(in: reader, checkingEveryField: true) { photo in
            body(photo)
            return true
        } == .complete
    }

    /// The journal's reader for a scan of the catalog (`mapped` only under a lock the caller
    /// holds); `nil` where there are no records or no journal, or the journal is shorter than the
    /// length noted on it (cut short: the index then says so).
    private func catalogReader(mapped: Bool = false) throws -> JournalReader? {
        guard let records, let reader = try journal.reader(records: records, mapped: mapped) else { return nil }
        if let noted = journal.notedLength(reader), try reader.source.currentSize() < noted { return nil }
        return reader
    }

    /// The files of each live photo by the catalog, and the number of lines walked (for purge,
    /// which needs no more of it); `nil` where the journal is damaged, missing, cut short or out
    /// of order (the index then says which). Under a lock the caller holds (`locked`: it got one).
    func catalogFiles(locked: Bool) throws -> (files: [PhotoFiles], lineCount: Int)? {
        guard let reader = try catalogReader(mapped: locked) else { return nil }
        var files: [PhotoFiles] = []
        var lines = 0
        let end = try CatalogScan.photos(in: reader, checkingEveryField: true, lineCount: &lines) { photo in
            let user = photo.newest.userImage
            files.append(
                PhotoFiles(
                    key: String(decoding: photo.liked.key, as: UTF8.self), imageGeneration: String(decoding: photo.newest.image, as: UTF8.self),
                    userImageGeneration: JournalLine.View.isDash(user) ? nil : String(decoding: user, as: UTF8.self)))
            return true
        }
        return end == .complete ? (files, lines + 1) : nil  // the header too, as the index counts
    }

    /// Runs a catalog scan over the journal, under the shared lock the caller holds (`locked`:
    /// it got one); `damaged` where there is no journal or it is shorter than last noted.
    ///
    /// Under the lock, the scan goes through the journal's ``NewestLines`` where the file is
    /// current, and writes it again when the scan walked many changes it does not cover (or
    /// found it disagreeing with the journal): the next scan then costs the photos it walks.
    func scanCatalog(locked: Bool, _ body: (CatalogScan.Photo) throws -> Bool) throws -> CatalogScan.End {
        guard let reader = try catalogReader(mapped: locked) else { return .damaged }
        guard locked, let inode = reader.source.identity else { return try CatalogScan.photos(in: reader, body) }
        let newest = try reader.source.withMappedBytes { NewestLines.Mapped.open(in: root, journal: $0, inode: inode) } ?? nil
        var (lines, changes) = (0, 0)
        let end = try CatalogScan.photos(in: reader, checkingEveryField: false, newest: newest, lineCount: &lines, changesWalked: &changes, body)
        let distrusted = newest != nil && end == .damaged
        if changes >= NewestLines.refreshAfter || distrusted {
            _ = try? reader.source.withMappedBytes {
                NewestLines.write(in: root, reader: reader, journal: $0, inode: inode, previous: distrusted ? nil : newest)
            }
        }
        return end
    }
}

/// The first places of a listing (by a date, then by key) among places offered in any order:
/// with a capacity, a heap whose top is the last of those kept, so that a place that comes after
/// it costs one comparison and no copy of its key.
struct FirstPlaces {
    struct Place {
        var at: Int64
        var key: [UInt8]
        /// The `likedAt` of the line, which the record must still say.
        var likedAt: Int64
    }

    /// How many to keep; `nil` keeps every place.
    let capacity: Int?
    let newestFirst: Bool
    /// Only places past this one are kept.
    private let cursor: Place?
    private var heap: [Place] = []

    init(capacity: Int?, newestFirst: Bool, after: ListingKey?) {
        self.capacity = capacity
        self.newestFirst = newestFirst
        cursor = after.map { Place(at: $0.likedAt, key: Array($0.key.utf8), likedAt: 0) }
    }

    /// Whether the place (`at`, `key`) comes before `other` in the listing.
    private func comesBefore(_ at: Int64, _ key: UnsafeBufferPointer<UInt8>, _ other: Place) -> Bool {
        if at != other.at { return newestFirst ? at > other.at : at < other.at }
        return other.key.withUnsafeBufferPointer { otherKey in
            newestFirst ? otherKey.lexicographicallyPrecedes(key) : key.lexicographicallyPrecedes(otherKey)
        }
    }

    private func comesBefore(_ left: Place, _ right: Place) -> Bool {
        left.key.withUnsafeBufferPointer { comesBefore(left.at, $0, right) }
    }

    /// Keeps the place where it is past the cursor and among the first.
    mutating func offer(at: Int64, key: UnsafeBufferPointer<UInt8>, likedAt: Int64) {
        if let cursor, comesBefore(at, key, cursor) || Self.same(at, key, cursor) { return }
        if let capacity, heap.count >= capacity {
            guard capacity > 0, comesBefore(at, key, heap[0]) else { return }
            heap[0] = Place(at: at, key: Array(key), likedAt: likedAt)
            siftDown(from: 0)
        } else {
            heap.append(Place(at: at, key: Array(key), likedAt: likedAt))
            siftUp(from: heap.count - 1)
        }
    }

    private static func same(_ at: Int64, _ key: UnsafeBufferPointer<UInt8>, _ other: Place) -> Bool {
        at == other.at && other.key.elementsEqual(key)
    }

    /// The places kept, in the listing's order.
    func ordered() -> [Place] {
        heap.sorted(by: comesBefore)
    }

    // The top is the place that comes last: each parent comes after its children.
    private mutating func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard comesBefore(heap[parent], heap[child]) else { return }
            heap.swapAt(parent, child)
            child = parent
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            var last = parent
            let (left, right) = (2 * parent + 1, 2 * parent + 2)
            if left < heap.count, comesBefore(heap[last], heap[left]) { last = left }
            if right < heap.count, comesBefore(heap[last], heap[right]) { last = right }
            guard last != parent else { return }
            heap.swapAt(parent, last)
            parent = last
        }
    }
}

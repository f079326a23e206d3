// Owns the read side of a store: its directories opened, the index read under the shared lock,
// and the newest-page walk over the journal's end. Made by Store.open; called by the façade's
// reading, albums, purge, verify and repair.

/// A store's directories, opened for reading: what every read goes through.
struct OpenStore {
    let root: StoreDirectory
    /// `nil` while the store has no records folder (nothing was ever liked, or it was lost).
    let records: RecordFiles?
    let images: ImageFiles?
    let lockTimeout: Double

    init(root: StoreDirectory, lockTimeout: Double) throws {
        self.root = root
        records = try root.subdirectory(RecordFiles.directoryName).map(RecordFiles.init)
        images = try root.subdirectory(ImageFiles.directoryName).map(ImageFiles.init)
        self.lockTimeout = lockTimeout
    }

    init(root: StoreDirectory, records: RecordFiles?, images: ImageFiles?, lockTimeout: Double) {
        self.root = root
        self.records = records
        self.images = images
        self.lockTimeout = lockTimeout
    }

    var journal: Journal { Journal(root: root) }

    /// A shared lock, so that no writer is half way through while it is held; `nil` where the
    /// store has no lock file (never written) or it cannot be opened (a read-only store).
    func sharedLock() throws -> FileLock? {
        try FileLock.shared(in: root, timeout: lockTimeout)
    }

    // MARK: The index

    /// The whole journal read and settled. `locked`: the caller holds a lock already; otherwise
    /// a shared lock is held while the journal is read.
    func index(locked: Bool = false) throws -> JournalIndex {
        let lock = locked ? nil : try sharedLock()
        defer { _ = lock }
        return try journal.index(records: records)
    }

    /// The live photos by the journal, or by the record files where the journal is damaged
    /// (then `damage` names the damage).
    func liveEntries(damage: inout [String]) throws -> [LiveEntry] {
        guard let records else { return [] }
        let index = try index()
        if let problem = index.damage {
            damage.append(
                "\(problem.prefix(1).uppercased() + problem.dropFirst()); the records were read from their files instead. Repairing the store rebuilds the index."
            )
            let decoded = try records.decodeAll()
            damage += decoded.damage
            return decoded.entries
        }
        return Array(index.live.values)
    }

    // MARK: The newest page

    /// The newest `count` records, read from the end of the journal: `nil` when the journal is
    /// missing, cut short or damaged where it was read, or a record on the way is damaged (the
    /// caller then takes the sure path, which names the damage).
    ///
    /// `L` lines are in `likedAt` order, and each liked photo's record carries the `likedAt` of the
    /// `L` line that liked it. So walking the `L` lines backwards and keeping those whose record
    /// file exists with that `likedAt` meets the live photos newest first, each once, and the walk
    /// stops after `count` of them. A `U` line met first settles its photo as unliked without a
    /// look at its file, so recent churn costs no file system calls. The cost is the page's,
    /// whatever the size of the collection.
    ///
    /// The album and date filters are answered on the way. `L` and `M` lines carry the photo's
    /// albums, and the first of them met walking backwards is the photo's newest, so its albums
    /// are the photo's own by the time its `L` line is reached; the record confirms them. The walk
    /// stops at the first `L` line older than `since` (milliseconds).
    func newestPage(count: Int, album: AlbumName? = nil, since: Int64? = nil) throws -> [StoredRecord]? {
        guard count > 0 else { return [] }
        guard let records, let reader = try journal.reader(records: records) else { return nil }
        if let noted = journal.notedLength, try reader.source.currentSize() < noted { return nil }
        var walk = NewestPageWalk(records: records, count: count, album: album, since: since)
        let end = try reader.backward { line in try walk.take(line) }
        return end == .damaged || walk.metDamage ? nil : walk.page
    }
}

/// The state of one newest-page walk: what it has decided and found so far.
private struct NewestPageWalk {
    let records: RecordFiles
    let count: Int
    let album: AlbumName?
    let since: Int64?
    var page: [StoredRecord] = []
    var metDamage = false
    /// Photos settled already: listed, passed over, or unliked after their last like.
    private var decided: Set<String> = []
    /// The albums of photos whose `M` line was met before their `L` line.
    private var newestAlbums: [String: [AlbumName]] = [:]

    init(records: RecordFiles, count: Int, album: AlbumName?, since: Int64?) {
        self.records = records
        self.count = count
        self.album = album
        self.since = since
    }

    /// Takes one settled line, newest first; false when the walk is over.
    mutating func take(_ line: JournalLine) throws -> Bool {
        switch line.operation {
        case .unliked:
            decided.insert(line.key)
            return true
        case .updated:
            if album != nil, !decided.contains(line.key), newestAlbums[line.key] == nil { newestAlbums[line.key] = line.albums }
            return true
        case .liked:
            if let since, line.at < since { return false }  // `L` lines are in time order
            guard decided.insert(line.key).inserted, isInAlbum(newestAlbums[line.key] ?? line.albums) else { return true }
            return try list(line)
        case .header, .aborted, .purged:
            return true
        }
    }

    private func isInAlbum(_ albums: [AlbumName]) -> Bool {
        album.map(albums.contains) ?? true
    }

    /// Adds the record an `L` line names if it is still that like's; false when the page is full
    /// or a damaged record stops the walk.
    private mutating func list(_ line: JournalLine) throws -> Bool {
        let stored: StoredRecord?
        do {
            stored = try records.read(key: line.key)
        } catch LikeRepositoryError.damagedRecord {
            metDamage = true
            return false
        }
        guard let stored, stored.likedAt == line.at, isInAlbum(stored.albums) else { return true }
        page.append(stored)
        return page.count < count
    }
}

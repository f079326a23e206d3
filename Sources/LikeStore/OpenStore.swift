// Owns the read side of a store: its directories opened and the index read under the shared
// lock (the catalog's questions are in CatalogQuery.swift). Made by Store.open; called by the
// store's reading, albums, purge, verify and repair.

/// A store's directories, opened for reading: what every read goes through.
struct OpenStore {
    let root: StoreDirectory
    /// `nil` while the store has no records folder (nothing was ever liked, or it was lost).
    let records: RecordFiles?
    let images: ImageFiles?
    let lockTimeout: Double

    init(root: StoreDirectory, lockTimeout: Double) throws {
        self.root = root
        // A link or a file where a folder should be is never followed: the folder is missing,
        // which verify names and repair sets aside.
        records = try root.subdirectoryIfFolder(RecordFiles.directoryName).map(RecordFiles.init)
        images = try root.subdirectoryIfFolder(ImageFiles.directoryName).map(ImageFiles.init)
        self.lockTimeout = lockTimeout
    }

    init(root: StoreDirectory, records: RecordFiles?, images: ImageFiles?, lockTimeout: Double) {
        self.root = root
        self.records = records
        self.images = images
        self.lockTimeout = lockTimeout
    }

    var journal: Journal { Journal(root: root) }

    /// The thumbnails folder, opened now (thumbnails come and go outside the lock); none where
    /// something else has its name, which `verify` names and `repair` sets aside.
    func thumbnails() throws -> ThumbnailFiles {
        ThumbnailFiles(directory: try root.subdirectoryIfFolder(ThumbnailFiles.directoryName))
    }

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
}

extension OpenStore {
    /// Refuses a store a later version changed last: the records the journal's last two changes
    /// wrote are looked at for their format (two reads), for the answers that read no record
    /// otherwise (`statistics` counts from the catalog).
    ///
    /// - Throws: ``StoreError/newerFormat(file:format:)``; `io`.
    func refuseNewerLatestRecords() throws {
        guard let records, let reader = try? Journal(root: root).reader(records: nil), let lines = try? reader.lastChanges() else { return }
        for line in lines where line.operation != .unliked {
            _ = try records.existsInKnownFormat(key: line.key)
        }
    }
}

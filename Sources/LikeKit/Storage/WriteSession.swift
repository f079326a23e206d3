// One change to the store under its lock: the order of writes that makes every crash harmless.

import Foundation

/// The directories and journal state of a store while its lock is held.
///
/// A like writes, in this order: the new image files (fresh names, flushed), the record under a
/// temporary name (flushed), the journal line (flushed), then renames the record into place (the
/// commit) and flushes the directory. Images it replaced are removed last. A crash before the
/// rename leaves the old record and orphan files; a crash after it, the new record. An unlike
/// appends its line, removes the record file (the commit), flushes, then removes the images.
///
/// The journal line goes first so that the journal never misses a committed change. A line whose
/// writer died before the commit can only be the journal's last line, since the lock serializes
/// writers: the next session checks it against the record file and, if it never took effect,
/// appends an `A` line that takes it back.
struct WriteSession {
    let repository: LikeRepository
    let root: StoreDirectory
    let records: StoreDirectory
    let images: StoreDirectory
    let durable: Bool
    let lockDescriptor: Int32
    /// The newest time in the journal: new times never go back past it, so `L` lines stay in
    /// `likedAt` order even when the system clock steps back.
    private(set) var clock: Int64

    init(repository: LikeRepository, root: StoreDirectory, lockDescriptor: Int32) throws {
        self.repository = repository
        self.root = root
        self.lockDescriptor = lockDescriptor
        self.durable = repository.isDurable
        records = try root.subdirectoryCreatingIfNeeded(StoreLayout.recordsDirectory, durable: durable)
        images = try root.subdirectoryCreatingIfNeeded(StoreLayout.imagesDirectory, durable: durable)
        clock = 0
        clock = try recoverJournal()
    }

    mutating func tick() -> Int64 {
        clock = max(clock, Timestamp.now())
        return clock
    }

    // MARK: Like and unlike

    func isLiked(_ id: PhotoID) throws -> Bool {
        try records.entry(StoreLayout.recordFileName(id.storageKey)) != nil
    }

    /// Likes or updates one photo.
    ///
    /// With `flushCommit` false the commit (the rename) is not made durable here: the caller
    /// flushes `records/` after a run of likes. That is safe where the flush before each commit
    /// is a `syncfs`, which also makes the previous commit durable: only the run's last commit can
    /// be lost to a power cut, and its journal line is then the journal's last line, which
    /// recovery settles. Where files are flushed one by one, every commit is flushed anyway (on
    /// Apple platforms with a barrier, which the run's last full flush makes durable).
    mutating func like(_ request: LikeRequest, flushCommit: Bool = true) throws -> LikeChange {
        let key = request.id.storageKey
        var existing: StoredRecord?
        do {
            existing = try repository.readStoredRecord(key: key, in: records)
        } catch LikeRepositoryError.damagedRecord where request.image != nil {
            existing = nil  // a new like with a new image replaces a damaged record
        }
        if let existing, existing.id != request.id {
            throw LikeRepositoryError.idCollision(id: request.id, existing: existing.id)
        }
        guard existing != nil || request.image != nil else { throw LikeRepositoryError.imageRequired(id: request.id) }
        return try commit(request, over: existing, flushCommit: flushCommit)
    }

    /// Writes the record `request` makes of `existing` (read under this lock), with its new
    /// images, and commits it.
    private mutating func commit(_ request: LikeRequest, over existing: StoredRecord?, flushCommit: Bool) throws -> LikeChange {
        let key = request.id.storageKey
        let generation = Generation.make()
        let now = tick()
        var created: [(StoreDirectory, String)] = []
        var lineWritten: JournalLine?
        var committed = false
        // Before the commit, everything must be durable: with one file-system flush where that
        // flushes every file (ext4, xfs, btrfs on Linux), else file by file.
        let flushEach = durable && root.flushStrategy != .wholeFileSystem
        do {
            func store(_ image: LikeRequest.Image?, user: Bool) throws -> StoredRecord.Image? {
                guard let image else { return nil }
                let name = StoreLayout.imageFileName(key, generation, user: user)
                try images.createFile(name, data: image.data, durable: flushEach)
                created.append((images, name))
                return StoredRecord.Image(
                    generation: generation, bytes: image.data.count, width: image.header.width, height: image.header.height, crc32: image.crc32)
            }
            let newImage = try store(request.image, user: false)
            let newUserImage = try store(request.userImage, user: true)
            if flushEach, !created.isEmpty { try images.sync() }

            let photo: PhotoMetadata? =
                switch (existing?.photo, request.photo) {
                case (let old?, let new?): old.merging(new)
                case (let old, let new): new ?? old
                }
            guard let mainImage = newImage ?? existing?.image else { throw LikeRepositoryError.imageRequired(id: request.id) }
            let record = StoredRecord(
                id: existing?.id ?? request.id, generation: generation, likedAt: existing?.likedAt ?? now, image: mainImage,
                userImage: newUserImage ?? existing?.userImage, note: request.note(after: existing?.note), photo: photo,
                albums: request.albums(after: existing?.albums ?? []))
            let temporary = StoreLayout.temporaryRecordFileName(key, generation)
            try records.createFile(temporary, data: try record.encoded(), durable: flushEach)
            created.append((records, temporary))

            let line = JournalLine(
                operation: existing == nil ? .liked : .updated, at: now, generation: generation, bytes: Int64(record.totalBytes),
                imageGeneration: record.image.generation, userImageGeneration: record.userImage?.generation, key: key,
                albums: record.albums)
            try appendJournal([line], durable: flushEach)
            lineWritten = line
            if durable, !flushEach { try root.syncFileSystem() }
            try records.rename(temporary, to: StoreLayout.recordFileName(key))
            created.removeLast()
            committed = true
            // File by file (no syncfs), the next like would not flush this commit: flush it now,
            // fully unless a batch's last flush will (on Apple platforms, where that differs).
            if durable, flushCommit || flushEach { try records.sync(commit: flushCommit) }

            // Committed: the replaced images are orphans now; a crash here leaves them to purge.
            if let existing {
                for name in existing.imageFileNames where !record.imageFileNames.contains(name) {
                    try? images.remove(name)
                }
            }
            return LikeChange(
                kind: existing == nil ? .liked : .updated, id: record.id, date: Timestamp.date(now), record: repository.publicRecord(record))
        } catch {
            if committed {
                // The rename may not be durable; put the previous state back so that the failure
                // the caller sees is also what the store shows.
                if let existing {
                    try? restore(existing)
                } else {
                    try? records.remove(StoreLayout.recordFileName(key))
                    if durable { try? records.sync(commit: true) }
                }
            }
            for (directory, name) in created { try? directory.remove(name) }
            if let lineWritten { try? abort(lineWritten) }
            throw error
        }
    }

    /// The liked photo's record, which a change to its note or albums needs.
    func existingRecord(_ id: PhotoID) throws -> StoredRecord {
        guard let existing = try repository.readStoredRecord(key: id.storageKey, in: records) else {
            throw LikeRepositoryError.notLiked(id: id)
        }
        guard existing.id == id else { throw LikeRepositoryError.idCollision(id: id, existing: existing.id) }
        return existing
    }

    /// Changes a liked photo's note or albums, given its record as ``existingRecord(_:)`` read it
    /// under this lock; `nil` when the record has them already, so that nothing is written.
    mutating func edit(_ request: LikeRequest, over existing: StoredRecord) throws -> LikeChange? {
        guard request.note(after: existing.note) != existing.note || request.albums(after: existing.albums) != existing.albums else {
            return nil
        }
        return try commit(request, over: existing, flushCommit: true)
    }

    mutating func unlike(_ id: PhotoID) throws -> LikeChange {
        let key = id.storageKey
        let recordName = StoreLayout.recordFileName(key)
        let existing: StoredRecord?
        do {
            existing = try repository.readStoredRecord(key: key, in: records)
        } catch LikeRepositoryError.damagedRecord {
            existing = nil  // unliking a damaged record still removes it and its images
        }
        if existing == nil, try records.entry(recordName) == nil { throw LikeRepositoryError.notLiked(id: id) }
        let now = tick()
        let line = JournalLine(
            operation: .unliked, at: now, generation: existing?.generation ?? String(repeating: "0", count: Generation.length),
            bytes: 0, imageGeneration: existing?.image.generation ?? "-", userImageGeneration: existing?.userImage?.generation, key: key,
            id: existing?.id.rawValue ?? id.rawValue)
        try appendJournal(line)
        var removed = false
        do {
            try records.remove(recordName)
            removed = true
            if durable { try records.sync(commit: true) }
        } catch {
            if removed, let existing { try? restore(existing) }
            try? abort(line)
            throw error
        }
        let imageNames: [String]
        if let existing {
            imageNames = existing.imageFileNames
        } else {
            imageNames = (try? images.names().filter { StoreLayout.key(ofImageFile: $0) == key }) ?? []
        }
        for name in imageNames { try? images.remove(name) }
        let files = [StoreLayout.recordsDirectory + "/" + recordName] + imageNames.map { StoreLayout.imagesDirectory + "/" + $0 }
        return LikeChange(kind: .unliked, id: existing?.id ?? id, date: Timestamp.date(now), record: nil, files: files)
    }

    /// Writes `record` back as the current record file.
    private func restore(_ record: StoredRecord) throws {
        let temporary = StoreLayout.temporaryRecordFileName(record.key, Generation.make())
        try records.createFile(temporary, data: try record.encoded(), durable: durable)
        try records.rename(temporary, to: StoreLayout.recordFileName(record.key))
        if durable { try records.sync(commit: true) }
    }

    // MARK: Journal

    /// Appends one line; if the append fails, cuts the journal back so no partial line remains.
    func appendJournal(_ line: JournalLine) throws {
        try appendJournal([line])
    }

    func appendJournal(_ lines: [JournalLine], durable: Bool? = nil) throws {
        guard !lines.isEmpty else { return }
        let durable = durable ?? self.durable
        let sizeBefore = try root.entry(StoreLayout.journalFileName)?.size
        do {
            try root.append(StoreLayout.journalFileName, bytes: lines.flatMap(\.encoded), durable: durable)
            if let size = try? root.entry(StoreLayout.journalFileName)?.size {
                FileLock.noteJournalLength(size, lockDescriptor: lockDescriptor)
            }
        } catch let error as LikeRepositoryError {
            if let sizeBefore { try? root.truncate(StoreLayout.journalFileName, to: sizeBefore, durable: durable) }
            throw error
        }
    }

    /// Appends the `A` line that takes back `line`, whose change did not happen.
    func abort(_ line: JournalLine) throws {
        try appendJournal(
            JournalLine(
                operation: .aborted, at: line.at, generation: line.generation, bytes: 0, imageGeneration: "-", userImageGeneration: nil, key: line.key
            ))
    }

    /// Makes the journal's end sound before a change: cuts a torn last line, takes back a last
    /// line whose change never committed, and rebuilds a missing or unreadable journal from the
    /// record files. Returns the journal's clock.
    private func recoverJournal() throws -> Int64 {
        guard let entry = try root.entry(StoreLayout.journalFileName), entry.size > 0,
            entry.size >= FileLock.notedJournalLength(in: root) ?? 0
        else {
            return try rebuildJournal()
        }
        // Lines are short: 4 KiB nearly always holds the last one whole (with the newline before
        // it); a photo in many albums makes a longer one, so read more until it does.
        var tailLength = min(entry.size, 4 * 1024)
        var tail = try root.read(StoreLayout.journalFileName, range: (entry.size - tailLength)..<entry.size)
        // Needed before the last byte: the newline ending the line before, and (when a crash tore
        // the end off) the one ending the last whole line.
        while tailLength < entry.size, tail.dropLast().filter({ $0 == 0x0A }).count < (tail.last == 0x0A ? 1 : 2) {
            tailLength = min(entry.size, tailLength * 4)
            tail = try root.read(StoreLayout.journalFileName, range: (entry.size - tailLength)..<entry.size)
        }
        guard let lastNewline = tail.lastIndex(of: 0x0A) else { return try rebuildJournal() }
        if lastNewline != tail.count - 1 {
            // An append cut short by a crash: its change never committed.
            try root.truncate(StoreLayout.journalFileName, to: entry.size - (tail.count - 1 - lastNewline), durable: durable)
        }
        let lineStart = tail[..<lastNewline].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        guard lineStart > 0 || tailLength == entry.size, let last = JournalLine.parse(tail[lineStart..<lastNewline]) else {
            return try rebuildJournal()
        }
        if [.liked, .updated, .unliked].contains(last.operation), try !repository.hasCommitted(last, records: records) {
            try abort(last)
        }
        return last.at
    }

    /// Writes a new journal from the record files (a header and one `L` line per record in
    /// `likedAt` order) and puts it in place atomically. Returns the newest time in it.
    @discardableResult
    func rebuildJournal(from entries: [LiveEntry]? = nil) throws -> Int64 {
        let live = try entries ?? repository.decodeAllRecords(in: records).entries
        let sorted = live.sorted { ($0.likedAt, $0.key) < ($1.likedAt, $1.key) }
        let now = max(Timestamp.now(), sorted.last?.likedAt ?? 0)
        var bytes = JournalLine.header(at: now, snapshotLines: sorted.count).encoded
        bytes.reserveCapacity(sorted.count * 64)
        for entry in sorted {
            bytes +=
                JournalLine(
                    operation: .liked, at: entry.likedAt, generation: entry.generation, bytes: entry.bytes,
                    imageGeneration: entry.imageGeneration, userImageGeneration: entry.userImageGeneration, key: entry.key,
                    albums: entry.albums
                ).encoded
        }
        try? root.remove(StoreLayout.journalTemporaryFileName)
        try bytes.withUnsafeBytes { try root.createFile(StoreLayout.journalTemporaryFileName, bytes: $0, durable: durable) }
        try root.rename(StoreLayout.journalTemporaryFileName, to: StoreLayout.journalFileName)
        if durable { try root.sync(commit: true) }
        FileLock.noteJournalLength(bytes.count, lockDescriptor: lockDescriptor)
        return max(now, sorted.last?.likedAt ?? 0)
    }
}

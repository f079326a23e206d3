// Owns one change to the store under its exclusive lock: the order of writes that makes every
// crash harmless, and the recovery of a dead writer's end of the journal first. Made by
// Store.withWriteSession; returns StoredChanges, which the façade makes public.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// The directories and journal state of a store while its lock is held.
///
/// A like writes, in this order: the new image files (fresh names), the record under a
/// temporary name, the journal line; flushes them; renames the record into place. Images it
/// replaced are removed last. An unlike appends its line, flushes, removes the record file, then
/// the images.
///
/// Where files are flushed one by one (``FlushMethod/eachFile``, ``FlushMethod/barrier``),
/// each is flushed as it is written and the rename is the commit: the directory is flushed after
/// it. Where one `syncfs` flushes everything (``FlushMethod/wholeFileSystem``), that flush is
/// the commit, and the only one: once it returns, the line and every file it names are on disk,
/// and the rename (or the removal) follows unflushed. The next change's `syncfs` makes it
/// durable; a power cut before that leaves the line's change half done, and the next session
/// finishes it (``finish(_:records:images:root:durable:)``).
///
/// The journal line goes first so that the journal never misses a committed change. Since the
/// lock serializes writers and every change flushes all that came before it, only the journal's
/// last change can be waiting, or the one before it when the last one's line reached the disk
/// unflushed: the next session checks both against the record files (`Journal.settle`), finishes
/// what it can, and appends an `A` line that takes back a last change that cannot be finished.
package struct WriteSession {
    let root: StoreDirectory
    let records: RecordFiles
    let images: ImageFiles
    let journal: Journal
    let durable: Bool
    /// The newest time in the journal: every new line's time is past it, so `L` lines stay in
    /// `likedAt` order even when the system clock steps back, and no two likes share a
    /// millisecond (the listing order and its cursors then follow the journal's order).
    private(set) var clock: Int64 = 0
    /// Whether the journal's header allows `L` lines out of the listing's order (see
    /// ``JournalLine/unsortedFormatName``): only in a restore's sessions, which sort it at the end.
    package private(set) var isUnsorted = false
    /// The place of the journal's newest `L` line, once looked up (`.some(nil)`: it has none):
    /// a restored like placed after it keeps the journal in order.
    private var newestLiked: ListingKey??
    /// The commits of a batch written and not yet committed (see ``beginBatch()``), `nil` when
    /// each commit is its own.
    private var batch: Batch?

    /// Whether every change of this session is finished as far as the next session's look at the
    /// journal's end would finish it (see ``Store/withWriteSession(restoring:_:)``): false once
    /// a batch's last flush failed and left its mark.
    var endsSettled: Bool { batch == nil && !leftBatchMark }
    private var leftBatchMark = false

    /// `keepingUnsorted`: a restore's session, which leaves a journal that it marked unsorted so
    /// (every other session sorts such a journal first). `settledAt`: the newest time of a
    /// journal known settled and in this version's format, as this process's last session left
    /// it, whose end is then not looked at again.
    init(root: StoreDirectory, lockDescriptor: Int32, durable: Bool, keepingUnsorted: Bool = false, settledAt: Int64? = nil) throws {
        self.root = root
        self.durable = durable
        records = RecordFiles(directory: try root.subdirectoryCreatingIfNeeded(RecordFiles.directoryName, durable: durable))
        images = ImageFiles(directory: try root.subdirectoryCreatingIfNeeded(ImageFiles.directoryName, durable: durable))
        journal = Journal(root: root, lockDescriptor: lockDescriptor)
        if let settledAt, !keepingUnsorted {
            clock = settledAt
            return
        }
        let (records, images) = (records, images)
        let finishing = { (line: JournalLine) in try Self.finish(line, records: records, images: images, root: root, durable: durable) }
        if let end = try journal.recoverEnd(records: records, durable: durable, finishing: finishing) {
            clock = end.lastTime
            if end.format == JournalLine.unsortedFormatName, keepingUnsorted {
                isUnsorted = true
            } else if end.format != JournalLine.formatName {
                // Written before the catalog: once, its photos' lines are written anew with it,
                // from the records where the journal is damaged (its index would miss photos).
                // Left unsorted by a restore: sorted.
                try rewriteJournal(format: JournalLine.formatName)
            }
        } else {
            // Missing, cut short or unreadable at its end: written anew from the records, once
            // the photos whose records were lost are rescued from what evidence is left.
            clock = try rebuildJournal(rescuingLostRecords: true)
        }
    }

    /// The store as this session sees it, for reading under its lock.
    func openStore(lockTimeout: Double) -> OpenStore {
        OpenStore(root: root, records: records, images: images, lockTimeout: lockTimeout)
    }

    mutating func tick() -> Int64 {
        clock = max(clock + 1, Timestamp.now())
        return clock
    }

    // MARK: Batches

    /// Likes written, waiting to be committed together by ``commitBatch()``.
    private struct Batch {
        /// The journal's length before the batch's lines.
        var offset: Int?
        var queued: [Queued] = []
        /// The keys of the queued records, so that a like need not look through the batch.
        var keys: Set<String> = []
    }

    private struct Queued {
        var record: StoredRecord
        var line: JournalLine
        var existing: StoredRecord?
        var progress: Progress
    }

    /// From now until ``commitBatch()``, likes (``like(_:flushCommit:)``, ``restore(_:likedAt:)``)
    /// are written and committed together, where one `syncfs` flushes the whole file system
    /// (elsewhere each commits as before): a restore or an import of many photos then costs three
    /// flushes a batch instead of one a photo.
    ///
    /// The order, which makes a crash at any point harmless: the batch mark (``Journal/markBatch(at:)``)
    /// and every photo's files, unflushed; one flush; the batch's journal lines, in one append;
    /// one flush, the commit; each record renamed into place; one flush; the mark removed. A
    /// crash before the lines are flushed leaves files that belong to no line (orphans), or lines
    /// whose files are all on disk, which the next session finishes as it finishes a single
    /// change (`Journal.finishBatch`); after it, only renames to finish.
    mutating func beginBatch() {
        if flushesOnce { batch = Batch() }
    }

    /// Whether likes are committed in batches here (see ``beginBatch()``): then a batch's commit
    /// is flushed whole, and nothing is left to flush after it.
    var commitsInBatches: Bool { flushesOnce }

    /// Commits the likes written since ``beginBatch()``, and ends the batch.
    mutating func commitBatch() throws {
        defer { batch = nil }
        guard let queued = batch?.queued, !queued.isEmpty, let offset = batch?.offset else { return }
        do {
            try root.syncFileSystem()
            try journal.append(queued.map(\.line), durable: false)
        } catch {
            for item in queued { rollBack(item.progress, to: item.existing, key: item.record.key) }
            try? journal.unmarkBatch()
            throw error
        }
        do {
            try root.syncFileSystem()
        } catch {
            // Not committed: the lines back out, then the files, then the mark.
            try? root.truncate(Journal.fileName, to: offset, durable: false, notingLengthAs: Platform.journalLengthAttribute)
            for item in queued { for (directory, name) in item.progress.created { try? directory.remove(name) } }
            try? journal.unmarkBatch()
            throw error
        }
        // Committed: every rename the next session would otherwise finish.
        for item in queued {
            let temporary = StoreLayout.temporaryRecordFileName(item.record.key, item.record.generation)
            try records.directory.rename(temporary, to: StoreLayout.recordFileName(item.record.key))
        }
        // Flushed before the mark goes (a failure leaves the mark, and the next session's
        // renames, already made, find nothing to do).
        guard (try? root.syncFileSystem()) != nil else {
            leftBatchMark = true
            return
        }
        try journal.unmarkBatch()
        for item in queued { removeReplaced(item.existing, by: item.record) }
    }

    /// Commits the batch first when it holds a like of this photo: a like of it after sees it.
    private mutating func commitBatchHolding(_ key: String) throws {
        if batch?.keys.contains(key) == true { try commitBatch(); beginBatch() }
    }

    // MARK: Like and unlike

    func isLiked(_ id: String) throws -> Bool {
        try records.exists(key: StorageKey.make(for: id))
    }

    /// Likes or updates one photo.
    ///
    /// With `flushCommit` false, on Apple platforms the commit's flush is a barrier, which the
    /// caller's full flush after a run of likes makes durable. Elsewhere it makes no difference.
    package mutating func like(_ request: StoreRequest, flushCommit: Bool = true) throws -> StoredChange {
        var request = request
        try commitBatchHolding(StorageKey.make(for: request.id))
        var existing: StoredRecord?
        do {
            existing = try records.read(key: StorageKey.make(for: request.id))
        } catch StoreError.damagedRecord where request.image != nil {
            existing = nil  // a new like with a new image replaces a damaged record
        }
        if let existing, existing.id != request.id {
            throw StoreError.idCollision(id: request.id, existing: existing.id)
        }
        guard existing != nil || request.image != nil else { throw StoreError.imageRequired(id: request.id) }
        if let existing {
            // What this store's own like gives is its change, even where the value is the same.
            if request.stamps == nil, request.image != nil {
                var restated = ["image"]
                if request.userImage != nil { restated.append("userImage") }
                if case .set = request.note { restated.append("note") }
                if request.photo != nil { restated.append("photo") }
                request.restated = restated
            }
            // An image the photo has already, byte for byte, is no change: it is not written again.
            if let image = request.image,
                try images.holds(image, StoreLayout.imageFileName(existing.key, existing.image.generation, user: false), as: existing.image)
            {
                request.image = nil
            }
            if let image = request.userImage, let user = existing.userImage,
                try images.holds(image, StoreLayout.imageFileName(existing.key, user.generation, user: true), as: user)
            {
                request.userImage = nil
            }
            if request.image == nil, request.userImage == nil, request.note(after: existing.note) == existing.note,
                request.albums(after: existing.albums) == existing.albums, request.covers(after: existing) == existing.covers,
                request.photo(after: existing.photo) == existing.photo, !request.restampsCovers(of: existing),
                !(request.clearsUserImage && existing.userImage != nil)
            {
                return StoredChange(kind: .unchanged, id: existing.id, at: clock, record: existing)
            }
        }
        return try commit(request, over: existing, flushCommit: flushCommit)
    }

    /// The liked photo's record, which a change to its note or albums needs.
    package func existingRecord(_ id: String) throws -> StoredRecord {
        guard let existing = try records.read(key: StorageKey.make(for: id)) else { throw StoreError.notLiked(id: id) }
        guard existing.id == id else { throw StoreError.idCollision(id: id, existing: existing.id) }
        return existing
    }

    /// Changes a liked photo's note, albums or covers, given its record as ``existingRecord(_:)`` read it
    /// under this lock; `nil` when the record has them already, so that nothing is written.
    mutating func edit(_ request: StoreRequest, over existing: StoredRecord) throws -> StoredChange? {
        guard
            request.note(after: existing.note) != existing.note || request.albums(after: existing.albums) != existing.albums
                || request.covers(after: existing) != existing.covers || request.restampsCovers(of: existing)
        else { return nil }
        return try commit(request, over: existing, flushCommit: true)
    }

    /// Writes what was read from a liked photo's image file and pixels (`image`, naming the
    /// same file as the record's) into its record; `nil`, writing nothing, when the record has
    /// them already or names another file now. A thumbnail made before the orientation was
    /// known is removed, to be made anew upright.
    package mutating func replaceImageFacts(of existing: StoredRecord, with image: StoredRecord.Image) throws -> StoredChange? {
        guard existing.image.isSameFile(as: image), existing.image != image else { return nil }
        var request = StoreRequest(id: existing.id)
        request.imageFacts = image
        return try commit(request, over: existing, flushCommit: true)
    }

    /// What a like has written so far, to take back if a later step fails.
    private struct Progress {
        var created: [(StoreDirectory, String)] = []
        var lineWritten: JournalLine?
        var committed = false
    }

    /// Likes a photo as it was liked before, at `likedAt`, for a restore; `nil`, writing nothing,
    /// when a photo of its key is liked already.
    ///
    /// The like's `L` line has `likedAt` as its time. Where that is not past the journal's newest
    /// `L` line, the journal is first marked as one whose lines may be out of order
    /// (``JournalLine/unsortedFormatName``, in place, or written anew so where its header cannot
    /// be written over); the restore sorts it when it ends (``sortJournal()``). The commit is
    /// flushed as ``like(_:flushCommit:)`` flushes it with `flushCommit` false.
    package mutating func restore(_ request: StoreRequest, likedAt: Int64) throws -> StoredChange? {
        let key = StorageKey.make(for: request.id)
        try commitBatchHolding(key)
        if try records.exists(key: key) { return nil }
        let place = ListingKey(likedAt: likedAt, key: key)
        if !isUnsorted {
            if let newest = try newestLikedPlace(), !(newest < place) {
                if try journal.markUnsorted(durable: durable) {
                    isUnsorted = true
                    newestLiked = nil
                } else {
                    try rewriteJournal(format: JournalLine.unsortedFormatName)
                }
            } else {
                newestLiked = .some(place)
            }
        }
        let change = try commit(request, over: nil, flushCommit: false, likedAt: likedAt)
        clock = max(clock, likedAt)
        return change
    }

    /// Sorts a journal that a restore marked unsorted, and gives it the usual header.
    mutating func sortJournal() throws {
        guard isUnsorted else { return }
        try rewriteJournal(format: JournalLine.formatName)
    }

    /// Writes the journal anew, sorted, under the header `format`: by moving its lines where it
    /// is sound (a few megabytes at 100,000 photos), else from its index (from the records where
    /// it is damaged).
    private mutating func rewriteJournal(format: String) throws {
        // A batch under way is committed into the journal it began in.
        if batch != nil {
            try commitBatch()
            beginBatch()
        }
        if let newest = try journal.rewriteByMoving(records: records, durable: durable, format: format) {
            clock = max(clock, newest)
        } else {
            let index = try journal.index(records: records)
            var entries = Array(index.live.values)
            if index.damage != nil {
                try rescueLostRecords()
                entries = try records.decodeAll().entries
            }
            clock = max(clock, try journal.rewrite(entries, records: records, durable: durable, format: format))
        }
        isUnsorted = format == JournalLine.unsortedFormatName
        newestLiked = nil
    }

    /// The place of the journal's newest `L` line (its last one, in a sorted journal), found by
    /// walking back from its end; `nil` when it has none, or (to be safe) when none is met in
    /// the last 4,096 lines.
    private mutating func newestLikedPlace() throws -> ListingKey? {
        if let known = newestLiked { return known }
        var found: ListingKey?
        var walked = 0
        var sawHeader = false
        if let reader = try journal.reader(records: nil, mapped: true) {
            let end = try reader.backwardViews(checkingEveryField: false) { view in
                walked += 1
                if view.operation == .liked {
                    found = ListingKey(view)
                    return false
                }
                return walked < 4096
            }
            sawHeader = end == .header
        }
        guard found != nil || sawHeader else {
            // Not known: placed at the end of time, so that a restored like marks the journal.
            return ListingKey(likedAt: .max, key: "")
        }
        newestLiked = .some(found)
        return found
    }

    /// Whether a change is made durable by one `syncfs` after its journal line, rather than by
    /// flushing each file as it is written and the rename after it (see the type's comment).
    private var flushesOnce: Bool { durable && root.flushStrategy == .wholeFileSystem }

    /// Writes the record `request` makes of `existing` (read under this lock), with its new
    /// images, and commits it: images, temporary record, journal line, flush, rename.
    /// `likedAt`: a restored like's time, the line's and the record's, instead of the clock's.
    private mutating func commit(
        _ request: StoreRequest, over existing: StoredRecord?, flushCommit: Bool, likedAt: Int64? = nil
    ) throws -> StoredChange {
        let generation = Generation.make()
        let now = likedAt ?? tick()
        // A restored like keeps its date, but is a change made now.
        let changedAt = likedAt == nil ? now : max(clock, Timestamp.now())
        var progress = Progress()
        let flushEach = durable && !flushesOnce
        do {
            if batch != nil, batch?.offset == nil {
                // The batch's mark first: written before any of its files, flushed with them.
                let offset = try root.entry(Journal.fileName)?.size ?? 0
                try journal.markBatch(at: offset)
                batch?.offset = offset
            }
            let record = try writeImagesAndRecord(
                request, over: existing, generation: generation, now: now, changedAt: changedAt, flushEach: flushEach, &progress)
            let line = JournalLine.describing(record.liveEntry, operation: existing == nil ? .liked : .updated, at: now)
            if batch != nil {
                batch?.queued.append(Queued(record: record, line: line, existing: existing, progress: progress))
                batch?.keys.insert(record.key)
                return StoredChange(kind: existing == nil ? .liked : .updated, id: record.id, at: now, record: record)
            }
            try journal.append([line], durable: flushEach)
            progress.lineWritten = line
            // One syncfs: the line, the files it names and every change before are on disk.
            if flushesOnce { try root.syncFileSystem() }
            try records.directory.rename(progress.created[progress.created.count - 1].1, to: StoreLayout.recordFileName(record.key))
            progress.created.removeLast()
            progress.committed = true
            // File by file, the rename is the commit: flushed now, fully unless a batch's last
            // flush will (on Apple platforms, where that differs).
            if flushEach { try records.directory.sync(commit: flushCommit) }

            removeReplaced(existing, by: record)
            return StoredChange(kind: existing == nil ? .liked : .updated, id: record.id, at: now, record: record)
        } catch {
            rollBack(progress, to: existing, key: StorageKey.make(for: request.id))
            throw error
        }
    }

    /// Once a change is committed: the images it replaced are orphans now, and the old image's
    /// thumbnail; a crash here leaves them to purge.
    private func removeReplaced(_ existing: StoredRecord?, by record: StoredRecord) {
        for name in existing?.imageFileNames ?? [] where !record.imageFileNames.contains(name) {
            try? images.directory.remove(name)
        }
        if let existing, existing.image.generation != record.image.generation || existing.image.orientation != record.image.orientation {
            // Another image, or one now known to be turned: its thumbnail is made anew.
            removeThumbnail(of: existing)
        }
    }

    /// The stamps of a record written over `existing`: what changed, stamped with the request's
    /// merged stamp or this change's time; the rest as it was. A record from before stamps were
    /// kept counts every part as changed when the photo was liked.
    static func stamps(of record: StoredRecord, over existing: StoredRecord?, request: StoreRequest, at time: Int64) -> RecordStamps {
        let local = String(time)
        let merged = request.stamps
        func stamp(_ part: String) -> String { merged?[part] ?? local }
        // A like of this store's own (not merged, carrying an image): a like wherever its change goes.
        let ownLike = merged == nil && request.restated.contains("image")
        guard let existing else { return firstStamps(of: record, request: request, local: local) }
        var stamps =
            existing.stamps
            ?? {
                var legacy = RecordStamps()
                legacy.set(RecordStamps.parts, to: String(existing.likedAt))
                return legacy
            }()
        for part in (record.changed ?? []).map(\.rawValue) + request.restated { stamps.set([part], to: stamp(part)) }
        // Each membership that changed, and those a like of this store's gives again.
        var memberships = Set(existing.albums).symmetricDifference(record.albums)
        if ownLike { memberships.formUnion(Set(request.addAlbums).intersection(record.albums)) }
        for name in memberships {
            let part = RecordStamps.album(name)
            stamps.set([part], to: merged?[part] ?? stamp(RecordField.albums.rawValue))
        }
        if !memberships.isEmpty { stamps.set([RecordField.albums.rawValue], to: stamp(RecordField.albums.rawValue)) }
        // Each choice of cover made or taken back (a photo taken out of an album is no longer its cover).
        for name in Set(existing.covers).symmetricDifference(record.covers) {
            let part = RecordStamps.cover(name)
            stamps.set([part], to: merged?[part] ?? stamp(RecordField.albums.rawValue))
        }
        if let merged {
            for name in record.covers { if let stamp = merged[RecordStamps.cover(name)] { stamps.set([RecordStamps.cover(name)], to: stamp) } }
        } else {
            // A cover chosen again, and one whose membership a like of this store's gives again
            // (which stamps the membership anew: the choice must stay no older than it).
            let restated = ownLike ? Set(request.addAlbums) : []
            for name in record.covers where request.chooseCovers.contains(name) || restated.contains(name) {
                stamps.set([RecordStamps.cover(name)], to: local)
            }
        }
        if ownLike {
            stamps.set([RecordStamps.like(at: time)], to: local)
            stamps.keepNewestLikes()
        }
        return stamps
    }

    /// The stamps of a first like's record: a merged one's as merged; this store's own, what the
    /// like gave, and what it did not give never given.
    private static func firstStamps(of record: StoredRecord, request: StoreRequest, local: String) -> RecordStamps {
        var stamps = RecordStamps()
        if let merged = request.stamps {
            for part in RecordStamps.parts { stamps.set([part], to: merged[part] ?? local) }
            for name in record.albums {
                stamps.set([RecordStamps.album(name)], to: merged[RecordStamps.album(name)] ?? merged["albums"] ?? local)
            }
            for name in record.covers {
                stamps.set([RecordStamps.cover(name)], to: merged[RecordStamps.cover(name)] ?? merged["albums"] ?? local)
            }
            return stamps
        }
        let never = RecordStamps.neverGiven
        stamps.set([RecordStamps.liked, RecordField.image.rawValue], to: local)
        stamps.set([RecordField.userImage.rawValue], to: request.userImage != nil ? local : never)
        if case .set = request.note {
            stamps.set([RecordField.note.rawValue], to: local)
        } else {
            stamps.set([RecordField.note.rawValue], to: never)
        }
        stamps.set([RecordField.photo.rawValue], to: request.photo != nil ? local : never)
        stamps.set([RecordField.albums.rawValue], to: record.albums.isEmpty ? never : local)
        stamps.set(record.albums.map(RecordStamps.album), to: local)
        stamps.set(record.covers.map(RecordStamps.cover), to: local)
        return stamps
    }

    /// Writes the request's new images under fresh names, then the record under a temporary name
    /// (the last of `progress.created`); flushes them when `flushEach`.
    private func writeImagesAndRecord(
        _ request: StoreRequest, over existing: StoredRecord?, generation: String, now: Int64, changedAt: Int64, flushEach: Bool,
        _ progress: inout Progress
    ) throws -> StoredRecord {
        let key = StorageKey.make(for: request.id)
        func store(_ image: StoreRequest.Image?, user: Bool) throws -> StoredRecord.Image? {
            guard let image else { return nil }
            let name = StoreLayout.imageFileName(key, generation, user: user)
            let checksum: UInt32
            switch image.source {
            case .bytes(let data, let crc):
                try images.directory.createFile(name, data: data, durable: flushEach)
                checksum = crc
            case .file(let path, let version):
                let file = try ImageFileReader(path: path)
                defer { file.close() }
                checksum = try images.directory.createFile(name, copying: file, expecting: version, durable: flushEach)
            }
            progress.created.append((images.directory, name))
            var stored = image.stored(generation: generation, checksum: checksum)
            if user { stored.color = nil }
            return stored
        }
        let newImage = try store(request.image, user: false)
        let newUserImage = try store(request.userImage, user: true)
        if flushEach, !progress.created.isEmpty { try images.directory.sync() }
        if let url = request.owedRequest, newImage != nil {
            // Owed for this image's generation: it owes nothing once the photo is unliked or
            // liked with another image (see Store.owedRequests).
            let owed = try root.subdirectoryCreatingIfNeeded(StoreLayout.owedDirectory, durable: flushEach)
            let name = StoreLayout.owedFileName(key, generation)
            try owed.createFile(name, data: Data(url.utf8), durable: flushEach)
            if flushEach { try owed.sync() }
            progress.created.append((owed, name))
        }

        let photo = request.photo(after: existing?.photo)
        guard let mainImage = newImage ?? request.imageFacts ?? existing?.image else { throw StoreError.imageRequired(id: request.id) }
        var record = StoredRecord(
            id: existing?.id ?? request.id, generation: generation, likedAt: existing?.likedAt ?? now, image: mainImage,
            userImage: newUserImage ?? (request.clearsUserImage ? nil : existing?.userImage), note: request.note(after: existing?.note), photo: photo,
            albums: request.albums(after: existing?.albums ?? []))
        record.covers = request.covers(after: existing)
        if let existing {
            var changed = record.fields(changedSince: existing)
            // A cover chosen again is a change of the photo's albums, as observers see it.
            if !changed.contains(.albums), request.restampsCovers(of: existing) { changed.append(.albums) }
            record.changed = changed
        }
        record.stamps = Self.stamps(of: record, over: existing, request: request, at: changedAt)
        let encoded = record.encoded()
        progress.created.append((records.directory, try records.writeTemporary(record, encoded: encoded, durable: flushEach)))
        // For observers elsewhere, who may read this change only after a later one replaced it.
        RecentRecords(root: root).append(record, encoded: encoded)
        return record
    }

    /// Takes back a like that failed part way, so that the failure the caller sees is also what
    /// the store shows: the previous record back if the rename happened (it may not be durable),
    /// the files written removed, the journal line taken back.
    private func rollBack(_ progress: Progress, to existing: StoredRecord?, key: String) {
        if progress.committed {
            if let existing {
                try? restore(existing)
            } else {
                try? records.remove(key: key)
                if durable { try? records.directory.sync(commit: true) }
            }
        }
        for (directory, name) in progress.created { try? directory.remove(name) }
        if let line = progress.lineWritten { try? journal.append([.aborting(line)], durable: durable) }
    }

    /// Unlikes a photo. `stamp`: for an unlike a sync merged, the other device's stamp, kept in
    /// the record the `U` line holds (see ``RecordStamps/unliked``).
    mutating func unlike(_ id: String, stamp: String? = nil) throws -> StoredChange {
        let key = StorageKey.make(for: id)
        // A batch under way first: the journal keeps the changes in the order they were made.
        if batch != nil {
            try commitBatch()
            beginBatch()
        }
        var existing: StoredRecord?
        do {
            existing = try records.read(key: key)
        } catch StoreError.damagedRecord {
            existing = nil  // unliking a damaged record still removes it and its images
        }
        if existing == nil, try !records.exists(key: key) { throw StoreError.notLiked(id: id) }
        let now = tick()
        let kept = existing.map { record in
            var kept = record
            if let stamp {
                kept.stamps = kept.stamps?.setting(RecordStamps.unliked, to: stamp) ?? RecordStamps().setting(RecordStamps.unliked, to: stamp)
            }
            return kept
        }
        let line = JournalLine(
            operation: .unliked, at: now, generation: existing?.generation ?? String(repeating: "0", count: Generation.length),
            bytes: 0, imageGeneration: existing?.image.generation ?? "-", userImageGeneration: existing?.userImage?.generation, key: key,
            id: existing?.id ?? id, unlikedRecord: kept.map { Array($0.encoded()) })
        try journal.append([line], durable: durable && !flushesOnce)
        var removed = false
        do {
            if flushesOnce { try root.syncFileSystem() }
            try records.remove(key: key)
            removed = true
            if durable, !flushesOnce { try records.directory.sync(commit: true) }
        } catch {
            if removed, let existing { try? restore(existing) }
            try? journal.append([.aborting(line)], durable: durable)
            throw error
        }
        let imageNames = existing?.imageFileNames ?? ((try? images.names(of: key)) ?? [])
        for name in imageNames { try? images.directory.remove(name) }
        if let existing { removeThumbnail(of: existing) }
        let files = [RecordFiles.directoryName + "/" + StoreLayout.recordFileName(key)] + imageNames.map { ImageFiles.directoryName + "/" + $0 }
        var change = StoredChange(kind: .unliked, id: existing?.id ?? id, at: now, record: nil, files: files)
        change.unlikeStamp = stamp
        return change
    }

    /// Removes the thumbnail made of `record`'s image, if any: it goes with the image.
    /// Removes the thumbnail and renditions made from the record's image. (A rendition a crash
    /// leaves behind is an orphan, for purge.)
    private func removeThumbnail(of record: StoredRecord) {
        Self.removeThumbnail(key: record.key, imageGeneration: record.image.generation, root: root)
        Self.removeRenditions(of: record.image, key: record.key, root: root)
    }

    private static func removeThumbnail(key: String, imageGeneration: String, root: StoreDirectory) {
        guard let thumbnails = try? root.subdirectory(ThumbnailFiles.directoryName) else { return }
        try? thumbnails.remove(StoreLayout.thumbnailFileName(key, imageGeneration))
    }

    /// Removes every rendition its ladder could hold: a name per step, no listing.
    private static func removeRenditions(of image: StoredRecord.Image, key: String, root: StoreDirectory) {
        guard let renditions = try? root.subdirectory(RenditionFiles.directoryName) else { return }
        for side in RenditionFiles.ladder(width: image.width, height: image.height) {
            try? renditions.remove(RenditionFiles.fileName(key, image.generation, side: side))
        }
    }

    // MARK: Finishing a change after a crash

    /// Finishes the change of one of the journal's last lines, which its record file does not
    /// show yet, when everything it needs is on disk: the rename of its temporary record into place, whole,
    /// with its new images whole; or the removal of an unliked photo's record. Returns false when
    /// it cannot be finished (a power cut came before its flush and took some of it), and the
    /// caller takes the line back.
    ///
    /// Where a change is flushed by one `syncfs`, its line is its commit and a power cut may
    /// leave the rename undone; where files are flushed one by one, this finishes a change whose
    /// writer died between its line and its rename. Either way the change was whole on disk,
    /// and finishing it is what its writer was doing. The finishing rename or removal is flushed
    /// at once: the next line appended must find it durable.
    static func finish(_ line: JournalLine, records: RecordFiles, images: ImageFiles, root: StoreDirectory, durable: Bool) throws -> Bool {
        switch line.operation {
        case .liked, .updated:
            let current: StoredRecord? = try? records.read(key: line.key)
            let temporary = StoreLayout.temporaryRecordFileName(line.key, line.generation)
            guard let data = try? records.directory.read(temporary), let record = try? StoredRecord.decode(data), record.key == line.key,
                record.generation == line.generation, line.id == nil || line.id == record.id
            else { return false }
            // The images this change wrote, written with the line and flushed with it.
            var written: [(String, StoredRecord.Image)] = []
            if record.image.generation == line.generation {
                written.append((StoreLayout.imageFileName(line.key, record.image.generation, user: false), record.image))
            }
            if let user = record.userImage, user.generation == line.generation {
                written.append((StoreLayout.imageFileName(line.key, user.generation, user: true), user))
            }
            for (name, info) in written where try images.problem(name, info) != nil { return false }
            try records.directory.rename(temporary, to: StoreLayout.recordFileName(line.key))
            if durable { try records.directory.sync(commit: true) }
            for name in current?.imageFileNames ?? [] where !record.imageFileNames.contains(name) { try? images.directory.remove(name) }
            if let current, current.image.generation != record.image.generation {
                removeThumbnail(key: line.key, imageGeneration: current.image.generation, root: root)
                removeRenditions(of: current.image, key: line.key, root: root)
            }
            return true
        case .unliked:
            try records.remove(key: line.key)
            if durable { try records.directory.sync(commit: true) }
            var names = [StoreLayout.imageFileName(line.key, line.imageGeneration, user: false)]
            if let user = line.userImageGeneration { names.append(StoreLayout.imageFileName(line.key, user, user: true)) }
            for name in names { try? images.directory.remove(name) }
            removeThumbnail(key: line.key, imageGeneration: line.imageGeneration, root: root)
            return true
        default:
            return false
        }
    }

    /// Writes `record` back as the current record file.
    private func restore(_ record: StoredRecord) throws {
        try records.replace(with: record, durable: durable)
    }

    // MARK: Journal

    /// Writes a new journal from `entries`, or from the record files, decoded (a header and one
    /// `L` line per record in `likedAt` order), and puts it in place atomically. Returns the
    /// newest time in it.
    ///
    /// `rescuingLostRecords`: the journal is missing or damaged, so that photos whose record files
    /// are lost too would be named by no line of the new one, and their images taken for orphans:
    /// each is first rebuilt from what evidence is left, or set aside (see ``RepairPlan``).
    @discardableResult
    package func rebuildJournal(from entries: [LiveEntry]? = nil, rescuingLostRecords: Bool = false) throws -> Int64 {
        if rescuingLostRecords { try rescueLostRecords() }
        return try journal.rewrite(try entries ?? records.decodeAll().entries, records: records, durable: durable)
    }

    /// Rebuilds, or sets aside, the photos whose record files are missing or damaged while their
    /// images are not, before a journal that may be the last evidence of them is replaced.
    private func rescueLostRecords() throws {
        var plan = RepairPlan(root: root, durable: durable, apply: true)
        try plan.rescueLostRecords(records)
    }
}

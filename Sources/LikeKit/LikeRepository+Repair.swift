// repair: any damaged store back to one that verifies, deleting nothing.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension LikeRepository {
    /// Brings a damaged store back to a state ``verify()-axqj`` accepts, deleting nothing.
    ///
    /// What cannot stay is moved under `damaged/REPAIR/` in the store (`REPAIR` names the
    /// repair by its time), keeping its path inside the store: a record file that is cut, empty,
    /// garbled or not a regular file; a photo whose image is missing, cut short or changed (its
    /// record and every image of it); a user image that is damaged (the photo stays, without
    /// it); a journal that is garbled or cut short; folders, links and other entries where the
    /// store expects files. ``purge(dryRun:)-3p5qs`` and ``verify()-axqj`` leave `damaged/` alone.
    ///
    /// A photo whose record file was lost but whose image is whole and named by the journal is
    /// rebuilt: its id, like date, images and albums come back; its note and metadata, which
    /// only the record held, do not. Finally the journal is written anew from the records, and
    /// each photo's thumbnail is made where it is missing (a damaged one is set aside first).
    /// Orphan files are left for ``purge(dryRun:)-3p5qs``.
    ///
    /// ```swift
    /// let report = try repository.repair()
    /// for item in report.setAside { print(item.files, item.reason) }
    /// ```
    ///
    /// - Parameter dryRun: Report what would be done without changing anything (takes only a
    ///   shared lock, and works on a read-only store).
    /// - Returns: What was rebuilt and set aside, and whether the store verifies now.
    /// - Throws: ``LikeRepositoryError``: `storeBusy`, `io`.
    @discardableResult
    public func repair(dryRun: Bool = false) throws -> RepairReport {
        guard let opened = try store.open() else { return RepairReport(dryRun: dryRun, rebuilt: [], setAside: [], isOK: true) }
        var report: RepairReport
        if dryRun {
            let lock = try opened.sharedLock()
            var plan = RepairPlan(root: opened.root, durable: isDurable, apply: false)
            try plan.run()
            report = plan.report
            try repairThumbnails(opened, stamp: plan.stamp, apply: false, into: &report)
            _ = consume lock
        } else {
            report = try store.withExclusiveLock { root, lock in
                var plan = RepairPlan(root: root, durable: isDurable, apply: true)
                try plan.run()
                // The journal anew from the records as they are now; a session opening on a
                // store with no journal (set aside, or missing) has rebuilt it already.
                let hasJournal = try root.entry(Journal.fileName) != nil
                let session = try WriteSession(root: root, lockDescriptor: lock.descriptor, durable: isDurable)
                if plan.journalNeedsRebuild, hasJournal { try session.rebuildJournal() }
                observers.changed()
                var report = plan.report
                try repairThumbnails(session.openStore(lockTimeout: lockTimeout), stamp: plan.stamp, apply: true, into: &report)
                return report
            }
        }
        report.isOK = try verify().isOK
        return report
    }
}

extension LikeRepository {
    /// After the records are sound: each live photo's thumbnail made where it is missing, and
    /// where it is damaged set aside under `damaged/STAMP/thumbnails/` and made anew.
    fileprivate func repairThumbnails(_ opened: OpenStore, stamp: String, apply: Bool, into report: inout RepairReport) throws {
        guard let records = opened.records else { return }
        let thumbnails = try opened.thumbnails()
        let files = try opened.catalogFiles(locked: true)?.files ?? opened.index(locked: true).live.values.map(PhotoFiles.init)
        var shelf: StoreDirectory?
        for photo in files.sorted(by: { $0.key < $1.key }) {
            let state = try thumbnails.state(key: photo.key, generation: photo.imageGeneration)
            if case .whole = state { continue }
            guard let stored = try? records.read(key: photo.key), stored.image.generation == photo.imageGeneration else { continue }
            if case .damaged(let problem) = state, let directory = thumbnails.directory {
                let name = StoreLayout.thumbnailFileName(photo.key, photo.imageGeneration)
                report.setAside.append(
                    RepairReport.SetAside(
                        id: stored.id.rawValue, files: [ThumbnailFiles.directoryName + "/" + name],
                        reason: "the thumbnail of photo \(LikeRepositoryError.quoted(stored.id.rawValue)) \(problem), so it was made anew"))
                if apply {
                    if shelf == nil {
                        shelf = try opened.root.subdirectoryCreatingIfNeeded(StoreLayout.damagedDirectory, durable: isDurable)
                            .subdirectoryCreatingIfNeeded(stamp, durable: isDurable)
                            .subdirectoryCreatingIfNeeded(ThumbnailFiles.directoryName, durable: isDurable)
                    }
                    try directory.move(name, to: shelf!, as: name)
                }
            }
            if !apply {
                report.thumbnailsMade += 1
            } else if try makeThumbnail(of: stored, opened) != nil {
                report.thumbnailsMade += 1
            }
        }
    }
}

/// One repair: walks the store, decides what stays, what is rebuilt and what is set aside, and
/// (unless a dry run) does it.
private struct RepairPlan {
    let root: StoreDirectory
    let durable: Bool
    let apply: Bool
    var report = RepairReport(dryRun: true, rebuilt: [], setAside: [], isOK: false)
    /// Whether the journal must be written anew: records changed, or it disagrees with them.
    var journalNeedsRebuild = false
    /// What the kept records say, to compare with the journal.
    private var kept: [String: LiveEntry] = [:]
    /// `damaged/STAMP`, made on the first item set aside.
    private var shelf: StoreDirectory?
    let stamp: String

    init(root: StoreDirectory, durable: Bool, apply: Bool) {
        self.root = root
        self.durable = durable
        self.apply = apply
        report.dryRun = !apply
        let time = Timestamp.string(Timestamp.now()).filter { $0.isNumber || $0 == "T" }
        stamp = String(time.prefix(15)) + "Z-" + Generation.make().prefix(6)
    }

    mutating func run() throws {
        try sortRoot()
        var records = try root.subdirectory(RecordFiles.directoryName).map(RecordFiles.init)
        let images = try root.subdirectory(ImageFiles.directoryName).map(ImageFiles.init)
        // With records/ gone, every image would look orphaned: the photos the journal knows are
        // rebuilt into a new one (a dry run only reports what the journal says).
        let recordsLost = records == nil && images != nil
        if recordsLost, apply {
            records = RecordFiles(directory: try root.subdirectoryCreatingIfNeeded(RecordFiles.directoryName, durable: durable))
        }
        let journal = try readJournal(records: records, settleLastLine: !recordsLost)
        if let images { try sortImages(images.directory) }
        if let thumbnails = try root.subdirectory(ThumbnailFiles.directoryName) { try sortImages(thumbnails, folder: ThumbnailFiles.directoryName) }
        if let records {
            try sortRecords(records, images: images, journal: journal)
            // A record edited by hand, or an index that missed a change: the journal is rebuilt.
            if !journalNeedsRebuild, let index = journal.official, index.damage == nil, index.live != kept {
                journalNeedsRebuild = true
            }
        }
        if journal.damage != nil, try root.entry(StoreLayout.journalFileName) != nil {
            try setAside(
                [(root, StoreLayout.journalFileName)], id: nil,
                reason: "\(journal.damage!); it is rebuilt from the record files")
            journalNeedsRebuild = true
        }
    }

    // MARK: The root

    /// Anything at the top that is not ours as a file or folder of the kind expected is set aside.
    private mutating func sortRoot() throws {
        let expected: [String: Bool] = [
            StoreLayout.recordsDirectory: true, StoreLayout.imagesDirectory: true, StoreLayout.damagedDirectory: true,
            StoreLayout.thumbnailsDirectory: true, StoreLayout.journalFileName: false, FileLock.fileName: false,
            StoreLayout.journalTemporaryFileName: false,
        ]
        for name in try root.names().sorted() {
            guard let entry = try root.entry(name) else { continue }
            if let isDirectory = expected[name] {
                guard isDirectory ? entry.isDirectory : entry.isRegularFile else {
                    try setAside([(root, name)], id: nil, reason: "\(name) should be a \(isDirectory ? "folder" : "file") and is not")
                    continue
                }
            } else if !entry.isRegularFile {
                // A regular file here is an orphan, for purge; anything else has no place.
                try setAside(
                    [(root, name)], id: nil, reason: "the store holds no \(entry.isDirectory ? "folders" : "links or special files") of its own here")
            }
        }
    }

    private mutating func sortImages(_ images: StoreDirectory, folder: String = StoreLayout.imagesDirectory) throws {
        for name in try images.names().sorted() {
            guard let entry = try images.entry(name), !entry.isRegularFile else { continue }
            try setAside([(images, name)], id: nil, reason: "\(folder)/ holds only JPEG files, and this is not a regular file")
        }
    }

    // MARK: The journal

    struct JournalKnowledge {
        /// What every readable line says of the live photos, past any damage.
        var live: [String: LiveEntry] = [:]
        /// The index as readers load it (nothing past damage), when there is a records folder.
        var official: JournalIndex?
        var damage: String?
    }

    /// Reads what the journal knows, skipping lines it cannot read; notes whether it is damaged.
    /// `settleLastLine`: judge the last line by its record file, as readers do (not when every
    /// record file is gone, which would take back the newest like for no reason).
    private func readJournal(records: RecordFiles?, settleLastLine: Bool) throws -> JournalKnowledge {
        var knowledge = JournalKnowledge()
        guard let entry = try root.entry(Journal.fileName), entry.isRegularFile else { return knowledge }
        let journal = Journal(root: root)
        knowledge.live = try journal.index(records: settleLastLine ? records : nil, skippingDamage: true).live
        if let records {
            let official = try? journal.index(records: records)
            knowledge.official = official
            knowledge.damage = official?.damage
        } else if entry.size > 0, let damage = try journal.index(records: nil).damage {
            knowledge.damage = damage
        }
        return knowledge
    }

    // MARK: Records

    private mutating func sortRecords(_ records: RecordFiles, images: ImageFiles?, journal: JournalKnowledge) throws {
        var keysWithRecord: Set<String> = []
        for name in try records.directory.names().sorted() {
            guard let entry = try records.directory.entry(name) else { continue }
            guard let key = StoreLayout.key(ofRecordFile: name) else {
                if !entry.isRegularFile {
                    try setAside([(records.directory, name)], id: nil, reason: "records/ holds only record files, and this is not a regular file")
                }
                continue  // a regular file that is no record: an orphan, for purge
            }
            keysWithRecord.insert(key)
            let lostBecause: String
            if !entry.isRegularFile {
                lostBecause = "it is not a regular file"
            } else {
                do {
                    if let stored = try records.read(key: key) {
                        kept[key] = stored.liveEntry
                        try check(stored, records: records, images: images)
                    }
                    continue
                } catch LikeRepositoryError.damagedRecord(_, let reason) {
                    lostBecause = reason
                }
            }
            try rebuildOrSetAside(key: key, recordName: name, lostBecause: lostBecause, records: records, images: images, journal: journal)
        }
        // Photos the journal says are liked, whose record file is gone but whose images are not.
        for (key, _) in journal.live where !keysWithRecord.contains(key) && journal.damage == nil {
            guard let images, try images.directory.entry(StoreLayout.imageFileName(key, journal.live[key]!.imageGeneration, user: false)) != nil
            else {
                continue
            }
            try rebuildOrSetAside(
                key: key, recordName: nil, lostBecause: "its record file is missing", records: records, images: images, journal: journal)
        }
    }

    /// Keeps a record whose images are whole; sets aside the photo when its image is not, and
    /// only the user image when that alone is damaged.
    private mutating func check(_ stored: StoredRecord, records: RecordFiles, images: ImageFiles?) throws {
        let who = LikeRepositoryError.quoted(stored.id.rawValue)
        let mainName = StoreLayout.imageFileName(stored.key, stored.image.generation, user: false)
        if let problem = try images.map({ try $0.problem(mainName, stored.image) }) ?? "is missing" {
            try setAside(
                [(records.directory, StoreLayout.recordFileName(stored.key))] + photoImages(of: stored.key, in: images), id: stored.id.rawValue,
                reason: "the image of photo \(who) \(problem), so the photo cannot be kept")
            journalNeedsRebuild = true
            return
        }
        guard let user = stored.userImage else { return }
        let userName = StoreLayout.imageFileName(stored.key, user.generation, user: true)
        guard let problem = try images.map({ try $0.problem(userName, user) }) ?? "is missing" else { return }
        // The record without its user image, written first; the record as it was goes aside
        // with the image, and the new one takes its place.
        var kept = stored
        kept.userImage = nil
        kept.generation = Generation.make()
        let temporary = try writeTemporary(kept, in: records)
        let present = try images?.directory.entry(userName) != nil
        try setAside(
            (present ? [(images!.directory, userName)] : []) + [(records.directory, StoreLayout.recordFileName(stored.key))], id: stored.id.rawValue,
            reason: "the user image of photo \(who) \(problem); the photo is kept without it")
        try commit(temporary, of: kept, in: records)
    }

    /// Rebuilds a photo whose record is lost from its image and the journal, or sets aside what
    /// is left of it.
    private mutating func rebuildOrSetAside(
        key: String, recordName: String?, lostBecause: String, records: RecordFiles, images: ImageFiles?, journal: JournalKnowledge
    ) throws {
        let id = StorageKey.decode(key).flatMap { try? PhotoID($0) }
        let shown = id.map { "photo \(LikeRepositoryError.quoted($0.rawValue))" } ?? "the photo with key \(key)"
        if let id, let images, let entry = journal.live[key], let rebuilt = try rebuild(id, from: entry, images: images) {
            if let recordName {
                try setAside(
                    [(records.directory, recordName)], id: id.rawValue,
                    reason: "the record of \(shown) is lost (\(lostBecause)); it is rebuilt from its image and the journal")
            }
            try replaceRecord(with: rebuilt, in: records)
            report.rebuilt.append(id)
            return
        }
        let why =
            id == nil
            ? "the record is lost (\(lostBecause)) and its id cannot be read from its file name"
            : journal.live[key] == nil
                ? "the record of \(shown) is lost (\(lostBecause)) and the journal does not know the photo"
                : "the record of \(shown) is lost (\(lostBecause)) and its image is not whole"
        try setAside((recordName.map { [(records.directory, $0)] } ?? []) + photoImages(of: key, in: images), id: id?.rawValue, reason: why)
        journalNeedsRebuild = true
    }

    /// The record the journal's line describes, if its images are there, whole JPEGs of the size
    /// the line gives.
    private func rebuild(_ id: PhotoID, from entry: LiveEntry, images: ImageFiles) throws -> StoredRecord? {
        func image(_ generation: String, user: Bool) throws -> StoredRecord.Image? {
            let name = StoreLayout.imageFileName(entry.key, generation, user: user)
            guard try images.directory.entry(name)?.isRegularFile == true, let data = try images.directory.read(name),
                let header = try? JPEGHeader(parsing: data)
            else { return nil }
            let crc = String(data.withUnsafeBytes { CRC32.checksum($0) }, radix: 16)
            return StoredRecord.Image(
                generation: generation, bytes: data.count, width: header.width, height: header.height,
                crc32: String(repeating: "0", count: 8 - crc.count) + crc)
        }
        guard let main = try image(entry.imageGeneration, user: false) else { return nil }
        var user: StoredRecord.Image?
        if let generation = entry.userImageGeneration {
            guard let found = try image(generation, user: true) else { return nil }
            user = found
        }
        guard Int64(main.bytes + (user?.bytes ?? 0)) == entry.bytes else { return nil }
        return StoredRecord(
            id: id, generation: Generation.make(), likedAt: entry.likedAt, image: main, userImage: user, note: nil, photo: nil,
            albums: entry.albums)
    }

    /// Writes `record` as its photo's record file: temporary name, flushed, renamed into place.
    private mutating func replaceRecord(with record: StoredRecord, in records: RecordFiles) throws {
        try commit(try writeTemporary(record, in: records), of: record, in: records)
    }

    private func writeTemporary(_ record: StoredRecord, in records: RecordFiles) throws -> String {
        guard apply else { return StoreLayout.temporaryRecordFileName(record.key, record.generation) }
        return try records.writeTemporary(record, durable: durable)
    }

    private mutating func commit(_ temporary: String, of record: StoredRecord, in records: RecordFiles) throws {
        journalNeedsRebuild = true
        guard apply else { return }
        try records.commit(temporary, of: record, durable: durable)
    }

    // MARK: Helpers

    /// Every file of images/ that belongs to the photo with `key`.
    private func photoImages(of key: String, in images: ImageFiles?) throws -> [(StoreDirectory, String)] {
        guard let images else { return [] }
        return try images.names(of: key).map { (images.directory, $0) }
    }

    /// Moves `items` under `damaged/STAMP/`, keeping their paths inside the store, and reports
    /// them as one item. Images go first, the record last: a crash between leaves a record whose
    /// images are missing (which the next repair sets aside), never images that look orphaned.
    private mutating func setAside(_ items: [(StoreDirectory, String)], id: String?, reason: String) throws {
        guard !items.isEmpty else { return }
        let files = items.map { directory, name in relativePath(directory, name) }
        report.setAside.append(RepairReport.SetAside(id: id, files: files, reason: reason))
        guard apply else { return }
        let recordPrefix = StoreLayout.recordsDirectory + "/"
        let ordered = zip(files, items).sorted { !$0.0.hasPrefix(recordPrefix) && $1.0.hasPrefix(recordPrefix) }.map(\.1)
        var touched: [StoreDirectory] = []
        for (directory, name) in ordered {
            let destination = try shelfFolder(for: directory)
            try directory.move(name, to: destination, as: name)
            for changed in [destination, directory] where !touched.contains(where: { $0 === changed }) { touched.append(changed) }
        }
        if durable {
            for directory in touched { try directory.sync(commit: directory === touched.last) }
        }
    }

    private func relativePath(_ directory: StoreDirectory, _ name: String) -> String {
        directory === root ? name : (directory.displayPath.split(separator: "/").last.map(String.init) ?? "") + "/" + name
    }

    /// `damaged/STAMP/` for the root's entries, `damaged/STAMP/records/` and `…/images/` for theirs.
    private mutating func shelfFolder(for directory: StoreDirectory) throws -> StoreDirectory {
        if shelf == nil {
            let damaged = try root.subdirectoryCreatingIfNeeded(StoreLayout.damagedDirectory, durable: durable)
            shelf = try damaged.subdirectoryCreatingIfNeeded(stamp, durable: durable)
        }
        guard directory !== root, let sub = directory.displayPath.split(separator: "/").last.map(String.init) else { return shelf! }
        return try shelf!.subdirectoryCreatingIfNeeded(sub, durable: durable)
    }
}

// Owns one repair of a store: walking it, deciding what stays, what is rebuilt and what is set
// aside under damaged/, and doing it. Called by Store.repair, and by a write session that
// must write a damaged journal anew (it rescues the photos whose records were lost first).

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// One repair: walks the store, decides what stays, what is rebuilt and what is set aside, and
/// (unless a dry run) does it.
struct RepairPlan {
    let root: StoreDirectory
    let durable: Bool
    let apply: Bool
    var report = StoreRepairReport(dryRun: true)
    /// Whether the journal must be written anew: records changed, or it disagrees with them.
    var journalNeedsRebuild = false
    /// What the kept records say, to compare with the journal.
    private var kept: [String: LiveEntry] = [:]
    /// `damaged/STAMP`, made on the first item set aside.
    private var shelf: StoreDirectory?
    /// Whether the current journal accounts for every write (see ``sortRecords``): then an image
    /// of a photo without a record that no line names is an orphan, not a photo to rescue.
    private var journalAccountsForEveryWrite = false
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
        var records = try root.subdirectoryIfFolder(RecordFiles.directoryName).map(RecordFiles.init)
        let images = try root.subdirectoryIfFolder(ImageFiles.directoryName).map(ImageFiles.init)
        // With records/ gone, every image would look orphaned: the photos the journal knows are
        // rebuilt into a new one (a dry run only reports what the journal says).
        let recordsLost = records == nil && images != nil
        if recordsLost, apply {
            records = RecordFiles(directory: try root.subdirectoryCreatingIfNeeded(RecordFiles.directoryName, durable: durable))
        }
        // The last line is judged by its record, as readers judge it, unless every record is gone
        // (which would take back the newest like for no reason).
        let evidence = try JournalEvidence(root: root)
        if let images { try sortImages(images.directory) }
        if let thumbnails = try root.subdirectory(ThumbnailFiles.directoryName) { try sortImages(thumbnails, folder: ThumbnailFiles.directoryName) }
        if let records {
            try sortRecords(records, images: images, evidence: evidence)
            // A record edited by hand, or an index that missed a change: the journal is rebuilt.
            if !journalNeedsRebuild, evidence.currentIsSound, evidence.current.live != kept {
                journalNeedsRebuild = true
            }
        }
        if evidence.currentExists, !evidence.currentIsSound {
            let damage = evidence.currentDamage ?? "the index \(Journal.fileName) is damaged"
            try setAside([(root, StoreLayout.journalFileName)], id: nil, reason: "\(damage); it is rebuilt from the record files")
            journalNeedsRebuild = true
        }
    }

    /// Only the rescue of photos whose record files are missing or damaged, for a write session
    /// about to write the journal anew from the record files (a missing or damaged one, or a
    /// sound one as `purge --rebuild-index` asks): each is rebuilt from what the journals still
    /// say, a temporary record or its images, or set aside, so that none of its images is left
    /// for purge to take as an orphan once the new journal no longer names it.
    ///
    /// Beside a sound journal that knows every record file, an image no line names is what a
    /// write that never committed left (a merge killed between a photo's images and its record,
    /// after the unlike that made room for it): an orphan, as `repair` takes it, not a photo to
    /// bring back from its image alone (which would be liked anew at the time the image was
    /// written, with none of what it had, and published by the next sync as this store's like).
    mutating func rescueLostRecords(_ records: RecordFiles) throws {
        guard let images = try root.subdirectory(ImageFiles.directoryName).map(ImageFiles.init) else { return }
        let evidence = try JournalEvidence(root: root)
        let keysWithRecord = Set(try records.directory.names().compactMap(StoreLayout.key(ofRecordFile:)))
        journalAccountsForEveryWrite = evidence.currentIsSound && keysWithRecord.isSubset(of: evidence.current.live.keys)
        try rescueRecordless(records, images: images, evidence: evidence, keysWithRecord: keysWithRecord)
    }

    /// Sets the sync bookkeeping aside whole: kept in part it could pass a merged change for
    /// the store's own, or forget what it merged.
    mutating func setAsideSync(because damage: String) throws {
        guard try root.entry(StoreLayout.syncDirectory)?.isDirectory == true else { return }
        try setAside(
            [(root, StoreLayout.syncDirectory)], id: nil,
            reason: "the sync bookkeeping is damaged (\(damage)); the next sync makes this store a new device, which publishes what it holds")
    }

    // MARK: The root

    /// Anything at the top that is not ours as a file or folder of the kind expected is set aside.
    private mutating func sortRoot() throws {
        let expected = StoreLayout.topLevelNames
        for name in try root.names().sorted() {
            guard let entry = try root.entry(name) else { continue }
            if name == StoreLayout.journalTemporaryFileName {
                // A journal being written anew when a crash came: the one in place is used, and
                // writing one anew would remove it.
                try setAside([(root, name)], id: nil, reason: "it is a journal that was being written anew when the writer stopped")
                continue
            }
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

    // MARK: Records

    private mutating func sortRecords(_ records: RecordFiles, images: ImageFiles?, evidence: JournalEvidence) throws {
        let names = try records.directory.names().sorted()
        let keysWithRecord = Set(names.compactMap(StoreLayout.key(ofRecordFile:)))
        // The journal accounts for every write only where it is whole and knows every photo that
        // has a record file: one cut short at a line's end, with its length noted in a place a
        // power cut set back, looks whole, but misses the photos its lost lines liked.
        journalAccountsForEveryWrite = evidence.currentIsSound && keysWithRecord.isSubset(of: evidence.current.live.keys)
        for name in names {
            guard let entry = try records.directory.entry(name) else { continue }
            guard let key = StoreLayout.key(ofRecordFile: name) else {
                if !entry.isRegularFile {
                    try setAside([(records.directory, name)], id: nil, reason: "records/ holds only record files, and this is not a regular file")
                }
                continue  // a regular file that is no record: an orphan, for purge
            }
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
                } catch StoreError.damagedRecord(_, let reason) {
                    lostBecause = reason
                }
            }
            try rescue(key: key, recordName: name, lostBecause: lostBecause, records: records, images: images, evidence: evidence)
        }
        try rescueRecordless(records, images: images, evidence: evidence, keysWithRecord: keysWithRecord)
    }

    /// Rescues the photos that have images but no record file: each one a line of a journal
    /// likes with one of its images, and, unless the current journal accounts for every write
    /// (it is whole and knows every record), each one whose images no line of it names, which may
    /// be a photo whose lines were lost with the damage. Where it does, an image no line names is
    /// the leftover of a write that never committed: an orphan.
    private mutating func rescueRecordless(
        _ records: RecordFiles, images: ImageFiles?, evidence: JournalEvidence, keysWithRecord: Set<String>? = nil
    ) throws {
        guard let images else { return }
        var byKey: [String: [String]] = [:]
        for name in try images.directory.names() {
            guard let key = StoreLayout.key(ofImageFile: name) else { continue }
            byKey[key, default: []].append(name)
        }
        let withRecord = try keysWithRecord ?? Set(records.directory.names().compactMap(StoreLayout.key(ofRecordFile:)))
        for (key, names) in byKey.sorted(by: { $0.key < $1.key }) where !withRecord.contains(key) {
            let generations = names.compactMap { Self.mainImageGeneration(of: $0, key: key) }
            let named = generations.contains { evidence.liveEntry(key, imageGeneration: $0) != nil }
            let unaccounted = generations.contains { !evidence.currentEnds(key, $0) }
            guard named || (unaccounted && !journalAccountsForEveryWrite) else { continue }
            try rescue(key: key, recordName: nil, lostBecause: "its record file is missing", records: records, images: images, evidence: evidence)
        }
    }

    /// The generation of a main image file of `key` (`KEY~GEN.jpg`), or `nil` for any other name.
    private static func mainImageGeneration(of name: String, key: String) -> String? {
        guard name.hasPrefix(key + "~"), name.hasSuffix(".jpg"), !name.hasSuffix(".user.jpg") else { return nil }
        let generation = String(name.dropFirst(key.count + 1).dropLast(4))
        return Generation.isValid(generation) ? generation : nil
    }

    /// Keeps a record whose images are whole; sets aside the photo when its image is not, and
    /// only the user image when that alone is damaged.
    private mutating func check(_ stored: StoredRecord, records: RecordFiles, images: ImageFiles?) throws {
        let who = MessageText.quoted(stored.id)
        let mainName = StoreLayout.imageFileName(stored.key, stored.image.generation, user: false)
        if let problem = try images.map({ try $0.problem(mainName, stored.image) }) ?? "is missing" {
            try setAside(
                [(records.directory, StoreLayout.recordFileName(stored.key))] + photoImages(of: stored.key, in: images), id: stored.id,
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
        let userImage = try images.flatMap { images in try images.directory.entry(userName) != nil ? [(images.directory, userName)] : nil }
        try setAside(
            (userImage ?? []) + [(records.directory, StoreLayout.recordFileName(stored.key))], id: stored.id,
            reason: "the user image of photo \(who) \(problem); the photo is kept without it")
        try commit(temporary, of: kept, in: records)
    }

    /// Rebuilds a photo whose record is lost from the best evidence left, or sets aside what is
    /// left of it: a line of a journal that likes it with an image that is whole (its id, date,
    /// images and albums come back); else, for its images that no line of the current journal
    /// names, a temporary record that names one of them whole (everything comes back), or the
    /// newest of them itself (its id, from its file name, and its image; the time it was written
    /// stands for the date). Images of the photo that no line names and that were not taken are
    /// set aside where the current journal is not whole: one of them may be the one liked.
    private mutating func rescue(
        key: String, recordName: String?, lostBecause: String, records: RecordFiles, images: ImageFiles?, evidence: JournalEvidence
    ) throws {
        let id = StorageKey.decode(key).flatMap { Names.id($0) }
        let shown = id.map { "photo \(MessageText.quoted($0))" } ?? "the photo with key \(key)"
        let recordFile = recordName.map { [(records.directory, $0)] } ?? []
        guard let id, let images else {
            try setAside(
                recordFile + photoImages(of: key, in: images), id: nil,
                reason: "the record is lost (\(lostBecause)) and its id cannot be read from its file name")
            journalNeedsRebuild = true
            return
        }
        let names = try images.names(of: key)
        let mains = try names.compactMap { name in Self.mainImageGeneration(of: name, key: key).map { (name, $0) } }
            .sorted { try (images.directory.entry($0.0)?.modified ?? 0) > (images.directory.entry($1.0)?.modified ?? 0) }
        let found = try bestRebuild(of: id, key: key, mains: mains, records: records, images: images, evidence: evidence)
        let rebuilt = found?.record
        let how = found?.how ?? ""
        guard let rebuilt else {
            let why =
                mains.isEmpty
                ? "the record of \(shown) is lost (\(lostBecause)) and no image of it is left"
                : "the record of \(shown) is lost (\(lostBecause)) and no image of it is whole and named by the journal"
            try setAside(recordFile + names.map { (images.directory, $0) }, id: id, reason: why)
            journalNeedsRebuild = true
            return
        }
        if !recordFile.isEmpty {
            try setAside(recordFile, id: id, reason: "the record of \(shown) is lost (\(lostBecause)); it is rebuilt from \(how)")
        }
        try replaceRecord(with: rebuilt, in: records)
        report.rebuilt.append(id)
        // Where the journal cannot say which image was the photo's, the others stay within reach.
        if !journalAccountsForEveryWrite {
            let others = names.filter { name in
                !rebuilt.imageFileNames.contains(name)
                    && Self.generation(of: name, key: key).map { !evidence.currentEnds(key, $0) } ?? false
            }
            if !others.isEmpty {
                try setAside(
                    others.map { (images.directory, $0) }, id: id,
                    reason: "other images of \(shown) that no record or journal line names, kept in case one of them was the one liked")
            }
        }
    }

    /// The record a lost one is rebuilt as, and from what: a journal line that likes the photo
    /// with a whole image; else, among images no current line ends, a temporary record naming
    /// one, or the newest whole image alone. `nil` when nothing left allows it.
    private func bestRebuild(
        of id: String, key: String, mains: [(String, String)], records: RecordFiles, images: ImageFiles, evidence: JournalEvidence
    ) throws -> (record: StoredRecord, how: String)? {
        for (_, generation) in mains {
            if let entry = evidence.liveEntry(key, imageGeneration: generation), let record = try rebuild(id, from: entry, images: images) {
                return (record, "its image and the journal")
            }
        }
        let unaccounted = mains.filter { !evidence.currentEnds(key, $0.1) }
        guard !unaccounted.isEmpty else { return nil }
        if let record = try temporaryRecord(of: key, naming: Set(unaccounted.map(\.1)), records: records, images: images) {
            return (record, "a record it was being written as")
        }
        for (name, generation) in unaccounted {
            if let record = try rebuild(id, fromImage: name, generation: generation, images: images) {
                return (
                    record, "its image alone (its note, metadata and albums were in the record; the time its image was written stands for its date)"
                )
            }
        }
        return nil
    }

    /// The generation in an image file name of `key` (main or user image).
    private static func generation(of name: String, key: String) -> String? {
        guard name.hasPrefix(key + "~") else { return nil }
        let rest = name.dropFirst(key.count + 1)
        let generation = String(rest.prefix(Generation.length))
        return Generation.isValid(generation) ? generation : nil
    }

    /// The newest temporary record of `key` (a change that was being written) that names one of
    /// `generations` as its image, with that image whole (and its user image, or it goes): a
    /// record with everything the photo had, under a fresh generation.
    private func temporaryRecord(of key: String, naming generations: Set<String>, records: RecordFiles, images: ImageFiles) throws -> StoredRecord? {
        var best: (record: StoredRecord, modified: Int64)?
        for name in try records.directory.names() where name.hasPrefix(key + "~") && name.hasSuffix(".tmp") {
            guard let entry = try records.directory.entry(name), entry.isRegularFile, let data = try? records.directory.read(name),
                var record = try? StoredRecord.decode(data), record.key == key, generations.contains(record.image.generation),
                try images.problem(StoreLayout.imageFileName(key, record.image.generation, user: false), record.image) == nil
            else { continue }
            if let user = record.userImage, try images.problem(StoreLayout.imageFileName(key, user.generation, user: true), user) != nil {
                record.userImage = nil
            }
            if best.map({ entry.modified > $0.modified }) ?? true { best = (record, entry.modified) }
        }
        guard var record = best?.record else { return nil }
        record.generation = Generation.make()
        record.changed = nil
        return record
    }

    /// A record made from the image file `name` alone, if it is a whole JPEG: its id from the
    /// key, the time it was written as its date, the user image of its generation if that is one.
    private func rebuild(_ id: String, fromImage name: String, generation: String, images: ImageFiles) throws -> StoredRecord? {
        guard let entry = try images.directory.entry(name), let main = try Self.describe(name, generation: generation, in: images) else { return nil }
        let user = try Self.describe(StoreLayout.imageFileName(StorageKey.make(for: id), generation, user: true), generation: generation, in: images)
        return StoredRecord(
            id: id, generation: Generation.make(), likedAt: entry.modified, image: main, userImage: user, note: nil, photo: nil)
    }

    /// The record's account of the image file `name`, read now: `nil` unless it is a regular file
    /// holding a whole JPEG.
    /// A main image (not `.user.jpg`) has its pixels' mean colour measured: a rebuilt record has
    /// no metadata to give one.
    private static func describe(_ name: String, generation: String, in images: ImageFiles) throws -> StoredRecord.Image? {
        guard try images.directory.entry(name)?.isRegularFile == true, let data = try images.directory.read(name),
            var checked = try? StoreRequest.Image(data, kind: .image)
        else { return nil }
        let user = name.hasSuffix(".user.jpg")
        if !user { checked.measureColor() }
        return checked.stored(generation: generation, checksum: data.withUnsafeBytes { CRC32.checksum($0) })
    }

    /// The record the journal's line describes, if its images are there, whole JPEGs of the size
    /// the line gives.
    private func rebuild(_ id: String, from entry: LiveEntry, images: ImageFiles) throws -> StoredRecord? {
        func image(_ generation: String, user: Bool) throws -> StoredRecord.Image? {
            try Self.describe(StoreLayout.imageFileName(entry.key, generation, user: user), generation: generation, in: images)
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
        report.setAside.append(StoreRepairReport.SetAside(id: id, files: files, reason: reason))
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
        let folder: StoreDirectory
        if let shelf {
            folder = shelf
        } else {
            let damaged = try root.subdirectoryCreatingIfNeeded(StoreLayout.damagedDirectory, durable: durable)
            folder = try damaged.subdirectoryCreatingIfNeeded(stamp, durable: durable)
            shelf = folder
        }
        guard directory !== root, let sub = directory.displayPath.split(separator: "/").last.map(String.init) else { return folder }
        return try folder.subdirectoryCreatingIfNeeded(sub, durable: durable)
    }
}

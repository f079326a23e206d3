// purge and verify: finding what belongs to no record, and proving the invariants hold.

import Foundation

extension LikeRepository {
    /// Removes orphan files: files in the store that belong to no record, such as the leftovers
    /// of a write a crash interrupted. Also rebuilds the index when it is damaged or names other
    /// records than the record files present, and compacts it when most of its lines describe
    /// changes since superseded.
    ///
    /// It trusts the index where it names exactly the record files present, and so stays close
    /// to the cost of listing the files. An index whose entries a hand-edited record file
    /// contradicts (which ``verify()`` reports) is repaired by ``rebuildIndex()``.
    ///
    /// A damaged record file is not an orphan, and neither are the images of its photo: they stay
    /// for `verify` to report.
    ///
    /// - Parameter dryRun: Report what would be removed without removing anything (takes only a
    ///   shared lock, and works on a read-only store).
    /// - Returns: The orphan files and their total size.
    /// - Throws: ``LikeRepositoryError``: `storeBusy`, `io`.
    @discardableResult
    public func purge(dryRun: Bool = false) throws -> PurgeReport {
        guard let root = try openRoot() else { return PurgeReport(dryRun: dryRun, files: [], bytes: 0) }
        if dryRun {
            let lock = try FileLock.shared(in: root, timeout: lockTimeout)
            let inventory = try takeInventory(
                root: root, records: try root.subdirectory(StoreLayout.recordsDirectory), images: try root.subdirectory(StoreLayout.imagesDirectory),
                trustIndex: true, locked: lock != nil)
            _ = consume lock
            return PurgeReport(dryRun: true, files: inventory.orphans.map(\.path), bytes: inventory.orphans.reduce(0) { $0 + $1.size })
        }
        let report = try withWriteAccess { session in
            let inventory = try takeInventory(root: session.root, records: session.records, images: session.images, trustIndex: true, locked: true)
            var removed: [(path: String, size: Int)] = []
            var firstError: (any Error)?
            for orphan in inventory.orphans {
                let parts = orphan.path.split(separator: "/", maxSplits: 1).map(String.init)
                let directory = parts.count == 2 ? (parts[0] == StoreLayout.recordsDirectory ? session.records : session.images) : session.root
                do {
                    try directory.remove(parts.last!)
                    removed.append(orphan)
                } catch {
                    firstError = firstError ?? error
                }
            }
            if session.durable, !removed.isEmpty {
                try session.root.sync()
                try session.records.sync()
                try session.images.sync(commit: true)
            }
            // Rebuild an index that disagrees with the records; compact one mostly superseded.
            if !inventory.indexIsSound || inventory.journalLines > 2 * inventory.entries.count + 64 {
                try session.rebuildJournal(from: inventory.entries)
            }
            let at = session.tick()
            try session.appendJournal(
                removed.map {
                    JournalLine(
                        operation: .purged, at: at, generation: "-", bytes: Int64($0.size), imageGeneration: "-", userImageGeneration: nil,
                        key: JournalLine.escapePath($0.path))
                })
            if !removed.isEmpty {
                _ = publishing(LikeChange(kind: .purged, id: nil, date: Timestamp.date(at), record: nil, files: removed.map(\.path)))
            }
            if let firstError { throw firstError }
            return PurgeReport(dryRun: false, files: removed.map(\.path), bytes: removed.reduce(0) { $0 + $1.size })
        }
        return report
    }

    /// Writes the index anew from the record files: the repair for an index that ``verify()``
    /// finds out of step with the records. Decodes every record, so it takes about as long as
    /// reading them all (seconds at 100,000), holding the store's lock.
    ///
    /// Damaged record files are left out of the index (``verify()`` goes on naming them).
    /// Observers go on from the new index, as after a compaction.
    ///
    /// - Returns: The number of records in the new index.
    /// - Throws: ``LikeRepositoryError``: `storeBusy`, `io`.
    @discardableResult
    public func rebuildIndex() throws -> Int {
        try withWriteAccess { session in
            let decoded = try decodeAllRecords(in: session.records)
            try session.rebuildJournal(from: decoded.entries)
            observers.changed()
            return decoded.entries.count
        }
    }

    /// Checks every invariant of the store: each record decodes, each of its images exists, has
    /// the size and checksum it had when liked and is a valid JPEG, no two records share a file,
    /// and the index agrees with the records. Reads every image, so it takes time on a large store.
    ///
    /// - Returns: The problems found (none when the store is sound) and the orphan files, which
    ///   are harmless and removed by ``purge(dryRun:)``.
    /// - Throws: ``LikeRepositoryError``: `storeBusy`, `io` when the store cannot be read at all.
    public func verify() throws -> VerificationReport {
        guard let root = try openRoot() else { return VerificationReport(problems: [], orphans: []) }
        let lock = try FileLock.shared(in: root, timeout: lockTimeout)
        defer { _ = lock }
        let records = try root.subdirectory(StoreLayout.recordsDirectory)
        let images = try root.subdirectory(StoreLayout.imagesDirectory)
        let inventory = try takeInventory(root: root, records: records, images: images, trustIndex: false, locked: lock != nil)
        var problems = inventory.damage

        var owners: [String: PhotoID] = [:]
        for record in inventory.records {
            let who = LikeRepositoryError.quoted(record.id.rawValue)
            let pairs = [(record.image, false)] + (record.userImage.map { [($0, true)] } ?? [])
            for (info, user) in pairs {
                let name = StoreLayout.imageFileName(record.key, info.generation, user: user)
                let shown = StoreLayout.imagesDirectory + "/" + name
                let what = user ? "user image" : "image"
                if let other = owners.updateValue(record.id, forKey: name), other != record.id {
                    problems.append("The file \(shown) belongs to both \(who) and \(LikeRepositoryError.quoted(other.rawValue)).")
                }
                if let problem = try imageProblem(name, info, in: images) {
                    problems.append("The \(what) \(shown) of photo \(who) \(problem).")
                }
            }
        }
        if let records {
            let index = try loadIndex(root: root, records: records, locked: lock != nil)
            if let damage = index.damage {
                problems.append("\(damage.prefix(1).uppercased() + damage.dropFirst()). Repairing the store rebuilds it.")
            } else {
                let expected = Dictionary(inventory.entries.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
                let missing = expected.keys.filter { index.live[$0] == nil }.count
                let stale = index.live.filter { key, entry in
                    guard let truth = expected[key] else { return !inventory.damagedKeys.contains(key) }
                    return truth != entry
                }.count
                if missing + stale > 0 {
                    problems.append(
                        "The index \(StoreLayout.journalFileName) disagrees with the record files (\(missing) records missing from it, \(stale) entries stale). Repairing the store rebuilds it."
                    )
                }
            }
        }
        return VerificationReport(problems: problems, orphans: inventory.orphans.map(\.path))
    }

    /// What is wrong with an image a record names, as the end of a sentence ("is missing"), or
    /// `nil` when it is whole: there, of the size and checksum it had when liked, a JPEG.
    func imageProblem(_ name: String, _ info: StoredRecord.Image, in images: StoreDirectory?) throws -> String? {
        guard let images, let entry = try images.entry(name) else { return "is missing" }
        guard entry.isRegularFile else { return "is not a regular file" }
        guard entry.size == info.bytes else { return "has \(entry.size) bytes where \(info.bytes) were liked: it was cut short or changed" }
        guard let data = try images.read(name) else { return "is missing" }
        guard UInt32(info.crc32, radix: 16) == data.withUnsafeBytes({ CRC32.checksum($0) }) else {
            return "changed since it was liked (its checksum differs)"
        }
        guard (try? JPEGHeader(parsing: data)) != nil else { return "is not a valid JPEG" }
        return nil
    }

    struct Inventory {
        var entries: [LiveEntry] = []
        /// Decoded records; filled only when the index was not trusted.
        var records: [StoredRecord] = []
        var damage: [String] = []
        var damagedKeys: Set<String> = []
        var orphans: [(path: String, size: Int)] = []
        /// Whether the journal agreed with the record files.
        var indexIsSound = true
        var journalLines = 0
    }

    /// Sorts every file of the store into live and orphan.
    ///
    /// With `trustIndex`, the live files come from the journal when it names exactly the record
    /// files present (no record is decoded: purge stays close to the cost of listing the files);
    /// before an image of a live photo is called an orphan, that photo's record is read to make
    /// sure. Otherwise, and whenever the journal disagrees, every record is decoded.
    func takeInventory(root: StoreDirectory, records: StoreDirectory?, images: StoreDirectory?, trustIndex: Bool, locked: Bool) throws -> Inventory {
        var inventory = Inventory()
        let recordNames = try records?.names() ?? []
        let imageNames = try images?.names() ?? []
        var useIndex = trustIndex
        if let records {
            let index = try loadIndex(root: root, records: records, locked: locked)
            inventory.journalLines = index.lineCount
            let recordKeys = Set(recordNames.compactMap(StoreLayout.key(ofRecordFile:)))
            inventory.indexIsSound = index.damage == nil && recordKeys.count == index.live.count && recordKeys.allSatisfy { index.live[$0] != nil }
            useIndex = useIndex && inventory.indexIsSound
            if useIndex { inventory.entries = Array(index.live.values) }
        }

        while true {
            if !useIndex, let records {
                let decoded = try decodeAllRecords(in: records)
                inventory.entries = decoded.entries
                inventory.records = decoded.records
                inventory.damage = decoded.damage
                inventory.damagedKeys = decoded.damagedKeys
            }
            // The live names of each directory; paths are made only for orphans (a store of 100,000
            // favorites has 200,000 names to sort).
            var liveRecords = Set<String>(minimumCapacity: inventory.entries.count)
            var liveImages = Set<String>(minimumCapacity: inventory.entries.count * 2)
            for entry in inventory.entries {
                liveRecords.insert(StoreLayout.recordFileName(entry.key))
                liveImages.insert(StoreLayout.imageFileName(entry.key, entry.imageGeneration, user: false))
                if let user = entry.userImageGeneration { liveImages.insert(StoreLayout.imageFileName(entry.key, user, user: true)) }
            }
            var orphans: [(path: String, size: Int)] = []
            func consider(_ directory: StoreDirectory, _ name: String, prefix: String, key: String?) throws {
                guard !(key.map(inventory.damagedKeys.contains) ?? false), let entry = try directory.entry(name), !entry.isDirectory else { return }
                orphans.append((prefix.isEmpty ? name : prefix + "/" + name, entry.size))
            }
            for name in try root.names() where !StoreLayout.bookkeepingFiles.contains(name) {
                if name == StoreLayout.recordsDirectory || name == StoreLayout.imagesDirectory { continue }
                try consider(root, name, prefix: "", key: nil)
            }
            if let records {
                for name in recordNames where !liveRecords.contains(name) {
                    try consider(records, name, prefix: StoreLayout.recordsDirectory, key: StoreLayout.key(ofRecordFile: name))
                }
            }
            if let images {
                for name in imageNames where !liveImages.contains(name) {
                    try consider(images, name, prefix: StoreLayout.imagesDirectory, key: StoreLayout.key(ofImageFile: name))
                }
            }
            // Before trusting the index to call a live photo's image an orphan, ask its record.
            if useIndex, let records {
                let liveKeys = Set(inventory.entries.map(\.key))
                var contradicted = false
                for orphan in orphans where orphan.path.hasPrefix(StoreLayout.imagesDirectory + "/") {
                    let name = String(orphan.path.dropFirst(StoreLayout.imagesDirectory.count + 1))
                    guard let key = StoreLayout.key(ofImageFile: name), liveKeys.contains(key) else { continue }
                    let stored = try? readStoredRecord(key: key, in: records)
                    if stored == nil || stored!.imageFileNames.contains(name) {
                        contradicted = true
                        break
                    }
                }
                if contradicted {
                    useIndex = false
                    inventory.indexIsSound = false
                    continue
                }
            }
            inventory.orphans = orphans.sorted { $0.path < $1.path }
            return inventory
        }
    }
}

// purge: finding what belongs to no record, and removing it, trusting the index only where it
// names exactly the record files present; and the index rebuilt from the records.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension Store {
    /// Removes orphan files, files of the store that belong to no record, or with `dryRun` only
    /// finds them (under the shared lock); compacts an index mostly superseded. `onPurge` hears
    /// the change before the lock is let go, when something was removed.
    ///
    /// - Throws: ``StoreError/needsRepair(directory:problem:)`` when the index is damaged or
    ///   disagrees with the records: then an image no record names may be a photo's only copy.
    package func purge(dryRun: Bool, onPurge: (StoredChange) -> Void = { _ in }) throws -> StorePurgeReport {
        if dryRun {
            guard let opened = try open() else { return StorePurgeReport(dryRun: true, files: [], bytes: 0) }
            let lock = try opened.sharedLock()
            let inventory = try takeInventory(of: opened, locked: lock != nil)
            _ = consume lock
            return StorePurgeReport(dryRun: true, files: inventory.orphans.map(\.path), bytes: inventory.orphans.reduce(0) { $0 + $1.size })
        }
        guard try openRoot() != nil else { return StorePurgeReport(dryRun: false, files: [], bytes: 0) }
        return try withWriteSession { session in
            let inventory = try takeInventory(of: session.openStore(lockTimeout: lockTimeout), locked: true)
            var removed: [(path: String, size: Int)] = []
            var firstError: (any Error)?
            for orphan in inventory.orphans {
                do {
                    try remove(orphan.path, in: session)
                    removed.append(orphan)
                } catch {
                    firstError = firstError ?? error
                }
            }
            if session.durable, !removed.isEmpty {
                try session.root.sync()
                try session.records.directory.sync()
                try session.images.directory.sync(commit: true)
            }
            // Compact an index mostly superseded (from the whole index, read only then).
            if inventory.journalLines > 2 * inventory.files.count + 64 {
                try session.rebuildJournal(from: Array(session.openStore(lockTimeout: lockTimeout).index(locked: true).live.values))
            }
            let at = session.tick()
            try session.journal.append(removed.map { JournalLine.purged(path: $0.path, bytes: $0.size, at: at) }, durable: session.durable)
            if !removed.isEmpty { onPurge(StoredChange(kind: .purged, id: nil, at: at, record: nil, files: removed.map(\.path))) }
            if let firstError { throw firstError }
            return StorePurgeReport(dryRun: false, files: removed.map(\.path), bytes: removed.reduce(0) { $0 + $1.size })
        }
    }

    /// Removes an orphan by its path in the store (`name`, `records/name`, `images/name` or
    /// `thumbnails/name`).
    private func remove(_ path: String, in session: WriteSession) throws {
        let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
        let directory: StoreDirectory? =
            switch parts.count == 1 ? "" : parts[0] {
            case "": session.root
            case RecordFiles.directoryName: session.records.directory
            case ThumbnailFiles.directoryName: try session.root.subdirectory(ThumbnailFiles.directoryName)
            case RenditionFiles.directoryName: try session.root.subdirectory(RenditionFiles.directoryName)
            default: session.images.directory
            }
        try directory?.remove(parts[parts.count - 1])
    }

    /// Writes the index anew from the record files, rescuing the photos whose records were lost
    /// from the best evidence; returns how many photos it holds.
    package func rebuildIndex() throws -> Int {
        try withWriteSession { session in
            try session.rebuildJournal(rescuingLostRecords: true)
            return try session.openStore(lockTimeout: lockTimeout).index(locked: true).live.count
        }
    }

    struct Inventory {
        /// The live photos' files, by the catalog or the index.
        var files: [PhotoFiles] = []
        var orphans: [(path: String, size: Int)] = []
        var journalLines = 0
    }

    /// Sorts every file of the store into live and orphan, by the journal, which must name
    /// exactly the record files present: no record is decoded, so purge stays close to the cost
    /// of listing the files. Before an image of a live photo is called an orphan, that photo's
    /// record is read to make sure.
    ///
    /// - Throws: ``StoreError/needsRepair(directory:problem:)`` where the journal is
    ///   damaged or disagrees with the record files.
    func takeInventory(of opened: OpenStore, locked: Bool) throws -> Inventory {
        var inventory = Inventory()
        // Each folder is listed once, with the kind of each entry.
        let recordEntries = try opened.records?.directory.listing() ?? []
        let imageNames = try opened.images?.directory.names() ?? []
        var byKey: [String: Int] = [:]
        if opened.records != nil {
            if let catalog = try opened.catalogFiles(locked: locked) {
                (inventory.files, inventory.journalLines) = catalog
            } else {
                let index = try opened.index(locked: locked)
                if let damage = index.damage { throw needsRepair(damage) }
                inventory.journalLines = index.lineCount
                inventory.files = index.live.values.map(PhotoFiles.init)
            }
            byKey.reserveCapacity(inventory.files.count)
            for (index, file) in inventory.files.enumerated() { byKey[file.key] = index }
            // Only regular files: a link or folder under a record's name is no record (repair sets
            // it aside; to purge it is an orphan). Distinct names give distinct keys.
            var named = 0
            var unnamed = 0
            for entry in recordEntries where entry.isRegularFile {
                guard let key = StoreLayout.key(ofRecordFile: entry.name) else { continue }
                if byKey[key] != nil { named += 1 } else { unnamed += 1 }
            }
            if named != byKey.count || unnamed > 0 || byKey.count != inventory.files.count {
                let missing = byKey.count - named
                func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
                throw needsRepair(
                    "the index \(Journal.fileName) names \(count(missing, "photo")) whose record file is missing, and \(count(unnamed, "record file")) it does not name"
                )
            }
        } else if !imageNames.isEmpty {
            throw needsRepair("its records folder is missing while it holds images")
        }
        let kept = try setAsideJournalsName(opened)
        let orphans = try findOrphans(
            opened, recordNames: recordEntries.map(\.name), imageNames: imageNames, live: LiveFiles(files: inventory.files, byKey: byKey),
            keeping: kept)
        // Before trusting the index to call a live photo's image an orphan, ask its record.
        if let records = opened.records, try recordContradicts(orphans, live: inventory.files, records: records) {
            throw needsRepair("the index \(Journal.fileName) disagrees with a record file about the photo's images")
        }
        inventory.orphans = orphans.sorted { $0.path < $1.path }
        return inventory
    }

    private func needsRepair(_ problem: String) -> StoreError {
        .needsRepair(directory: path, problem: problem)
    }

    /// The images that journals set aside by earlier repairs still name as a photo's and the
    /// current journal does not: never orphans. Read only where there is a `damaged/` folder.
    private func setAsideJournalsName(_ opened: OpenStore) throws -> Set<String> {
        guard try opened.root.subdirectoryIfFolder(StoreLayout.damagedDirectory) != nil else { return [] }
        return try JournalEvidence(root: opened.root).namedBySetAsideJournals
    }

    /// The live photos' files, and where each photo's are by its key: what tells a live file's
    /// name from an orphan's, byte by byte, making no name.
    private struct LiveFiles {
        let files: [PhotoFiles]
        /// Every key here is well formed: the journal's keys were checked against the record
        /// files' names before.
        let byKey: [String: Int]

        /// Whether `name` is a live photo's record file: its key, then `.json`.
        func isRecord(_ name: String) -> Bool {
            var name = name
            return name.withUTF8 { bytes in
                guard bytes.count > 5, bytes.suffix(5).elementsEqual(".json".utf8) else { return false }
                return byKey[String(decoding: UnsafeBufferPointer(rebasing: bytes.dropLast(5)), as: UTF8.self)] != nil
            }
        }

        /// Whether `name` is a live photo's image (`key~generation.jpg`, or its user's image,
        /// `.user.jpg`) or, for `thumbnail`, its image's thumbnail (`key~generation.jpg`).
        func isImage(_ name: String, thumbnail: Bool) -> Bool {
            var name = name
            return name.withUTF8 { bytes in
                guard let tilde = bytes.lastIndex(of: UInt8(ascii: "~")),
                    let index = byKey[String(decoding: UnsafeBufferPointer(rebasing: bytes[..<tilde]), as: UTF8.self)]
                else { return false }
                let rest = UnsafeBufferPointer(rebasing: bytes[(tilde + 1)...])
                let photo = files[index]
                if Self.is(rest, photo.imageGeneration, ".jpg") { return true }
                guard !thumbnail, let user = photo.userImageGeneration else { return false }
                return Self.is(rest, user, ".user.jpg")
            }
        }

        /// Whether `bytes` are `generation` and then `suffix`.
        private static func `is`(_ bytes: UnsafeBufferPointer<UInt8>, _ generation: String, _ suffix: StaticString) -> Bool {
            let length = generation.utf8.count
            return bytes.count == length + suffix.utf8CodeUnitCount && bytes.prefix(length).elementsEqual(generation.utf8)
                && bytes.suffix(suffix.utf8CodeUnitCount).elementsEqual(UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount))
        }
    }

    /// The files that belong to no entry of `live`, except those `keeping` names.
    private func findOrphans(
        _ opened: OpenStore, recordNames: [String], imageNames: [String], live: LiveFiles, keeping: Set<String>
    ) throws -> [(path: String, size: Int)] {
        // Each name is taken back to its photo by its key; paths are made only for orphans (a
        // store of 100,000 favorites has 300,000 names).
        var orphans: [(path: String, size: Int)] = []
        func consider(_ directory: StoreDirectory, _ name: String, prefix: String) throws {
            guard let entry = try directory.entry(name), !entry.isDirectory else { return }
            orphans.append((prefix.isEmpty ? name : prefix + "/" + name, entry.size))
        }
        for name in try opened.root.names() where !StoreLayout.bookkeepingFiles.contains(name) {
            if name == RecordFiles.directoryName || name == ImageFiles.directoryName || name == ThumbnailFiles.directoryName
                || name == RenditionFiles.directoryName
            {
                continue
            }
            try consider(opened.root, name, prefix: "")
        }
        // A rendition is live while the image it was made from is; the budget file always.
        if let renditions = try opened.root.subdirectoryIfFolder(RenditionFiles.directoryName) {
            for name in try renditions.names() where name != RenditionFiles.budgetFileName {
                let parsed = RenditionFiles.parse(name)
                let live = parsed.map { live.isImage($0.key + "~" + $0.generation + ".jpg", thumbnail: true) } ?? false
                if !live { try consider(renditions, name, prefix: RenditionFiles.directoryName) }
            }
        }
        // A thumbnail is live while the image it was made from is.
        if let thumbnails = try opened.thumbnails().directory {
            for name in try thumbnails.names() {
                if !live.isImage(name, thumbnail: true) { try consider(thumbnails, name, prefix: ThumbnailFiles.directoryName) }
            }
        }
        if let records = opened.records {
            for name in recordNames where !live.isRecord(name) { try consider(records.directory, name, prefix: RecordFiles.directoryName) }
        }
        if let images = opened.images {
            for name in imageNames where !live.isImage(name, thumbnail: false) && !keeping.contains(name) {
                try consider(images.directory, name, prefix: ImageFiles.directoryName)
            }
        }
        return orphans
    }

    /// Whether the record of a live photo still names an image the index calls an orphan (or
    /// is gone): then the index is not to be trusted.
    private func recordContradicts(_ orphans: [(path: String, size: Int)], live: [PhotoFiles], records: RecordFiles) throws -> Bool {
        let liveKeys = Set(live.map(\.key))
        for orphan in orphans where orphan.path.hasPrefix(ImageFiles.directoryName + "/") {
            let name = String(orphan.path.dropFirst(ImageFiles.directoryName.count + 1))
            guard let key = StoreLayout.key(ofImageFile: name), liveKeys.contains(key) else { continue }
            guard let stored = try? records.read(key: key) else { return true }
            if stored.imageFileNames.contains(name) { return true }
        }
        return false
    }
}

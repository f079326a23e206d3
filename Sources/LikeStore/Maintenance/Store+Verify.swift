// verify: proving every invariant of the store, one record at a time, so that its memory does
// not grow with the collection beyond a few words per photo.

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension Store {
    /// Checks every invariant of the store under the shared lock, one record at a time: sentences
    /// naming each problem, and the orphan files.
    package func verify() throws -> StoreVerification {
        guard let opened = try open() else { return StoreVerification(problems: [], orphans: []) }
        let lock = try opened.sharedLock()
        defer { _ = lock }
        var check = StoreCheck()
        if let records = opened.records {
            try check.readIndex(opened, locked: lock != nil)
            try check.readRecords(records, images: opened.images, opened: opened, locked: lock != nil)
        }
        if let images = opened.images {
            // Images a journal set aside by an earlier repair still names: a photo to rebuild.
            if try opened.root.subdirectoryIfFolder(StoreLayout.damagedDirectory) != nil {
                check.namedBySetAsideJournals = try JournalEvidence(root: opened.root).namedBySetAsideJournals
            }
            try check.readImages(images)
        }
        try check.readThumbnails(opened.thumbnails(), root: opened.root, records: opened.records)
        try check.readRenditions(root: opened.root, records: opened.records)
        try check.readRoot(opened.root)
        let remade = remake(check.damagedDerived, opened)
        return StoreVerification(
            problems: check.damage + check.imageProblems + check.thumbnailProblems + remade.problems
                + (check.indexProblem.map { [$0] } ?? []),
            orphans: check.orphans.sorted { $0.path < $1.path }.map(\.path), remade: remade.sentences)
    }

    /// Makes anew each damaged thumbnail and rendition found, as any reader of one would: they
    /// are derived from the photo, so a power cut that left one damaged needs no repair. What
    /// cannot be made (a read-only store, an image that cannot be read) stays a problem.
    private func remake(_ damaged: [DamagedDerivedFile], _ opened: OpenStore) -> (sentences: [String], problems: [String]) {
        var sentences: [String] = []
        var problems: [String] = []
        for file in damaged {
            let stored = try? opened.records?.read(key: file.key)
            let made: Bool
            if let stored, stored.image.generation == file.generation {
                if let side = file.side {
                    made = (try? rendition(of: stored, side: side, opened)) != nil
                } else {
                    made = ((try? makeThumbnail(of: stored, opened)) ?? nil) != nil
                }
            } else {
                made = false
            }
            if made {
                sentences.append("The \(file.kind) \(file.path) of photo \(file.who) \(file.problem), so it was made anew.")
            } else {
                problems.append("The \(file.kind) \(file.path) of photo \(file.who) \(file.problem); \(file.remedy).")
            }
        }
        return (sentences, problems)
    }
}

/// A thumbnail or rendition of a recorded photo's image that does not check out.
private struct DamagedDerivedFile {
    var key: String
    var generation: String
    /// The rendition's long side; `nil` for the thumbnail.
    var side: Int?
    /// Its path inside the store.
    var path: String
    /// The photo, quoted.
    var who: String
    /// What is wrong, as a phrase: "is cut short".
    var problem: String

    var kind: String { side == nil ? "thumbnail" : "rendition" }

    /// What mends it when it could not be made now.
    var remedy: String {
        side == nil ? "repairing the store makes it anew" : "repairing the store sets it aside, and it is made anew when needed"
    }
}

/// What one `verify` has found so far.
///
/// Its memory: the index is compared with the records by the sum of their digests (see
/// ``OpenStore/catalogDigestSum()``), and only where the sums differ entry by entry, in a second
/// pass; the generations of each photo's images are kept in one array sorted by key. At 100,000
/// photos, the three tables by key it kept before took 33 of its 42 MB.
private struct StoreCheck {
    /// Each recorded photo's key and its images' generations, sorted by key once the records
    /// are read: what tells a photo's image and thumbnail files from orphans.
    var recorded: [(key: String, image: String, user: String?)] = []
    /// The index by its sum: each digest added up, and how much of the catalog its photos'
    /// lines have; `nil` where the index was read the sure way (a damaged or mixed journal).
    var indexSum: (count: Int, sum: Int, depth: CatalogDepth)?
    /// The records' digests added up, as the index's are.
    var recordSum = (count: 0, sum: 0)
    /// What the index says of each live photo whose record has not been compared yet; filled
    /// only where the sums differ, or the index was read the sure way.
    var indexed: [String: (digest: Int, depth: CatalogDepth)] = [:]
    var damagedKeys: Set<String> = []
    var damage: [String] = []
    var imageProblems: [String] = []
    var thumbnailProblems: [String] = []
    /// Thumbnails and renditions of recorded photos that do not check out, to be made anew.
    var damagedDerived: [DamagedDerivedFile] = []
    var indexDamage: String?
    var missingFromIndex = 0
    var staleInIndex = 0
    var orphans: [(path: String, size: Int)] = []
    /// Image files that a journal set aside by a repair names as a photo's, and no record does.
    var namedBySetAsideJournals: Set<String> = []

    /// A sentence when the index is damaged or disagrees with the records.
    var indexProblem: String? {
        if let indexDamage {
            return "\(indexDamage.prefix(1).uppercased() + indexDamage.dropFirst()). Repairing the store rebuilds it."
        }
        let stale = staleInIndex + indexed.keys.filter { !damagedKeys.contains($0) }.count
        guard missingFromIndex + stale > 0 else { return nil }
        return
            "The index \(Journal.fileName) disagrees with the record files (\(missingFromIndex) records missing from it, \(stale) entries stale). Repairing the store rebuilds it."
    }

    /// The index, by one scan of the catalog into a sum; where that cannot be read, or its
    /// lines mix photos with and without a catalog, the whole index the sure way (which names
    /// the damage).
    mutating func readIndex(_ opened: OpenStore, locked: Bool) throws {
        if let found = try opened.catalogDigestSum(), let depth = found.depth {
            indexSum = (found.count, found.sum, depth)
            return
        }
        try readIndexEntries(opened, locked: locked)
    }

    /// The index entry by entry: by the catalog where it can be read, else the sure way.
    mutating func readIndexEntries(_ opened: OpenStore, locked: Bool) throws {
        if let digests = try opened.catalogDigests() {
            indexed = digests
            return
        }
        let index = try opened.index(locked: locked)
        indexDamage = index.damage
        for (key, entry) in index.live {
            let depth = CatalogDepth(entry.catalog)
            indexed[key] = (CatalogScan.Photo.digest(of: entry, depth: depth), depth)
        }
    }

    /// Decodes each record file in turn: its damage, its images, and what the index says of it.
    mutating func readRecords(_ records: RecordFiles, images: ImageFiles?, opened: OpenStore, locked: Bool) throws {
        recorded.reserveCapacity(indexSum?.count ?? indexed.count)
        let directory = records.directory
        try Self.forEachRecord(
            records, other: { name, key in try consider(directory, name, prefix: RecordFiles.directoryName, key: key) },
            damaged: { key, file, reason in
                damage.append("The record file \(file) is damaged (\(reason)).")
                damagedKeys.insert(key)
            }
        ) { key, record in
            recorded.append((key, record.image.generation, record.userImage?.generation))
            try checkImages(of: record, images: images)
            if let indexSum {
                recordSum.count += 1
                recordSum.sum &+= CatalogScan.Photo.digest(of: record.liveEntry, depth: indexSum.depth)
            } else {
                compare(key, record)
            }
        }
        recorded.sort { $0.key < $1.key }
        if let indexSum, indexSum.count != recordSum.count || indexSum.sum != recordSum.sum || !damagedKeys.isEmpty {
            // The sums differ (or a damaged record left one out): entry by entry, to count.
            try readIndexEntries(opened, locked: locked)
            try Self.forEachRecord(records) { key, record in compare(key, record) }
        }
        if indexDamage != nil { indexed = [:] }  // a damaged index is reported as such, not entry by entry
    }

    /// Takes the index's entry for `key` out, counting a record it does not describe as stale
    /// and one it lacks as missing.
    private mutating func compare(_ key: String, _ record: StoredRecord) {
        if let entry = indexed.removeValue(forKey: key) {
            if entry.digest != CatalogScan.Photo.digest(of: record.liveEntry, depth: entry.depth) { staleInIndex += 1 }
        } else if indexDamage == nil {
            missingFromIndex += 1
        }
    }

    /// Each record file, read and handed to `body`; a name that is no record file goes to
    /// `other`, a damaged record to `damaged`.
    private static func forEachRecord(
        _ records: RecordFiles, other: (String, String?) throws -> Void = { _, _ in }, damaged: (String, String, String) -> Void = { _, _, _ in },
        _ body: (String, StoredRecord) throws -> Void
    ) throws {
        try records.directory.forEachName { name in
            guard let key = StoreLayout.key(ofRecordFile: name), try records.directory.entry(name)?.isRegularFile == true else {
                try other(name, StoreLayout.key(ofRecordFile: name))
                return
            }
            let record: StoredRecord
            do {
                guard let read = try records.read(key: key) else { return }  // gone since listed
                record = read
            } catch StoreError.damagedRecord(let file, let reason) {
                damaged(key, file, reason)
                return
            }
            try body(key, record)
        }
    }

    /// The generations of the images of the recorded photo with `key`.
    func generations(of key: String) -> (image: String, user: String?)? {
        var (low, high) = (0, recorded.count)
        while low < high {
            let middle = (low + high) / 2
            if recorded[middle].key < key { low = middle + 1 } else { high = middle }
        }
        guard low < recorded.count, recorded[low].key == key else { return nil }
        return (recorded[low].image, recorded[low].user)
    }

    /// A sentence for each image of `record` that is not whole.
    mutating func checkImages(of record: StoredRecord, images: ImageFiles?) throws {
        let who = MessageText.quoted(record.id)
        for (info, user) in [(record.image, false)] + (record.userImage.map { [($0, true)] } ?? []) {
            let name = StoreLayout.imageFileName(record.key, info.generation, user: user)
            if let problem = try images.map({ try $0.problem(name, info) }) ?? "is missing" {
                imageProblems.append("The \(user ? "user image" : "image") \(ImageFiles.directoryName)/\(name) of photo \(who) \(problem).")
            }
        }
    }

    /// The files of images/ that belong to no record (nor to a damaged record's photo).
    mutating func readImages(_ images: ImageFiles) throws {
        try images.directory.forEachName { name in
            if let key = StoreLayout.key(ofImageFile: name), let generations = generations(of: key),
                name == StoreLayout.imageFileName(key, generations.image, user: false)
                    || generations.user.map({ name == StoreLayout.imageFileName(key, $0, user: true) }) == true
            {
                return
            }
            if namedBySetAsideJournals.contains(name) {
                imageProblems.append(
                    "The image \(ImageFiles.directoryName)/\(name) has no record, but a journal set aside by an earlier repair names it as a photo's; repairing the store rebuilds the photo."
                )
                return
            }
            try consider(images.directory, name, prefix: ImageFiles.directoryName, key: StoreLayout.key(ofImageFile: name))
        }
    }

    /// Each thumbnail of a recorded photo's image checked against the checksum it carries (a
    /// missing one is no problem: it is made on first need); any other file is an orphan.
    mutating func readThumbnails(_ thumbnails: ThumbnailFiles, root: StoreDirectory, records: RecordFiles?) throws {
        guard let directory = thumbnails.directory else {
            if let entry = try root.entry(ThumbnailFiles.directoryName), !entry.isDirectory {
                thumbnailProblems.append("\(ThumbnailFiles.directoryName) should be a folder and is not; repairing the store sets it aside.")
            }
            return
        }
        try directory.forEachName { name in
            if let key = StoreLayout.key(ofImageFile: name), let generations = generations(of: key),
                name == StoreLayout.thumbnailFileName(key, generations.image)
            {
                if case .damaged(let problem) = try thumbnails.state(key: key, generation: generations.image) {
                    // The id from the key, or for a hashed key from the record.
                    let id = StorageKey.decode(key) ?? records.flatMap { try? $0.read(key: key) }?.id
                    damagedDerived.append(
                        DamagedDerivedFile(
                            key: key, generation: generations.image, path: ThumbnailFiles.directoryName + "/" + name,
                            who: MessageText.quoted(id ?? key), problem: problem))
                }
                return
            }
            try consider(directory, name, prefix: ThumbnailFiles.directoryName, key: StoreLayout.key(ofImageFile: name))
        }
    }

    /// Each rendition of a recorded photo's image checked against the checksum it carries;
    /// any other file (the budget aside) is an orphan.
    mutating func readRenditions(root: StoreDirectory, records: RecordFiles?) throws {
        guard let directory = try root.subdirectoryIfFolder(RenditionFiles.directoryName) else {
            if let entry = try root.entry(RenditionFiles.directoryName), !entry.isDirectory {
                thumbnailProblems.append("\(RenditionFiles.directoryName) should be a folder and is not; repairing the store sets it aside.")
            }
            return
        }
        let files = RenditionFiles(directory: directory)
        try directory.forEachName { name in
            guard name != RenditionFiles.budgetFileName else { return }
            if let parsed = RenditionFiles.parse(name), let generations = generations(of: parsed.key), parsed.generation == generations.image {
                if case .damaged(let problem) = try files.read(name, generation: parsed.generation).state {
                    let id = StorageKey.decode(parsed.key) ?? records.flatMap { try? $0.read(key: parsed.key) }?.id
                    damagedDerived.append(
                        DamagedDerivedFile(
                            key: parsed.key, generation: parsed.generation, side: parsed.side, path: RenditionFiles.directoryName + "/" + name,
                            who: MessageText.quoted(id ?? parsed.key), problem: problem))
                }
                return
            }
            try consider(directory, name, prefix: RenditionFiles.directoryName, key: RenditionFiles.parse(name)?.key)
        }
    }

    /// Files at the store's top level that are none of its own; a link or file where one of
    /// its folders should be.
    mutating func readRoot(_ root: StoreDirectory) throws {
        for folder in [RecordFiles.directoryName, ImageFiles.directoryName] {
            if let entry = try root.entry(folder), !entry.isDirectory {
                damage.append("\(folder) should be a folder and is not (a link is never followed); repairing the store sets it aside.")
            }
        }
        try root.forEachName { name in
            guard !StoreLayout.bookkeepingFiles.contains(name), name != RecordFiles.directoryName, name != ImageFiles.directoryName,
                name != ThumbnailFiles.directoryName, name != RenditionFiles.directoryName
            else { return }
            try consider(root, name, prefix: "", key: nil)
        }
    }

    /// Counts a file that belongs to no record as an orphan; a folder, and the files of a photo
    /// whose record is damaged, are not.
    private mutating func consider(_ directory: StoreDirectory, _ name: String, prefix: String, key: String?) throws {
        guard !(key.map(damagedKeys.contains) ?? false), let entry = try directory.entry(name), !entry.isDirectory else { return }
        orphans.append((prefix.isEmpty ? name : prefix + "/" + name, entry.size))
    }
}

// Owns the file likes.journal in a store's root: opening it for reading, the index read from it,
// and, under the store's exclusive lock, appending, settling a dead writer's end and writing it
// anew. Called by OpenStore (reading) and WriteSession (writing); no other type opens the file.

/// The journal of one store: its index and its change log (see ``JournalLine``).
///
/// After every append the journal's length is noted, so that a reader can tell a journal cut back
/// by damage from one that is whole: in an extended attribute of the journal file itself where
/// the file system keeps them (ext4, xfs, btrfs, tmpfs, APFS), else in the lock file. The
/// attribute lives in the journal's inode, which the append dirties anyway: noting it costs no
/// other file a flush must write, and it reaches the disk in the same write as the journal's
/// size, so a power cut cannot keep one without the other.
package struct Journal {
    static let fileName = StoreLayout.journalFileName

    /// Throws ``StoreError/newerFormat(file:format:)`` when the journal's header names a format
    /// a later version wrote: such a journal is neither read (its lines may mean what this
    /// version cannot know) nor written, nor taken for damage. One read of its first bytes.
    func refuseNewerFormat() throws {
        guard let file = try root.openForReading(Self.fileName) else { return }
        try Self.refuseNewerFormat(of: file)
    }

    /// As ``refuseNewerFormat()``, of a journal open already (a reader's source).
    static func refuseNewerFormat(of file: any JournalBytes) throws {
        let bytes = try file.read(0..<160)
        guard let end = bytes.firstIndex(of: 0x0A) else { return }
        let fields = bytes[..<end].split(separator: 0x20, omittingEmptySubsequences: false)
        guard fields.count == 7, fields[0].elementsEqual([UInt8(ascii: "J")]),
            let name = String(validating: fields[6], as: UTF8.self), JournalLine.isNewerFormat(name)
        else { return }
        throw StoreError.newerFormat(file: Self.fileName, format: name)
    }

    let root: StoreDirectory
    /// The descriptor of the store's exclusive lock, where this journal is written; `nil` for
    /// reading.
    let lockDescriptor: Int32?

    package init(root: StoreDirectory, lockDescriptor: Int32? = nil) {
        self.root = root
        self.lockDescriptor = lockDescriptor
    }

    // MARK: Reading

    /// The journal's length as last noted, if it was: on the journal file `reader` reads where
    /// it has the note, else in the lock file.
    func notedLength(_ reader: JournalReader) -> Int? {
        if let file = reader.source as? StoreDirectory.OpenFile,
            let text = Platform.attribute(file.descriptor, Platform.journalLengthAttribute, capacity: 24)
        {
            return Int(String(decoding: text, as: UTF8.self))
        }
        return FileLock.notedJournalLength(in: root)
    }

    /// Opens the journal for reading; `nil` when there is none. `records` judges whether a last
    /// line's change committed (see ``JournalReader``); without it every line counts.
    ///
    /// `mapped`: a walk back reads the file mapped into memory rather than copied, chunk by
    /// chunk. Only under a lock of the store: a writer cuts the journal's torn end, and reading a
    /// mapped page that a cut removed would stop the process (SIGBUS).
    package func reader(records: RecordFiles?, mapped: Bool = false) throws -> JournalReader? {
        guard let file = try root.openForReading(Self.fileName) else { return nil }
        file.mayMap = mapped
        return JournalReader(source: file, isCommitted: { line in try records?.hasCommitted(line) ?? true })
    }

    /// Reads the whole journal into an index, settled by `records`. A journal that is missing
    /// while records exist, empty, cut short or without a header counts as damaged.
    package func index(records: RecordFiles?, skippingDamage: Bool = false) throws -> JournalIndex {
        guard let reader = try reader(records: records), try reader.source.currentSize() > 0 else {
            var index = JournalIndex()
            if try records?.hasAny() == true { index.damage = "the index \(Self.fileName) is missing" }
            return index
        }
        var index = try JournalIndex(reading: reader, skippingDamage: skippingDamage)
        let size = try reader.source.currentSize()
        if index.damage == nil, let noted = notedLength(reader), size < noted {
            index.damage = "the index \(Self.fileName) was cut short (\(size) of \(noted) bytes)"
        }
        if index.damage == nil, index.lineCount == 0 {
            index.damage = "the index \(Self.fileName) has no header line"
        }
        return index
    }

    /// The journal's current file, by inode: a compaction or a rebuild puts a new one in place.
    func currentInode() throws -> UInt64? {
        try root.entry(Self.fileName)?.inode
    }

    // MARK: Writing, under the exclusive lock

    /// Appends lines; if the append fails, cuts the journal back so no partial line remains.
    func append(_ lines: [JournalLine], durable: Bool) throws {
        guard !lines.isEmpty else { return }
        let sizeBefore = try root.entry(Self.fileName)?.size
        do {
            let appended = try root.append(
                Self.fileName, bytes: lines.flatMap(\.encoded), durable: durable, notingLengthAs: Platform.journalLengthAttribute)
            if !appended.noted { noteLength(appended.length) }
        } catch let error as StoreError {
            if let sizeBefore { try? root.truncate(Self.fileName, to: sizeBefore, durable: durable, notingLengthAs: Platform.journalLengthAttribute) }
            throw error
        }
    }

    // MARK: A batch of commits

    /// `likes.batch`: while a batch of likes commits with one flush (see `WriteSession`), the
    /// journal's length before the batch's lines, so that whoever finds it after a crash knows
    /// which lines may wait for their records' renames.
    static let batchMarkName = "likes.batch"

    /// Writes the batch mark: the batch's lines start at `offset`. Unflushed: the flush that makes
    /// the batch's files durable, before any of its lines is written, makes it durable too.
    func markBatch(at offset: Int) throws {
        try? root.remove(Self.batchMarkName)
        _ = try Array("\(offset)\n".utf8).withUnsafeBytes { try root.createFile(Self.batchMarkName, bytes: $0, durable: false) }
    }

    /// Removes the batch mark, unflushed: every line after it is settled and durable.
    func unmarkBatch() throws {
        try root.remove(Self.batchMarkName)
    }

    /// Where the lines of a batch that was committing begin, when its mark is there.
    func batchMark() throws -> Int? {
        guard let data = try? root.read(Self.batchMarkName) else { return nil }
        return Int(String(decoding: data, as: UTF8.self).trimmingSpace()) ?? 0
    }

    /// Finishes, with `finishing`, every change of a batch cut short that the record files do not
    /// show: the newest line of each photo after the mark. A batch's lines are written only once
    /// all their files are flushed, so each such change can be finished (one that cannot is left
    /// for `repair`, which the record files and the journal then tell apart). Removes the mark.
    func finishBatch(_ reader: JournalReader, records: RecordFiles, finishing: (JournalLine) throws -> Bool) throws {
        guard let offset = try batchMark() else { return }
        if offset < (try reader.source.currentSize()) {
            var newest: [String: JournalLine] = [:]
            var order: [String] = []
            try reader.forward(from: offset) { item in
                if let line = item.line, line.operation.changesPhoto {
                    if newest.updateValue(line, forKey: line.key) == nil { order.append(line.key) }
                }
                return true
            }
            for key in order { if let line = newest[key], try !records.hasCommitted(line) { _ = try finishing(line) } }
        }
        try unmarkBatch()
    }

    /// Makes the journal's end sound before a change: cuts a torn last line, finishes the changes
    /// of a batch cut short (``finishBatch(_:records:finishing:)``), and has `finishing`
    /// finish the changes of the last two lines (see ``settle(_:records:finishing:)``), taking
    /// the last line back when its change cannot be finished. Returns the time of the last line
    /// and the format its header names (``JournalLine/formatName`` unless it is to be written
    /// anew), or `nil` when the journal is missing, cut short or its last line unreadable: then
    /// it must be rebuilt.
    func recoverEnd(
        records: RecordFiles, durable: Bool, finishing: (JournalLine) throws -> Bool
    ) throws -> (lastTime: Int64, format: String?)? {
        // Unjudged: `settle` judges the last lines by their records.
        guard let reader = try reader(records: nil) else { return nil }
        let size = try reader.source.currentSize()
        guard size > 0, size >= notedLength(reader) ?? 0 else { return nil }
        let end = try reader.end()
        if end.tornTailBytes > 0 {
            // An append cut short by a crash: its change never committed.
            try root.truncate(Self.fileName, to: size - end.tornTailBytes, durable: durable, notingLengthAs: Platform.journalLengthAttribute)
        }
        guard let last = end.lastLine else { return nil }
        try finishBatch(reader, records: records, finishing: finishing)
        if let unfinished = try settle(reader, records: records, finishing: finishing), unfinished.at == last.at, unfinished.key == last.key {
            try append([.aborting(last)], durable: durable)
        }
        let header = last.operation == .header ? last : try reader.firstLine()
        return (last.at, header?.key)
    }

    /// Finishes, with `finishing`, the changes of the journal's last two photo lines that the
    /// record files do not show, the older first; returns the newest change left unfinished.
    ///
    /// Where a change is flushed by one `syncfs` after its line, a power cut may leave its rename
    /// undone; and the next change, cut before its own flush, may have had its line written back
    /// already. So the last line may be a change never flushed (finished if all it needs reached
    /// the disk, else taken back), and the one before it a flushed change whose rename was lost
    /// (always finished). Every change settles these before its own line, and flushes what it
    /// finishes, so nothing further back can be waiting.
    func settle(_ reader: JournalReader, records: RecordFiles, finishing: (JournalLine) throws -> Bool) throws -> JournalLine? {
        var unfinished: JournalLine?
        for line in try reader.lastChanges().reversed() where try !records.hasCommitted(line) {
            unfinished = try finishing(line) ? nil : line
        }
        return unfinished
    }

    /// Marks the journal unsorted (``JournalLine/unsortedFormatName``) in place: the format name
    /// in its header is written over with the other name, of the same length, and flushed (when
    /// `durable`) before any line out of order can follow it. The file stays the same, so an
    /// observer that has it open reads on through the lines a restore appends, even once a sorted
    /// journal has taken its name. False, changing nothing, where the header is not the usual
    /// one as this version writes it.
    func markUnsorted(durable: Bool) throws -> Bool {
        guard let reader = try reader(records: nil), let header = try reader.firstLine(), header.operation == .header,
            header.key == JournalLine.formatName
        else { return false }
        let encoded = header.encoded
        guard try reader.source.read(0..<encoded.count) == encoded else { return false }
        let offset = encoded.count - 1 - JournalLine.formatName.utf8.count
        try root.overwrite(Self.fileName, at: offset, bytes: Array(JournalLine.unsortedFormatName.utf8), durable: durable)
        return true
    }

    /// Writes a new journal of `entries` (a header, then one `L` line per entry in listing
    /// order) and puts it in place atomically. An entry without its catalog (read from a journal
    /// of the format before) gets it from its record, read with `records`. `format`: the header's,
    /// ``JournalLine/unsortedFormatName`` for a restore about to append likes out of order.
    /// Returns the newest time in it.
    ///
    /// Every path that writes the journal anew comes here, and whatever it is, the new journal
    /// keeps what a sync still owes the folder (``SyncOwed``): the `U` lines of the store's own
    /// unlikes no sync has published, from the journal it replaces, right after the header (so
    /// that a photo liked again after its unlike is liked by its `L` line after them).
    @discardableResult
    package func rewrite(_ entries: [LiveEntry], records: RecordFiles?, durable: Bool, format: String = JournalLine.formatName) throws -> Int64 {
        let sorted = entries.sorted { $0.listingKey < $1.listingKey }
        let owed = try replacedReader(records: records).map { try SyncOwed.unlikeLines(in: $0, root: root) } ?? []
        let now = max(Timestamp.now(), sorted.last?.likedAt ?? 0, owed.map(\.at).max() ?? 0)
        var bytes = JournalLine.header(at: now, snapshotLines: owed.count + sorted.count, format: format).encoded
        bytes.reserveCapacity(sorted.count * 128)
        for line in owed { bytes += line.encoded }
        for var entry in sorted {
            if entry.catalog?.taken == nil, let record = try? records?.read(key: entry.key) { entry.catalog = CatalogFields(record: record) }
            bytes += JournalLine.describing(entry, operation: .liked, at: entry.likedAt).encoded
        }
        try install(durable: durable) { write in try write(bytes, true) }
        return now
    }

    /// Puts in place a journal that `body` writes under a temporary name, in pieces (each given
    /// with whether it is the last), then flushed: what every journal written anew goes through.
    private func install(durable: Bool, _ body: ((_ piece: [UInt8], _ last: Bool) throws -> Void) throws -> Void) throws {
        let temporary = StoreLayout.journalTemporaryFileName
        try? root.remove(temporary)
        // Where changes are flushed by one syncfs, the last one's rename may not be durable yet
        // (see WriteSession), and this journal will not name it as the last change: flush first.
        if durable, root.flushStrategy == .wholeFileSystem { try root.syncFileSystem() }
        var length = 0
        try body { piece, last in
            if length == 0 {
                _ = try piece.withUnsafeBytes {
                    try root.createFile(temporary, bytes: $0, durable: durable && last, notingLengthAs: last ? Platform.journalLengthAttribute : nil)
                }
            } else {
                _ = try root.append(temporary, bytes: piece, durable: durable && last, notingLengthAs: last ? Platform.journalLengthAttribute : nil)
            }
            length += piece.count
        }
        // Also in the lock file, whether or not the journal has the note (a version before the
        // attribute reads the lock file's), and before the new journal takes its name: the note
        // must never claim more than the journal has, and this one may be shorter than the one
        // it replaces. Flushed, so that no power cut brings back the longer note beside it.
        noteLength(length, durable: durable)
        try root.rename(temporary, to: Self.fileName)
        if durable { try root.sync(commit: true) }
    }

    /// The journal written anew in the listing's order, as ``rewrite(_:records:durable:format:)``
    /// writes it from an index, with a few megabytes where the index of 100,000 photos takes a
    /// hundred: a walk through the journal keeps of each live photo only its `likedAt` and where
    /// its newest line is; then each such line is read again and written, as it is where it is
    /// the photo's `L` line, else (an `M` line) as the `L` line it amounts to. What a sync still
    /// owes the folder is kept as that writer keeps it. `nil`, writing nothing, where the journal
    /// is missing, damaged, cut short or of a format before the date taken: the index's way then
    /// (which rescues what a damaged one lost). Returns the newest time in it.
    package func rewriteByMoving(records: RecordFiles?, durable: Bool, format: String = JournalLine.formatName) throws -> Int64? {
        guard let reader = try reader(records: records) else { return nil }
        let source = reader.source
        let size = try source.currentSize()
        if let noted = notedLength(reader), size < noted { return nil }
        var places: [String: LinePlace] = [:]
        var sound = true
        let end = try reader.forward { item in
            guard let line = item.line, line.operation != .liked && line.operation != .updated || line.catalog?.taken != nil else {
                sound = false
                return false
            }
            let place = LinePlace(likedAt: line.at, start: item.start, count: item.end - item.start, isLike: true)
            switch line.operation {
            case .liked: places[line.key] = place
            case .updated:
                places[line.key] = LinePlace(likedAt: places[line.key]?.likedAt ?? line.at, start: place.start, count: place.count, isLike: false)
            case .unliked: places.removeValue(forKey: line.key)
            case .header, .aborted, .purged: break
            }
            return true
        }
        guard sound, end.lineCount > 0, end.tornTailBytes == 0 else { return nil }
        let sorted = places.sorted { ($0.value.likedAt, $0.key) < ($1.value.likedAt, $1.key) }
        places = [:]
        let owed = try SyncOwed.unlikeLines(in: reader, root: root)
        let now = max(Timestamp.now(), sorted.last?.value.likedAt ?? 0, owed.map(\.at).max() ?? 0)
        try install(durable: durable) { write in
            var buffer = JournalLine.header(at: now, snapshotLines: owed.count + sorted.count, format: format).encoded
            for line in owed { buffer += line.encoded }
            for (number, entry) in sorted.enumerated() {
                let bytes = try source.read(entry.value.start..<(entry.value.start + entry.value.count))
                if entry.value.isLike {
                    buffer += bytes
                } else {
                    // `M <time> <the rest>` as `L <likedAt> <the rest>`: the fields after the
                    // time are those of an `L` line (the line parsed when it was walked through).
                    let rest = bytes.dropFirst(2).drop { $0 != 0x20 }
                    buffer += [JournalLine.Operation.liked.rawValue, 0x20]
                    buffer += Array(String(entry.value.likedAt).utf8)
                    buffer += rest
                }
                if buffer.count >= 1 << 20 || number == sorted.count - 1 {
                    try write(buffer, number == sorted.count - 1)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            if sorted.isEmpty { try write(buffer, true) }
        }
        return now
    }

    /// Where a live photo's newest line is, for ``rewriteByMoving(records:durable:format:)``.
    private struct LinePlace {
        var likedAt: Int64
        var start: Int
        var count: Int
        /// Whether it is the photo's `L` line (else an `M` line).
        var isLike: Bool
    }

    /// The journal a new one replaces: the one in place, else (a repair set it aside as damaged
    /// before writing the new one) the newest one set aside under `damaged/`.
    private func replacedReader(records: RecordFiles?) throws -> JournalReader? {
        if let current = try reader(records: records) { return current }
        guard let damaged = try root.subdirectoryIfFolder(StoreLayout.damagedDirectory) else { return nil }
        for stamp in try damaged.names().sorted().reversed() {
            if let shelf = try damaged.subdirectoryIfFolder(stamp), let setAside = try Journal(root: shelf).reader(records: records) {
                return setAside
            }
        }
        return nil
    }

    private func noteLength(_ length: Int, durable: Bool = false) {
        guard let lockDescriptor else { preconditionFailure("the journal is written only under the exclusive lock") }
        FileLock.noteJournalLength(length, lockDescriptor: lockDescriptor, durable: durable)
    }
}

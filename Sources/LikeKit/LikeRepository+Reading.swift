// Listing, statistics and the index that makes them cheap.

import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension LikeRepository {
    /// Lists liked photos: newest first by default, with paging and filters.
    ///
    /// Without filters only the page's records are decoded; the order comes from the store's
    /// index. With `color` or `search`, every record is decoded to test it.
    ///
    /// ```swift
    /// let page2 = try repository.list(LikeQuery(limit: 20, offset: 20))
    /// ```
    ///
    /// - Parameter query: Order, limit, offset and filters; by default every record, newest first.
    /// - Returns: The records, and a sentence for each damaged record passed over.
    /// - Throws: ``LikeRepositoryError/invalidArgument(_:)`` for a negative limit or offset; `io`.
    public func list(_ query: LikeQuery = LikeQuery()) throws -> LikeListing {
        let selection = try select(query)
        return LikeListing(records: selection.records.map(publicRecord), damage: selection.damage)
    }

    /// The deepest offset served by walking the journal back: up to it, decoding the records
    /// passed over costs less than reading the whole index. Measured at 100,000 (release,
    /// `likes list --offset N --limit 20 --json`, warm): the walk 5.7 ms at 0 and 13.8 ms at
    /// 500, about 0.016 ms a record; the index path 180–200 ms at any depth.
    static let walkedOffsetLimit = 8_000

    /// The records a query lists, as stored, and the damage passed over.
    func select(_ query: LikeQuery) throws -> (records: [StoredRecord], damage: [String]) {
        if let limit = query.limit, limit < 0 { throw LikeRepositoryError.invalidArgument("The limit must not be negative; it was \(limit).") }
        guard query.offset >= 0 else { throw LikeRepositoryError.invalidArgument("The offset must not be negative; it was \(query.offset).") }
        guard let root = try openRoot(), let records = try root.subdirectory(StoreLayout.recordsDirectory) else {
            return ([], [])
        }
        // The backward walk decodes every record it passes, so it serves pages near the newest;
        // deeper ones read the whole index (no record decoded) and decode only the page.
        if !query.hasFilters, query.order == .newestFirst, let limit = query.limit, query.offset <= Self.walkedOffsetLimit,
            let page = try newestPage(root: root, records: records, count: query.offset + limit, query: query)
        {
            return (Array(page.dropFirst(query.offset)), [])
        }
        var damage: [String] = []
        let entries = try liveEntries(root: root, records: records, damage: &damage).filter(query.matches)
        // Likes of one millisecond keep the order of their lines in the journal.
        func order(_ entry: LiveEntry) -> (Int64, Int, String) { (entry.likedAt, entry.sequence, entry.key) }
        let ordered = entries.sorted { query.order == .newestFirst ? order($0) > order($1) : order($0) < order($1) }
        var result: [StoredRecord] = []
        var skipped = 0
        for entry in ordered.dropFirst(query.hasFilters ? 0 : query.offset) {
            if let limit = query.limit, result.count >= limit { break }
            let stored: StoredRecord
            do {
                // Missing means it was unliked since the index was read.
                guard let found = try readStoredRecord(key: entry.key, in: records) else { continue }
                stored = found
            } catch LikeRepositoryError.damagedRecord(let file, let reason) {
                damage.append("The record file \(file) is damaged (\(reason)).")
                continue
            }
            if query.hasFilters {
                guard query.matches(publicRecord(stored)) else { continue }
                if skipped < query.offset {
                    skipped += 1
                    continue
                }
            }
            result.append(stored)
        }
        return (result, damage)
    }

    /// How many photos are liked, their bytes, and the dates of the oldest and newest like.
    ///
    /// Read from the index alone: no record is decoded.
    ///
    /// - Throws: ``LikeRepositoryError/io(action:path:code:)`` when the store cannot be read.
    public func statistics() throws -> LikeStatistics {
        let (fileSystem, strategy) = try fileSystemAndStrategy()
        guard let root = try openRoot(), let records = try root.subdirectory(StoreLayout.recordsDirectory) else {
            return LikeStatistics(count: 0, bytes: 0, oldest: nil, newest: nil, fileSystem: fileSystem, flushStrategy: strategy)
        }
        var damage: [String] = []
        let entries = try liveEntries(root: root, records: records, damage: &damage)
        return LikeStatistics(
            count: entries.count, bytes: Int(entries.reduce(0) { $0 + $1.bytes }),
            oldest: entries.map(\.likedAt).min().map(Timestamp.date), newest: entries.map(\.likedAt).max().map(Timestamp.date),
            fileSystem: fileSystem, flushStrategy: strategy)
    }

    /// The file system of the store's directory, or of the nearest folder above it that exists,
    /// and how changes are flushed there.
    private func fileSystemAndStrategy() throws -> (String, FlushStrategy) {
        var candidate = path
        while true {
            if let directory = try StoreDirectory.open(path: candidate, faults: faults) {
                return (directory.fileSystem.name, isDurable ? directory.flushStrategy : .none)
            }
            let parent = (candidate as NSString).deletingLastPathComponent
            if parent.isEmpty || parent == candidate { return ("unknown", isDurable ? .eachFile : .none) }
            candidate = parent
        }
    }

    // MARK: The index

    /// The newest `count` records, read from the end of the journal: `nil` when the journal is
    /// missing, cut short or damaged where it was read (the caller then takes the sure path).
    ///
    /// `L` lines are in `likedAt` order, and each liked photo's record carries the `likedAt` of the
    /// `L` line that liked it. So walking the `L` lines backwards and keeping those whose record
    /// file exists with that `likedAt` meets the live photos newest first, each once, and the walk
    /// stops after `count` of them. A `U` line met first settles its photo as unliked without a
    /// look at its file (unless an `A` line takes it back, or it is the last line, which may not
    /// have committed), so recent churn costs no file system calls. The cost is the page's,
    /// whatever the size of the collection.
    ///
    /// The query's album and date filters are answered on the way. `L` and `M` lines carry the
    /// photo's albums, and the first of them met walking backwards is the photo's newest, so its
    /// albums are the photo's own by the time its `L` line is reached; the record confirms them.
    /// The walk stops at the first `L` line older than the date.
    func newestPage(root: StoreDirectory, records: StoreDirectory, count: Int, query: LikeQuery = LikeQuery()) throws -> [StoredRecord]? {
        guard count > 0 else { return [] }
        let fd = openat(root.descriptor, StoreLayout.journalFileName, O_RDONLY | O_NONBLOCK | Platform.openFlagsCommon)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        if let noted = FileLock.notedJournalLength(in: root), size < noted { return nil }

        var page: [StoredRecord] = []
        var decided: Set<String> = []
        let album = query.album
        let since = query.since.map(Timestamp.milliseconds)
        var newestAlbums: [String: [AlbumName]] = [:]  // of photos whose `M` line was met first
        var voidNext = false  // an `A` line takes back the line before it
        var isLastLine = true
        var end = size
        var carried: [UInt8] = []  // the start of a line whose rest was read before
        let chunkSize = 64 * 1024
        while end > 0 {
            let start = max(0, end - chunkSize)
            var chunk = try root.pread(fd, range: start..<end, name: StoreLayout.journalFileName)
            chunk += carried
            end = start
            // Lines after the first newline of the chunk are whole; the part before waits for
            // the next chunk unless this one began the file.
            var lineEnd = chunk.count
            if chunk.last != 0x0A, carried.isEmpty, start + chunk.count == size {
                // A torn last line (a crash mid-append): it never committed.
                lineEnd = (chunk.lastIndex(of: 0x0A) ?? -1) + 1
            }
            while lineEnd > 0 {
                let newline = chunk[..<(lineEnd - 1)].lastIndex(of: 0x0A)
                let lineStart = newline.map { $0 + 1 } ?? 0
                if newline == nil, start > 0 { break }  // incomplete: carry it
                let bytes = chunk[lineStart..<(lineEnd - 1)]
                lineEnd = lineStart
                let wasLastLine = isLastLine
                isLastLine = false
                guard let first = bytes.first else { return nil }
                if first == JournalLine.Operation.header.rawValue { return page }
                if voidNext {
                    voidNext = false
                    continue
                }
                if first == JournalLine.Operation.aborted.rawValue {
                    voidNext = true
                    continue
                }
                if first == JournalLine.Operation.unliked.rawValue {
                    if wasLastLine {
                        guard let line = JournalLine.parse(bytes) else { return nil }
                        if try !hasCommitted(line, records: records) { continue }
                    }
                    guard let line = JournalLine.timeAndKey(bytes) else { return nil }
                    decided.insert(line.key)
                    continue
                }
                if first == JournalLine.Operation.updated.rawValue, album != nil {
                    guard let line = JournalLine.parse(bytes) else { return nil }
                    if wasLastLine, try !hasCommitted(line, records: records) { continue }
                    if !decided.contains(line.key), newestAlbums[line.key] == nil { newestAlbums[line.key] = line.albums }
                    continue
                }
                guard first == JournalLine.Operation.liked.rawValue else { continue }
                guard let line = JournalLine.timeAndKey(bytes) else { return nil }
                if let since, line.at < since { return page }  // `L` lines are in time order
                guard decided.insert(line.key).inserted else { continue }
                if let album {
                    guard let albums = newestAlbums[line.key] ?? JournalLine.parse(bytes).map(\.albums) else { return nil }
                    if !albums.contains(album) { continue }
                }
                let stored: StoredRecord?
                do {
                    stored = try readStoredRecord(key: line.key, in: records)
                } catch LikeRepositoryError.damagedRecord {
                    return nil  // let the sure path name the damage
                }
                guard let stored, stored.likedAt == line.at, album.map(stored.albums.contains) ?? true else { continue }
                page.append(stored)
                if page.count == count { return page }
            }
            carried = Array(chunk[..<lineEnd])
        }
        return carried.isEmpty ? page : nil
    }

    /// The live photos by the journal, or by the record files where the journal is damaged
    /// (then `damage` names the damage).
    func liveEntries(root: StoreDirectory, records: StoreDirectory, damage: inout [String]) throws -> [LiveEntry] {
        let index = try loadIndex(root: root, records: records)
        if let problem = index.damage {
            damage.append(
                "\(problem.prefix(1).uppercased() + problem.dropFirst()); the records were read from their files instead. Repairing the store rebuilds the index."
            )
            let decoded = try decodeAllRecords(in: records)
            damage += decoded.damage
            return decoded.entries
        }
        return Array(index.live.values)
    }

    /// Reads the whole journal and settles its last line against the record file.
    ///
    /// A missing journal with records present counts as damage.
    func loadIndex(root: StoreDirectory, records: StoreDirectory, locked: Bool = false) throws -> JournalIndex {
        // A shared lock, where the store allows one, so that no writer is half way through.
        let lock = locked ? nil : try FileLock.shared(in: root, timeout: lockTimeout)
        defer { _ = lock }
        let noted = FileLock.notedJournalLength(in: root)
        guard let data = try root.read(StoreLayout.journalFileName), !data.isEmpty else {
            var index = JournalIndex()
            if try records.names().contains(where: { StoreLayout.key(ofRecordFile: $0) != nil }) {
                index.damage = "the index \(StoreLayout.journalFileName) is missing"
            }
            return index
        }
        var index = JournalIndex(parsing: [UInt8](data))
        if index.damage == nil, let noted, data.count < noted {
            index.damage = "the index \(StoreLayout.journalFileName) was cut short (\(data.count) of \(noted) bytes)"
        }
        if index.damage == nil, index.lineCount == 0 {
            index.damage = "the index \(StoreLayout.journalFileName) has no header line"
        }
        if index.damage == nil, index.lastLineIsUncertain, let last = index.lastLine, try !hasCommitted(last, records: records) {
            index.revertLastLine()
        }
        return index
    }

    /// Whether the change a journal line describes took effect, judged by the record file.
    func hasCommitted(_ line: JournalLine, records: StoreDirectory) throws -> Bool {
        let stored: StoredRecord?
        do {
            stored = try readStoredRecord(key: line.key, in: records)
        } catch LikeRepositoryError.damagedRecord {
            return true  // damage is for verify to report, not a reason to drop the line
        }
        switch line.operation {
        case .liked, .updated: return stored?.generation == line.generation
        case .unliked: return stored?.generation != line.generation
        default: return true
        }
    }

    /// Decodes every record file: the slow, sure path used to rebuild a damaged index.
    func decodeAllRecords(in records: StoreDirectory) throws -> (
        entries: [LiveEntry], records: [StoredRecord], damage: [String], damagedKeys: Set<String>
    ) {
        var entries: [LiveEntry] = []
        var stored: [StoredRecord] = []
        var damage: [String] = []
        var damagedKeys: Set<String> = []
        for name in try records.names() {
            // A link or directory with a record's name is no record; purge removes it.
            guard let key = StoreLayout.key(ofRecordFile: name), try records.entry(name)?.isRegularFile == true else { continue }
            do {
                guard let record = try readStoredRecord(key: key, in: records) else { continue }
                entries.append(record.liveEntry)
                stored.append(record)
            } catch LikeRepositoryError.damagedRecord(let file, let reason) {
                damage.append("The record file \(file) is damaged (\(reason)).")
                damagedKeys.insert(key)
            }
        }
        return (entries, stored, damage, damagedKeys)
    }
}

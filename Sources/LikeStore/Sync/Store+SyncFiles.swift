// Owns sync/, what a store keeps between syncs with other devices: its files replaced whole
// (SyncBookkeeping.swift says what they hold), the lock that lets one process sync at a time, and
// what the journal says changed since a sync looked. Called by the façade's sync.

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension StoreLayout {
    /// `sync/NAME`: what syncing with other devices keeps between syncs.
    static let syncDirectory = "sync"
    /// `sync/sync.lock`: held by the one process syncing the store.
    static let syncLockName = "sync.lock"
}

extension Store {
    /// A file of what syncing keeps (`name` a few letters, digits and `-`), or `nil`.
    package func syncFile(_ name: String) throws -> Data? {
        guard let root = try openRoot(), let folder = try root.subdirectoryIfFolder(StoreLayout.syncDirectory) else { return nil }
        return try folder.read(Self.stateFileName(name))
    }

    /// Replaces a file of what syncing keeps, whole (written aside, flushed, renamed over).
    package func setSyncFile(_ data: Data, for name: String) throws {
        try setSyncFiles([(name, data)])
    }

    /// What changes when a file of what syncing keeps is replaced: its inode, size and time;
    /// `nil` when there is none.
    package func syncFileMark(_ name: String) throws -> String? {
        guard let root = try openRoot(), let folder = try root.subdirectoryIfFolder(StoreLayout.syncDirectory),
            let entry = try folder.entry(Self.stateFileName(name))
        else { return nil }
        return "\(entry.inode):\(entry.size):\(entry.modified)"
    }

    /// Replaces files of what syncing keeps, each whole, with one flush of the folder after them;
    /// `nil` removes the file (see ``replaceFiles(in:_:)``).
    package func setSyncFiles(_ files: [(name: String, data: Data?)]) throws {
        try replaceFiles(in: StoreLayout.syncDirectory, files)
    }

    /// Runs `body` while this process alone syncs the store: one sync at a time, beside any
    /// other process's likes and reads (the store's own lock is taken only for each write).
    /// Waits as long as the store's lock would.
    package func withSyncLock<Result>(_ body: () throws -> Result) throws -> Result {
        let root = try StoreDirectory.openOrCreate(path: path, faults: faults)
        let folder = try root.subdirectoryCreatingIfNeeded(StoreLayout.syncDirectory, durable: durable)
        let lock = try FileLock(in: folder, named: StoreLayout.syncLockName, timeout: lockTimeout)
        let result = try body()
        _ = consume lock
        return result
    }

    /// Where the journal ends now: its file (by inode) and length, short of a last change still
    /// being committed; `nil` without a journal.
    package func journalEnd() throws -> JournalPosition? {
        guard let root = try openRoot(), let entry = try root.entry(StoreLayout.journalFileName), entry.isRegularFile else { return nil }
        // Without a last line whose change has not taken effect yet: a reader that read the
        // records now would miss it, and one going on from here later would never see it.
        guard let reader = try Journal(root: root).reader(records: try open()?.records) else {
            return JournalPosition(inode: entry.inode, offset: entry.size)
        }
        let header = try reader.firstLine().flatMap { $0.operation == .header ? $0.generation : nil }
        return JournalPosition(inode: entry.inode, offset: min(entry.size, try reader.settledEnd()), header: header)
    }

    /// The storage keys of the photos the journal's lines from `position` on change (liked,
    /// updated, unliked), the photos this store unliked there with the time of each one's last
    /// such unlike (not those a sync unliked: ``isBySync(_:)``), and where the lines end; `nil`
    /// when the journal is another file than `position` names (written anew by purge, repair or
    /// a restore's sorting) or shorter, and the caller must look at every record.
    package func changes(since position: JournalPosition) throws -> (keys: Set<String>, unliked: [String: Int64], end: JournalPosition)? {
        guard let root = try openRoot(), let entry = try root.entry(StoreLayout.journalFileName), entry.isRegularFile,
            entry.inode == position.inode, position.offset <= entry.size, let reader = try Journal(root: root).reader(records: nil)
        else { return nil }
        if let header = position.header, try reader.firstLine()?.generation != header { return nil }
        // A position within a line (kept by a version that counted a torn end's bytes, which
        // the next writer wrote its own line over): the caller looks at every record.
        guard try reader.beginsALine(at: position.offset) else { return nil }
        var keys = Set<String>()
        var unliked: [String: Int64] = [:]
        let end = try reader.forward(from: position.offset) { item in
            guard let line = item.line, line.operation.changesPhoto else { return true }
            keys.insert(line.key)
            if line.operation == .unliked, let id = line.id, !Self.isBySync(line) { unliked[id] = line.at }
            return true
        }
        return (keys, unliked, JournalPosition(inode: position.inode, offset: end.end))
    }

    /// The record stored under a storage key, or `nil`.
    package func record(forKey key: String) throws -> StoredRecord? {
        try open()?.records?.read(key: key)
    }

    /// By photo id, the time of the latest unlike this store made of it in the whole journal
    /// (milliseconds; not those a sync made, ``isBySync(_:)``): for a sync that publishes it.
    package func unlikeTimes() throws -> [String: Int64] {
        guard let root = try openRoot(), let reader = try Journal(root: root).reader(records: nil) else { return [:] }
        var times: [String: Int64] = [:]
        try reader.forEachParsableLine { line in
            if line.operation == .unliked, let id = line.id, !Self.isBySync(line) { times[id] = max(times[id] ?? line.at, line.at) }
        }
        return times
    }

    /// Whether a `U` line is of an unlike a sync merged: the record it keeps names the other
    /// device's unlike (``RecordStamps/unliked``), and is not a change of this store's own.
    static func isBySync(_ line: JournalLine) -> Bool {
        guard let bytes = line.unlikedRecord else { return false }
        // Looked for before the record is read: most unlikes are a store's own.
        let marker = Array("\"\(RecordStamps.unliked)\"".utf8)
        guard bytes.count >= marker.count,
            (0...(bytes.count - marker.count)).contains(where: { start in bytes[start..<(start + marker.count)].elementsEqual(marker) })
        else { return false }
        return (try? StoredRecord.decode(Data(bytes)))?.stamps?[RecordStamps.unliked] != nil
    }
}

extension Store {
    /// Hands on every photo's record as its file holds it, one at a time and in no order: what a
    /// sync that looks at every record needs, without the listing, which on a journal a killed
    /// merge left out of date order is made from an index of every photo (a sync after a killed
    /// join of 100,000 photos would hold them all).
    ///
    /// - Throws: ``StoreError``: `damagedRecord` for a record that does not read, `io`.
    package func forEachRecord(_ body: (StoredRecord) throws -> Void) throws {
        guard let root = try openRoot(), let directory = try root.subdirectoryIfFolder(StoreLayout.recordsDirectory) else { return }
        let records = RecordFiles(directory: directory)
        try directory.forEachName { name in
            // Gone since listed: unliked meanwhile, which the next sync finds.
            guard let key = StoreLayout.key(ofRecordFile: name), let record = try records.read(key: key) else { return }
            try body(record)
        }
    }
}

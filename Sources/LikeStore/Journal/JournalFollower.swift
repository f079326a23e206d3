// Owns following the journal as it grows, so that an observer hears every change to the store,
// made by this process or any other, in the order the changes were committed. Made by the
// façade's observe; reads through Journal and hands StoredChanges to the façade's closure.

import Dispatch
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where a follower stands in the journal: the file (by inode) and the offset after the last
/// line it has handled.
package struct JournalPosition: Sendable, Hashable, Codable {
    package var inode: UInt64?
    package var offset: Int
    /// The generation of the journal's header line, where known: a journal written anew has a
    /// header of its own, and may have the inode of one removed before it (file systems reuse
    /// inode numbers at once), so that the inode alone cannot tell it from the journal before.
    package var header: String?

    package init(inode: UInt64?, offset: Int, header: String? = nil) {
        self.inode = inode
        self.offset = offset
        self.header = header
    }
}

/// A change read from the journal, and where in the journal its line ends.
package struct FollowedChange: Sendable {
    package var change: StoredChange
    package var position: JournalPosition
}

/// A repository's reader of the journal, on a thread of its own, feeding all its observers.
///
/// It wakes when the store directory changes (inotify on Linux), when this process's repository
/// has written (a kick through a pipe), or every quarter of a second where there is no inotify,
/// and at least once a second anyway. Each time it takes the store's shared lock, so that no write
/// is half done, reads the new lines and hands the changes to `deliver`, one at a time, in order.
package final class JournalFollower: Sendable {
    private let store: Store
    private let deliver: @Sendable (FollowedChange) -> Void
    /// Called when the follower leaves a journal file (rebuilt by purge) for its replacement.
    private let leftJournal: @Sendable (UInt64?) -> Void
    /// Records this process committed, by key and generation: the exact record for its own changes.
    private let recentRecord: @Sendable (String, String) -> StoredRecord?
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let stopped = Locked(false)

    package init(
        store: Store, start: JournalPosition, recentRecord: @escaping @Sendable (String, String) -> StoredRecord?,
        leftJournal: @escaping @Sendable (UInt64?) -> Void, deliver: @escaping @Sendable (FollowedChange) -> Void
    ) {
        self.store = store
        self.deliver = deliver
        self.leftJournal = leftJournal
        self.recentRecord = recentRecord
        // Without a pipe (no descriptors left) the follower still wakes on its timer; -1 keeps it
        // from writing to, polling and closing descriptor 0 in its place.
        var ends: [Int32] = [-1, -1]
        if store.faults?.withoutPipe != true, pipe(&ends) == 0 {
            _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
            _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        startThread(named: "LikeKit.JournalFollower") { [self] in self.run(from: start) }
    }

    package var isStopped: Bool { stopped.withLock { $0 } }
    /// Whether its thread has ended, every descriptor it opened closed.
    package var hasEnded: Bool { ended.withLock { $0 } }
    private let ended = Locked(false)

    /// Wakes the follower now: this process has just written.
    package func kick() {
        guard wakeWrite >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Stops delivery; a change being delivered finishes. Safe from inside `deliver`.
    package func stop() {
        let wasStopped = stopped.withLock { value -> Bool in
            defer { value = true }
            return value
        }
        if !wasStopped { kick() }
    }

    /// The journal's current end: where a new observer starts. Read without the store's lock,
    /// so that subscribing never waits for another process: a writer appends each line with one
    /// write, so the end is a line's end (or, after a crash cut a line, the follower passes over
    /// the damaged line it starts in).
    package static func currentPosition(of store: Store) -> JournalPosition {
        guard let root = try? store.openRoot(), let entry = try? root.entry(Journal.fileName) else {
            return JournalPosition(inode: nil, offset: 0)
        }
        return JournalPosition(inode: entry.inode, offset: entry.size)
    }

    // MARK: The thread

    private func run(from start: JournalPosition) {
        var reader = Reader(store: store, position: start, recentRecord: recentRecord)
        var watcher = DirectoryWatcher(path: store.path, wakeDescriptor: wakeWrite)
        defer {
            reader.close()
            watcher.close()
            if wakeRead >= 0 { close(wakeRead) }
            if wakeWrite >= 0 { close(wakeWrite) }
            ended.withLock { $0 = true }
        }
        while !isStopped {
            for event in reader.readNewChanges() {
                guard !isStopped else { return }
                switch event {
                case .change(let change): deliver(change)
                case .left(let inode): leftJournal(inode)
                }
            }
            watcher.wait(wakeDescriptor: wakeRead, timeoutMilliseconds: watcher.isWatching ? 1000 : 250)
        }
    }

    /// What a read of the journal found: a change, or that the journal followed was replaced.
    private enum Event {
        case change(FollowedChange)
        case left(UInt64?)
    }

    /// Reads the journal from a position onwards; owned by the follower's thread.
    private struct Reader {
        let store: Store
        var position: JournalPosition
        let recentRecord: @Sendable (String, String) -> StoredRecord?
        /// The journal file being followed, kept open: a compaction puts another in its place.
        var journal: JournalReader?
        var journalInode: UInt64?

        init(store: Store, position: JournalPosition, recentRecord: @escaping @Sendable (String, String) -> StoredRecord?) {
            self.store = store
            self.position = position
            self.recentRecord = recentRecord
        }

        mutating func close() {
            journal = nil
        }

        mutating func readNewChanges() -> [Event] {
            guard let opened = try? store.open(), let records = opened.records else { return [] }
            guard let lock = try? FileLock.shared(in: opened.root, timeout: 0.5) else { return [] }
            let changes = (try? readNewChanges(opened.journal, records: records, root: opened.root)) ?? []
            _ = consume lock
            return changes
        }

        private mutating func readNewChanges(_ current: Journal, records: RecordFiles, root: StoreDirectory) throws -> [Event] {
            var events: [Event] = []
            // The records the latest changes committed, read once for this batch, when needed.
            var recent: [String: Data]?
            while true {
                if journal == nil {
                    let expected = position.inode
                    guard try open(current, records: records) else { return events }
                    // The journal it was to start in was replaced before it was opened: that one
                    // is finished for its observers too.
                    if let expected, expected != journalInode { events.append(.left(expected)) }
                }
                guard let journal else { return events }
                let inode = journalInode
                var purge: FollowedChange?  // `P` lines of one purge share their time
                let end = try journal.forward(from: position.offset) { item in
                    guard let line = item.line else { return true }  // a damaged line tells nothing; pass over it
                    if let group = purge, line.operation != .purged || line.at != group.change.at {
                        events.append(.change(group))
                        purge = nil
                    }
                    let position = JournalPosition(inode: inode, offset: item.end)
                    switch line.operation {
                    case .liked, .updated, .unliked:
                        if let change = change(for: line, endingAt: item.end, in: journal, records: records, root: root, recent: &recent) {
                            events.append(.change(FollowedChange(change: change, position: position)))
                        }
                    case .purged:
                        var gathered =
                            purge ?? FollowedChange(change: StoredChange(kind: .purged, id: nil, at: line.at, record: nil), position: position)
                        gathered.change.files.append(line.purgedPath ?? line.key)
                        gathered.position = position
                        purge = gathered
                    case .header, .aborted:
                        break
                    }
                    return true
                }
                if let purge { events.append(.change(purge)) }
                position.offset = end.end
                // A journal rebuilt by purge replaced ours: finish the old file, then go on in the new.
                if let replacement = try current.currentInode(), replacement != journalInode {
                    close()  // reopened above, which says this one is finished
                    continue
                }
                return events
            }
        }

        /// The record kept by the first `U` line of `key` after `offset`.
        private func unlikedRecord(_ key: String, after offset: Int, in journal: JournalReader) -> StoredRecord? {
            var found: StoredRecord?
            _ = try? journal.forward(from: offset) { item in
                guard let line = item.line, line.operation == .unliked, line.key == key else { return true }
                found = line.unlikedRecord.flatMap { try? StoredRecord.decode(Data($0)) }
                return false
            }
            return found
        }

        /// Opens the journal; a file other than the one `position` names is read from just after
        /// its snapshot (a rebuilt journal's snapshot describes the store, not changes).
        private mutating func open(_ current: Journal, records: RecordFiles) throws -> Bool {
            guard let reader = try current.reader(records: records) else { return false }
            journal = reader
            journalInode = reader.source.identity
            if position.inode != journalInode {
                position = JournalPosition(inode: journalInode, offset: try reader.snapshotEnd())
            }
            return true
        }

        /// The change a line records; `nil` only for a like or update whose record cannot be
        /// found at all.
        private func change(
            for line: JournalLine, endingAt end: Int, in journal: JournalReader, records: RecordFiles, root: StoreDirectory,
            recent: inout [String: Data]?
        ) -> StoredChange? {
            if line.operation == .unliked {
                var files = [RecordFiles.directoryName + "/" + StoreLayout.recordFileName(line.key)]
                if line.imageGeneration != "-" {
                    files.append(ImageFiles.directoryName + "/" + StoreLayout.imageFileName(line.key, line.imageGeneration, user: false))
                }
                if let user = line.userImageGeneration {
                    files.append(ImageFiles.directoryName + "/" + StoreLayout.imageFileName(line.key, user, user: true))
                }
                let id = (line.id ?? StorageKey.decode(line.key)).flatMap { Names.id($0) }
                var change = StoredChange(kind: .unliked, id: id, at: line.at, record: nil, files: files)
                change.unlikeStamp = line.unlikedRecord.flatMap { try? StoredRecord.decode(Data($0)) }?.stamps?[RecordStamps.unliked]
                return change
            }
            let kind: StoredChange.Kind = line.operation == .liked ? .liked : .updated
            // This process's own change: the record it committed.
            if let record = recentRecord(line.key, line.generation) {
                return StoredChange(kind: kind, id: record.id, at: line.at, record: record)
            }
            // Another process's: its record file, unless a later change has replaced it already;
            // then the record it committed, from likes.recent. Failing that (an observer far
            // behind), the record its `U` line kept if it was unliked since, else the record as
            // it is now, with every part named as touched.
            let current = (try? records.read(key: line.key)) ?? nil
            if let current, current.generation == line.generation {
                return StoredChange(kind: kind, id: current.id, at: line.at, record: current)
            }
            if recent == nil { recent = RecentRecords(root: root).load() }
            if let data = recent?[line.key + " " + line.generation], let committed = try? StoredRecord.decode(data), committed.key == line.key {
                return StoredChange(kind: kind, id: committed.id, at: line.at, record: committed)
            }
            guard let stored = current ?? unlikedRecord(line.key, after: end, in: journal) else { return nil }
            var change = StoredChange(kind: kind, id: stored.id, at: line.at, record: stored)
            if stored.generation != line.generation { change.fieldsUnknown = true }
            return change
        }
    }
}

/// Waits for a change in the store directory: inotify on Linux; on Apple platforms kqueue, through
/// Dispatch sources on the directory (a journal created or replaced) and on the journal (a line
/// appended), which wake the follower through its pipe; elsewhere a plain timeout.
private struct DirectoryWatcher {
    let path: String
    /// The follower's wake pipe, written to by the Dispatch sources.
    let wakeDescriptor: Int32
    private var descriptor: Int32 = -1
    #if canImport(Darwin)
        private var sources: [DispatchSourceFileSystemObject] = []
        /// The journal file the journal's source watches.
        private var journalInode: UInt64?
    #endif

    init(path: String, wakeDescriptor: Int32) {
        self.path = path
        self.wakeDescriptor = wakeDescriptor
        attach()
    }

    var isWatching: Bool {
        #if canImport(Darwin)
            return !sources.isEmpty
        #else
            return descriptor >= 0
        #endif
    }

    private mutating func attach() {
        #if canImport(Darwin)
            // The directory's source stays; the journal's is made anew when the journal is
            // replaced (a source follows the file it opened, not its name).
            var status = stat()
            let inode = stat(path + "/" + Journal.fileName, &status) == 0 ? UInt64(status.st_ino) : nil
            if !sources.isEmpty, inode == journalInode { return }
            for source in sources { source.cancel() }
            sources = []
            journalInode = inode
            watch(path, events: .write)
            if inode != nil { watch(path + "/" + Journal.fileName, events: [.write, .extend, .delete, .rename]) }
        #elseif canImport(Glibc)
            let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0 else { return }
            if inotify_add_watch(fd, path, UInt32(IN_MODIFY | IN_MOVED_TO | IN_CREATE | IN_CLOSE_WRITE)) < 0 {
                _ = Platform.sysClose(fd)
                return
            }
            descriptor = fd
        #endif
    }

    #if canImport(Darwin)
        /// A source on `file` (opened for events only) that wakes the follower.
        private mutating func watch(_ file: String, events: DispatchSource.FileSystemEvent) {
            let fd = open(file, O_EVTONLY)
            guard fd >= 0 else { return }
            let source = DispatchSource.makeFileSystemObjectSource(fileDescriptor: fd, eventMask: events, queue: DirectoryWatcher.queue)
            let wake = wakeDescriptor
            source.setEventHandler {
                var byte: UInt8 = 1
                _ = write(wake, &byte, 1)
            }
            source.setCancelHandler { _ = Platform.sysClose(fd) }
            source.resume()
            sources.append(source)
        }

        private static let queue = DispatchQueue(label: "LikeKit.JournalFollower.events")
    #endif

    mutating func wait(wakeDescriptor: Int32, timeoutMilliseconds: Int32) {
        #if canImport(Darwin)
            attach()  // the store or its journal may be new, or the journal replaced
        #else
            if descriptor < 0 { attach() }  // the store may not have existed yet
        #endif
        var watched = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        if descriptor >= 0 { watched.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)) }
        _ = poll(&watched, nfds_t(watched.count), timeoutMilliseconds)
        var sink = [UInt8](repeating: 0, count: 4096)
        for entry in watched where entry.revents != 0 {
            while sink.withUnsafeMutableBytes({ read(entry.fd, $0.baseAddress, $0.count) }) > 0 {}
        }
    }

    mutating func close() {
        #if canImport(Darwin)
            for source in sources { source.cancel() }
            sources = []
        #endif
        if descriptor >= 0 { _ = Platform.sysClose(descriptor) }
        descriptor = -1
    }
}

// Follows the journal as it grows, so that an observer hears every change to the store, made by
// this process or any other, in the order the changes were committed.

import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where a follower stands in the journal: the file (by inode) and the offset after the last
/// line it has handled.
struct JournalPosition: Sendable {
    var inode: UInt64?
    var offset: Int
}

/// One observer's reader of the journal, on a thread of its own.
///
/// It wakes when the store directory changes (inotify on Linux), when this process's repository
/// has written (a kick through a pipe), or every quarter of a second where there is no inotify,
/// and at least once a second anyway. Each time it takes the store's shared lock, so that no write
/// is half done, reads the new lines and hands the changes to `deliver`, one at a time, in order.
final class JournalFollower: Sendable {
    private let repository: LikeRepository
    private let deliver: @Sendable (LikeChange) -> Void
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let stopped = Locked(false)

    init(repository: LikeRepository, start: JournalPosition, deliver: @escaping @Sendable (LikeChange) -> Void) {
        self.repository = repository
        self.deliver = deliver
        // Without a pipe (no descriptors left) the follower still wakes on its timer; -1 keeps it
        // from writing to, polling and closing descriptor 0 in its place.
        var ends: [Int32] = [-1, -1]
        if repository.faults?.withoutPipe != true, pipe(&ends) == 0 {
            _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
            _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        let thread = Thread { [self] in self.run(from: start) }
        thread.name = "LikeKit.JournalFollower"
        thread.start()
    }

    var isStopped: Bool { stopped.withLock { $0 } }

    /// Wakes the follower now: this process has just written.
    func kick() {
        guard wakeWrite >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Stops delivery; a change being delivered finishes. Safe from inside `deliver`.
    func stop() {
        let wasStopped = stopped.withLock { value -> Bool in
            defer { value = true }
            return value
        }
        if !wasStopped { kick() }
    }

    /// The journal's current end: where a new observer starts.
    static func currentPosition(of repository: LikeRepository) -> JournalPosition {
        guard let root = try? repository.openRoot() else { return JournalPosition(inode: nil, offset: 0) }
        let lock = try? FileLock.shared(in: root, timeout: repository.lockTimeout)
        defer { _ = lock }
        var info = stat()
        guard fstatat(root.descriptor, StoreLayout.journalFileName, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            return JournalPosition(inode: nil, offset: 0)
        }
        return JournalPosition(inode: UInt64(info.st_ino), offset: Int(info.st_size))
    }

    // MARK: The thread

    private func run(from start: JournalPosition) {
        var reader = Reader(repository: repository, position: start)
        var watcher = DirectoryWatcher(path: repository.path)
        defer {
            reader.close()
            watcher.close()
            if wakeRead >= 0 { close(wakeRead) }
            if wakeWrite >= 0 { close(wakeWrite) }
        }
        while !isStopped {
            for change in reader.readNewChanges() {
                guard !isStopped else { return }
                deliver(change)
            }
            watcher.wait(wakeDescriptor: wakeRead, timeoutMilliseconds: watcher.isWatching ? 1000 : 250)
        }
    }

    /// Reads the journal from a position onwards; owned by the follower's thread.
    private struct Reader {
        let repository: LikeRepository
        var position: JournalPosition
        var descriptor: Int32 = -1
        var descriptorInode: UInt64?

        init(repository: LikeRepository, position: JournalPosition) {
            self.repository = repository
            self.position = position
        }

        mutating func close() {
            if descriptor >= 0 { _ = SystemCall.close(descriptor) }
            descriptor = -1
        }

        mutating func readNewChanges() -> [LikeChange] {
            guard let root = try? repository.openRoot(), let records = try? root.subdirectory(StoreLayout.recordsDirectory) else { return [] }
            guard let lock = try? FileLock.shared(in: root, timeout: 0.5) else { return [] }
            let changes = readNewChanges(root: root, records: records)
            _ = consume lock
            return changes
        }

        private mutating func readNewChanges(root: StoreDirectory, records: StoreDirectory) -> [LikeChange] {
            var changes: [LikeChange] = []
            while true {
                if descriptor < 0, !open(in: root) { return changes }
                let (lines, consumed) = readLines(records: records)
                changes += lines
                position.offset += consumed
                // A journal rebuilt by purge replaced ours: finish the old file, then go on in the new.
                var info = stat()
                if fstatat(root.descriptor, StoreLayout.journalFileName, &info, AT_SYMLINK_NOFOLLOW) == 0, UInt64(info.st_ino) != descriptorInode {
                    close()
                    continue
                }
                return changes
            }
        }

        /// Opens the journal; a file other than the one `position` names is read from just after
        /// its snapshot (a rebuilt journal's snapshot describes the store, not changes).
        private mutating func open(in root: StoreDirectory) -> Bool {
            let fd = openat(root.descriptor, StoreLayout.journalFileName, O_RDONLY | O_NONBLOCK | Platform.openFlagsCommon)
            guard fd >= 0 else { return false }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                _ = SystemCall.close(fd)
                return false
            }
            descriptor = fd
            descriptorInode = UInt64(info.st_ino)
            if position.inode != descriptorInode {
                position = JournalPosition(inode: descriptorInode, offset: snapshotEnd(fd: fd, size: Int(info.st_size)))
            }
            return true
        }

        /// The offset after the header and the snapshot lines it announces.
        private func snapshotEnd(fd: Int32, size: Int) -> Int {
            var offset = 0
            var linesToSkip = 1
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            var carried: [UInt8] = []
            while linesToSkip > 0, offset + carried.count < size {
                let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset + carried.count)) }
                guard count > 0 else { break }
                var chunk = carried + buffer[0..<count]
                while linesToSkip > 0, let newline = chunk.firstIndex(of: 0x0A) {
                    if offset == 0, let header = JournalLine.parse(chunk[..<newline]), header.operation == .header {
                        linesToSkip += Int(header.bytes)
                    }
                    offset += newline + 1
                    chunk.removeSubrange(...newline)
                    linesToSkip -= 1
                }
                carried = chunk
            }
            return offset
        }

        /// Reads the complete lines after `position` and turns them into changes. Returns the
        /// bytes consumed: never past a last line whose change has not committed.
        private func readLines(records: StoreDirectory) -> ([LikeChange], Int) {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(position.offset + bytes.count)) }
                guard count > 0 else { break }
                bytes += buffer[0..<count]
            }
            var lines: [(line: JournalLine?, end: Int)] = []
            var start = 0
            while let newline = bytes[start...].firstIndex(of: 0x0A) {
                lines.append((JournalLine.parse(bytes[start..<newline]), newline + 1))
                start = newline + 1
            }

            var changes: [LikeChange] = []
            var consumed = 0
            var index = 0
            while index < lines.count {
                guard let line = lines[index].line else {
                    consumed = lines[index].end  // a damaged line tells nothing; pass over it
                    index += 1
                    continue
                }
                switch line.operation {
                case .liked, .updated, .unliked:
                    if index + 1 < lines.count, let next = lines[index + 1].line, next.operation == .aborted, next.key == line.key,
                        next.generation == line.generation
                    {
                        consumed = lines[index + 1].end  // it never happened
                        index += 2
                        continue
                    }
                    if index == lines.count - 1, (try? repository.hasCommitted(line, records: records)) == false {
                        return (changes, consumed)  // its writer died; an `A` line will follow
                    }
                    changes.append(change(for: line, records: records))
                case .purged:
                    var files = [JournalLine.unescapePath(line.key)]
                    while index + 1 < lines.count, let next = lines[index + 1].line, next.operation == .purged, next.at == line.at {
                        files.append(JournalLine.unescapePath(next.key))
                        index += 1
                    }
                    changes.append(LikeChange(kind: .purged, id: nil, date: Timestamp.date(line.at), record: nil, files: files))
                case .header, .aborted:
                    break
                }
                consumed = lines[index].end
                index += 1
            }
            return (changes, consumed)
        }

        private func change(for line: JournalLine, records: StoreDirectory) -> LikeChange {
            let date = Timestamp.date(line.at)
            if line.operation == .unliked {
                var files = [StoreLayout.recordsDirectory + "/" + StoreLayout.recordFileName(line.key)]
                if line.imageGeneration != "-" {
                    files.append(StoreLayout.imagesDirectory + "/" + StoreLayout.imageFileName(line.key, line.imageGeneration, user: false))
                }
                if let user = line.userImageGeneration {
                    files.append(StoreLayout.imagesDirectory + "/" + StoreLayout.imageFileName(line.key, user, user: true))
                }
                let id = (line.id ?? StorageKey.decode(line.key)).flatMap { try? PhotoID($0) }
                return LikeChange(kind: .unliked, id: id, date: date, record: nil, files: files)
            }
            let stored = try? repository.readStoredRecord(key: line.key, in: records)
            // A later change may have replaced the record already; then only the id is known.
            let record = stored.flatMap { $0.generation == line.generation ? repository.publicRecord($0) : nil }
            let id = stored?.id ?? StorageKey.decode(line.key).flatMap { try? PhotoID($0) }
            return LikeChange(kind: line.operation == .liked ? .liked : .updated, id: id, date: date, record: record)
        }
    }
}

/// Waits for a change in the store directory: inotify on Linux, a plain timeout elsewhere.
private struct DirectoryWatcher {
    let path: String
    private var descriptor: Int32 = -1

    init(path: String) {
        self.path = path
        attach()
    }

    var isWatching: Bool { descriptor >= 0 }

    private mutating func attach() {
        #if canImport(Glibc)
            let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0 else { return }
            if inotify_add_watch(fd, path, UInt32(IN_MODIFY | IN_MOVED_TO | IN_CREATE | IN_CLOSE_WRITE)) < 0 {
                _ = SystemCall.close(fd)
                return
            }
            descriptor = fd
        #endif
    }

    mutating func wait(wakeDescriptor: Int32, timeoutMilliseconds: Int32) {
        if descriptor < 0 { attach() }  // the store may not have existed yet
        var watched = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        if descriptor >= 0 { watched.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)) }
        _ = poll(&watched, nfds_t(watched.count), timeoutMilliseconds)
        var sink = [UInt8](repeating: 0, count: 4096)
        for entry in watched where entry.revents != 0 {
            while sink.withUnsafeMutableBytes({ read(entry.fd, $0.baseAddress, $0.count) }) > 0 {}
        }
    }

    mutating func close() {
        if descriptor >= 0 { _ = SystemCall.close(descriptor) }
        descriptor = -1
    }
}

/// `close(2)`, reachable from types that have a `close()` method of their own.
private enum SystemCall {
    static func close(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
            return Darwin.close(fd)
        #elseif canImport(Glibc)
            return Glibc.close(fd)
        #else
            return Musl.close(fd)
        #endif
    }
}

// Owns a store below the public façade: where it is, how it is flushed, and its locks. Every read
// and write of the façade goes through it: reads through an OpenStore, changes through a
// WriteSession under the exclusive lock. Nothing in LikeStore can call up into the façade.

import JPEGCodec
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// One store directory, as the storage layer sees it.
///
/// ```
/// the façade (+ extensions)          public requests in, public values out
///   └─ Store                         locks; opens OpenStore (read) and WriteSession (write)
///        ├─ Journal ─ JournalReader  likes.journal: the index and change log
///        ├─ RecordFiles              records/: the truth
///        ├─ ImageFiles               images/
///        └─ StoreDirectory           every system call on a store file
/// ```
package final class Store: Sendable {
    package let path: String
    /// Whether changes are flushed to stable storage before they return.
    package let durable: Bool
    /// Seconds to wait for another process's lock.
    package let lockTimeout: Double
    package let faults: FaultInjector?
    /// Serializes this process's changes to the store; the file lock serializes them with other
    /// processes.
    private let writer = Locked(())
    /// The DC pictures of photos just liked that are their thumbnails as well, by image
    /// generation: the thumbnail made right after the like takes its picture from here instead of
    /// decoding the photo again. At most ``pictureLimit``, the oldest dropped first.
    package let thumbnailPictures = Locked<[(generation: String, picture: PlanarImage, metadata: JPEGMetadata)]>([])
    static let pictureLimit = 64
    /// The journal as the last ``open()`` found it settled (its ``StoreDirectory/changeStamp(_:)``):
    /// in a format this version reads, with no change a cut left to finish. An open that finds
    /// the same journal skips both looks, since only a change to it can leave one to finish.
    private let settledJournal = Locked<[Int64]?>(nil)
    /// The journal as the last look at its latest records found them in a format this version
    /// reads (see ``refuseNewerLatestRecords(_:)``).
    private let knownLatestRecords = Locked<[Int64]?>(nil)
    /// The journal as this process's last write session left it: its stamp (see
    /// ``StoreDirectory/changeStamp(_:)``) and newest time, with every change of the session
    /// finished. A session that finds the same journal skips the look at its end: no change can
    /// be waiting there, since every change, of any process, appends to it.
    private let writtenJournal = Locked<(stamp: [Int64], lastTime: Int64)?>(nil)

    package init(path: String, durable: Bool, lockTimeout: Double, faults: FaultInjector?) {
        self.path = path
        self.durable = durable
        self.lockTimeout = lockTimeout
        self.faults = faults
    }

    /// The store's directory, or `nil` when there is no store yet.
    func openRoot() throws -> StoreDirectory? {
        try StoreDirectory.open(path: path, faults: faults)
    }

    /// Whether `path` names a directory (a link followed), as `URL(fileURLWithPath:)` decides it
    /// for a path without a slash at its end.
    package static func isDirectory(atPath path: String) -> Bool { StoreDirectory.isDirectory(atPath: path) }

    /// A mark that changes whenever the store's content may have changed: the journal's inode,
    /// size and time of change (every change appends a line; purge, repair and a restore's
    /// sorting write it anew or over). One look at a file name; `nil` when there is no store or
    /// no journal.
    package func changeMark() -> [Int64]? {
        guard let root = try? openRoot(), let journal = try? root.entry(StoreLayout.journalFileName), journal.isRegularFile else { return nil }
        return [Int64(bitPattern: journal.inode), Int64(journal.size), journal.modified]
    }

    /// The store opened for reading, or `nil` when there is no store yet. Takes no lock; see
    /// ``OpenStore/sharedLock()``.
    func open() throws -> OpenStore? {
        guard let root = try openRoot() else { return nil }
        // Taken before the looks: a journal changed meanwhile has another stamp next time.
        let stamp = root.changeStamp(Journal.fileName)
        if stamp == nil || stamp != settledJournal.withLock({ $0 }) {
            // One journal opened for both looks: its header's format, and its last lines.
            let reader = try? Journal(root: root).reader(records: nil)
            if let reader { try Journal.refuseNewerFormat(of: reader.source) }
            let settled = finishPendingChange(root, reader)
            settledJournal.withLock { $0 = settled ? stamp : nil }
        }
        return try OpenStore(root: root, lockTimeout: lockTimeout)
    }

    /// Refuses a store a later version changed last, as ``OpenStore/refuseNewerLatestRecords()``
    /// does, looking again only once the journal changed: a later version's change, like every
    /// change, appends to the journal, so its record is among the latest ones until this
    /// version writes after it. What asks whether photos are liked answers from the names of
    /// their record files then: one look at a name each, as SQLite's look-up of a key.
    ///
    /// - Throws: ``StoreError/newerFormat(file:format:)``; `io`.
    func refuseNewerLatestRecords(_ opened: OpenStore) throws {
        // Taken before the look: a journal changed meanwhile has another stamp next time.
        let stamp = opened.root.changeStamp(Journal.fileName)
        if let stamp, stamp == knownLatestRecords.withLock({ $0 }) { return }
        try opened.refuseNewerLatestRecords()
        knownLatestRecords.withLock { $0 = stamp }
    }

    /// Finishes the journal's last changes where a power cut left them on disk but not yet shown
    /// by records/ (see ``WriteSession``), so that a reader coming first after the cut sees what
    /// a writer would. Costs a look at the journal's last lines and a name or two in records/;
    /// the finishing itself, only then, takes the exclusive lock if it is free at once (a writer
    /// holding it settles the lines itself). Where the store cannot be written, nothing is
    /// finished and readers see such a change as not made, until a writer comes.
    ///
    /// - Returns: Whether the journal's last changes were found settled, none waiting.
    @discardableResult
    private func finishPendingChange(_ root: StoreDirectory, _ reader: JournalReader?) -> Bool {
        let journal = Journal(root: root)
        guard let reader, let changes = try? reader.lastChanges() else { return false }
        guard !changes.isEmpty, let recordsDirectory = try? root.subdirectory(RecordFiles.directoryName) else { return changes.isEmpty }
        // Without reading records: whether a change may be waiting, by one name each (a batch's,
        // by its mark).
        let batch = (try? root.entry(Journal.batchMarkName)) != nil
        let waiting =
            batch
            || changes.indices.contains { index in
                let line = changes[index]
                let name: String
                switch line.operation {
                case .liked, .updated: name = StoreLayout.temporaryRecordFileName(line.key, line.generation)
                default:
                    // An unlike's record is gone, unless a newer like of the photo made it anew: then
                    // the record it removed is there only if it is waiting.
                    if changes[..<index].contains(where: { $0.key == line.key }) {
                        let record = try? RecordFiles(directory: recordsDirectory).read(key: line.key)
                        return record?.generation == line.generation
                    }
                    name = StoreLayout.recordFileName(line.key)
                }
                return (try? recordsDirectory.entry(name)) != nil
            }
        guard waiting else { return true }
        // The file lock alone: it also excludes this process's writers (flock belongs to the
        // open file), and this may run on a thread that holds `writer`.
        guard let lock = try? FileLock(in: root, timeout: 0), let imagesDirectory = try? root.subdirectory(ImageFiles.directoryName),
            let locked = try? journal.reader(records: nil)
        else { return false }
        let (records, images) = (RecordFiles(directory: recordsDirectory), ImageFiles(directory: imagesDirectory))
        let finishing = { (line: JournalLine) in try WriteSession.finish(line, records: records, images: images, root: root, durable: self.durable) }
        try? journal.finishBatch(locked, records: records, finishing: finishing)
        _ = try? journal.settle(locked, records: records, finishing: finishing)
        _ = consume lock
        return false  // finished now: looked at again next time
    }

    /// Runs `body` holding this process's writer lock and the store's exclusive file lock, with
    /// nothing recovered first (repair looks at the journal before a session would settle it).
    ///
    /// `formatKnown`: asked under the lock whether the journal's format is known already (as a
    /// write session knows the journal its own last session left); otherwise its header is read,
    /// and a later version's journal refused.
    package func withExclusiveLock<Result>(
        formatKnown: (StoreDirectory) -> Bool = { _ in false }, _ body: (StoreDirectory, borrowing FileLock) throws -> Result
    ) throws -> Result {
        try writer.withLock { _ in
            let root = try StoreDirectory.openOrCreate(path: path, faults: faults)
            let lock = try FileLock(in: root, timeout: lockTimeout)
            // Under the lock: no writer replaces the journal between the look and the change.
            if !formatKnown(root) { try Journal(root: root).refuseNewerFormat() }
            let result = try body(root, lock)
            _ = consume lock
            return result
        }
    }

    /// Runs `body` with a write session: under the exclusive lock, after recovering from whatever
    /// a crashed writer left at the end of the journal. `restoring`: a restore's session (see
    /// ``WriteSession/restore(_:likedAt:)``).
    ///
    /// A session after this process's own, on the journal as that one left it, skips the looks at
    /// the journal's header and end (``writtenJournal``); a restore's session always looks.
    package func withWriteSession<Result>(restoring: Bool = false, _ body: (inout WriteSession) throws -> Result) throws -> Result {
        // Taken and compared under the lock: no other writer changes the journal meanwhile.
        var written: (stamp: [Int64], lastTime: Int64)?
        let knownJournal = { (root: StoreDirectory) -> Bool in
            let stamp = root.changeStamp(Journal.fileName)
            written = self.writtenJournal.withLock { kept in
                defer { kept = nil }  // set again only by a session that ends settled
                return kept.flatMap { restoring || stamp == nil || $0.stamp != stamp ? nil : $0 }
            }
            return written != nil
        }
        return try withExclusiveLock(formatKnown: knownJournal) { root, lock in
            var session = try WriteSession(
                root: root, lockDescriptor: lock.descriptor, durable: durable, keepingUnsorted: restoring, settledAt: written?.lastTime)
            let result = try body(&session)
            if !restoring, session.endsSettled, let stamp = root.changeStamp(Journal.fileName) {
                writtenJournal.withLock { $0 = (stamp, session.clock) }
            }
            return result
        }
    }

    /// The file system of the store's directory, or of the nearest folder above it that exists,
    /// and how changes are flushed there.
    func fileSystemAndStrategy() throws -> (name: String, strategy: FlushMethod) {
        var candidate = path
        while true {
            if let directory = try StoreDirectory.open(path: candidate, faults: faults) {
                return (directory.fileSystem.name, durable ? directory.flushStrategy : .none)
            }
            let parent = PathText.parent(candidate)
            if parent.isEmpty || parent == candidate { return ("unknown", durable ? .eachFile : .none) }
            candidate = parent
        }
    }
}

// Owns a store below the public façade: where it is, how it is flushed, and its locks. Every read
// and write of the façade goes through it: reads through an OpenStore, changes through a
// WriteSession under the exclusive lock. Nothing in Storage/ calls up into the façade.

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
final class Store: Sendable {
    let path: String
    /// Whether changes are flushed to stable storage before they return.
    let durable: Bool
    /// Seconds to wait for another process's lock.
    let lockTimeout: Double
    let faults: FaultInjector?
    /// Serializes this process's changes to the store; the file lock serializes them with other
    /// processes.
    private let writer = Locked(())

    init(path: String, durable: Bool, lockTimeout: Double, faults: FaultInjector?) {
        self.path = path
        self.durable = durable
        self.lockTimeout = lockTimeout
        self.faults = faults
    }

    /// The store's directory, or `nil` when there is no store yet.
    func openRoot() throws -> StoreDirectory? {
        try StoreDirectory.open(path: path, faults: faults)
    }

    /// The store opened for reading, or `nil` when there is no store yet. Takes no lock; see
    /// ``OpenStore/sharedLock()``.
    func open() throws -> OpenStore? {
        guard let root = try openRoot() else { return nil }
        return try OpenStore(root: root, lockTimeout: lockTimeout)
    }

    /// Runs `body` holding this process's writer lock and the store's exclusive file lock, with
    /// nothing recovered first (repair looks at the journal before a session would settle it).
    func withExclusiveLock<Result>(_ body: (StoreDirectory, borrowing FileLock) throws -> Result) throws -> Result {
        try writer.withLock { _ in
            let root = try StoreDirectory.openOrCreate(path: path, faults: faults)
            let lock = try FileLock(in: root, timeout: lockTimeout)
            let result = try body(root, lock)
            _ = consume lock
            return result
        }
    }

    /// Runs `body` with a write session: under the exclusive lock, after recovering from whatever
    /// a crashed writer left at the end of the journal.
    func withWriteSession<Result>(_ body: (inout WriteSession) throws -> Result) throws -> Result {
        try withExclusiveLock { root, lock in
            var session = try WriteSession(root: root, lockDescriptor: lock.descriptor, durable: durable)
            return try body(&session)
        }
    }

    /// The file system of the store's directory, or of the nearest folder above it that exists,
    /// and how changes are flushed there.
    func fileSystemAndStrategy() throws -> (name: String, strategy: FlushStrategy) {
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

// Owns likes.lock: the store's lock between processes (flock on a file that is never deleted),
// and the journal length noted in it where the journal file cannot carry the note itself. Called by
// Store (taking locks) and Journal (the length).

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

/// An exclusive `flock` on `likes.lock` in the store, held for the length of one operation.
///
/// The kernel releases it when the holder dies, so a crash never leaves the store locked.
/// `flock` locks belong to the open file description: two repositories in one process on one
/// store exclude each other too. Locks over NFS or SMB are not supported.
package struct FileLock: ~Copyable {
    static let fileName = "likes.lock"

    package let descriptor: Int32
    /// Keeps an app from being suspended while it holds the lock (see ``SuspensionAssertion``).
    private let assertion: SuspensionAssertion

    /// Waits up to `timeout` seconds for the exclusive lock, polling with a growing pause; for
    /// work started by an `async` overload, until its task is cancelled (`CancellationError`).
    init(in directory: StoreDirectory, named name: String = fileName, timeout: Double) throws {
        guard let fd = try directory.openLockFile(name, create: true) else {
            throw StoreError.io(action: "open the lock file", path: directory.path(name), code: ENOENT)
        }
        try self.init(descriptor: fd, operation: LOCK_EX, directory: directory, name: name, timeout: timeout)
    }

    /// Takes a shared lock, so that readers see no change half done; `nil` where the store has
    /// no lock file yet or it cannot be opened (a read-only store).
    static func shared(in directory: StoreDirectory, timeout: Double) throws -> FileLock? {
        guard let fd = try? directory.openLockFile(Self.fileName, create: false) else { return nil }
        return try FileLock(descriptor: fd, operation: LOCK_SH, directory: directory, name: fileName, timeout: timeout)
    }

    private init(descriptor fd: Int32, operation: Int32, directory: StoreDirectory, name: String, timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var pause: UInt32 = 500
        while flock(fd, operation | LOCK_NB) != 0 {
            let code = Platform.errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(fd)
                throw StoreError.io(action: "lock", path: directory.path(name), code: code)
            }
            if LockWaitCancellation.current?.waits == false {
                close(fd)
                throw LockWouldWait()
            }
            if Date() >= deadline {
                close(fd)
                throw StoreError.busy(directory: directory.displayPath, waitedSeconds: timeout)
            }
            // An `async` caller whose task was cancelled stops waiting.
            if LockWaitCancellation.current?.isCancelled == true {
                close(fd)
                throw CancellationError()
            }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
        descriptor = fd
        assertion = SuspensionAssertion()
    }

    /// Notes the journal's length in the lock file, where the journal's own attribute cannot hold
    /// it (see `Journal`), so that a reader can tell a journal cut back by damage from one that is
    /// whole. A hint: a failure is ignored.
    static func noteJournalLength(_ length: Int, lockDescriptor: Int32, durable: Bool = false) {
        let digits = String(length)
        let text = Array(("journal-bytes " + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + "\n").utf8)
        _ = text.withUnsafeBytes { pwrite(lockDescriptor, $0.baseAddress, $0.count, 0) }
        if durable { _ = fsync(lockDescriptor) }
    }

    /// The journal length last noted in the lock file, if any.
    static func notedJournalLength(in directory: StoreDirectory) -> Int? {
        guard let data = try? directory.read(fileName), data.count >= 35 else { return nil }
        let text = String(decoding: data.prefix(35), as: UTF8.self)
        guard text.hasPrefix("journal-bytes "), text.hasSuffix("\n") else { return nil }
        return Int(text.dropFirst(14).dropLast())
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
        assertion.release()
    }
}

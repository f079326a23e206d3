// Owns where LikeKit's blocking work runs for `async` callers (lock waits and file I/O, off
// Swift's cooperative pool) and how cancelling the awaiting task reaches a lock wait. Used by the
// façade's async overloads; FileLock asks it whether the wait it is in was cancelled.

import LikesSupport
import Dispatch

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs a repository's synchronous operations for its `async` overloads.
///
/// Changes go to one serial queue per repository (they are serialized by the store's lock
/// anyway, so a queue of eight likes waiting on another process occupies one thread, not
/// eight); each read goes to a queue of its own, so reads run side by side. Serial Dispatch
/// queues get a thread whenever they have work, and those threads are not Swift's cooperative
/// pool: a wait for the lock never holds a pool thread.
final class BlockingWork: Sendable {
    /// For work that belongs to no repository.
    static let shared = BlockingWork(label: "LikeKit")

    private let label: String
    private let changes: DispatchQueue

    init(label: String) {
        self.label = label
        changes = DispatchQueue(label: label + ".changes", qos: .userInitiated)
    }

    /// Runs a change on the serial queue and waits for it without blocking the awaiting task's
    /// thread; cancelling the task stops a wait for the store's lock with `CancellationError`.
    func change<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await run(on: changes, work)
    }

    /// Runs a read on a serial queue of its own; see ``change(_:)``. Not on a concurrent queue:
    /// Dispatch gives those only as many threads as there are cores (on Linux), so readers
    /// waiting for the lock would hold up the others.
    func read<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await run(on: DispatchQueue(label: label + ".read", qos: .userInitiated), work)
    }

    private func run<Value: Sendable>(on queue: DispatchQueue, _ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        let cancellation = LockWaitCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                queue.async {
                    continuation.resume(
                        with: Result {
                            // Work that has not started by the time its task is cancelled never starts.
                            if cancellation.isCancelled { throw CancellationError() }
                            return try cancellation.whileCurrent(work)
                        })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}

/// Whether the task awaiting the work on this thread was cancelled: set from the task's
/// cancellation handler, read by ``FileLock`` between two tries of the lock.
final class LockWaitCancellation: Sendable {
    private let cancelled = Locked(false)

    var isCancelled: Bool { cancelled.withLock { $0 } }

    func cancel() { cancelled.withLock { $0 = true } }

    /// The cancellation of the work running on this thread, if it was started by an `async` call.
    static var current: LockWaitCancellation? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<LockWaitCancellation>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `work` with this cancellation as the thread's current one.
    func whileCurrent<Value>(_ work: () throws -> Value) rethrows -> Value {
        let previous = pthread_getspecific(Self.key)
        pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.key, previous) }
        return try work()
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}

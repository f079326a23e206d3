// Owns where LikeKit's work runs for `async` callers: a wait for the store's lock never on Swift's
// cooperative pool, a read that needs no wait on the awaiting task's own thread; and hands a
// cancelled task's wish down to the store's lock wait (LockWaitCancellation). Used by the
// façade's async overloads.

import Dispatch
import LikeStore

/// Runs a repository's synchronous operations for its `async` overloads.
///
/// Changes go to one serial queue per repository (they are serialized by the store's lock
/// anyway, so a queue of eight likes waiting on another process occupies one thread, not
/// eight); a read that must wait for the lock goes to a queue of its own, so reads run side
/// by side. Serial Dispatch
/// queues get a thread whenever they have work, and those threads are not Swift's cooperative
/// pool: a wait for the lock never holds a pool thread.
package final class BlockingWork: Sendable {
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
    ///
    /// The read is tried first on the awaiting task's own thread, as ``brief(_:)`` runs one,
    /// refusing to wait: where the store's lock is free (whenever no other process is half way
    /// through a change), that is all, and the two thread wake-ups of a queue are saved; where
    /// it is not, the lock throws before anything is read and the read runs on its queue.
    func read<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try Task.checkCancellation()
        do {
            return try LockWaitCancellation.neverWaiting.whileCurrent(work)
        } catch is LockWouldWait {
            return try await run(on: DispatchQueue(label: label + ".read", qos: .userInitiated), work)
        }
    }

    /// Runs a read that never waits for the store's lock and reads a few small files, on the
    /// awaiting task's own thread (Swift's pool, off the caller's actor: these overloads are
    /// `nonisolated`). A queue's thread would be woken for it and the task's thread woken
    /// again after it, and those two wake-ups cost more than the read: `record(for:)` took
    /// 0.20 ms through a queue and 0.11 ms here (BENCHMARKS.md). A pool thread may do brief
    /// work; only a wait must never hold one.
    func brief<Value>(_ work: () throws -> Value) async throws -> Value {
        try Task.checkCancellation()
        return try work()
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

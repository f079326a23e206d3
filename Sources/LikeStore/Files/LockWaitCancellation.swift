// How a cancelled task reaches a wait for the store's lock: the façade runs the work with a
// cancellation current on its thread, and FileLock looks at it between two tries.

import LikesSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Whether the task awaiting the work on this thread was cancelled: set from the task's
/// cancellation handler by the façade, read by ``FileLock`` between two tries of the lock.
package final class LockWaitCancellation: Sendable {
    /// A cancellation that does not wait at all: the lock, when it is not free at once, throws
    /// ``LockWouldWait``, so that the work can be run again where a wait does no harm.
    package static let neverWaiting = LockWaitCancellation(waits: false)

    /// Whether a lock that is not free may be waited for.
    let waits: Bool

    package init() { waits = true }

    private init(waits: Bool) { self.waits = waits }

    private let cancelled = Locked(false)

    package var isCancelled: Bool { cancelled.withLock { $0 } }

    package func cancel() { cancelled.withLock { $0 = true } }

    /// The cancellation of the work running on this thread, if it was started by an `async` call.
    static var current: LockWaitCancellation? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<LockWaitCancellation>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `work` with this cancellation as the thread's current one.
    package func whileCurrent<Value>(_ work: () throws -> Value) rethrows -> Value {
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

/// Thrown by a lock that is not free where the work running refuses to wait
/// (``LockWaitCancellation/neverWaiting``): nothing was read or changed under it.
package struct LockWouldWait: Error {}

// Owns keeping an app awake while it holds the store's lock: iOS, iPadOS, watchOS and visionOS
// end an app that is suspended holding a file lock in a shared container (0xdead10cc). Taken by
// FileLock for as long as it holds a lock; nothing to do on macOS and Linux.

#if canImport(Darwin) && !os(macOS)
    import Foundation
#endif

/// Asks the system not to suspend the process while a lock is held, and lets go with the lock.
///
/// On iOS, iPadOS, watchOS and visionOS this is `ProcessInfo.performExpiringActivity`: its block
/// runs on a queue of the system's and, while the lock is held, waits; the system then defers
/// suspension. Should the system need to suspend anyway, it calls the block again with
/// `expired`; the lock is held for one operation only (milliseconds), never across an `await`.
final class SuspensionAssertion: Sendable {
    #if canImport(Darwin) && !os(macOS)
        private let released = DispatchSemaphore(value: 0)

        init() {
            let released = self.released
            ProcessInfo.processInfo.performExpiringActivity(withReason: "Finishing a change to the favorites") { expired in
                if !expired { released.wait() }
            }
        }

        /// The lock was let go: the activity ends.
        func release() { released.signal() }
    #else
        init() {}

        func release() {}
    #endif
}

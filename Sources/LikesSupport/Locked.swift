// A value behind a lock, the one lock type of the package: Synchronization.Mutex would need iOS 18
// and macOS 15. A pthread mutex on Linux, NSLock elsewhere.

#if canImport(Glibc)
    import Glibc
#else
    import Foundation
#endif

package final class Locked<Value>: @unchecked Sendable {  // every access to `value` holds the lock
    #if canImport(Glibc)
        private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    #else
        private let lock = NSLock()
    #endif
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        #if canImport(Glibc)
            pthread_mutex_init(mutex, nil)
        #endif
    }

    #if canImport(Glibc)
        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }
    #endif

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        #if canImport(Glibc)
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
        #else
            lock.lock()
            defer { lock.unlock() }
        #endif
        return try body(&value)
    }
}

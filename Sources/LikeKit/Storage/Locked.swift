// A value behind an NSLock: Synchronization.Mutex would need iOS 18 and macOS 15. Used by Store,
// the fault injector, JournalFollower and the observers' registry.

import Foundation

final class Locked<Value>: @unchecked Sendable {  // every access to `value` holds `lock`
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

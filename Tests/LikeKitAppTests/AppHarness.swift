// What the app tests share: the `likes` executable as another process changing the store, the
// repository's bundled sample photos, and a recorder of the redraws a SwiftUI view would make.
// Through LikeKit's public API alone, as an app has it.

import Foundation
import LikeKit
import Observation
import Testing

/// The repository's own files, found from this source file: the sample photos and fixtures.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let samplePhoto = root.appendingPathComponent("Samples/photos/coffee.jpg")
    /// A camera's photo stored turned, with Exif orientation 6 to show it upright.
    static let turnedPhoto = root.appendingPathComponent("Tests/Fixtures/jpeg/camera/o6.jpg")
}

/// The `likes` executable this test target depends on, built beside the test bundle, run as
/// another process on a store.
enum OtherProcess {
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("likes")

    /// Runs `likes --store STORE ARGUMENTS…` and waits for it; its exit status.
    @discardableResult
    static func likes(_ store: URL, _ arguments: String...) throws -> Int32 {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            Issue.record("No `likes` executable at \(executable.path); `swift build` makes it.")
            return -1
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--store", store.path] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// The redraws a view that reads `read` would make: each time Observation announces a change to
/// what it read, the value read once the change is done. A test of "nothing happens" makes a
/// change that must redraw after the ones that must not, waits for it, and checks that no redraw
/// came before it.
@available(macOS 14, iOS 17, watchOS 10, *)
@MainActor final class Redraws<Value: Sendable> {
    private(set) var seen: [Value] = []
    private let read: @MainActor () -> Value
    private var waiting: [Int: (condition: (Value) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = [:]
    private var nextWaiter = 0

    init(_ read: @escaping @MainActor () -> Value) {
        self.read = read
        track()
    }

    private func track() {
        withObservationTracking {
            _ = read()
        } onChange: { [weak self] in
            // Announced before the new value is set: read once the change is done.
            Task { @MainActor in self?.redrawn() }
        }
    }

    private func redrawn() {
        let value = read()
        seen.append(value)
        track()
        for (identifier, waiter) in waiting where waiter.condition(value) {
            waiting[identifier] = nil
            waiter.continuation.resume(returning: true)
        }
    }

    /// Waits for a redraw that shows a value passing `condition` (one seen already counts);
    /// `false` only if none comes within `seconds`, a bound against hanging (as long as
    /// TestSupport's `patienceAgainstHanging`, which says why it is long).
    func until(within seconds: Double = 300, _ condition: @escaping (Value) -> Bool) async -> Bool {
        if seen.contains(where: condition) { return true }
        nextWaiter += 1
        let identifier = nextWaiter
        return await withCheckedContinuation { continuation in
            waiting[identifier] = (condition, continuation)
            Task { @MainActor [weak self] in
                try? await Task.sleep(for: .seconds(seconds))
                self?.waiting.removeValue(forKey: identifier)?.continuation.resume(returning: false)
            }
        }
    }
}

/// Every file of a store with its bytes: what a refused call must leave as it was.
func snapshot(of directory: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    let base = directory.resolvingSymlinksInPath().path
    guard let walk = FileManager.default.enumerator(atPath: base) else { return files }
    for case let relative as String in walk {
        var isFolder: ObjCBool = false
        let path = base + "/" + relative
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
            files[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
    }
    return files
}

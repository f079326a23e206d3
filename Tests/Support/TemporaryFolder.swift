// Shared by every test target: a folder of its own per test, under the system's temporary
// directory, removed when the test lets go of it.

import Foundation

/// A unique folder under the system's temporary directory, removed on deinit; the tests of each
/// target build their own helpers on it (a repository in it, `likes` run on its store).
open class TemporaryFolder: @unchecked Sendable {  // `url` is all it holds, and never changes
    public let url: URL

    /// A folder named after `prefix` and the test (`label`), made now.
    public init(prefix: String, label: String) {
        let safe = label.filter { $0.isLetter || $0.isNumber }
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(prefix)-\(safe.prefix(40))-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            fatalError("the test's folder \(url.path) cannot be made: \(error)")
        }
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The store folder inside, not yet created.
    public var store: URL { url.appendingPathComponent("store", isDirectory: true) }

    /// The path of `name` inside.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `data` to a file inside (making its folders) and returns its path.
    @discardableResult
    public func file(_ name: String, _ data: Data) -> String {
        let target = url.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: target)
        } catch {
            fatalError("the test's file \(target.path) cannot be written: \(error)")
        }
        return target.path
    }

    /// Every regular file below the folder (or below `relative` in it), as relative paths, sorted.
    public func files(under relative: String = "") -> [String] {
        let base = relative.isEmpty ? url : url.appendingPathComponent(relative)
        guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
        var result: [String] = []
        while let path = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: base.appendingPathComponent(path).path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result.append(path)
            }
        }
        return result.sorted()
    }
}

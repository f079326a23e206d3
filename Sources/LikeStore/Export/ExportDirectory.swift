// Owns the folders an export writes, outside the store: the destination's parent, the hidden
// staging folder and the earlier export it replaces. Called only by the export
// (LikeRepository+Export); built on StoreDirectory's checked steps, so names stay single path
// components and no link is followed.

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A folder outside the store that an export reads or writes.
struct ExportDirectory {
    private let directory: StoreDirectory

    private init(_ directory: StoreDirectory) {
        self.directory = directory
    }

    /// Opens the folder at `path`, or returns `nil` when it does not exist.
    static func open(path: String, faults: FaultInjector?) throws -> ExportDirectory? {
        try StoreDirectory.open(path: path, faults: faults).map(ExportDirectory.init)
    }

    func path(_ name: String) -> String { directory.path(name) }
    var flushStrategy: FlushMethod { directory.flushStrategy }

    func entry(_ name: String) throws -> StoreDirectory.Entry? { try directory.entry(name) }
    func names() throws -> [String] { try directory.names() }
    func read(_ name: String) throws -> Data? { try directory.read(name) }
    func subdirectory(_ name: String) throws -> ExportDirectory? { try directory.subdirectory(name).map(ExportDirectory.init) }

    /// Creates a folder anyone may read (exports are for sharing), and opens it.
    func makeFolder(_ name: String) throws -> ExportDirectory {
        try directory.makeDirectory(name, mode: 0o777)
        guard let folder = try subdirectory(name) else {
            throw StoreError.io(action: "create the folder", path: path(name), code: ENOENT)
        }
        return folder
    }

    /// Writes a new file anyone may read; flushed when `durable`.
    func createFile(_ name: String, data: Data, durable: Bool) throws {
        try directory.createFile(name, data: data, durable: durable, mode: 0o666)
    }

    /// Appends `bytes` to `name`, created for the owner alone if missing; not flushed.
    func append(_ name: String, bytes: [UInt8]) throws {
        try directory.append(name, bytes: bytes, durable: false)
    }

    /// Writes a new file anyone may read: `head`, the bytes of the file `part`, then `tail`;
    /// flushed when `durable`. `part` is removed after.
    func join(_ name: String, head: [UInt8], part: String, tail: [UInt8], durable: Bool) throws {
        try directory.createFile(name, head: head, part: part, tail: tail, durable: durable, mode: 0o666)
        if try directory.entry(part) != nil { try directory.remove(part) }
    }

    func rename(_ from: String, to: String) throws { try directory.rename(from, to: to) }

    /// Swaps two entries in one step where the system can; false where it cannot.
    func exchange(_ first: String, _ second: String) throws -> Bool { try directory.exchange(first, second) }

    /// Takes an exclusive lock on this folder without waiting, held until it is closed; false
    /// when another export holds it (or the file system has no `flock`).
    func tryLock() -> Bool { directory.tryLock() }

    func sync(commit: Bool = false) throws { try directory.sync(commit: commit) }
    func syncFileSystem() throws { try directory.syncFileSystem() }

    /// Removes the folder `name` and everything below it, never following a link; a missing one
    /// is not an error.
    func removeTree(_ name: String, depth: Int = 0) throws {
        guard let folder = try subdirectory(name) else { return }
        guard depth < 64 else { throw StoreError.io(action: "remove the directory", path: path(name), code: ELOOP) }
        for child in try folder.names() {
            if try folder.entry(child)?.isDirectory == true {
                try folder.removeTree(child, depth: depth + 1)
            } else {
                try folder.directory.remove(child)
            }
        }
        try directory.removeDirectory(name)
    }
}

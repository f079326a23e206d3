// Owns owed/ and sources/: the request a photo source still owes for a like (Unsplash's download
// count), written in the like's own commit, and each source's note of where an import stopped.
// Called by WriteSession (an owed request is part of a like) and by the façade's owed-request and
// import-state calls.

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension StoreLayout {
    /// `owed/KEY~GEN`: a request owed for the like of generation GEN; its bytes are the address.
    static let owedDirectory = "owed"
    /// `sources/NAME`: a photo source's note of an import in progress, replaced whole.
    static let sourcesDirectory = "sources"

    static func owedFileName(_ key: String, _ generation: String) -> String { key + "~" + generation }
}

/// A request a photo source owes for a liked photo: made once, then settled.
package struct OwedRequest: Sendable, Hashable {
    /// The photo's id.
    package var id: String
    /// The address to request.
    package var url: String
    /// Its file in owed/, which settling removes.
    package var file: String
}

extension Store {
    /// The requests owed for photos that are liked with the image they were owed for. A file
    /// whose like never committed (a crash before it), or whose photo was unliked or given
    /// another image since, owes nothing and is removed by ``settle(_:)`` of anything, or left.
    package func owedRequests() throws -> [OwedRequest] {
        guard let opened = try open(), let owed = try opened.root.subdirectoryIfFolder(StoreLayout.owedDirectory) else { return [] }
        let lock = try opened.sharedLock()
        defer { _ = lock }
        guard let records = opened.records else { return [] }
        var found: [OwedRequest] = []
        for name in try owed.names().sorted() {
            guard let tilde = name.lastIndex(of: "~") else { continue }
            let key = String(name[..<tilde])
            let generation = String(name[name.index(after: tilde)...])
            guard StorageKey.isWellFormed(key[...]), let record = try? records.read(key: key), record.image.generation == generation,
                let data = try owed.read(name), let url = String(data: data, encoding: .utf8), !url.isEmpty
            else { continue }
            found.append(OwedRequest(id: record.id, url: url, file: name))
        }
        return found
    }

    /// Removes an owed request once it was made, durably; and with it every file of owed/ that
    /// owes nothing (see ``owedRequests()``).
    package func settle(_ request: OwedRequest) throws {
        try withExclusiveLock { root, _ in
            guard let owed = try root.subdirectoryIfFolder(StoreLayout.owedDirectory) else { return }
            let records = try root.subdirectoryIfFolder(StoreLayout.recordsDirectory).map(RecordFiles.init)
            for name in try owed.names() {
                var owesNothing = name == request.file
                if !owesNothing, let tilde = name.lastIndex(of: "~") {
                    let key = String(name[..<tilde])
                    let record = StorageKey.isWellFormed(key[...]) ? try? records?.read(key: key) : nil
                    owesNothing = record?.image.generation != String(name[name.index(after: tilde)...])
                }
                if owesNothing { try owed.remove(name) }
            }
            if durable { try owed.sync(commit: true) }
        }
    }

    /// A photo source's note of an import in progress (`name` a few letters, digits and `-`),
    /// or `nil`.
    package func sourceState(_ name: String) throws -> Data? {
        guard let root = try openRoot(), let folder = try root.subdirectoryIfFolder(StoreLayout.sourcesDirectory) else { return nil }
        return try folder.read(Self.stateFileName(name))
    }

    /// Replaces the note `name` whole (written aside, flushed, renamed over), or removes it
    /// (`nil`).
    package func setSourceState(_ data: Data?, for name: String) throws {
        try replaceFiles(in: StoreLayout.sourcesDirectory, [(name, data)])
    }
}

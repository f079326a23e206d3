// Owns the folders of notes a store keeps beside its photos (sources/, sync/): their files
// replaced whole under the store's lock, each old or new after a crash. Called by Store+Owed (an
// import's note) and the sync's bookkeeping (Store+SyncFiles).

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension Store {
    /// Replaces files of a folder of notes (`sources/`, `sync/`), each whole (written aside,
    /// flushed, renamed over), with one flush of the folder after them; `nil` removes the file.
    /// A crash part way leaves each file old or new, never a part of one.
    func replaceFiles(in directory: String, _ files: [(name: String, data: Data?)]) throws {
        guard !files.isEmpty else { return }
        try withExclusiveLock { root, _ in
            let folder = try root.subdirectoryCreatingIfNeeded(directory, durable: durable)
            // Where one syncfs flushes the whole file system, many files cost two flushes (a
            // first sync writes hundreds): every file written aside and flushed at once, then
            // renamed; elsewhere each file is flushed before its rename.
            let once = durable && files.count > 1 && folder.flushStrategy == .wholeFileSystem
            var written: [(temporary: String, file: String)] = []
            for (name, data) in files {
                let file = Self.stateFileName(name)
                if let data {
                    let temporary = file + "~" + Generation.make() + ".tmp"
                    try folder.createFile(temporary, data: data, durable: durable && !once)
                    written.append((temporary, file))
                } else if try folder.entry(file) != nil {
                    try folder.remove(file)
                }
            }
            if once { try folder.syncFileSystem() }
            for (temporary, file) in written { try folder.rename(temporary, to: file) }
            if once {
                try folder.syncFileSystem()
            } else if durable {
                try folder.sync(commit: true)
            }
        }
    }

    /// The note's file name: `name` with anything but letters, digits, `-` and `_` escaped.
    static func stateFileName(_ name: String) -> String {
        StorageKey.make(for: name) + ".json"
    }
}

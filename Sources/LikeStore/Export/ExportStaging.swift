// Owns an export's bytes on their way out: the hidden folder it is built in beside its
// destination, and how it is put in place (swapped in one step where the system can), and the
// readable, unique names its photos' files get.

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// The hidden folder an export is built in, beside its destination, and how it is put in place.
///
/// Its name starts with `.NAME.likes-export-`; while an export writes it, it holds a lock on
/// it, so that a later export knows a folder left by a crashed one (unlocked) from one being
/// written (locked) and removes only the first.
struct ExportStaging {
    struct Folder {
        var name: String
        var directory: ExportDirectory
    }

    let parent: ExportDirectory
    let targetName: String

    private var prefix: String {
        var short = ""
        for character in targetName where short.utf8.count + String(character).utf8.count <= 100 { short.append(character) }
        return "." + short + ".likes-export-"
    }

    func create() throws -> Folder {
        let name = prefix + Generation.make()
        let directory = try parent.makeFolder(name)
        // Held until the folder's descriptor closes: at the end of this export, or its death. A
        // file system without flock leaves it unlocked: then only exports run at the same time
        // could take each other's folder for abandoned.
        _ = directory.tryLock()
        return Folder(name: name, directory: directory)
    }

    /// Puts the finished export in place: swapped with an earlier one in one step where the
    /// system can, else renamed over the empty or missing destination. `durable`: the new place
    /// is flushed before the earlier export is removed, so that no power cut can bring the
    /// earlier one back half removed.
    func publish(_ folder: Folder, replacing: Bool, durable: Bool) throws {
        if replacing, try parent.exchange(folder.name, targetName) {
            if durable { try parent.sync(commit: true) }
            // The earlier export, now under the hidden name; if it cannot go now, the next export
            // removes it.
            try? remove(folder.name)
            return
        }
        if replacing, let existing = try parent.subdirectory(targetName), try !existing.names().isEmpty {
            // No atomic swap here: move the earlier export aside, ours in, and back on failure.
            let aside = prefix + Generation.make()
            try parent.rename(targetName, to: aside)
            do {
                try parent.rename(folder.name, to: targetName)
            } catch {
                try? parent.rename(aside, to: targetName)
                throw error
            }
            if durable { try parent.sync(commit: true) }
            try? remove(aside)
            return
        }
        try parent.rename(folder.name, to: targetName)
        if durable { try parent.sync(commit: true) }
    }

    /// Removes folders that exports which died left behind (those no export holds locked). A
    /// leftover that cannot be removed now stays for the next export; it keeps none from working.
    func removeAbandoned() throws {
        for name in try parent.names() where name.hasPrefix(prefix) {
            guard let directory = try? parent.subdirectory(name), directory.tryLock() else { continue }
            try? remove(name)
        }
    }

    /// Removes a staging folder or an earlier export and everything in it, folders included.
    func remove(_ name: String) throws {
        try parent.removeTree(name)
    }
}

/// Readable, unique file names for exported photos: the id with anything but letters, digits,
/// `-` and `_` turned into `_`, unique also where letter case is ignored.
///
/// A photo's files share a stem and differ by suffix; a stem holds no `.`, so two photos' files
/// can share a name only where their stems do, and only the stems taken are kept.
struct ExportFileNames {
    static let imageSuffix = ".jpg"
    static let userImageSuffix = ".photographer.jpg"
    static let thumbnailSuffix = ".thumbnail.jpg"

    /// The stems given, lower-cased.
    private var taken: Set<String> = []

    /// A new stem for the files of the photo `id`: `STEM.jpg`, `STEM.photographer.jpg` and
    /// `STEM.thumbnail.jpg` (never `index.json` or `index.html`).
    mutating func stem(for id: String) -> String {
        var base = ""
        for character in id.canonicallyComposed {
            let keep = character.isLetter || character.isNumber || character == "-" || character == "_"
            let next = keep ? String(character) : "_"
            if next == "_", base.hasSuffix("_") { continue }
            if base.utf8.count + next.utf8.count > 100 { break }
            base += next
        }
        base = String(base.drop(while: { $0 == "_" || $0 == "-" }))
        if base.isEmpty { base = "photo" }
        var stem = base
        var number = 1
        while taken.contains(stem.lowercased()) {
            number += 1
            stem = "\(base)-\(number)"
        }
        taken.insert(stem.lowercased())
        return stem
    }
}

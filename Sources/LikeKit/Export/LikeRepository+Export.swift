// Export to share: the JPEGs under readable names, with an index as JSON and as a web page.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension LikeRepository {
    /// The format name in every export's `index.json`, which marks a folder as an export.
    static let exportFormat = "likes-export-1"

    /// Copies the photos a query lists into a folder to share: each JPEG under a readable name
    /// (`Dwu85P9SOIk.jpg`, and `Dwu85P9SOIk.photographer.jpg` for the photographer's picture),
    /// `index.json` describing them, and `index.html`, a self-contained contact sheet.
    ///
    /// ```swift
    /// let report = try repository.export(to: folder, query: LikeQuery(album: try AlbumName("Lisbon")))
    /// ```
    ///
    /// The export is built beside `directory` in a hidden folder and put in place in one step:
    /// `directory` shows the whole export or what it held before, never part of one. It may be
    /// missing, empty, or an earlier export, which is replaced; a folder with other files is
    /// refused. The copies are checked against the checksums taken when each photo was liked,
    /// and flushed to disk (unless the repository is ``Durability/relaxed``). The store is only
    /// read, so other processes may change it meanwhile: a photo unliked during the export is
    /// left out.
    ///
    /// - Parameters:
    ///   - directory: The export folder; its parent must exist.
    ///   - query: The photos to export and their order; all of them, newest first, by default.
    ///     `limit` and `offset` apply as in ``list(_:)-1u07d``.
    /// - Returns: What was written, and any damage passed over.
    /// - Throws: ``LikeRepositoryError``: `noSuchAlbum` for an album with no photo,
    ///   `exportDestinationUnusable` for a folder with other files, a file, a missing parent;
    ///   `io` (the folder is then as it was).
    @discardableResult
    public func export(to directory: URL, query: LikeQuery = LikeQuery()) throws -> ExportReport {
        let selection = try select(query)
        if selection.records.isEmpty, let album = query.album, try !albums().contains(where: { $0.name == album }) {
            throw LikeRepositoryError.noSuchAlbum(album)
        }
        let target = directory.standardizedFileURL
        let name = target.lastPathComponent
        guard !name.isEmpty, name != "/", name != ".", name != ".." else {
            throw LikeRepositoryError.invalidArgument("Export into a folder of its own, not \(target.path).")
        }
        if target.path == store.path || target.path.hasPrefix(store.path + "/") {
            throw LikeRepositoryError.exportDestinationUnusable(path: target.path, reason: "it is inside the store")
        }
        let parentPath = target.deletingLastPathComponent().path
        guard let parent = try ExportDirectory.open(path: parentPath, faults: faults) else {
            throw LikeRepositoryError.exportDestinationUnusable(path: target.path, reason: "the folder \(parentPath) does not exist")
        }
        let replacing = try checkExportDestination(name, in: parent)
        let staging = ExportStaging(parent: parent, targetName: name)
        try staging.removeAbandoned()

        let folder = try staging.create()
        do {
            let (photos, damage) = try writeExport(selection.records, into: folder.directory, query: query)
            if isDurable, folder.directory.flushStrategy == .wholeFileSystem { try folder.directory.syncFileSystem() }
            try staging.publish(folder, replacing: replacing, durable: isDurable)
            return ExportReport(
                directory: target, photos: photos.map(\.report), byteCount: photos.reduce(0) { $0 + $1.report.byteCount },
                damage: selection.damage + damage)
        } catch {
            try? staging.remove(folder.name)
            throw error
        }
    }

    /// Whether the destination holds an earlier export to replace; throws unless it is missing,
    /// empty or such an export.
    private func checkExportDestination(_ name: String, in parent: ExportDirectory) throws -> Bool {
        guard let entry = try parent.entry(name) else { return false }
        guard entry.isDirectory, let existing = try parent.subdirectory(name) else {
            throw LikeRepositoryError.exportDestinationUnusable(path: parent.path(name), reason: "it is not a folder")
        }
        let names = try existing.names()
        if names.isEmpty { return true }
        guard names.contains("index.json"), let data = try? existing.read("index.json"),
            let index = try? JSONDecoder().decode(ExportIndex.Header.self, from: data), index.format == Self.exportFormat
        else {
            throw LikeRepositoryError.exportDestinationUnusable(path: parent.path(name), reason: "it holds files that are not an earlier export")
        }
        return true
    }

    /// Copies the images and writes the two index files; returns what it exported.
    private func writeExport(_ stored: [StoredRecord], into folder: ExportDirectory, query: LikeQuery) throws -> (
        [ExportIndex.Photo], [String]
    ) {
        let opened = try store.open()
        let images = opened?.images
        let records = opened?.records
        var names = ExportFileNames()
        var photos: [ExportIndex.Photo] = []
        var damage: [String] = []
        // Flushed file by file only where one file-system flush cannot do it at the end.
        let flushEach = isDurable && folder.flushStrategy != .wholeFileSystem
        /// The photo's images as liked, read and checked as the store reads its own files.
        enum Found {
            case images([(data: Data, info: StoredRecord.Image, user: Bool)])
            /// One is gone: the photo was updated or unliked since it was listed, or it is damaged.
            case gone
            /// What is wrong with one, as a sentence.
            case damaged(String)
        }
        func read(_ record: StoredRecord) throws -> Found {
            guard let images else { return .gone }
            var found: [(data: Data, info: StoredRecord.Image, user: Bool)] = []
            for (info, user) in [(record.image, false)] + (record.userImage.map { [($0, true)] } ?? []) {
                switch try images.read(StoreLayout.imageFileName(record.key, info.generation, user: user), as: info) {
                case .whole(let data): found.append((data, info, user))
                case .damaged("is missing"): return .gone
                case .damaged(let problem):
                    return .damaged(
                        "The \(user ? "user image" : "image") of photo \(LikeRepositoryError.quoted(record.id.rawValue)) \(problem), so the photo was left out. Repairing the store sets the photo aside."
                    )
                }
            }
            return .images(found)
        }
        for original in stored {
            var record = original
            var found = try read(record)
            if case .gone = found, let records {
                // Unliked since it was listed: left out. Updated: its new images, once.
                guard let again = try? records.read(key: record.key) else { continue }
                if again.generation != record.generation {
                    record = again
                    found = try read(record)
                }
            }
            let images: [(data: Data, info: StoredRecord.Image, user: Bool)]
            switch found {
            case .images(let read): images = read
            case .gone:
                damage.append(
                    "An image of photo \(LikeRepositoryError.quoted(record.id.rawValue)) is missing from the store, so the photo was left out. Repairing the store sets the photo aside."
                )
                continue
            case .damaged(let sentence):
                damage.append(sentence)
                continue
            }
            let copies = images.map { (name: names.claim(for: record.id.rawValue, user: $0.user), data: $0.data, info: $0.info) }
            for copy in copies { try folder.createFile(copy.name, data: copy.data, durable: flushEach) }
            var photo = ExportIndex.Photo(
                record: record, files: copies.map { copy in (copy.name, copy.data.withUnsafeBytes { SHA256.hexDigest(of: $0) }) })
            if let opened, let stored = try? thumbnailBytes(of: record, opened) {
                // Without the store's tag, which names the store's own image generation: the
                // codec's JPEG alone, the same bytes whichever store exports the photo.
                let thumbnail = Data(ThumbnailFiles.untagged([UInt8](stored)))
                let name = names.claimThumbnail(for: record.id.rawValue)
                try folder.createFile(name, data: thumbnail, durable: flushEach)
                let size = ThumbnailFiles.pixelSize(width: record.image.width, height: record.image.height)
                photo.thumbnail = ExportIndex.Image(
                    file: name, bytes: thumbnail.count, sha256: thumbnail.withUnsafeBytes { SHA256.hexDigest(of: $0) }, width: size.width,
                    height: size.height)
            }
            photos.append(photo)
        }
        let index = ExportIndex(
            format: Self.exportFormat, exportedAt: Timestamp.string(Timestamp.now()), album: query.album?.rawValue,
            since: query.since.map(Timestamp.string), count: photos.count, bytes: photos.reduce(0) { $0 + $1.report.byteCount }, photos: photos)
        try folder.createFile("index.json", data: try index.encoded(), durable: flushEach)
        try folder.createFile("index.html", data: Data(ContactSheet(index: index).html.utf8), durable: flushEach)
        if flushEach { try folder.sync() }
        return (photos, damage)
    }
}

extension LikeRepository {
    /// The bytes of a photo's thumbnail, made now if it is missing or damaged; `nil` when its
    /// JPEG cannot be scaled (or the store cannot be written to make it).
    fileprivate func thumbnailBytes(of record: StoredRecord, _ opened: OpenStore) throws -> Data? {
        if let data = try opened.thumbnails().bytesIfWhole(key: record.key, generation: record.image.generation) { return data }
        return try makeThumbnail(of: record, opened).map { Data($0) }
    }
}

/// Readable, unique file names for exported photos: the id with anything but letters, digits,
/// `-` and `_` turned into `_`, unique also where letter case is ignored.
struct ExportFileNames {
    private var taken: Set<String> = ["index.json", "index.html"]
    private var stems: [String: String] = [:]

    /// The file name of a photo's JPEG, or of its photographer's picture.
    mutating func claim(for id: String, user: Bool) -> String {
        let stem = stems[id] ?? newStem(for: id)
        stems[id] = stem
        return stem + (user ? ".photographer.jpg" : ".jpg")
    }

    /// The file name of a photo's thumbnail.
    mutating func claimThumbnail(for id: String) -> String {
        let stem = stems[id] ?? newStem(for: id)
        stems[id] = stem
        return stem + ".thumbnail.jpg"
    }

    private mutating func newStem(for id: String) -> String {
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
        // All of the photo's possible names must be free, so that no stem's picture is another's photo.
        let suffixes = [".jpg", ".photographer.jpg", ".thumbnail.jpg"]
        while suffixes.contains(where: { taken.contains((stem + $0).lowercased()) }) {
            number += 1
            stem = "\(base)-\(number)"
        }
        for suffix in suffixes { taken.insert((stem + suffix).lowercased()) }
        return stem
    }
}

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

// An export as the store writes it: the photos' images (and thumbnails) copied as liked into a
// hidden folder beside the destination, checked as the store reads its own files, the index files
// the façade composes written after them, and the folder put in place in one step.

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// A photo an export wrote: its record as exported and the files it got.
package struct ExportedPhoto: Sendable {
    /// The record as exported: a later one than listed, when the photo was updated since.
    package var record: StoredRecord
    /// The photo's JPEG, then the photographer's picture if it has one: file name and SHA-256.
    package var files: [(name: String, sha256: String)]
    /// The thumbnail's file, when one could be had: name, bytes and SHA-256.
    package var thumbnail: (name: String, bytes: Int, sha256: String)?
}

/// What an export wrote, and the damage that left photos out.
package struct ExportOutcome: Sendable {
    package var photos: [ExportedPhoto]
    package var damage: [String]
}

extension Store {
    /// Exports `records` into the folder `target`, which must be missing, empty or an earlier
    /// export (whose `index.json` `isEarlierExport` recognises), and whose parent must exist.
    ///
    /// The folder is built beside it under a hidden name and put in place when whole: until then
    /// `target` is as it was. `indexFiles` composes the files written after the photos (the
    /// index and contact sheet), from what was written.
    ///
    /// - Throws: ``StoreError/destinationUnusable(path:reason:)``; `io`.
    package func export(
        _ records: [StoredRecord], to target: String, isEarlierExport: (Data) -> Bool,
        indexFiles: ([ExportedPhoto]) throws -> [(name: String, data: Data)]
    ) throws -> ExportOutcome {
        if target == path || target.hasPrefix(path + "/") {
            throw StoreError.destinationUnusable(path: target, reason: "it is inside the store")
        }
        let name = PathText.lastComponent(target)
        let parentPath = PathText.parent(target)
        guard let parent = try ExportDirectory.open(path: parentPath, faults: faults) else {
            throw StoreError.destinationUnusable(path: target, reason: "the folder \(parentPath) does not exist")
        }
        let replacing = try checkDestination(name, in: parent, isEarlierExport: isEarlierExport)
        let staging = ExportStaging(parent: parent, targetName: name)
        try staging.removeAbandoned()
        let folder = try staging.create()
        do {
            // Flushed file by file only where one file-system flush cannot do it at the end.
            let flushEach = durable && folder.directory.flushStrategy != .wholeFileSystem
            let outcome = try writePhotos(records, into: folder.directory, flushEach: flushEach)
            for file in try indexFiles(outcome.photos) { try folder.directory.createFile(file.name, data: file.data, durable: flushEach) }
            if flushEach { try folder.directory.sync() }
            if durable, folder.directory.flushStrategy == .wholeFileSystem { try folder.directory.syncFileSystem() }
            try staging.publish(folder, replacing: replacing, durable: durable)
            return outcome
        } catch {
            try? staging.remove(folder.name)
            throw error
        }
    }

    /// Whether the destination holds an earlier export to replace; throws unless it is missing,
    /// empty or such an export.
    private func checkDestination(_ name: String, in parent: ExportDirectory, isEarlierExport: (Data) -> Bool) throws -> Bool {
        guard let entry = try parent.entry(name) else { return false }
        guard entry.isDirectory, let existing = try parent.subdirectory(name) else {
            throw StoreError.destinationUnusable(path: parent.path(name), reason: "it is not a folder")
        }
        let names = try existing.names()
        if names.isEmpty { return true }
        guard names.contains("index.json"), let data = try? existing.read("index.json"), isEarlierExport(data) else {
            throw StoreError.destinationUnusable(path: parent.path(name), reason: "it holds files that are not an earlier export")
        }
        return true
    }

    /// A photo's images as liked, read and checked as the store reads its own files.
    private enum Found {
        case images([(data: Data, info: StoredRecord.Image, user: Bool)])
        /// One is gone: the photo was updated or unliked since it was listed, or it is damaged.
        case gone
        /// What is wrong with one, as a sentence.
        case damaged(String)
    }

    private func read(_ record: StoredRecord, images: ImageFiles?) throws -> Found {
        guard let images else { return .gone }
        var found: [(data: Data, info: StoredRecord.Image, user: Bool)] = []
        for (info, user) in [(record.image, false)] + (record.userImage.map { [($0, true)] } ?? []) {
            switch try images.read(StoreLayout.imageFileName(record.key, info.generation, user: user), as: info) {
            case .whole(let data): found.append((data, info, user))
            case .damaged("is missing"): return .gone
            case .damaged(let problem):
                return .damaged(
                    "The \(user ? "user image" : "image") of photo \(MessageText.quoted(record.id)) \(problem), so the photo was left out. Repairing the store sets the photo aside."
                )
            }
        }
        return .images(found)
    }

    /// Copies each photo's images and thumbnail into `folder`.
    private func writePhotos(_ stored: [StoredRecord], into folder: ExportDirectory, flushEach: Bool) throws -> ExportOutcome {
        let opened = try open()
        var names = ExportFileNames()
        var outcome = ExportOutcome(photos: [], damage: [])
        for original in stored {
            var record = original
            var found = try read(record, images: opened?.images)
            if case .gone = found, let records = opened?.records {
                // Unliked since it was listed: left out. Updated: its new images, once.
                guard let again = try? records.read(key: record.key) else { continue }
                if again.generation != record.generation {
                    record = again
                    found = try read(record, images: opened?.images)
                }
            }
            let images: [(data: Data, info: StoredRecord.Image, user: Bool)]
            switch found {
            case .images(let read): images = read
            case .gone:
                outcome.damage.append(
                    "An image of photo \(MessageText.quoted(record.id)) is missing from the store, so the photo was left out. Repairing the store sets the photo aside."
                )
                continue
            case .damaged(let sentence):
                outcome.damage.append(sentence)
                continue
            }
            let copies = images.map { (name: names.claim(for: record.id, user: $0.user), data: $0.data) }
            for copy in copies { try folder.createFile(copy.name, data: copy.data, durable: flushEach) }
            var photo = ExportedPhoto(
                record: record, files: copies.map { copy in (copy.name, copy.data.withUnsafeBytes { SHA256.hexDigest(of: $0) }) })
            if let opened, let stored = try? thumbnailBytes(of: record, opened) {
                // Without the store's tag, which names the store's own image generation: the
                // codec's JPEG alone, the same bytes whichever store exports the photo.
                let thumbnail = Data(ThumbnailFiles.untagged([UInt8](stored)))
                let name = names.claimThumbnail(for: record.id)
                try folder.createFile(name, data: thumbnail, durable: flushEach)
                photo.thumbnail = (name, thumbnail.count, thumbnail.withUnsafeBytes { SHA256.hexDigest(of: $0) })
            }
            outcome.photos.append(photo)
        }
        return outcome
    }

    /// The bytes of a photo's thumbnail, made now if it is missing or damaged; `nil` when its
    /// JPEG cannot be scaled (or the store cannot be written to make it).
    private func thumbnailBytes(of record: StoredRecord, _ opened: OpenStore) throws -> Data? {
        if let data = try opened.thumbnails().bytesIfWhole(key: record.key, generation: record.image.generation) { return data }
        return try makeThumbnail(of: record, opened).map { Data($0) }
    }
}

/// A folder an export wrote, read as the store reads its own files (no link followed): what a
/// restore reads its `index.json` from.
package struct ExportFolder {
    private let directory: ExportDirectory

    /// The folder at `path`, or `nil` when there is none.
    package static func open(_ path: String) throws -> ExportFolder? {
        try ExportDirectory.open(path: path, faults: nil).map(ExportFolder.init)
    }

    private init(directory: ExportDirectory) {
        self.directory = directory
    }

    /// The bytes of the file `name`, or `nil` when there is none.
    package func read(_ name: String) throws -> Data? { try directory.read(name) }

    /// Whether `name` is there and no folder.
    package func holdsFile(_ name: String) -> Bool {
        guard let entry = try? directory.entry(name) else { return false }
        return !entry.isDirectory
    }
}

extension Store {
    /// A thumbnail as an export keeps it: the codec's JPEG, without the store's tag.
    package static func untaggedThumbnail(_ bytes: [UInt8]) -> [UInt8] { ThumbnailFiles.untagged(bytes) }
}

extension StoredRecord {
    /// The pixel size of the thumbnail of a `width` x `height` photo.
    package static func thumbnailSize(width: Int, height: Int) -> (width: Int, height: Int) {
        ThumbnailFiles.pixelSize(width: width, height: height)
    }
}

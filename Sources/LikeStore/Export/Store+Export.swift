// An export as the store writes it: the photos' images (and thumbnails) copied as liked into a
// hidden folder beside the destination, checked as the store reads its own files, the index files
// the façade composes written after them, and the folder put in place in one step.

import JPEGCodec
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
    /// The photo's JPEG, then the photographer's picture if it has one: file name, SHA-256, and
    /// the file's own frame size and Exif orientation (read from the bytes exported, whatever
    /// the record kept).
    package var files: [ExportedFile]
    /// The thumbnail's file, when one could be had: name, bytes and SHA-256.
    package var thumbnail: (name: String, bytes: Int, sha256: String)?
}

/// One image of a photo as an export copied it.
package struct ExportedFile: Sendable {
    package var name: String
    package var sha256: String
    /// The pixels as the file stores them: its frame header's width and height.
    package var storedWidth: Int
    package var storedHeight: Int
    /// Exif's orientation, 1–8 (1 when the file has none).
    package var orientation: Int

    /// The size as displayed: the stored one, turned for orientations 5–8.
    package var displayedSize: (width: Int, height: Int) {
        orientation >= 5 ? (storedHeight, storedWidth) : (storedWidth, storedHeight)
    }
}

/// The files of an export being written, for the index files composed beside its photos: pieces
/// kept aside while the photos are written, then joined into a file with a head and a tail once
/// the whole is known (a count, a size), so that no file is held in memory whole.
package struct ExportWriter {
    fileprivate let folder: ExportDirectory
    fileprivate let flushEach: Bool

    /// Appends `bytes` to the part file `name`, kept aside (never flushed: it is removed once
    /// joined).
    package func append(_ bytes: [UInt8], toPart name: String) throws {
        try folder.append(Self.partName(name), bytes: bytes)
    }

    /// Writes the file `name`: `head`, then what was appended to its part (which is removed),
    /// then `tail`.
    package func finish(_ name: String, head: [UInt8], tail: [UInt8]) throws {
        try folder.join(name, head: head, part: Self.partName(name), tail: tail, durable: flushEach)
    }

    private static func partName(_ name: String) -> String { "." + name + ".part" }
}

extension Store {
    /// Exports the records `next` gives, a batch a call until it gives `nil`, into the folder
    /// `target`, which must be missing, empty or an earlier export (whose `index.json`
    /// `isEarlierExport` recognises), and whose parent must exist. Returns the sentences of the
    /// damage that left photos out.
    ///
    /// The folder is built beside it under a hidden name and put in place when whole: until then
    /// `target` is as it was. `written` is told each photo as its files are written, and
    /// `finish` writes the index files last; both through the ``ExportWriter`` they are given.
    /// One batch of records and one photo's images are held at a time.
    ///
    /// - Throws: ``StoreError/destinationUnusable(path:reason:)``; `io`.
    package func export(
        batches next: () throws -> [StoredRecord]?, to target: String, isEarlierExport: (Data) -> Bool,
        written: (ExportedPhoto, ExportWriter) throws -> Void, finish: (ExportWriter) throws -> Void
    ) throws -> [String] {
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
            let writer = ExportWriter(folder: folder.directory, flushEach: flushEach)
            var photos = PhotoWriting(opened: try open(), folder: folder.directory, flushEach: flushEach)
            while let batch = try next() {
                for record in batch {
                    if let photo = try writePhoto(record, &photos) { try written(photo, writer) }
                }
            }
            try finish(writer)
            if flushEach { try folder.directory.sync() }
            if durable, folder.directory.flushStrategy == .wholeFileSystem { try folder.directory.syncFileSystem() }
            try staging.publish(folder, replacing: replacing, durable: durable)
            return photos.damage
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

    /// What writing an export's photos carries from one to the next.
    private struct PhotoWriting {
        let opened: OpenStore?
        let folder: ExportDirectory
        let flushEach: Bool
        var names = ExportFileNames()
        var damage: [String] = []
    }

    /// Copies a photo's images and thumbnail into the export; `nil` when it was left out
    /// (unliked since it was listed, or damaged: then said in `damage`).
    private func writePhoto(_ original: StoredRecord, _ writing: inout PhotoWriting) throws -> ExportedPhoto? {
        var record = original
        let opened = writing.opened
        var found = try read(record, images: opened?.images)
        if case .gone = found, let records = opened?.records {
            // Unliked since it was listed: left out. Updated: its new images, once.
            guard let again = try? records.read(key: record.key) else { return nil }
            if again.generation != record.generation {
                record = again
                found = try read(record, images: opened?.images)
            }
        }
        let images: [(data: Data, info: StoredRecord.Image, user: Bool)]
        switch found {
        case .images(let read): images = read
        case .gone:
            writing.damage.append(
                "An image of photo \(MessageText.quoted(record.id)) is missing from the store, so the photo was left out. Repairing the store sets the photo aside."
            )
            return nil
        case .damaged(let sentence):
            writing.damage.append(sentence)
            return nil
        }
        let stem = writing.names.stem(for: record.id)
        let copies = images.map { (name: stem + ($0.user ? ExportFileNames.userImageSuffix : ExportFileNames.imageSuffix), data: $0.data) }
        for copy in copies { try writing.folder.createFile(copy.name, data: copy.data, durable: writing.flushEach) }
        var photo = ExportedPhoto(
            record: record,
            files: copies.map { copy in
                copy.data.withUnsafeBytes { bytes in
                    // Checked as liked (its CRC-32), so its header reads.
                    let header = try? JPEGHeader(reading: bytes)
                    return ExportedFile(
                        name: copy.name, sha256: SHA256.hexDigest(of: bytes), storedWidth: header?.width ?? 0,
                        storedHeight: header?.height ?? 0, orientation: header?.exif.orientation ?? 1)
                }
            })
        if let opened, let stored = try? thumbnailBytes(of: record, opened) {
            // Without the store's tag, which names the store's own image generation: the
            // codec's JPEG alone, the same bytes whichever store exports the photo.
            let thumbnail = Data(ThumbnailFiles.untagged([UInt8](stored)))
            let name = stem + ExportFileNames.thumbnailSuffix
            try writing.folder.createFile(name, data: thumbnail, durable: writing.flushEach)
            photo.thumbnail = (name, thumbnail.count, thumbnail.withUnsafeBytes { SHA256.hexDigest(of: $0) })
        }
        return photo
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

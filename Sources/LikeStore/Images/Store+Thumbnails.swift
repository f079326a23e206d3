// Thumbnails: each liked photo's small JPEG, made by JPEGCodec from its image as liked (never
// from a link or changed bytes) after the like, or on first need, written beside the store's
// images under its own name and put in place by rename.

import Dispatch
import JPEGCodec
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension Store {
    /// The size in bytes of the thumbnail of `id`'s photo, made now if it is missing or damaged;
    /// `nil` when its JPEG cannot be scaled.
    ///
    /// - Throws: ``StoreError/notLiked(id:)``; `io` when it cannot be written.
    package func thumbnail(for id: String) throws -> (record: StoredRecord, bytes: Int)? {
        guard let opened = try open(), let stored = try opened.records?.read(key: StorageKey.make(for: id)), stored.id == id else {
            throw StoreError.notLiked(id: id)
        }
        let thumbnails = try opened.thumbnails()
        if case .whole(let bytes) = try thumbnails.state(key: stored.key, generation: stored.image.generation) { return (stored, bytes) }
        guard let made = try makeThumbnail(of: stored, opened) else { return nil }
        return (stored, made.count)
    }

    /// A thumbnail's or rendition's file as readers take it: without the store's tag.
    package static func untaggedImage(_ data: Data) -> Data { Data(ThumbnailFiles.untagged([UInt8](data))) }

    /// What is wrong with the JPEG a thumbnail was made from, as its tag says; `nil` for a sound one.
    package static func thumbnailDamage(in bytes: [UInt8]) -> String? { ThumbnailFiles.damage(in: bytes) }

    /// Makes the thumbnails of `ids` that are missing, two at a time; ids not liked are passed over.
    package func makeThumbnails(for ids: [String]) throws -> StoreThumbnailReport {
        guard !ids.isEmpty, let opened = try open(), let records = opened.records else { return StoreThumbnailReport(made: 0, damaged: []) }
        let thumbnails = try opened.thumbnails()
        // Where one syncfs flushes everything, one for all of them; elsewhere each as written.
        let flushAtEnd = durable && opened.root.flushStrategy == .wholeFileSystem
        let next = Locked(0)
        let written = Locked<[(id: String, thumbnail: WrittenThumbnail)]>([])
        DispatchQueue.concurrentPerform(iterations: min(2, ids.count)) { _ in
            while let index = next.withLock({ value -> Int? in
                guard value < ids.count else { return nil }
                value += 1
                return value - 1
            }) {
                let id = ids[index]
                guard let stored = try? records.read(key: StorageKey.make(for: id)), stored.id == id else { continue }
                if case .whole = try? thumbnails.state(key: stored.key, generation: stored.image.generation) { continue }
                guard let thumbnail = try? writeThumbnail(of: stored, opened, durable: durable && !flushAtEnd) else { continue }
                written.withLock { $0.append((id, thumbnail)) }
            }
        }
        let made = written.withLock { $0 }
        do {
            if flushAtEnd, !made.isEmpty { try opened.root.syncFileSystem() }
        } catch {
            for (_, thumbnail) in made { try? thumbnail.directory.remove(thumbnail.temporary) }
            throw error
        }
        var report = StoreThumbnailReport(made: 0, damaged: [])
        for (id, thumbnail) in made where (try? thumbnail.putInPlace()) != nil {
            report.made += 1
            if let damage = thumbnail.damage { report.damaged.append((id, damage)) }
        }
        return report
    }

    /// Puts thumbnails made elsewhere (a restore's, from an export) in place for their records;
    /// returns the ids of those left out because their size is not the one the record's photo
    /// gives (a turned photo's thumbnail on its side, made by a version that did not turn photos
    /// upright), to be made anew.
    package func putThumbnails(_ thumbnails: [(record: StoredRecord, jpeg: [UInt8])]) throws -> [String] {
        guard !thumbnails.isEmpty, let opened = try open() else { return [] }
        let flushAtEnd = durable && opened.root.flushStrategy == .wholeFileSystem
        let directory = try opened.root.subdirectoryCreatingIfNeeded(ThumbnailFiles.directoryName, durable: false)
        var written: [WrittenThumbnail] = []
        var leftOut: [String] = []
        for (record, jpeg) in thumbnails {
            let size = jpeg.withUnsafeBytes { try? JPEGHeader(reading: $0) }
            guard let size, (size.width, size.height) == record.thumbnailSize else {
                leftOut.append(record.id)
                continue
            }
            let tagged = ThumbnailFiles.tagged(jpeg, generation: record.image.generation)
            if let thumbnail = try? write(tagged, of: record, in: directory, durable: durable && !flushAtEnd) { written.append(thumbnail) }
        }
        do {
            if flushAtEnd, !written.isEmpty { try opened.root.syncFileSystem() }
        } catch {
            for thumbnail in written { try? thumbnail.directory.remove(thumbnail.temporary) }
            throw error
        }
        for thumbnail in written { try? thumbnail.putInPlace() }
        return leftOut
    }

    /// Makes and writes the thumbnail of `stored`, flushed, replacing any file of its name;
    /// returns its bytes, or `nil` when the image cannot be scaled or is missing.
    func makeThumbnail(of stored: StoredRecord, _ opened: OpenStore) throws -> [UInt8]? {
        guard let thumbnail = try writeThumbnail(of: stored, opened, durable: durable) else { return nil }
        try thumbnail.putInPlace()
        return thumbnail.bytes
    }

    /// A thumbnail written under a temporary name, to be put in place under its own.
    struct WrittenThumbnail: Sendable {
        let directory: StoreDirectory
        let temporary: String
        let name: String
        let bytes: [UInt8]
        /// What was wrong with the photo's JPEG data, if anything: the thumbnail shows what could be read.
        var damage: String? = nil

        /// Renames it into place (unflushed: a lost name costs only the making again).
        func putInPlace() throws {
            do {
                try directory.rename(temporary, to: name)
            } catch {
                try? directory.remove(temporary)
                throw error
            }
        }
    }

    /// Makes the thumbnail of `stored` and writes it whole under a name of its own (a reader never
    /// sees half of it), flushed when `durable`; `nil` when the image cannot be scaled or is
    /// missing.
    private func writeThumbnail(of stored: StoredRecord, _ opened: OpenStore, durable: Bool) throws -> WrittenThumbnail? {
        let thumbnail: JPEGThumbnail
        if let kept = takeThumbnailPicture(generation: stored.image.generation) {
            // The picture the like measured the photo's colour from, decoded from its bytes as
            // they were stored (this process wrote them): the thumbnail, byte for byte.
            thumbnail = JPEGThumbnail.make(fromDCPicture: kept.picture, metadata: kept.metadata)
        } else {
            let imageName = StoreLayout.imageFileName(stored.key, stored.image.generation, user: false)
            // Only from the image as it was liked: never from a link, nor from bytes changed since.
            guard case .whole(let image)? = try opened.images?.read(imageName, as: stored.image) else { return nil }
            do {
                thumbnail = try image.withUnsafeBytes { bytes throws(JPEGError) in
                    try JPEGThumbnail.make(fromJPEG: bytes, size: ThumbnailFiles.size)
                }
            } catch {
                return nil
            }
        }
        let tagged = ThumbnailFiles.tagged(thumbnail.jpeg, generation: stored.image.generation, damage: thumbnail.damage)
        let directory = try opened.root.subdirectoryCreatingIfNeeded(ThumbnailFiles.directoryName, durable: false)
        var written = try write(tagged, of: stored, in: directory, durable: durable)
        written.damage = thumbnail.damage
        return written
    }

    /// Writes a tagged thumbnail of `stored` whole under a name of its own, flushed when `durable`.
    private func write(_ tagged: [UInt8], of stored: StoredRecord, in directory: StoreDirectory, durable: Bool) throws -> WrittenThumbnail {
        let name = StoreLayout.thumbnailFileName(stored.key, stored.image.generation)
        let temporary = name + "." + Generation.make() + ".tmp"
        _ = try tagged.withUnsafeBytes { try directory.createFile(temporary, bytes: $0, durable: durable) }
        return WrittenThumbnail(directory: directory, temporary: temporary, name: name, bytes: tagged)
    }
}

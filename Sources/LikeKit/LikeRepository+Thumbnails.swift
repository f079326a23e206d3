// Thumbnails: each liked photo's small JPEG, made by the JPEGCodec module from its image after
// the like (never delaying it) or on first need.

import LikesSupport
import Dispatch
import JPEGCodec

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension LikeRepository {
    /// The thumbnail of a liked photo, made now if it is missing or damaged: a baseline JPEG whose
    /// long side is at most 512 pixels (at least 160 for larger photos), with the photo's aspect
    /// ratio.
    ///
    /// Thumbnails are a cache derived from each photo's image, kept in the store's `thumbnails`
    /// folder: the first call for a photo decodes its JPEG (at 1/8 of its size for a 12-megapixel
    /// photo, 20–40 ms), later ones find the file. A like never waits for its thumbnail; the
    /// command line makes one right after each like, and an app can call this for a grid's cells
    /// off the main thread. Its bytes are flushed before it is put in place, so that no power cut
    /// leaves a damaged one under its name; the name itself is not: one lost is made again.
    ///
    /// ```swift
    /// if let thumbnail = try repository.thumbnail(for: id) { cell.image = UIImage(contentsOfFile: thumbnail.file.path) }
    /// ```
    ///
    /// - Returns: The thumbnail, or `nil` when the photo's JPEG is of a kind that cannot be scaled
    ///   (CMYK, 12-bit, lossless or arithmetic-coded) or its image file is missing.
    /// - Throws: ``LikeRepositoryError/notLiked(id:)``; `io` when the thumbnail cannot be written.
    public func thumbnail(for id: PhotoID) throws -> StoredImage? {
        guard let opened = try store.open(), let stored = try opened.records?.read(key: id.storageKey), stored.id == id else {
            throw LikeRepositoryError.notLiked(id: id)
        }
        let thumbnails = try opened.thumbnails()
        if case .whole(let bytes) = try thumbnails.state(key: stored.key, generation: stored.image.generation) {
            return thumbnailImage(stored, bytes: bytes)
        }
        guard let made = try makeThumbnail(of: stored, opened) else { return nil }
        return thumbnailImage(stored, bytes: made.count)
    }

    /// Makes the thumbnails of the liked photos among `ids` that are missing or damaged, two at a
    /// time, and puts them in place together after one flush: what an import does after its
    /// likes, or an app before it shows a grid of new photos. One that cannot be made (a JPEG
    /// that cannot be scaled, an image file missing) is left out; ``thumbnail(for:)-7l7hw`` then
    /// returns `nil` for it.
    ///
    /// ```swift
    /// let results = try repository.likeAll(items)
    /// try repository.makeThumbnails(for: items.map(\.id))
    /// ```
    ///
    /// - Returns: How many thumbnails were made, and the photos among them whose JPEG data is
    ///   damaged (their thumbnails show what could be read).
    /// - Throws: ``LikeRepositoryError``: `io` when the flush fails (then none is put in place).
    @discardableResult
    public func makeThumbnails(for ids: [PhotoID]) throws -> ThumbnailReport {
        guard !ids.isEmpty, let opened = try store.open(), let records = opened.records else { return ThumbnailReport(made: 0, damaged: []) }
        let thumbnails = try opened.thumbnails()
        // Where one syncfs flushes everything, one for all of them; elsewhere each as written.
        let flushAtEnd = isDurable && opened.root.flushStrategy == .wholeFileSystem
        let next = Locked(0)
        let written = Locked<[(id: PhotoID, thumbnail: WrittenThumbnail)]>([])
        DispatchQueue.concurrentPerform(iterations: min(2, ids.count)) { _ in
            while let index = next.withLock({ value -> Int? in
                guard value < ids.count else { return nil }
                value += 1
                return value - 1
            }) {
                let id = ids[index]
                guard let stored = try? records.read(key: id.storageKey), stored.id == id else { continue }
                if case .whole = try? thumbnails.state(key: stored.key, generation: stored.image.generation) { continue }
                guard let thumbnail = try? writeThumbnail(of: stored, opened, durable: isDurable && !flushAtEnd) else { continue }
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
        var report = ThumbnailReport(made: 0, damaged: [])
        for (id, thumbnail) in made where (try? thumbnail.putInPlace()) != nil {
            report.made += 1
            if let damage = thumbnail.damage { report.damaged.append(DamagedPhoto(id: id, damage: damage)) }
        }
        return report
    }

    /// Puts in place thumbnails made elsewhere (a restore's, from its export), each tagged for
    /// its record's image: written, flushed together where one `syncfs` can, then renamed into
    /// place. One that cannot be written is left for the next need to make.
    func putThumbnails(_ thumbnails: [(record: StoredRecord, jpeg: [UInt8])]) throws {
        guard !thumbnails.isEmpty, let opened = try store.open() else { return }
        let flushAtEnd = isDurable && opened.root.flushStrategy == .wholeFileSystem
        let directory = try opened.root.subdirectoryCreatingIfNeeded(ThumbnailFiles.directoryName, durable: false)
        var written: [WrittenThumbnail] = []
        for (record, jpeg) in thumbnails {
            let tagged = ThumbnailFiles.tagged(jpeg, generation: record.image.generation)
            if let thumbnail = try? write(tagged, of: record, in: directory, durable: isDurable && !flushAtEnd) { written.append(thumbnail) }
        }
        do {
            if flushAtEnd, !written.isEmpty { try opened.root.syncFileSystem() }
        } catch {
            for thumbnail in written { try? thumbnail.directory.remove(thumbnail.temporary) }
            throw error
        }
        for thumbnail in written { try? thumbnail.putInPlace() }
    }

    /// Makes and writes the thumbnail of `stored`, flushed, replacing any file of its name;
    /// returns its bytes, or `nil` when the image cannot be scaled or is missing.
    func makeThumbnail(of stored: StoredRecord, _ opened: OpenStore) throws -> [UInt8]? {
        guard let thumbnail = try writeThumbnail(of: stored, opened, durable: isDurable) else { return nil }
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
        let imageName = StoreLayout.imageFileName(stored.key, stored.image.generation, user: false)
        // Only from the image as it was liked: never from a link, nor from bytes changed since.
        guard case .whole(let image)? = try opened.images?.read(imageName, as: stored.image) else { return nil }
        let thumbnail: JPEGThumbnail
        do {
            thumbnail = try image.withUnsafeBytes { bytes throws(JPEGError) in
                try JPEGThumbnail.make(fromJPEG: bytes, size: ThumbnailFiles.size)
            }
        } catch {
            return nil
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

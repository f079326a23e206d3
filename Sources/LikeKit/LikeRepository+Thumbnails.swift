// Thumbnails: each liked photo's small JPEG, made by the JPEGCodec module from its image after
// the like (never delaying it) or on first need.

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
    /// off the main thread. Not flushed: a thumbnail lost to a crash is made again.
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

    /// Makes and writes the thumbnail of `stored`, replacing any file of its name; returns its
    /// bytes, or `nil` when the image cannot be scaled or is missing.
    func makeThumbnail(of stored: StoredRecord, _ opened: OpenStore) throws -> [UInt8]? {
        let imageName = StoreLayout.imageFileName(stored.key, stored.image.generation, user: false)
        guard let image = try opened.images?.directory.read(imageName) else { return nil }
        let thumbnail: JPEGThumbnail
        do {
            thumbnail = try image.withUnsafeBytes { bytes throws(JPEGError) in
                try JPEGThumbnail.make(fromJPEG: bytes, longSide: ThumbnailFiles.longSide)
            }
        } catch {
            return nil
        }
        let tagged = ThumbnailFiles.tagged(thumbnail.jpeg, generation: stored.image.generation)
        let directory = try opened.root.subdirectoryCreatingIfNeeded(ThumbnailFiles.directoryName, durable: false)
        let name = StoreLayout.thumbnailFileName(stored.key, stored.image.generation)
        // Written whole under a name of its own, then put in place: a reader never sees half of it.
        let temporary = name + "." + Generation.make() + ".tmp"
        try tagged.withUnsafeBytes { try directory.createFile(temporary, bytes: $0, durable: false) }
        do {
            try directory.rename(temporary, to: name)
        } catch {
            try? directory.remove(temporary)
            throw error
        }
        return tagged
    }
}

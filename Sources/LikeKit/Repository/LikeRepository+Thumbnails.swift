// Thumbnails: each liked photo's small JPEG, made by the store after the like (never delaying
// it) or on first need, in public types.

import LikeStore

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
        guard let made = try translating({ try store.thumbnail(for: id.rawValue) }) else { return nil }
        return thumbnailImage(made.record, bytes: made.bytes)
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
        let made = try translating { try store.makeThumbnails(for: ids.map(\.rawValue)) }
        return ThumbnailReport(made: made.made, damaged: made.damaged.map { DamagedPhoto(id: PhotoID(stored: $0.id), damage: $0.damage) })
    }
}

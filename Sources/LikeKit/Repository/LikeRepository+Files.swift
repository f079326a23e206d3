// Reading a liked photo's files: their bytes as liked, through the store, never through a link.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// The bytes of one of a liked photo's files, checked, and what its record says of the file.
public struct PhotoFile: Sendable, Hashable {
    /// Which of a photo's files.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The photo's JPEG.
        case image
        /// The photographer's picture.
        case userImage
        /// The thumbnail, made on first need.
        case thumbnail
    }

    /// The file as the record shows it: its place, size and pixels.
    public var image: StoredImage
    /// Its bytes, exactly as liked (or, for a thumbnail, as made).
    public var data: Data
    /// For a thumbnail: what was wrong with the photo's JPEG data when it was made from it, if
    /// anything (cut short, a code no Huffman table has, a restart marker missing); the
    /// thumbnail shows what could be read.
    public var damage: String?
}

extension LikeRepository {
    /// The bytes of one of a liked photo's files, read from the store the way the store reads
    /// its own files: opened without following a symbolic link, checked to be a regular file,
    /// and, for the image and the photographer's picture, checked against the size and checksum
    /// the record keeps (a thumbnail carries its own checksum, and is made anew when missing or
    /// damaged).
    ///
    /// Use it instead of reading ``StoredImage/file`` yourself wherever the bytes leave the app
    /// (a share sheet, an upload, a server): a path can lead anywhere once something outside the
    /// app has changed the store.
    ///
    /// ```swift
    /// if let file = try repository.file(.image, of: id) { share(file.data, named: file.image.fileName) }
    /// ```
    ///
    /// - Parameters:
    ///   - kind: The image, the photographer's picture or the thumbnail.
    ///   - id: The photo's id.
    /// - Returns: The file and its bytes; `nil` when the photo has no such file (no
    ///   photographer's picture, or a JPEG of a kind no thumbnail can be made of).
    /// - Throws: ``LikeRepositoryError``: `notLiked`; `damagedImage` when the file is missing, a
    ///   link, cut short or changed since it was liked; `damagedRecord`, `io`.
    public func file(_ kind: PhotoFile.Kind, of id: PhotoID) throws -> PhotoFile? {
        try translating {
            let wanted: Store.FileKind =
                switch kind {
                case .image: .image
                case .userImage: .userImage
                case .thumbnail: .thumbnail
                }
            // One open of the store for the record and the file: the gallery asks this per request.
            guard let (stored, read) = try store.file(wanted, of: id.rawValue) else { throw StoreError.notLiked(id: id.rawValue) }
            guard let read else { return nil }
            let image: StoredImage
            switch kind {
            case .thumbnail:
                guard case .whole(let data) = read else { return nil }
                let bytes = [UInt8](data)
                return PhotoFile(image: thumbnailImage(stored, bytes: bytes.count), data: data, damage: Store.thumbnailDamage(in: bytes))
            case .image: image = publicRecord(stored).image
            case .userImage:
                guard let user = publicRecord(stored).userImage else { return nil }
                image = user
            }
            switch read {
            case .whole(let data): return PhotoFile(image: image, data: data)
            case .damaged(let problem): throw StoreError.damagedImage(file: image.file.path, reason: problem)
            }
        }
    }
}

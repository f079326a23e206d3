// One photo to like in a batch.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// One photo for ``LikeRepository/likeAll(_:)-712ic``: what
/// ``LikeRepository/like(_:image:userImage:note:photo:albums:)-3llxn`` takes.
public struct LikeItem: Sendable {
    /// The photo's id.
    public var id: PhotoID
    /// The photo's JPEG; may be `nil` only when the photo is liked already.
    public var image: Data?
    /// The photographer's profile picture, a JPEG.
    public var userImage: Data?
    /// The person's note.
    public var note: String?
    /// Metadata from the photo's source.
    public var photo: PhotoMetadata?
    /// Albums to put the photo in, besides those it is in already.
    public var albums: [AlbumName]

    /// Creates an item; everything but the id defaults to `nil` (no albums).
    public init(id: PhotoID, image: Data?, userImage: Data? = nil, note: String? = nil, photo: PhotoMetadata? = nil, albums: [AlbumName] = []) {
        self.id = id
        self.image = image
        self.userImage = userImage
        self.note = note
        self.photo = photo
        self.albums = albums
    }
}

// A liked photo as the store keeps it: its id, when it was liked, its images and metadata.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// One favorite: a liked photo with its stored images.
///
/// Encodes as the JSON shape of the command line's `--json` output:
///
/// ```json
/// {"id": "Dwu85P9SOIk", "likedAt": "2026-11-22T01:23:45.123Z",
///  "image": {"file": "/…/images/^dwu85^p9^s^o^ik~1a2b3c4d5e6f.jpg", "bytes": 123456, "width": 4000, "height": 3000},
///  "userImage": null, "thumbnail": {"file": "/…/thumbnails/^dwu85^p9^s^o^ik~1a2b3c4d5e6f.jpg", "bytes": 41234, "width": 512, "height": 384},
///  "note": null, "photo": null, "albums": ["Lisbon"]}
/// ```
public struct LikeRecord: Sendable, Hashable, Codable {
    /// The photo's id, spelled as it was first liked.
    public var id: PhotoID
    /// When the photo was first liked; kept when the like is updated.
    public var likedAt: Date
    /// The photo's JPEG.
    public var image: StoredImage
    /// The photographer's profile picture, if one was given.
    public var userImage: StoredImage?
    /// The photo's thumbnail, a baseline JPEG of at most 512 pixels a side made from ``image``,
    /// when it has been made: `nil` until then (see ``LikeRepository/thumbnail(for:)-7l7hw``), and for
    /// JPEG kinds that cannot be scaled (CMYK, 12-bit).
    public var thumbnail: StoredImage?
    /// The person's own note on the photo.
    public var note: String?
    /// What the photo's source says about it.
    public var photo: PhotoMetadata?
    /// The albums the photo is in, sorted by name.
    public var albums: [AlbumName]
    /// The albums whose chosen cover the photo is (see
    /// ``LikeRepository/setCover(_:ofAlbum:)-7gtgk``), sorted by name; each is one of ``albums``.
    public var covers: [AlbumName] = []
    /// What the camera wrote in the photo's Exif; `nil` when the file has none.
    public var exif: CameraDetails?
    /// The photo's colour as `#RRGGBB`, as ``LikeQuery/color`` finds it: the one its source
    /// gave (``PhotoMetadata/color``), else the mean of its pixels; `nil` when it has neither.
    public var color: String?
    /// Where ``color`` comes from.
    public var colorSource: ColorSource?
    /// When the photo was taken, as the order by date taken (``LikeQuery/OrderDate/taken``)
    /// places it: the camera's date, else the source's, else ``likedAt``.
    public var takenAt: Date
    /// Where ``takenAt`` comes from.
    public var takenSource: TakenSource = .liked

    package enum CodingKeys: String, CodingKey {
        case id, likedAt, image, userImage, thumbnail, note, photo, albums, covers, exif, color, colorFrom, takenAt, takenFrom
    }

    init(
        id: PhotoID, likedAt: Date, image: StoredImage, userImage: StoredImage?, thumbnail: StoredImage? = nil, note: String?,
        photo: PhotoMetadata?, albums: [AlbumName]
    ) {
        self.id = id
        self.likedAt = likedAt
        self.takenAt = likedAt
        self.image = image
        self.userImage = userImage
        self.thumbnail = thumbnail
        self.note = note
        self.photo = photo
        self.albums = albums
    }

    /// Decodes a record in the shape ``encode(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(PhotoID.self, forKey: .id)
        let text = try container.decode(String.self, forKey: .likedAt)
        guard let milliseconds = Timestamp.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: .likedAt, in: container, debugDescription: "not an ISO 8601 date: \(text)")
        }
        likedAt = Timestamp.date(milliseconds)
        image = try container.decode(StoredImage.self, forKey: .image)
        userImage = try container.decodeIfPresent(StoredImage.self, forKey: .userImage)
        thumbnail = try container.decodeIfPresent(StoredImage.self, forKey: .thumbnail)
        note = try container.decodeIfPresent(String.self, forKey: .note)
        photo = try container.decodeIfPresent(PhotoMetadata.self, forKey: .photo)
        albums = AlbumName.canonical(try container.decodeIfPresent([AlbumName].self, forKey: .albums) ?? [])
        covers = AlbumName.canonical(try container.decodeIfPresent([AlbumName].self, forKey: .covers) ?? [])
        exif = try container.decodeIfPresent(CameraDetails.self, forKey: .exif)
        color = try container.decodeIfPresent(String.self, forKey: .color)
        colorSource = try container.decodeIfPresent(ColorSource.self, forKey: .colorFrom)
        takenAt = likedAt
        if let taken = try container.decodeIfPresent(String.self, forKey: .takenAt) {
            guard let milliseconds = Timestamp.parse(taken) else {
                throw DecodingError.dataCorruptedError(forKey: .takenAt, in: container, debugDescription: "not an ISO 8601 date: \(taken)")
            }
            takenAt = Timestamp.date(milliseconds)
        }
        takenSource = try container.decodeIfPresent(TakenSource.self, forKey: .takenFrom) ?? .liked
    }

    /// Encodes the record as the command line's `--json` prints it; dates as ISO 8601 UTC with
    /// milliseconds, `nil` properties as `null`.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    /// The pixel size of the photo's thumbnail, whether or not it has been made yet: what a page
    /// needs to know to choose between the thumbnail and the full image for a cell.
    public var thumbnailPixelSize: (width: Int, height: Int) {
        if let thumbnail { return (thumbnail.width, thumbnail.height) }
        return StoredRecord.thumbnailSize(width: image.width, height: image.height)
    }

    /// The pixel sizes of the photo's renditions, smallest first (none for a photo not much
    /// larger than its thumbnail): twice the thumbnail's long side, doubled while smaller than
    /// the photo. ``LikeRepository/image(for:covering:)-6nwig`` gives each, made when missing.
    public var renditionSizes: [(width: Int, height: Int)] { StoredRecord.renditionSizes(width: image.width, height: image.height) }

    /// The number of bytes of the record's images together.
    public var totalBytes: Int { image.byteCount + (userImage?.byteCount ?? 0) }
}

/// A JPEG file kept in the store.
public struct StoredImage: Sendable, Hashable, Codable {
    /// Where the file is now: the store's directory joined with ``fileName``.
    public var file: URL {
        get { URL(fileURLWithPath: path, isDirectory: false) }
        set { path = newValue.path }
    }
    /// The file's path inside the store, such as `images/abc~1a2b3c4d5e6f.jpg`.
    public var fileName: String
    /// The file's size in bytes.
    public var byteCount: Int
    /// The width in pixels, as the photo is displayed (see ``height``).
    public var width: Int
    /// The height in pixels, as the photo is displayed: the JPEG frame header's, swapped when
    /// its Exif orientation turns it a quarter (5 to 8).
    public var height: Int
    /// How the file's pixels are turned for display, Exif's `Orientation` (1–8; 1 when the file
    /// says nothing). Every image the store makes from it is upright.
    public var orientation: Int = 1
    /// ``file``'s absolute path. Kept as text, and made a URL only when asked for: a page of
    /// records prints paths, and joining a URL's components took a twentieth of a `list`.
    package var path: String

    package enum CodingKeys: String, CodingKey { case file, bytes, width, height, orientation }

    init(path: String, fileName: String, byteCount: Int, width: Int, height: Int) {
        self.path = path
        self.fileName = fileName
        self.byteCount = byteCount
        self.width = width
        self.height = height
    }

    /// Decodes `{"file", "bytes", "width", "height", "orientation"}` with `file` an absolute path.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let file = URL(fileURLWithPath: try container.decode(String.self, forKey: .file))
        path = file.path
        fileName = file.deletingLastPathComponent().lastPathComponent + "/" + file.lastPathComponent
        byteCount = try container.decode(Int.self, forKey: .bytes)
        width = try container.decode(Int.self, forKey: .width)
        height = try container.decode(Int.self, forKey: .height)
        orientation = try container.decodeIfPresent(Int.self, forKey: .orientation) ?? 1
    }

    /// Encodes `{"file", "bytes", "width", "height", "orientation"}` with `file` an absolute path.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}

// index.json of an export: what the folder holds, for scripts and for the contact sheet.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// The content of an export's `index.json`.
///
/// ```json
/// {"format": "likes-export-1", "exportedAt": "2026-11-22T05:00:00.000Z", "album": null, "since": null,
///  "count": 1, "bytes": 112525,
///  "photos": [{"id": "rocket", "file": "rocket.jpg", "bytes": 112525, "sha256": "9f2c…", "width": 640, "height": 427,
///              "likedAt": "…", "note": null, "albums": [], "photo": {…}, "userImage": null,
///              "thumbnail": {"file": "rocket.thumbnail.jpg", "bytes": 18144, "sha256": "…", "width": 320, "height": 214}}]}
/// ```
///
/// File names are relative to the export folder, so the folder can be moved, zipped and shared.
/// Every file named has its size and SHA-256 beside it, which a restore checks (an export made
/// before the digests were written has sizes only).
struct ExportIndex: Codable {
    /// Enough of an index to recognise an earlier export.
    struct Header: Decodable {
        var format: String
    }

    struct Image: Codable {
        var file: String
        var bytes: Int
        /// 64 lower-case hex digits; `nil` in an export made before they were written.
        var sha256: String?
        var width: Int
        var height: Int
    }

    struct Photo: Codable {
        var id: PhotoID
        var file: String
        var bytes: Int
        var sha256: String?
        var width: Int
        var height: Int
        var likedAt: String
        var note: String?
        var albums: [AlbumName]
        /// The albums whose chosen cover the photo is; left out when none (and in an export
        /// made before covers could be chosen).
        var covers: [AlbumName]?
        var photo: PhotoMetadata?
        var userImage: Image?
        /// The photo's thumbnail, which the contact sheet shows (linking the full JPEG); `nil`
        /// for a JPEG that cannot be scaled.
        var thumbnail: Image?

        /// `files`: the name and SHA-256 of the image's copy, then of the user image's, if any.
        /// A photo as the store exported it.
        init(_ exported: ExportedPhoto) {
            let record = exported.record
            let files = exported.files
            id = PhotoID(stored: record.id)
            file = files.first?.name ?? ""
            bytes = record.image.bytes
            sha256 = files.first?.sha256
            width = record.image.width
            height = record.image.height
            likedAt = Timestamp.string(record.likedAt)
            note = record.note
            albums = record.albums.map(AlbumName.init(stored:))
            covers = record.covers.isEmpty ? nil : record.covers.map(AlbumName.init(stored:))
            photo = record.photo.map(PhotoMetadata.init)
            if let info = record.userImage, files.count > 1 {
                userImage = Image(file: files[1].name, bytes: info.bytes, sha256: files[1].sha256, width: info.width, height: info.height)
            }
            if let thumbnail = exported.thumbnail {
                let size = record.thumbnailSize
                self.thumbnail = Image(file: thumbnail.name, bytes: thumbnail.bytes, sha256: thumbnail.sha256, width: size.width, height: size.height)
            }
        }

        /// A photo beside the page as `file` (a gallery's zip): its JPEG and nothing else.
        init(_ record: LikeRecord, file: String) {
            id = record.id
            self.file = file
            bytes = record.image.byteCount
            width = record.image.width
            height = record.image.height
            likedAt = Timestamp.string(record.likedAt)
            note = record.note
            albums = record.albums
            photo = record.photo
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(file, forKey: .file)
            try container.encode(bytes, forKey: .bytes)
            try container.encodeIfPresent(sha256, forKey: .sha256)
            try container.encode(width, forKey: .width)
            try container.encode(height, forKey: .height)
            try container.encode(likedAt, forKey: .likedAt)
            try container.encode(note, forKey: .note)
            try container.encode(albums, forKey: .albums)
            if let covers, !covers.isEmpty { try container.encode(covers, forKey: .covers) }
            try container.encode(photo, forKey: .photo)
            try container.encode(userImage, forKey: .userImage)
            try container.encode(thumbnail, forKey: .thumbnail)
        }

        var report: ExportReport.Photo {
            ExportReport.Photo(id: id, fileName: file, userImageFileName: userImage?.file, byteCount: bytes + (userImage?.bytes ?? 0))
        }
    }

    var format: String
    var exportedAt: String
    var album: String?
    var since: String?
    var count: Int
    var bytes: Int
    var photos: [Photo]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(exportedAt, forKey: .exportedAt)
        try container.encode(album, forKey: .album)
        try container.encode(since, forKey: .since)
        try container.encode(count, forKey: .count)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(photos, forKey: .photos)
    }

    /// The index of what an export of `query` wrote.
    init(photos: [Photo], query: LikeQuery, format: String) {
        self.format = format
        exportedAt = Timestamp.string(Timestamp.now())
        album = query.album?.rawValue
        since = query.since.map(Timestamp.string)
        count = photos.count
        bytes = photos.reduce(0) { $0 + $1.report.byteCount }
        self.photos = photos
    }

    func encoded() throws -> Data {
        try Self.encoder().encode(self)
    }

    /// The encoder of `index.json`, and of each photo's entry in it.
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

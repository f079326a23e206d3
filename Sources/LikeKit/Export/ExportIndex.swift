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
///  "count": 1, "bytes": 22168,
///  "photos": [{"id": "IMG_0042", "file": "IMG_0042.jpg", "bytes": 22168, "sha256": "9f2c…",
///              "width": 480, "height": 320, "storedWidth": 320, "storedHeight": 480, "orientation": 6,
///              "likedAt": "…", "note": null, "albums": [], "photo": {…}, "userImage": null,
///              "thumbnail": {"file": "IMG_0042.thumbnail.jpg", "bytes": 18144, "sha256": "…", "width": 480,
///                            "height": 320, "storedWidth": 480, "storedHeight": 320, "orientation": 1}}]}
/// ```
///
/// File names are relative to the export folder, so the folder can be moved, zipped and shared.
/// Every file named has its size and SHA-256 beside it, which a restore checks (an export made
/// before the digests were written has sizes only). Every image gives both of its sizes, named
/// so: `width` and `height` as displayed (its Exif orientation applied, as a record gives them),
/// `storedWidth` and `storedHeight` as the file stores its pixels (its frame header), and its
/// `orientation` (1–8). An export made before these three were written gives `width` and
/// `height` alone: the stored pixels before photos were turned upright, the displayed size
/// after; a restore takes either.
package struct ExportIndex: Codable {
    /// Enough of an index to recognise an earlier export.
    struct Header: Decodable {
        var format: String
    }

    struct Image: Codable {
        var file: String
        var bytes: Int
        /// 64 lower-case hex digits; `nil` in an export made before they were written.
        var sha256: String?
        /// As displayed; in an export without `storedWidth`, either size (see above).
        var width: Int
        var height: Int
        /// The file's frame header's; `nil` in an export made before they were written.
        var storedWidth: Int?
        var storedHeight: Int?
        /// Exif's orientation; `nil` in an export made before it was written.
        var orientation: Int?

        init(file: String, bytes: Int, sha256: String?, pixels: PixelSizes) {
            self.file = file
            self.bytes = bytes
            self.sha256 = sha256
            (width, height) = pixels.displayed
            (storedWidth, storedHeight, orientation) = (pixels.stored.width, pixels.stored.height, pixels.orientation)
        }

        var pixels: PixelSizes.Given {
            PixelSizes.Given(width: width, height: height, storedWidth: storedWidth, storedHeight: storedHeight, orientation: orientation)
        }
    }

    /// An image's two sizes and its orientation, as an export writes them.
    struct PixelSizes {
        var stored: (width: Int, height: Int)
        var orientation: Int

        var displayed: (width: Int, height: Int) { orientation >= 5 ? (stored.height, stored.width) : stored }

        init(stored: (width: Int, height: Int), orientation: Int) {
            self.stored = stored
            self.orientation = orientation
        }

        init(_ file: ExportedFile) {
            self.init(stored: (file.storedWidth, file.storedHeight), orientation: file.orientation)
        }

        /// What an index gives of an image's sizes, whichever version wrote it.
        struct Given {
            var width: Int
            var height: Int
            var storedWidth: Int?
            var storedHeight: Int?
            var orientation: Int?

            /// Why a JPEG of these sizes is not the one the index gives; `nil` when it is. An
            /// index without the stored size gives one size, which is either (see above).
            func mismatch(_ actual: PixelSizes) -> String? {
                let displayed = actual.displayed
                guard let storedWidth, let storedHeight else {
                    if (width, height) == actual.stored || (width, height) == displayed { return nil }
                    return "it is \(actual.stored.width)×\(actual.stored.height) pixels where index.json says \(width)×\(height)"
                }
                if (storedWidth, storedHeight) != actual.stored {
                    return "it stores \(actual.stored.width)×\(actual.stored.height) pixels where index.json says \(storedWidth)×\(storedHeight)"
                }
                if let orientation, orientation != actual.orientation {
                    return "its Exif orientation is \(actual.orientation) where index.json says \(orientation)"
                }
                if (width, height) != displayed {
                    return "it shows as \(displayed.width)×\(displayed.height) where index.json says \(width)×\(height)"
                }
                return nil
            }
        }
    }

    package struct Photo: Codable {
        package var id: PhotoID
        var file: String
        var bytes: Int
        var sha256: String?
        /// As ``Image``'s.
        var width: Int
        var height: Int
        var storedWidth: Int?
        var storedHeight: Int?
        var orientation: Int?
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
            if let main = files.first {
                let pixels = PixelSizes(main)
                (width, height) = pixels.displayed
                (storedWidth, storedHeight, orientation) = (pixels.stored.width, pixels.stored.height, pixels.orientation)
            } else {
                (width, height) = (record.image.width, record.image.height)
            }
            likedAt = Timestamp.string(record.likedAt)
            note = record.note
            albums = record.albums.map(AlbumName.init(stored:))
            covers = record.covers.isEmpty ? nil : record.covers.map(AlbumName.init(stored:))
            photo = record.photo.map(PhotoMetadata.init)
            if let info = record.userImage, files.count > 1 {
                userImage = Image(file: files[1].name, bytes: info.bytes, sha256: files[1].sha256, pixels: PixelSizes(files[1]))
            }
            if let thumbnail = exported.thumbnail {
                // Upright: what it stores is what it shows.
                let size = record.thumbnailSize
                self.thumbnail = Image(
                    file: thumbnail.name, bytes: thumbnail.bytes, sha256: thumbnail.sha256,
                    pixels: PixelSizes(stored: (size.width, size.height), orientation: 1))
            }
        }

        /// A photo beside the page as `file` (a gallery's zip): its JPEG and nothing else.
        init(_ record: LikeRecord, file: String) {
            id = record.id
            self.file = file
            bytes = record.image.byteCount
            width = record.image.width
            height = record.image.height
            orientation = record.image.orientation
            (storedWidth, storedHeight) = record.image.orientation >= 5 ? (height, width) : (width, height)
            likedAt = Timestamp.string(record.likedAt)
            note = record.note
            albums = record.albums
            photo = record.photo
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(file, forKey: .file)
            try container.encode(bytes, forKey: .bytes)
            try container.encodeIfPresent(sha256, forKey: .sha256)
            try container.encode(width, forKey: .width)
            try container.encode(height, forKey: .height)
            try container.encodeIfPresent(storedWidth, forKey: .storedWidth)
            try container.encodeIfPresent(storedHeight, forKey: .storedHeight)
            try container.encodeIfPresent(orientation, forKey: .orientation)
            try container.encode(likedAt, forKey: .likedAt)
            try container.encode(note, forKey: .note)
            try container.encode(albums, forKey: .albums)
            if let covers, !covers.isEmpty { try container.encode(covers, forKey: .covers) }
            try container.encode(photo, forKey: .photo)
            try container.encode(userImage, forKey: .userImage)
            try container.encode(thumbnail, forKey: .thumbnail)
        }

        var pixels: PixelSizes.Given {
            PixelSizes.Given(width: width, height: height, storedWidth: storedWidth, storedHeight: storedHeight, orientation: orientation)
        }

        var report: ExportReport.Photo {
            ExportReport.Photo(id: id, fileName: file, userImageFileName: userImage?.file, byteCount: bytes + (userImage?.bytes ?? 0))
        }
    }

    var format: String
    var exportedAt: String
    var album: String?
    var since: String?
    package var count: Int
    package var bytes: Int
    package var photos: [Photo]

    package func encode(to encoder: any Encoder) throws {
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

    package func encoded() throws -> Data {
        try Self.encoder().encode(self)
    }

    /// The encoder of `index.json`, and of each photo's entry in it.
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

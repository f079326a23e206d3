// The JSON the pages read: photos with the addresses of their images, albums, changes.

import HTTPServer
import LikeKit

#if canImport(Darwin)
    import Darwin
    import Foundation
#else
    import FoundationEssentials
    import Glibc
#endif

struct PageJSON: Encodable {
    var photos: [PhotoJSON]
    /// The cursor of the next page; `nil` at the end.
    var next: String?
}

/// One rendition as a page asks for it.
struct RenditionJSON: Encodable {
    var url: String
    var width: Int
}

/// A photo as a page shows it.
struct PhotoJSON: Encodable {
    var id: String
    var likedAt: String
    /// When it was taken (the camera's date, else the source's, else the like's), and from where
    /// (`exif`, `source`, `liked`): what the timeline by date taken shows.
    var takenAt: String
    var takenFrom: String
    /// Its place in the listing by date liked, and in the one by date taken.
    var cursor: String
    var takenCursor: String
    /// The full JPEG's address, versioned so that it may be cached for good.
    var image: String
    /// The thumbnail's address, versioned by the image it is made from (a thumbnail of
    /// `images/KEY~GEN.jpg` is `thumbnails/KEY~GEN.jpg`), so that it too may be cached for good.
    var thumbnail: String
    /// The thumbnail's pixels, made or not: a page draws the thumbnail where they cover the
    /// cell and the full image where they fall short.
    var thumbnailWidth: Int
    var thumbnailHeight: Int
    /// The renditions between the thumbnail and the original, smallest first: each an address
    /// (versioned as the thumbnail's) and its width, for a `srcset`.
    var renditions: [RenditionJSON]
    /// What the photo is called on a page: its title, else its description, else its id; never
    /// the store's file name.
    var name: String
    /// The title its source gave, else `nil`: a viewer headed by the date where there is none.
    var title: String?
    /// What the camera wrote in its Exif, where it wrote anything.
    var camera: CameraDetails?
    var bytes: Int
    /// The size as `likes show` prints it: `109.89 KB`.
    var size: String
    var width: Int
    var height: Int
    var note: String?
    var albums: [String]
    /// The albums whose chosen cover the photo is.
    var covers: [String]
    var description: String?
    var color: String?
    var photographer: String?
    /// The photographer's page, with Unsplash's referral parameters where the photo is from there.
    var photographerURL: String?
    var sourceURL: String?
    /// `Unsplash` where the photo came from there: the credit reads "Photo by NAME on Unsplash".
    var source: String?

    init(_ record: LikeRecord) {
        let id = Access.escapeQuery(record.id.rawValue)
        self.id = record.id.rawValue
        likedAt = ISOTime.string(record.likedAt)
        cursor = LikeCursor(record: record).description
        takenAt = ISOTime.string(record.takenAt)
        takenFrom = record.takenSource.rawValue
        takenCursor = LikeCursor(record: record, orderDate: .taken).description
        image = "/image?id=\(id)&v=\(Access.escapeQuery(record.image.file.lastPathComponent))"
        thumbnail = "/thumbnail?id=\(id)&v=\(Access.escapeQuery(record.image.file.lastPathComponent))"
        (thumbnailWidth, thumbnailHeight) = record.thumbnailPixelSize
        let version = Access.escapeQuery(record.image.file.lastPathComponent)
        renditions = record.renditionSizes.map { size in
            RenditionJSON(url: "/rendition?id=\(id)&side=\(max(size.width, size.height))&v=\(version)", width: size.width)
        }
        name = [record.photo?.title, record.photo?.description].compactMap { $0?.trimmedSpaces() }.first { !$0.isEmpty } ?? record.id.rawValue
        title = record.photo?.title.map { $0.trimmedSpaces() }.flatMap { $0.isEmpty ? nil : $0 }
        camera = record.exif
        bytes = record.image.byteCount
        size = Self.size(record.image.byteCount)
        width = record.image.width
        height = record.image.height
        note = record.note
        albums = record.albums.map(\.rawValue)
        covers = record.covers.map(\.rawValue)
        description = record.photo?.description
        color = record.color
        photographer = record.photo?.photographer
        sourceURL = record.photo?.sourceURL
        let origin = PhotoOrigin(record.photo)
        source = origin?.name
        photographerURL = origin?.photographerPage(record.photo)
        if origin == .unsplash { sourceURL = record.photo?.sourceURL.map(PhotoOrigin.referral) }
    }

    /// Bytes as `likes show` prints them, in units of 1024 with two decimals: `109.89 KB`.
    static func size(_ bytes: Int) -> String {
        ByteCount.formatted(bytes)
    }
}

/// A month of a listing: its count and the cursor its page starts after.
struct MonthJSON: Encodable {
    var year: Int
    var month: Int
    var count: Int
    var after: String?
}

/// The photos an unlike took away, and why it stopped where it did.
struct UnlikedJSON: Encodable {
    var unliked: [String]
    var refused: String?
}

/// A dropped photo as liked now, or why it was left (`skipped`).
struct DroppedJSON: Encodable {
    var photo: PhotoJSON
    var skipped: String?
}

struct AlbumJSON: Encodable {
    var name: String
    var count: Int
    var bytes: Int
    var size: String
    var cover: PhotoJSON?
    /// Whether the cover was chosen (else it is the newest photo).
    var coverChosen: Bool

    init(_ summary: AlbumSummary) {
        name = summary.name.rawValue
        count = summary.count
        bytes = summary.bytes
        size = PhotoJSON.size(summary.bytes)
        cover = summary.cover.map(PhotoJSON.init)
        coverChosen = summary.coverChosen
    }
}

struct ChangeJSON: Encodable {
    var kind: String
    var id: String
    var photo: PhotoJSON?

    init(_ change: LikeChange) {
        kind = change.kind.rawValue
        id = change.id?.rawValue ?? ""
        photo = change.record.map(PhotoJSON.init)
    }
}

enum ISOTime {
    /// `2026-11-24T06:52:10.123Z`.
    static func string(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        let milliseconds = Int((date.timeIntervalSince1970 - Double(seconds)) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millis)Z"
    }
}

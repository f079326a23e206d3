// A backup restores every photo as cameras make them: each Exif orientation, baseline and
// progressive, with and without colour profiles and camera facts, photographers' pictures turned
// their own way; into a new store, into the same one, twice over, and from the exports earlier
// versions wrote. Through LikeKit's public API alone.

import Foundation
import JPEGCodec
import LikeKit
import LikesSupport
import TestSupport
import Testing

@Suite(.ownLane) struct CameraRoundTripTests {
    let folder = TemporaryFolder()

    func repository(_ name: String) -> LikeRepository {
        LikeRepository(directory: folder.url.appendingPathComponent(name, isDirectory: true))
    }

    func url(_ name: String) -> URL { folder.url.appendingPathComponent(name, isDirectory: true) }

    /// A store of the sixteen camera photos with everything a record holds: notes, albums with a
    /// chosen cover, a source's metadata, photographers' pictures with orientations of their own.
    func cameraStore() throws -> LikeRepository {
        let repository = repository("camera")
        let phone = try AlbumName("Phone"), trip = try AlbumName("Trip, 2021")
        for (number, name) in CameraFixtures.names.enumerated() {
            let userImage = number % 3 == 0 ? CameraFixtures.data(CameraFixtures.userImages[number % 2]) : nil
            let photo =
                number % 4 == 1
                ? PhotoMetadata(
                    description: "Launch \(number)", photographer: "SpaceX", photographerUsername: "spacex",
                    sourceURL: "https://www.flickr.com/photos/spacexphotos/\(number)", createdAt: Date(timeIntervalSince1970: 1_423_695_822))
                : nil
            try repository.like(
                PhotoID(name), image: CameraFixtures.data(name), userImage: userImage, note: number % 2 == 0 ? "note \(number)\nline two" : nil,
                photo: photo, albums: number % 3 == 1 ? [phone] : number % 5 == 0 ? [phone, trip] : [])
        }
        _ = try repository.setCover(PhotoID("o6"), ofAlbum: trip)
        _ = try repository.setCover(PhotoID("o6-progressive"), ofAlbum: phone)
        return repository
    }

    /// Every field a restore must keep, and every fact drawn from the files: one line a photo.
    func snapshot(_ repository: LikeRepository) throws -> [String] {
        try repository.list(LikeQuery()).records.map { record in
            func image(_ image: StoredImage?) throws -> String {
                guard let image else { return "-" }
                let digest = SHA256.hexDigest(of: [UInt8](try Data(contentsOf: image.file)))
                return "\(digest) \(image.byteCount) \(image.width)×\(image.height) o\(image.orientation)"
            }
            let camera = record.exif.map { "\($0)" } ?? "no exif"
            return [
                record.id.rawValue, "\(record.likedAt.timeIntervalSince1970)", record.note ?? "-",
                record.albums.map(\.rawValue).joined(separator: "|"),
                record.covers.map(\.rawValue).joined(separator: "|"), String(describing: record.photo), try image(record.image),
                try image(record.userImage), camera, record.color ?? "-", String(describing: record.colorSource),
            ].joined(separator: " ¦ ")
        }
    }

    /// Each thumbnail of the store, made as the photo shows: upright, of the record's size.
    func expectUprightThumbnails(_ repository: LikeRepository, _ comment: Comment) throws {
        for record in try repository.list(LikeQuery()).records {
            let thumbnail = try #require(try repository.thumbnail(for: record.id), comment)
            let decoded = try JPEGDecoder.decode([UInt8](try Data(contentsOf: thumbnail.file)))
            #expect((decoded.width, decoded.height) == record.thumbnailPixelSize, "\(record.id): \(comment)")
            #expect((decoded.width > decoded.height) == (record.image.width > record.image.height), "\(record.id) upright: \(comment)")
        }
    }

    /// index.json without the time of the export.
    func index(_ export: URL) throws -> String {
        let text = try String(contentsOf: export.appendingPathComponent("index.json"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.contains("\"exportedAt\"") }.joined(separator: "\n")
    }

    @Test func everyCameraPhotoRestoresWholeIntoANewStoreAndTwiceOver() throws {
        let original = try cameraStore()
        let expected = try snapshot(original)
        #expect(expected.count == 16)
        // The photos are what they claim: the fixtures turn half of them a quarter.
        #expect(try original.record(for: PhotoID("o6"))?.image.orientation == 6)
        #expect(try original.record(for: PhotoID("o6"))?.image.width == 480)
        #expect(try original.record(for: PhotoID("o6-progressive"))?.exif?.make == nil)
        #expect(try original.record(for: PhotoID("o5-progressive"))?.exif?.takenAt == "2021-05-15T09:30:05+02:00")
        #expect(try original.record(for: PhotoID("o1"))?.userImage?.orientation == 6)
        #expect(try original.record(for: PhotoID("o4"))?.userImage?.orientation == 3)

        try original.export(to: url("backup"))
        let restored = repository("restored")
        let report = try restored.restore(from: url("backup"))
        #expect(report.refused.isEmpty, "\(report.refused)")
        #expect(report.restored.count == 16)
        #expect(try snapshot(restored) == expected)
        #expect(try restored.verify().isOK)
        try expectUprightThumbnails(restored, "restored")

        // A backup of the backup: the same index but for its time, the same bytes, restored whole.
        try restored.export(to: url("again"))
        #expect(try index(url("again")) == index(url("backup")))
        for name in try FileManager.default.contentsOfDirectory(atPath: url("backup").path) where name.hasSuffix(".jpg") {
            #expect(try Data(contentsOf: url("again").appendingPathComponent(name)) == Data(contentsOf: url("backup").appendingPathComponent(name)))
        }
        let third = repository("third")
        #expect(try third.restore(from: url("again")).restored.count == 16)
        #expect(try snapshot(third) == expected)
    }

    @Test func everyCameraPhotoRestoresIntoTheStoreItWasUnlikedFrom() throws {
        let repository = try cameraStore()
        let expected = try snapshot(repository)
        try repository.export(to: url("backup"))
        for name in CameraFixtures.names { try repository.unlike(PhotoID(name)) }
        #expect(try repository.statistics().count == 0)
        let report = try repository.restore(from: url("backup"))
        #expect(report.refused.isEmpty, "\(report.refused)")
        #expect(try snapshot(repository) == expected)
        #expect(try repository.verify().isOK)
        // Run again, nothing is refused: every photo is liked already.
        let again = try repository.restore(from: url("backup"))
        #expect(again.alreadyLiked.count == 16 && again.refused.isEmpty && again.restored.isEmpty)
    }

    @Test func theIndexGivesEachImagesSizesNamedSo() throws {
        try cameraStore().export(to: url("backup"))
        let photos = try exportedPhotos(url("backup"))
        let turned = try #require(photos.first { $0["id"] as? String == "o6" })
        #expect(turned["width"] as? Int == 480 && turned["height"] as? Int == 320, "as displayed, as in records")
        #expect(turned["storedWidth"] as? Int == 320 && turned["storedHeight"] as? Int == 480, "as the file stores its pixels")
        #expect(turned["orientation"] as? Int == 6)
        let user = try #require(photos.first { $0["id"] as? String == "o1" }?["userImage"] as? [String: Any])
        #expect((user["width"] as? Int, user["height"] as? Int, user["storedWidth"] as? Int, user["orientation"] as? Int) == (96, 64, 64, 6))
        let thumbnail = try #require(turned["thumbnail"] as? [String: Any])
        #expect(thumbnail["orientation"] as? Int == 1 && thumbnail["width"] as? Int == thumbnail["storedWidth"] as? Int)
    }

    /// Exports written before the index named both sizes: between photos turned upright and now
    /// (`width` and `height` as displayed), and before (the stored pixels, with thumbnails of
    /// turned photos on their side).
    @Test(arguments: [EarlierExport.displayedSizeOnly, .storedPixelsAndThumbnailsOnTheirSide])
    func anExportOfAnEarlierVersionRestoresEveryPhoto(_ version: EarlierExport) throws {
        let original = try cameraStore()
        let expected = try snapshot(original)
        try original.export(to: url("backup"))
        try version.rewrite(url("backup"))

        let restored = repository("restored")
        let report = try restored.restore(from: url("backup"))
        #expect(report.refused.isEmpty, "\(report.refused)")
        #expect(try snapshot(restored) == expected)
        #expect(try restored.verify().isOK)
        try expectUprightThumbnails(restored, "\(version)")
    }

    @Test func aFileOfOtherPixelsThanTheIndexGivesIsRefusedAndNamed() throws {
        try cameraStore().export(to: url("backup"))
        // o6's entry made to say the file stores what it displays: the index no longer tells
        // the truth of its pixels, whatever the digest says.
        try rewriteIndex(url("backup")) { photo in
            guard photo["id"] as? String == "o6" else { return }
            photo["storedWidth"] = 480
            photo["storedHeight"] = 320
        }
        let report = try repository("restored").restore(from: url("backup"))
        #expect(report.restored.count == 15)
        #expect(report.refused.map(\.file) == ["o6.jpg"])
        #expect(report.refused.first?.reason == "it stores 320×480 pixels where index.json says 480×320")
    }
}

/// The two shapes of `index.json` before it gave both sizes.
enum EarlierExport: String, CustomTestStringConvertible {
    case displayedSizeOnly
    case storedPixelsAndThumbnailsOnTheirSide

    var testDescription: String { rawValue }

    func rewrite(_ export: URL) throws {
        try rewriteIndex(export) { photo in
            let turned = (photo["orientation"] as? Int ?? 1) >= 5
            strip(&photo, storedPixels: self == .storedPixelsAndThumbnailsOnTheirSide)
            if var user = photo["userImage"] as? [String: Any] {
                strip(&user, storedPixels: self == .storedPixelsAndThumbnailsOnTheirSide)
                photo["userImage"] = user
            }
            guard var thumbnail = photo["thumbnail"] as? [String: Any] else { return }
            strip(&thumbnail, storedPixels: false)
            if self == .storedPixelsAndThumbnailsOnTheirSide, turned {
                // The thumbnail such a version made: of the stored pixels, as if not turned.
                let name = try #require(thumbnail["file"] as? String)
                let original = try Data(contentsOf: export.appendingPathComponent(try #require(photo["file"] as? String)))
                let sideways = try [UInt8](withOrientation1(original)).withUnsafeBytes {
                    try JPEGThumbnail.make(fromJPEG: $0, size: .atMost(512)).jpeg
                }
                try Data(sideways).write(to: export.appendingPathComponent(name))
                thumbnail["bytes"] = sideways.count
                thumbnail["sha256"] = SHA256.hexDigest(of: sideways)
                (thumbnail["width"], thumbnail["height"]) = (thumbnail["height"], thumbnail["width"])
            }
            photo["thumbnail"] = thumbnail
        }
    }

    /// Takes out the stored size and orientation; with `storedPixels`, gives the stored pixels as
    /// `width` and `height`.
    private func strip(_ image: inout [String: Any], storedPixels: Bool) {
        if storedPixels { (image["width"], image["height"]) = (image["storedWidth"], image["storedHeight"]) }
        for key in ["storedWidth", "storedHeight", "orientation"] { image[key] = nil }
    }

    /// The JPEG with its Exif orientation set to 1: the fixtures' Orientation entry (a SHORT,
    /// count 1) found in either byte order, and its value written over.
    private func withOrientation1(_ jpeg: Data) throws -> Data {
        var bytes = [UInt8](jpeg)
        let little: [UInt8] = [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00]
        let big: [UInt8] = [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01]
        let found = (0..<(bytes.count - 10)).lazy.compactMap { start -> (Int, Bool)? in
            let entry = Array(bytes[start..<(start + 8)])
            return entry == little ? (start, true) : entry == big ? (start, false) : nil
        }.first
        let (start, isLittle) = try #require(found)
        (bytes[start + 8], bytes[start + 9]) = isLittle ? (1, 0) : (0, 1)
        return Data(bytes)
    }
}

/// The photos of an export's `index.json`, as JSON objects.
func exportedPhotos(_ export: URL) throws -> [[String: Any]] {
    let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: export.appendingPathComponent("index.json"))) as? [String: Any])
    return try #require(json["photos"] as? [[String: Any]])
}

/// Rewrites each photo of an export's `index.json`.
func rewriteIndex(_ export: URL, _ change: (inout [String: Any]) throws -> Void) throws {
    let path = export.appendingPathComponent("index.json")
    var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: path)) as? [String: Any])
    var photos = try exportedPhotos(export)
    for index in photos.indices { try change(&photos[index]) }
    json["photos"] = photos
    try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys]).write(to: path)
}

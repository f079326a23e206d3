// Photos as cameras make them, at every size: records that keep orientation, camera facts and
// the pixels' colour; renditions on a ladder of at most 2x steps, upright with the photo's
// profile, made on first use, rebuilt when damaged, kept under a budget least recently used
// first, removed with the photo and known to verify, purge and repair; the memory cache.

import Foundation
import JPEGCodec
import LikeKit
import LikeStore
import LikesSupport
import TestSupport
import Testing

/// Large photos made by the codec: a smooth picture with detail everywhere, turned so that its
/// Exif orientation shows it `width` x `height`, with an ICC profile and camera facts.
enum CameraPhotos {
    static let profile = (0..<3144).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }

    static func photo(width: Int, height: Int, orientation: Int = 1, colour: (y: UInt8, cb: UInt8, cr: UInt8)? = nil) -> Data {
        let turned = orientation >= 5
        let (storedWidth, storedHeight) = turned ? (height, width) : (width, height)
        var planes = [[UInt8]](repeating: [UInt8](repeating: 128, count: storedWidth * storedHeight), count: 3)
        for y in 0..<storedHeight {
            for x in 0..<storedWidth {
                let index = y * storedWidth + x
                if let colour {
                    (planes[0][index], planes[1][index], planes[2][index]) = (colour.y, colour.cb, colour.cr)
                } else {
                    planes[0][index] = UInt8(truncatingIfNeeded: (x * 255 / storedWidth) ^ (y & 0x1F))
                    planes[1][index] = UInt8(truncatingIfNeeded: 96 + y * 64 / storedHeight)
                }
            }
        }
        let jpeg = JPEGEncoder.encode(PlanarImage(width: storedWidth, height: storedHeight, planes: planes), quality: 90)
        var app1: [UInt8] = Array("Exif".utf8) + [0, 0, 0x4D, 0x4D, 0, 42, 0, 0, 0, 8]
        // IFD0: Orientation (SHORT) and Make (ASCII, inline: 3 bytes and NUL).
        app1 += [0, 2, 0x01, 0x0F, 0, 2, 0, 0, 0, 4] + Array("Cam".utf8) + [0]
        app1 += [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(orientation), 0, 0, 0, 0, 0, 0]
        let segment = [0xFF, 0xE1, UInt8((app1.count + 2) >> 8), UInt8((app1.count + 2) & 0xFF)] + app1
        return Data(Array(jpeg[0..<2]) + segment + JPEGMetadata.iccSegments(profile) + Array(jpeg[2...]))
    }
}

@Suite struct RenditionTests {
    let folder = TemporaryFolder()

    @Test(.ownLane) func aTurnedCameraPhotoIsRecordedAsDisplayedAndGivenAtEverySizeUpright() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "portrait")
        // Stored 2100x1400, shown 1400x2100: orientation 6, as phones keep portrait shots.
        let record = try #require(try repository.like(id, image: CameraPhotos.photo(width: 1400, height: 2100, orientation: 6)).record)
        #expect((record.image.width, record.image.height, record.image.orientation) == (1400, 2100, 6))
        #expect(record.exif?.make == "Cam")
        #expect(record.colorSource == .pixels)
        let stored = try Data(contentsOf: record.image.file)
        #expect(stored == CameraPhotos.photo(width: 1400, height: 2100, orientation: 6), "the original stays byte-identical")

        // The ladder: twice the thumbnail's long side, doubled while shorter than the photo.
        let thumbnail = record.thumbnailPixelSize
        let sizes = record.renditionSizes
        #expect(sizes.map { max($0.width, $0.height) } == [2 * thumbnail.height, 4 * thumbnail.height])
        var previous = max(thumbnail.width, thumbnail.height)
        for size in sizes + [(record.image.width, record.image.height)] {
            #expect(max(size.0, size.1) <= 2 * previous, "steps at most 2x apart")
            #expect(abs(Double(size.0) / Double(size.1) / (1400.0 / 2100.0) - 1) < 0.02, "aspect within 2 %")
            previous = max(size.0, size.1)
        }
        let thumbnailSide = max(thumbnail.width, thumbnail.height)
        for (asked, kind) in [
            (100, PhotoImage.Kind.thumbnail), (thumbnailSide + 1, .rendition), (sizes[0].height + 1, .rendition), (2099, .original),
        ] {
            let image = try repository.image(for: id, covering: asked)
            #expect(image.kind == kind, "\(asked) px")
            #expect(max(image.width, image.height) >= asked)
            guard kind != .original else { continue }
            let decoded = try JPEGDecoder.decode([UInt8](image.data))
            #expect((decoded.width, decoded.height) == (image.width, image.height), "upright: taller than wide")
            #expect(decoded.height > decoded.width)
            #expect(JPEGMetadata(reading: [UInt8](image.data)).iccProfile == CameraPhotos.profile)
            #expect(JPEGMetadata(reading: [UInt8](image.data)).exif.orientation == 1)
        }
        let statistics = try repository.statistics()
        #expect(statistics.renditions == 2)
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
        // The smallest that covers: asking just above the first rendition gets the second.
        #expect(try repository.image(for: id, covering: max(sizes[0].width, sizes[0].height) + 1).height == sizes[1].height)
    }

    @Test(.ownLane) func aDamagedRenditionIsMadeAnewByVerifyOrByItsReaderAndSetAsideByRepair() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "wide")
        try repository.like(id, image: CameraPhotos.photo(width: 1200, height: 800))
        let first = try repository.image(for: id, covering: 500)
        #expect(first.kind == .rendition)
        let whole = try Data(contentsOf: first.file)
        var bytes = whole
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: first.file)
        // A derived file: verify makes it anew, and says so.
        let report = try repository.verify()
        #expect(report.isOK, "\(report.problems)")
        #expect(
            report.remade.count == 1 && report.remade[0].hasPrefix("The rendition renditions/\(first.file.lastPathComponent) of photo \"wide\""),
            "\(report.remade)")
        #expect(try Data(contentsOf: first.file) == whole)
        // Asked for while damaged, it is made anew.
        try bytes.write(to: first.file)
        repository.removeCachedImages()
        let again = try repository.image(for: id, covering: 500)
        #expect(again.data == first.data)
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
        // Damaged again: repair sets it aside and the store verifies.
        try bytes.write(to: first.file)
        let repaired = try repository.repair()
        #expect(repaired.setAside.count == 1)
        #expect(!FileManager.default.fileExists(atPath: first.file.path))
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
    }

    @Test(.ownLane) func theBudgetEvictsTheLeastRecentlyUsedFirstAndNeverAThumbnailOrOriginal() throws {
        let repository = folder.repository()
        let ids = (0..<4).map { PhotoID(valid: "photo-\($0)") }
        for (index, id) in ids.enumerated() {
            try repository.like(id, image: CameraPhotos.photo(width: 1200 + 8 * index, height: 800))
        }
        var files: [URL] = []
        for id in ids {
            files.append(try repository.image(for: id, covering: 500).file)
            _ = try repository.image(for: id, covering: 200)
        }
        let sizes = try files.map { try #require(try FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int) }
        // Used in the order 2, 0, 3, 1 (each a second apart: modification times to the second
        // on some file systems).
        for index in [2, 0, 3, 1] {
            let date = Date(timeIntervalSinceNow: Double(index == 2 ? -40 : index == 0 ? -30 : index == 3 ? -20 : -10))
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: files[index].path)
        }
        // Room for three: the least recently used (2) goes.
        try repository.setRenditionBudget(sizes[0] + sizes[1] + sizes[3] + 10)
        #expect(!FileManager.default.fileExists(atPath: files[2].path))
        #expect([0, 1, 3].allSatisfy { FileManager.default.fileExists(atPath: files[$0].path) })
        // Room for one: 0 then 3 go, 1 (the most recent) stays.
        try repository.setRenditionBudget(sizes[1] + 10)
        #expect([0, 2, 3].allSatisfy { !FileManager.default.fileExists(atPath: files[$0].path) })
        #expect(FileManager.default.fileExists(atPath: files[1].path))
        #expect(try repository.statistics().renditionBudget == sizes[1] + 10)
        // Thumbnails and originals stay.
        for id in ids {
            let record = try #require(try repository.record(for: id))
            #expect(record.thumbnail != nil && FileManager.default.fileExists(atPath: record.image.file.path))
        }
        // A new rendition over the budget pushes out the older one, not itself.
        repository.removeCachedImages()
        let newest = try repository.image(for: ids[0], covering: 500)
        #expect(FileManager.default.fileExists(atPath: newest.file.path))
        #expect(!FileManager.default.fileExists(atPath: files[1].path))
        try repository.setRenditionBudget(nil)
        #expect(try repository.statistics().renditionBudget == 1 << 30)
    }

    @Test(.ownLane) func renditionsGoWithThePhotoAndTheirOrphansArePurged() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "gone")
        try repository.like(id, image: CameraPhotos.photo(width: 1200, height: 800))
        let rendition = try repository.image(for: id, covering: 500)
        #expect(rendition.kind == .rendition)
        // Liked again with another image: the old one's renditions go.
        try repository.like(id, image: CameraPhotos.photo(width: 1200, height: 808))
        #expect(!FileManager.default.fileExists(atPath: rendition.file.path))
        let second = try repository.image(for: id, covering: 500)
        // Left behind as a crash would: an orphan, which purge removes.
        let copy = second.file.deletingLastPathComponent().appendingPathComponent("^x~0123456789ab~1024.jpg")
        try second.data.write(to: copy)
        #expect(try repository.verify().orphans == ["renditions/^x~0123456789ab~1024.jpg"])
        #expect(try repository.purge().files == ["renditions/^x~0123456789ab~1024.jpg"])
        try repository.unlike(id)
        #expect(!FileManager.default.fileExists(atPath: second.file.path))
        #expect(try repository.statistics().renditions == 0)
    }

    @Test func theMemoryCacheKeepsRecentImagesUnderItsLimit() async throws {
        let repository = folder.repository()
        let ids = (0..<3).map { PhotoID(valid: "cached-\($0)") }
        for id in ids { try await repository.like(id, image: CameraPhotos.photo(width: 1200, height: 800)) }
        repository.imageCacheLimit = 0
        _ = try await repository.image(for: ids[0], covering: 500)
        #expect(repository.imageCacheBytes == 0)
        repository.imageCacheLimit = 1 << 20
        let first = try await repository.image(for: ids[0], covering: 500)
        #expect(repository.imageCacheBytes == first.data.count)
        // Served from memory: the file removed behind the store's back does not matter.
        try FileManager.default.removeItem(at: first.file)
        #expect(try await repository.image(for: ids[0], covering: 500).data == first.data)
        repository.imageCacheLimit = first.data.count + 10
        _ = try await repository.image(for: ids[1], covering: 500)
        #expect(repository.imageCacheBytes <= first.data.count + 10)
        // Prefetching: cancelled before it begins, it makes nothing.
        repository.removeCachedImages()
        let prefetch = repository.prefetchImages(for: ids, covering: 500)
        await prefetch.wait()
        #expect(prefetch.completed == 3)
        #expect(try await repository.statistics().renditions == 3)
    }

    @Test func aCancelledPrefetchStopsTheWorkNotBegun() async throws {
        let repository = folder.repository()
        let ids = (0..<12).map { PhotoID(valid: "many-\($0)") }
        for id in ids { try await repository.like(id, image: CameraPhotos.photo(width: 1200, height: 800)) }
        let prefetch = repository.prefetchImages(for: ids, covering: 500)
        prefetch.cancel()
        await prefetch.wait()
        #expect(prefetch.completed < ids.count)
        #expect(try await repository.statistics().renditions == prefetch.completed)
    }

    @Test(.ownLane) func coloursFromThePixelsAreFoundByTheirFamily() throws {
        let repository = folder.repository()
        // §8's examples, as photos of one colour each (YCbCr as JFIF converts sRGB).
        let examples: [(String, UInt32)] = [
            ("blue", 0x363F56), ("green", 0x1A3326), ("brown", 0x8C7355), ("gray", 0x60544D), ("yellow", 0xD9A640),
            ("magenta", 0xF0A0C0), ("purple", 0x800080), ("black", 0x262626), ("white", 0xF3F3F3),
        ]
        for (family, rgb) in examples {
            let (r, g, b) = (Double(rgb >> 16), Double(rgb >> 8 & 0xFF), Double(rgb & 0xFF))
            let y = 0.299 * r + 0.587 * g + 0.114 * b
            func byte(_ value: Double) -> UInt8 { UInt8(min(max(value.rounded(), 0), 255)) }
            let colour = (y: byte(y), cb: byte(128 + (b - y) / 1.772), cr: byte(128 + (r - y) / 1.402))
            try repository.like(PhotoID(valid: family), image: CameraPhotos.photo(width: 160, height: 120, colour: colour))
        }
        // One whose source gave a colour keeps it.
        try repository.like(
            PhotoID(valid: "sourced"), image: CameraPhotos.photo(width: 160, height: 120, colour: (200, 128, 128)),
            photo: PhotoMetadata(color: "#0C2640"))
        for (family, _) in examples {
            let found = try repository.list(LikeQuery(color: family)).records.map(\.id.rawValue)
            #expect(found.contains(family), "\(family): \(found)")
        }
        let sourced = try #require(try repository.record(for: PhotoID(valid: "sourced")))
        #expect((sourced.color, sourced.colorSource) == ("#0C2640", .source))
        #expect(try repository.list(LikeQuery(color: "blue")).records.map(\.id.rawValue).sorted() == ["blue", "sourced"])
    }

    @Test(.ownLane) func photosLikedBeforeFactsWereKeptGetThemWithoutAManualStep() throws {
        let repository = folder.repository()
        let blue = (y: UInt8(62), cb: UInt8(147), cr: UInt8(123))
        for index in 0..<40 {
            let id = PhotoID(valid: "old-\(index)")
            try repository.like(id, image: CameraPhotos.photo(width: 160, height: 240, orientation: 6, colour: blue))
            // As an older version kept it: the frame's size, no orientation, colour or camera facts.
            try repository.store.withWriteSession { session in
                let current = try session.existingRecord(id.rawValue)
                var legacy = StoredRecord.Image(
                    generation: current.image.generation, bytes: current.image.bytes, width: 240, height: 160, crc32: current.image.crc32)
                legacy.orientation = nil
                _ = try session.replaceImageFacts(of: current, with: legacy)
            }
        }
        #expect(try repository.record(for: PhotoID(valid: "old-0"))?.image.width == 240)
        #expect(try repository.list(LikeQuery(color: "blue")).records.isEmpty)
        let heard = Locked<[LikeChange]>([])
        let observation = repository.observe { change in heard.withLock { $0.append(change) } }
        // A little at a time, as commands do, until every photo has them.
        var progress = try repository.readImageFacts(within: 0)
        #expect(progress.updated == 0 && !progress.complete)
        var rounds = 0
        while !progress.complete {
            progress = try repository.readImageFacts(within: 0.001)
            rounds += 1
        }
        #expect(rounds > 1, "the work was spread over several calls")
        // Heard on the observer's queue, a moment later: waited for, with a bound against hanging.
        let deadline = Date().addingTimeInterval(patienceAgainstHanging)
        while heard.withLock({ $0.count }) < 40, Date() < deadline { usleep(20_000) }
        observation.cancel()
        for index in 0..<40 {
            let record = try #require(try repository.record(for: PhotoID(valid: "old-\(index)")))
            #expect((record.image.width, record.image.height, record.image.orientation) == (160, 240, 6))
            #expect(record.colorSource == .pixels && record.exif?.make == "Cam")
            let thumbnail = try #require(try repository.thumbnail(for: record.id))
            let decoded = try JPEGDecoder.decode([UInt8](try Data(contentsOf: thumbnail.file)))
            #expect(decoded.height > decoded.width, "made anew upright")
        }
        #expect(try repository.list(LikeQuery(color: "blue")).records.count == 40)
        let changes = heard.withLock { $0 }
        #expect(changes.count == 40 && changes.allSatisfy { $0.kind == .updated && $0.fields.isEmpty }, "\(changes.prefix(2))")
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
        // Done: later calls only look at the marker.
        #expect(try repository.readImageFacts(within: 1) == ImageFactsProgress(updated: 0, complete: true))
    }

    @Test(.ownLane) func theMeanColourIsThePhotosOwn() throws {
        for colour: UInt32 in [0x363F56, 0x0C2640, 0x1A3326, 0x8C7355, 0x60544D, 0xD9A640, 0xF0A0C0, 0x800080, 0x262626, 0xF3F3F3] {
            let (red, green, blue) = (Double(colour >> 16), Double(colour >> 8 & 0xFF), Double(colour & 0xFF))
            let y = 0.299 * red + 0.587 * green + 0.114 * blue
            func byte(_ value: Double) -> UInt8 { UInt8(min(max(value.rounded(), 0), 255)) }
            let count = 96 * 64
            let planes = [
                [UInt8](repeating: byte(y), count: count), [UInt8](repeating: byte(128 + (blue - y) / 1.772), count: count),
                [UInt8](repeating: byte(128 + (red - y) / 1.402), count: count),
            ]
            let file = JPEGEncoder.encode(PlanarImage(width: 96, height: 64, planes: planes), quality: 95)
            let mean = try file.withUnsafeBytes { try JPEGDecoder.decodeDC($0).meanColour() }
            for shift: UInt32 in [16, 8, 0] {
                #expect(
                    abs(Int(mean >> shift & 0xFF) - Int(colour >> shift & 0xFF)) <= 3, "\(String(colour, radix: 16)) → \(String(mean, radix: 16))")
            }
        }
        // Half black, half white averages in OKLab to a middle gray, not sRGB's 50 % (#808080 is
        // lighter than the OKLab mean of black and white, which lands near #636363).
        var luma = [UInt8](repeating: 0, count: 64 * 64)
        for index in 0..<(64 * 32) { luma[index] = 255 }
        let halves = JPEGEncoder.encode(PlanarImage(width: 64, height: 64, planes: [luma]), quality: 95)
        let mean = try halves.withUnsafeBytes { try JPEGDecoder.decodeDC($0).meanColour() }
        #expect(abs(Int(mean >> 16) - 0x63) <= 4 && mean >> 16 == mean & 0xFF)
    }

    @Test(.ownLane) func aThumbnailFromTheLikesOwnDecodeIsTheOneTheCodecMakes() throws {
        let repository = folder.repository()
        // 2400x1600: the thumbnail is the 1/8 DC picture itself, which the like decoded for the
        // colour; the one made from it must be the codec's own, byte for byte.
        let photos = (0..<3).map { CameraPhotos.photo(width: 2400 + 8 * $0, height: 1600, orientation: $0 == 1 ? 6 : 1) }
        #expect(JPEGThumbnail.isDCPicture(width: 2400, height: 1600, size: ThumbnailFiles.size))
        let ids = (0..<3).map { PhotoID(valid: "dc-\($0)") }
        _ = try repository.likeAll(zip(ids, photos).map { LikeItem(id: $0, image: $1) })
        #expect(repository.store.thumbnailPictures.withLock { $0.count } == 3)
        try repository.makeThumbnails(for: ids)
        #expect(repository.store.thumbnailPictures.withLock { $0.count } == 0, "each thumbnail took its picture")
        for (id, photo) in zip(ids, photos) {
            let made = try #require(try repository.thumbnail(for: id))
            let expected = try photo.withUnsafeBytes { try JPEGThumbnail.make(fromJPEG: $0, size: ThumbnailFiles.size) }
            #expect(Store.untaggedImage(try Data(contentsOf: made.file)) == Data(expected.jpeg))
        }
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
    }
}

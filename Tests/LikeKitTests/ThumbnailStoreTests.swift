// Thumbnails in the store: made after the like or on first need, the size promised,
// removed with the photo or its old image, orphans for purge, checked by verify, remade by repair.

import Foundation
import JPEGCodec
import LikeKit
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct ThumbnailStoreTests {
    let folder = TemporaryFolder()

    @Test func aLikeHasNoThumbnailUntilFirstNeedThenOneOfThePromisedSize() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "retina")
        let change = try repository.like(id, image: Samples.photo("retina.jpg"))
        #expect(change.record?.thumbnail == nil, "the like does not wait for its thumbnail")
        #expect(try repository.record(for: id)?.thumbnail == nil)

        let thumbnail = try #require(try repository.thumbnail(for: id))
        let bytes = [UInt8](try Data(contentsOf: thumbnail.file))
        #expect(bytes.count == thumbnail.byteCount)
        #expect(thumbnail.fileName.hasPrefix("thumbnails/"))
        let decoded = try JPEGDecoder.decode(bytes)
        #expect(decoded.width == thumbnail.width && decoded.height == thumbnail.height)
        // 1411x1411: decoded at 1/4, 353 pixels a side.
        #expect(thumbnail.width == 353 && thumbnail.height == 353)
        #expect(try repository.record(for: id)?.thumbnail == thumbnail)
        #expect(try repository.list().records.first?.thumbnail == thumbnail)

        // Found, not made again.
        let inode = try FileManager.default.attributesOfItem(atPath: thumbnail.file.path)[.systemFileNumber] as? Int
        #expect(try repository.thumbnail(for: id) == thumbnail)
        #expect(try FileManager.default.attributesOfItem(atPath: thumbnail.file.path)[.systemFileNumber] as? Int == inode)
    }

    @Test(arguments: [("rocket.jpg", 320, 214), ("chelsea.jpg", 226, 150), ("hubble_deep_field.jpg", 500, 436), ("astronaut.jpg", 256, 256)])
    func thumbnailsKeepTheAspectAndStayWithinTheBounds(name: String, width: Int, height: Int) throws {
        let repository = folder.repository()
        let id = PhotoID(valid: name)
        try repository.like(id, image: Samples.photo(name))
        let thumbnail = try #require(try repository.thumbnail(for: id))
        #expect(thumbnail.width == width && thumbnail.height == height)
        let photo = try #require(try repository.record(for: id)).image
        #expect(max(thumbnail.width, thumbnail.height) <= 512)
        if max(photo.width, photo.height) > 512 { #expect(max(thumbnail.width, thumbnail.height) >= 160) }
        let aspect = Double(photo.width) / Double(photo.height)
        #expect(abs(Double(thumbnail.width) / Double(thumbnail.height) / aspect - 1) <= 0.02)
    }

    @Test func aJPEGThatCannotBeScaledHasNone() throws {
        let repository = folder.repository()
        let cmyk = try Data(contentsOf: Samples.directory.appendingPathComponent("../../Tests/Fixtures/jpeg/pillow/pil_sample_cmyk.jpg"))
        let id = PhotoID(valid: "cmyk")
        try repository.like(id, image: cmyk)
        #expect(try repository.thumbnail(for: id) == nil)
        #expect(try repository.record(for: id)?.thumbnail == nil)
        #expect(try repository.verify().isOK)
    }

    @Test func unlikingRemovesTheThumbnailAndANewImageReplacesIt() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "photo")
        try repository.like(id, image: Samples.rocket)
        let first = try #require(try repository.thumbnail(for: id))
        try repository.like(id, image: Samples.chelsea)
        #expect(!FileManager.default.fileExists(atPath: first.file.path), "the old image's thumbnail goes with it")
        #expect(try repository.record(for: id)?.thumbnail == nil)
        let second = try #require(try repository.thumbnail(for: id))
        #expect(second.file != first.file && second.width == 226)
        try repository.unlike(id)
        #expect(!FileManager.default.fileExists(atPath: second.file.path))
        #expect(folder.files(under: "store/thumbnails").isEmpty)
    }

    @Test func aThumbnailWithoutItsPhotoIsAnOrphanForPurge() throws {
        let repository = folder.repository()
        try repository.like(PhotoID(valid: "kept"), image: Samples.rocket)
        let kept = try #require(try repository.thumbnail(for: PhotoID(valid: "kept")))
        let stray = folder.store.appendingPathComponent("thumbnails/^gone~0123456789ab.jpg")
        try Data(Samples.coffee).write(to: stray)
        #expect(try repository.verify().orphans == ["thumbnails/^gone~0123456789ab.jpg"])
        let purged = try repository.purge()
        #expect(purged.files == ["thumbnails/^gone~0123456789ab.jpg"])
        #expect(FileManager.default.fileExists(atPath: kept.file.path))
        #expect(!FileManager.default.fileExists(atPath: stray.path))
    }

    @Test func verifyMakesADamagedThumbnailAnewAndNamesIt() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "coffee")
        try repository.like(id, image: Samples.coffee)
        let thumbnail = try #require(try repository.thumbnail(for: id))
        let whole = try Data(contentsOf: thumbnail.file)
        var bytes = [UInt8](whole)
        bytes[bytes.count / 2] ^= 0x10
        try Data(bytes).write(to: thumbnail.file)

        // A derived file: no problem of the store's, and no repair needed.
        let report = try repository.verify()
        #expect(report.isOK, "\(report.problems)")
        #expect(
            report.remade == [
                "The thumbnail \(thumbnail.fileName) of photo \"coffee\" has changed since it was made (its checksum differs), so it was made anew."
            ])
        #expect(try Data(contentsOf: thumbnail.file) == whole)
        #expect(try repository.verify().remade.isEmpty)
    }

    @Test func aDamagedThumbnailThatCannotBeMadeAnewStaysAProblemAndIsNeverNamed() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "coffee")
        try repository.like(id, image: Samples.coffee)
        let thumbnail = try #require(try repository.thumbnail(for: id))
        let image = try #require(try repository.record(for: id)).image.file
        let whole = try Data(contentsOf: thumbnail.file)
        try Data(count: 4096).write(to: thumbnail.file)  // as a power cut leaves a file it never flushed
        // Its photo's image damaged too: a thumbnail is made only from the image as liked.
        var bytes = [UInt8](try Data(contentsOf: image))
        bytes[bytes.count / 2] ^= 0x10
        try Data(bytes).write(to: image)

        let report = try repository.verify()
        #expect(
            report.problems.contains(
                "The thumbnail \(thumbnail.fileName) of photo \"coffee\" is not a thumbnail of ours; repairing the store makes it anew."),
            "\(report.problems)")
        #expect(report.remade.isEmpty)
        #expect(try repository.record(for: id)?.thumbnail == nil, "never named to a reader while it is damaged")

        bytes[bytes.count / 2] ^= 0x10
        try Data(bytes).write(to: image)
        let mended = try repository.verify()
        #expect(mended.isOK && mended.remade.count == 1)
        #expect(try Data(contentsOf: thumbnail.file) == whole)
    }

    @Test func aThumbnailAPowerCutLeftEmptyIsMadeAnewByItsFirstReader() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "coffee")
        try repository.like(id, image: Samples.coffee)
        let thumbnail = try #require(try repository.thumbnail(for: id))
        let whole = try Data(contentsOf: thumbnail.file)
        for damage in [Data(), Data(count: whole.count), whole.prefix(whole.count / 2)] {
            try damage.write(to: thumbnail.file)
            let record = try #require(try repository.record(for: id))
            #expect(record.thumbnail == thumbnail, "the record names it only once it is whole again")
            #expect(try Data(contentsOf: thumbnail.file) == whole)
        }
        try Data().write(to: thumbnail.file)
        #expect(try repository.file(.thumbnail, of: id)?.data == whole, "as the gallery reads it")
        try Data().write(to: thumbnail.file)
        #expect(try repository.image(for: id, covering: 100).data == Data(ThumbnailFiles.untagged([UInt8](whole))))
    }

    @Test func aMissingThumbnailIsNoProblemAndIsMadeOnFirstNeed() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "chelsea")
        try repository.like(id, image: Samples.chelsea)
        let thumbnail = try #require(try repository.thumbnail(for: id))
        try FileManager.default.removeItem(at: thumbnail.file)
        #expect(try repository.verify().isOK)
        #expect(try repository.record(for: id)?.thumbnail == nil)
        #expect(try repository.thumbnail(for: id) == thumbnail)
    }

    @Test func aThumbnailOfAnotherImageIsNotTakenForThisOne() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "a")
        try repository.like(id, image: Samples.rocket)
        let thumbnail = try #require(try repository.thumbnail(for: id))
        // A thumbnail file put in place by hand, made from another photo's image.
        let other = try JPEGThumbnail.make(fromJPEG: [UInt8](Samples.chelsea))
        try Data(ThumbnailFiles.tagged(other.jpeg, generation: "0123456789ab")).write(to: thumbnail.file)
        #expect(try repository.verify().remade.first?.contains("was made from another image, so it was made anew") == true)
        #expect(try repository.thumbnail(for: id)?.width == 320)
    }

    @Test func notLikedIsAnError() {
        #expect(throws: LikeRepositoryError.notLiked(id: PhotoID(valid: "nope"))) { try folder.repository().thumbnail(for: PhotoID(valid: "nope")) }
    }
}

@Suite(.ownLane) struct ThumbnailFolderTests {
    let folder = TemporaryFolder()

    /// A link (or a file) where the thumbnails folder belongs costs the thumbnails, nothing else:
    /// listing works, verify names it, repair sets it aside and makes them anew.
    @Test func somethingElseInPlaceOfTheFolderIsNamedAndSetAside() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "rocket")
        try repository.like(id, image: Samples.rocket)
        let made = try #require(try repository.thumbnail(for: id))
        let thumbnails = folder.store.appendingPathComponent("thumbnails")
        try FileManager.default.removeItem(at: thumbnails)
        try FileManager.default.createSymbolicLink(at: thumbnails, withDestinationURL: folder.url)

        #expect(try repository.list().records.map(\.thumbnail) == [nil])
        #expect(try repository.verify().problems == ["thumbnails should be a folder and is not; repairing the store sets it aside."])
        #expect(try repository.purge(dryRun: true).files.isEmpty, "the link is repair's, not purge's")
        let repaired = try repository.repair()
        #expect(repaired.isOK && repaired.thumbnailsMade == 1)
        #expect(try repository.record(for: id)?.thumbnail == made)
        #expect(folder.files(under: "store/damaged").isEmpty, "a link is set aside as a link")
    }
}

// Export through LikeKit: the folder's files byte for byte, its index, and what a crash or a
// failing disk leaves of it.

import Foundation
import LikeKit
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct ExportTests {
    let folder = TemporaryFolder()
    var destination: URL { folder.url.appendingPathComponent("share", isDirectory: true) }

    func files(_ url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    func index(_ url: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url.appendingPathComponent("index.json"))) as? [String: Any])
    }

    /// The hidden staging folders beside the destination.
    func staging() throws -> [String] {
        try files(folder.url).filter { $0.contains(".likes-export-") }
    }

    @Test func copiesEveryPhotoByteForByteUnderReadableNames() throws {
        let repository = folder.repository()
        try repository.like(PhotoID(valid: "rocket"), image: Samples.rocket, userImage: Samples.astronaut, note: "Launch\nday")
        try repository.like(
            PhotoID(valid: "Dwu85P9SOIk"), image: Samples.coffee,
            photo: PhotoMetadata(description: "Coffee", photographer: "Ann", color: "#60544D", sourceURL: "https://unsplash.com/photos/x"))
        let report = try repository.export(to: destination)

        #expect(
            try files(destination) == [
                "Dwu85P9SOIk.jpg", "Dwu85P9SOIk.thumbnail.jpg", "index.html", "index.json", "rocket.jpg", "rocket.photographer.jpg",
                "rocket.thumbnail.jpg",
            ])
        #expect(try Data(contentsOf: destination.appendingPathComponent("rocket.jpg")) == Samples.rocket)
        #expect(try Data(contentsOf: destination.appendingPathComponent("rocket.photographer.jpg")) == Samples.astronaut)
        #expect(try Data(contentsOf: destination.appendingPathComponent("Dwu85P9SOIk.jpg")) == Samples.coffee)
        #expect(report.photos.map(\.fileName) == ["Dwu85P9SOIk.jpg", "rocket.jpg"])  // newest first
        #expect(report.byteCount == Samples.rocket.count + Samples.astronaut.count + Samples.coffee.count)
        #expect(report.damage.isEmpty)
        #expect(try staging().isEmpty)

        let json = try index(destination)
        #expect(json["format"] as? String == "likes-export-1")
        #expect(json["count"] as? Int == 2)
        #expect(json["album"] is NSNull && json["since"] is NSNull)
        let photos = try #require(json["photos"] as? [[String: Any]])
        #expect(photos.map { $0["id"] as? String } == ["Dwu85P9SOIk", "rocket"])
        #expect(photos[1]["file"] as? String == "rocket.jpg")
        #expect(photos[1]["note"] as? String == "Launch\nday")
        #expect((photos[1]["userImage"] as? [String: Any])?["file"] as? String == "rocket.photographer.jpg")
        #expect(photos[1]["width"] as? Int == 640 && photos[1]["height"] as? Int == 427)
        #expect((photos[0]["photo"] as? [String: Any])?["photographer"] as? String == "Ann")
        // No absolute path: the folder can be moved and shared.
        let text = try String(contentsOf: destination.appendingPathComponent("index.json"), encoding: .utf8)
        #expect(!text.contains(folder.url.path))
        #expect(!(try String(contentsOf: destination.appendingPathComponent("index.html"), encoding: .utf8)).contains(folder.url.path))
        // The store was only read.
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
    }

    @Test func namesStayUniqueWhereCaseIsIgnoredAndNeverLeaveTheFolder() throws {
        let repository = folder.repository()
        let ids = ["abc", "ABC", "a/b", "a_b", "..", "../../etc/passwd", "photo", "📷", "x.photographer", "x", String(repeating: "é", count: 128)]
        for (index, id) in ids.enumerated() {
            try repository.like(PhotoID(valid: id), image: Samples.jpeg(seed: index), userImage: id == "x" ? Samples.chelsea : nil)
        }
        let report = try repository.export(to: destination, query: LikeQuery(order: .oldestFirst))
        let names = report.photos.map(\.fileName)
        #expect(names.count == ids.count)
        #expect(Set(names.map { $0.lowercased() }).count == names.count)
        #expect(names.allSatisfy { !$0.contains("/") && !$0.hasPrefix(".") && $0.utf8.count <= 110 })
        #expect(names.prefix(4) == ["abc.jpg", "ABC-2.jpg", "a_b.jpg", "a_b-2.jpg"])
        #expect(names[5] == "etc_passwd.jpg")
        #expect(Set(try files(destination)) == Set(names + report.photos.compactMap(\.userImageFileName) + ["index.json", "index.html"]))
        #expect(report.photos.first { $0.id.rawValue == "x" }?.userImageFileName == "x.photographer.jpg")
        #expect(report.photos.first { $0.id.rawValue == "x.photographer" }?.fileName == "x_photographer.jpg")
        for (index, photo) in report.photos.enumerated() {
            #expect(try Data(contentsOf: destination.appendingPathComponent(photo.fileName)) == Samples.jpeg(seed: index))
        }
        #expect(try files(folder.url).filter { !$0.hasPrefix("store") && $0 != "share" }.isEmpty)
    }

    @Test func albumAndSinceChooseThePhotos() throws {
        let repository = folder.repository()
        let lisbon = try AlbumName("Trip to Lisbon")
        try repository.like(PhotoID(valid: "old"), image: Samples.rocket, albums: [lisbon])
        Thread.sleep(forTimeInterval: 0.02)
        let cut = Date()
        Thread.sleep(forTimeInterval: 0.02)
        try repository.like(PhotoID(valid: "new"), image: Samples.coffee, albums: [lisbon])
        try repository.like(PhotoID(valid: "other"), image: Samples.chelsea)

        #expect(try repository.export(to: destination, query: LikeQuery(album: lisbon)).photos.map(\.id.rawValue) == ["new", "old"])
        #expect(try index(destination)["album"] as? String == "Trip to Lisbon")
        let since = folder.url.appendingPathComponent("since")
        #expect(try repository.export(to: since, query: LikeQuery(since: cut)).photos.map(\.id.rawValue) == ["other", "new"])
        #expect(try index(since)["since"] as? String == LikeTimestamp.string(from: cut))
        let both = folder.url.appendingPathComponent("both")
        #expect(try repository.export(to: both, query: LikeQuery(album: lisbon, since: cut)).photos.map(\.id.rawValue) == ["new"])

        let missing = folder.url.appendingPathComponent("missing")
        #expect(throws: LikeRepositoryError.noSuchAlbum(try AlbumName("Nope"))) {
            try repository.export(to: missing, query: LikeQuery(album: try AlbumName("Nope")))
        }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
        // A date after every like: an export of nothing, still a page that says so.
        let none = folder.url.appendingPathComponent("none")
        #expect(try repository.export(to: none, query: LikeQuery(since: Date().addingTimeInterval(3600))).photos.isEmpty)
        #expect(try String(contentsOf: none.appendingPathComponent("index.html"), encoding: .utf8).contains("No photo matched."))
    }

    @Test func anEarlierExportIsReplacedWholeAndOtherFoldersAreRefused() throws {
        let repository = folder.repository()
        try repository.like(PhotoID(valid: "a"), image: Samples.rocket)
        try repository.like(PhotoID(valid: "b"), image: Samples.coffee)
        try repository.export(to: destination)
        try repository.unlike(PhotoID(valid: "a"))
        try repository.export(to: destination)
        #expect(try files(destination) == ["b.jpg", "b.thumbnail.jpg", "index.html", "index.json"])
        #expect(try staging().isEmpty)

        // An empty folder is taken; a folder with other files, or a file, is not.
        let empty = folder.url.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: false)
        try repository.export(to: empty)
        #expect(try files(empty) == ["b.jpg", "b.thumbnail.jpg", "index.html", "index.json"])

        let busy = folder.url.appendingPathComponent("busy")
        try FileManager.default.createDirectory(at: busy, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: busy.appendingPathComponent("thesis.txt"))
        #expect(throws: LikeRepositoryError.self) { try repository.export(to: busy) }
        #expect(try files(busy) == ["thesis.txt"])

        // A folder whose index.json is not ours is not ours either.
        try Data(#"{"format": "something-else"}"#.utf8).write(to: busy.appendingPathComponent("index.json"))
        #expect(throws: LikeRepositoryError.self) { try repository.export(to: busy) }
        #expect(try files(busy) == ["index.json", "thesis.txt"])

        let file = folder.url.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        #expect(throws: LikeRepositoryError.self) { try repository.export(to: file) }
        #expect(try Data(contentsOf: file) == Data("x".utf8))

        #expect(throws: LikeRepositoryError.self) { try repository.export(to: folder.url.appendingPathComponent("no/such/place")) }
        // Never into the store itself.
        #expect(throws: LikeRepositoryError.self) { try repository.export(to: folder.store.appendingPathComponent("images/share")) }
        #expect(throws: LikeRepositoryError.self) { try repository.export(to: folder.store) }
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
        #expect(try staging().isEmpty)
    }

    @Test func aChangedImageIsLeftOutAndNamed() throws {
        let repository = folder.repository()
        try repository.like(PhotoID(valid: "a"), image: Samples.rocket)
        let record = try #require(try repository.like(PhotoID(valid: "b"), image: Samples.coffee).record)
        var bytes = try Data(contentsOf: record.image.file)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: record.image.file)
        let report = try repository.export(to: destination)
        #expect(report.photos.map(\.id.rawValue) == ["a"])
        #expect(report.damage.count == 1 && report.damage[0].contains("\"b\""))
        #expect(try files(destination) == ["a.jpg", "a.thumbnail.jpg", "index.html", "index.json"])
    }

    @Test func theContactSheetEscapesEveryTextFromTheStore() throws {
        let repository = folder.repository()
        let hostile = "<script>alert(1)</script>\"'&"
        try repository.like(
            PhotoID(valid: "<img src=x onerror=alert(1)>"), image: Samples.rocket, note: hostile,
            photo: PhotoMetadata(
                description: hostile, photographer: hostile, color: "red;background:url(http://evil)", sourceURL: "javascript:alert(1)"),
            albums: [try AlbumName(hostile)])
        try repository.export(to: destination)
        let html = try String(contentsOf: destination.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("href=\"javascript:"))
        #expect(!html.contains("url(http://evil)\""))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"))
        // Nothing is fetched from elsewhere: every image is a file beside the page.
        let sources = html.components(separatedBy: " src=\"").dropFirst()
        #expect(!sources.isEmpty && sources.allSatisfy { $0.hasPrefix("./") })
    }

    @Test func aMissingImageIsLeftOutAndNamed() throws {
        let repository = folder.repository()
        try repository.like(PhotoID(valid: "a"), image: Samples.rocket)
        let record = try #require(try repository.like(PhotoID(valid: "b"), image: Samples.coffee, userImage: Samples.chelsea).record)
        try FileManager.default.removeItem(at: try #require(record.userImage).file)
        let report = try repository.export(to: destination)
        #expect(report.photos.map(\.id.rawValue) == ["a"])
        #expect(report.damage.count == 1 && report.damage[0].contains("\"b\" is missing"))
    }

    @Test func replacingAnExportThatHoldsAFolderRemovesItAndLaterExportsStillWork() throws {
        let repository = folder.repository()
        try repository.like(PhotoID(valid: "a"), image: Samples.rocket)
        try repository.export(to: destination)
        // Someone put a folder (with a file) into the earlier export.
        let inner = destination.appendingPathComponent("extras/more", isDirectory: true)
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: inner.appendingPathComponent("file.txt"))
        try repository.like(PhotoID(valid: "b"), image: Samples.coffee)
        // Before the fix the earlier export stayed beside the new one, its folder unremovable,
        // and every export after it failed on that leftover.
        for _ in 0..<3 {
            try repository.export(to: destination)
            #expect(try files(destination) == ["a.jpg", "a.thumbnail.jpg", "b.jpg", "b.thumbnail.jpg", "index.html", "index.json"])
            #expect(try staging().isEmpty)
        }
    }

    @Test(arguments: [false, true], [FlushStrategy.wholeFileSystem, .eachFile])
    func aCrashAtAnyStepLeavesTheEarlierExportOrTheNewOne(withoutExchange: Bool, flushing: FlushStrategy) throws {
        let repository = folder.repository()
        try repository.like(PhotoID(valid: "a"), image: Samples.rocket, userImage: Samples.chelsea)
        try repository.export(to: destination)
        let earlier = try files(destination)
        try repository.like(PhotoID(valid: "b"), image: Samples.coffee)
        let later = earlier + ["b.jpg", "b.thumbnail.jpg"]
        var stepsSeen = 0
        for crashPoint in 0... {
            let faults = FaultInjector(.crash(after: crashPoint), withoutExchange: withoutExchange, flushStrategy: flushing.method)
            let crashing = LikeRepository(directory: folder.store, durability: .full, lockTimeout: 10, faults: faults)
            _ = try? crashing.export(to: destination)
            let now = (try? files(destination)) ?? ["(missing)"]
            // Without a swap in one step, a crash between moving the earlier export aside and
            // moving the new one in leaves no folder (both are kept beside it, whole).
            let betweenRenames = withoutExchange && now == ["(missing)"] && (faults.steps.last ?? "").hasPrefix("rename .share.")
            #expect(
                now == earlier || now.sorted() == later.sorted() || betweenRenames,
                "a crash at step \(crashPoint) (\(faults.steps.last ?? "-")) left \(now)")
            stepsSeen = faults.steps.count
            if !faults.hasCrashed { break }
            // The next export removes what the crashed one left and puts the new one in place.
            try repository.export(to: destination)
            #expect(try files(destination).sorted() == later.sorted())
            #expect(try staging().isEmpty, "after a crash at step \(crashPoint)")
            // Back to the earlier export for the next round.
            try repository.unlike(PhotoID(valid: "b"))
            try repository.export(to: destination)
            try repository.like(PhotoID(valid: "b"), image: Samples.coffee)
        }
        #expect(stepsSeen >= 8, "the seam saw only \(stepsSeen) steps")
    }

    @Test(arguments: [false, true], [FlushStrategy.wholeFileSystem, .eachFile])
    func aFailingStepLeavesTheFolderAsItWasAndNothingBeside(withoutExchange: Bool, flushing: FlushStrategy) throws {
        let repository = folder.repository()
        try repository.like(PhotoID(valid: "a"), image: Samples.rocket, userImage: Samples.chelsea)
        try repository.export(to: destination)
        let earlier = try files(destination)
        try repository.like(PhotoID(valid: "b"), image: Samples.coffee)
        let later = (earlier + ["b.jpg", "b.thumbnail.jpg"]).sorted()
        for failPoint in 0... {
            let faults = FaultInjector(.fail(at: failPoint, code: EIO), withoutExchange: withoutExchange, flushStrategy: flushing.method)
            let failing = LikeRepository(directory: folder.store, durability: .full, lockTimeout: 10, faults: faults)
            var thrown: (any Error)?
            do { try failing.export(to: destination) } catch { thrown = error }
            guard faults.steps.count > failPoint else { break }
            let step = faults.steps[failPoint]
            let now = try files(destination)
            if let thrown {
                #expect(thrown is LikeRepositoryError, "at \(step): \(thrown)")
                // Only the flush after the swap may fail with the new export in place, whole.
                #expect(now == earlier || (now == later && step.hasPrefix("sync")), "a failure at \(step) left \(now)")
            } else {
                // A thumbnail the store failed to make is left out, the photo kept.
                let thumbnailStep = step.hasPrefix("mkdir \(ThumbnailFiles.directoryName)") || (step.contains(".jpg.") && step.contains(".tmp"))
                let withoutThumbnail = thumbnailStep && now == later.filter { $0 != "b.thumbnail.jpg" }
                #expect(now == later || withoutThumbnail, "succeeded past a failure at \(step), leaving \(now)")
            }
            // Leftovers, if any, go with the next export.
            try repository.export(to: destination)
            #expect(try files(destination) == later)
            #expect(try staging().isEmpty, "after a failure at \(step)")
            try repository.unlike(PhotoID(valid: "b"))
            try repository.export(to: destination)
            #expect(try files(destination) == earlier)
            try repository.like(PhotoID(valid: "b"), image: Samples.coffee)
        }
    }

    @Test func anExportBeingWrittenIsNotTakenForAnAbandonedOne() throws {
        let repository = folder.repository()
        try repository.like(PhotoID(valid: "a"), image: Samples.rocket)
        // A staging folder that a live export holds locked stays; an unlocked one goes.
        let live = folder.url.appendingPathComponent(".share.likes-export-00000000live")
        let dead = folder.url.appendingPathComponent(".share.likes-export-00000000dead")
        try FileManager.default.createDirectory(at: live, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(at: dead, withIntermediateDirectories: false)
        try Data("partial".utf8).write(to: dead.appendingPathComponent("a.jpg"))
        let holder = open(live.path, O_RDONLY | O_DIRECTORY)
        #expect(holder >= 0)
        defer { close(holder) }
        #expect(flock(holder, LOCK_EX | LOCK_NB) == 0)
        try repository.export(to: destination)
        #expect(try staging() == [".share.likes-export-00000000live"])
    }
}

extension ExportTests {
    /// The contact sheet credits a photo from Unsplash as its guidelines ask: the photographer
    /// and Unsplash named, each link back carrying the referral parameters; other links as they are.
    @Test func theContactSheetLinksBackToUnsplashWithItsReferral() throws {
        let repository = folder.repository(durability: .relaxed)
        try repository.like(
            PhotoID(valid: "u"), image: Samples.coffee,
            photo: PhotoMetadata(photographer: "Ann Lee", photographerUsername: "annlee", sourceURL: "https://unsplash.com/photos/u"))
        try repository.like(PhotoID(valid: "other"), image: Samples.rocket, photo: PhotoMetadata(sourceURL: "https://example.org/p?x=1"))
        try repository.export(to: destination)
        let sheet = try String(contentsOf: destination.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(sheet.contains(#"href="https://unsplash.com/@annlee?utm_source=likes&amp;utm_medium=referral">Ann Lee</a> on Unsplash"#), "\(sheet)")
        #expect(sheet.contains(#"href="https://unsplash.com/photos/u?utm_source=likes&amp;utm_medium=referral""#))
        #expect(sheet.contains(#"href="https://example.org/p?x=1""#))
    }
}

extension ExportTests {
    /// An export reads the collection a batch at a time and writes its index files a photo at a
    /// time: across batches, every photo once in the listing's order, `offset` and `limit`
    /// counted over the whole, and the index files the same bytes as the whole index encodes to.
    @Test func anExportOfManyBatchesIsTheListingAndItsIndexIsWhole() throws {
        let repository = folder.repository(durability: .relaxed)
        let count = 1_234
        for number in 0..<count {
            try repository.like(
                PhotoID(valid: "p\(number)"), image: Samples.jpeg(seed: number), note: number % 7 == 0 ? "note \(number)" : nil,
                albums: number % 3 == 0 ? [try AlbumName("Thirds")] : [])
        }
        let query = LikeQuery(order: .oldestFirst, limit: 1_100, offset: 3)
        let report = try repository.export(to: destination, query: query)
        let listed = try repository.list(query).records.map(\.id)
        #expect(listed.count == 1_100)
        #expect(report.photos.map(\.id) == listed)
        let indexData = try Data(contentsOf: destination.appendingPathComponent("index.json"))
        let index = try JSONDecoder().decode(ExportIndex.self, from: indexData)
        #expect(index.photos.map(\.id) == listed)
        #expect(index.count == 1_100 && index.bytes == report.byteCount)
        // The streamed files, against the whole index encoded and the sheet composed at once.
        #expect(try index.encoded() == indexData)
        let sheet = try String(contentsOf: destination.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(ContactSheet(index: index).html == sheet)
        #expect(sheet.components(separatedBy: "<figure ").count == 1_101)
        // Nothing of the parts is left, and an album's export also crosses batches.
        #expect(try files(destination).filter { $0.hasPrefix(".") }.isEmpty)
        let album = folder.url.appendingPathComponent("thirds", isDirectory: true)
        let thirds = try repository.export(to: album, query: LikeQuery(album: try AlbumName("Thirds")))
        #expect(thirds.photos.count == (count + 2) / 3)
        #expect(thirds.photos.map(\.id) == (try repository.list(LikeQuery(album: try AlbumName("Thirds")))).records.map(\.id))
    }
}

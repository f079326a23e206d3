// A new device's first sync, which publishes every photo a group of photos at a time: the same
// changes whatever the groups, a collection another device gets whole, the images' uses counted,
// and a first sync cut at any step of the store's finished by the next.

import Foundation
import LikesSupport
import TestSupport
import Testing

@testable import LikeKit
@testable import LikeStore

@Suite struct FirstSyncTests {
    let template = TemporaryFolder("template")
    let work = TemporaryFolder("work")

    /// A store of 30 photos liked the ways people like them: notes, albums, a chosen cover, a
    /// photographer's picture, one note given later, two unlikes (one liked again after).
    init() throws {
        let repository = template.repository(durability: .relaxed)
        let trips = try AlbumName("Trips")
        for number in 0..<30 {
            try repository.like(
                PhotoID(valid: "p\(number)"), image: Samples.jpeg(seed: number), userImage: number % 10 == 0 ? Samples.jpeg(seed: 1_000) : nil,
                note: number % 4 == 0 ? "note \(number)" : nil, albums: number % 3 == 0 ? [trips] : [])
        }
        _ = try repository.setCover(PhotoID(valid: "p9"), ofAlbum: trips)
        _ = try repository.setNote("given later", for: PhotoID(valid: "p5"))
        try repository.unlike(PhotoID(valid: "p7"))
        try repository.unlike(PhotoID(valid: "p8"))
        try repository.like(PhotoID(valid: "p8"), image: Samples.jpeg(seed: 8))
    }

    /// A copy of the template store in `name`, with its sync folder.
    func copy(_ name: String) throws -> (store: URL, folder: URL) {
        let place = work.url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: place.appendingPathComponent("folder"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: template.store, to: place.appendingPathComponent("store"))
        return (place.appendingPathComponent("store"), place.appendingPathComponent("folder"))
    }

    func repository(_ store: URL, _ faults: FaultInjector? = nil) -> LikeRepository {
        LikeRepository(directory: store, durability: .relaxed, lockTimeout: 10, faults: faults)
    }

    /// Every photo as a device shows it: id, when it was liked (to the millisecond), note, albums,
    /// covers, the user image's size.
    func collection(_ repository: LikeRepository) throws -> [String] {
        try repository.list().records.map { record in
            let liked = Int64((record.likedAt.timeIntervalSince1970 * 1000).rounded())
            return "\(record.id.rawValue) \(liked) \(record.note ?? "-") \(record.albums.map(\.rawValue)) \(record.covers.map(\.rawValue)) "
                + "\(record.userImage?.byteCount ?? 0)"
        }
    }

    /// The changes of a device's change files, each line with its stamp's counter and device
    /// left out (a new device's id is new each time), sorted.
    func changeLines(_ folder: URL) throws -> [String] {
        let devices = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
        var lines: [String] = []
        for device in devices {
            let directory = folder.appendingPathComponent(device)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasPrefix("changes-") {
                let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                let body = text.split(separator: "\n").dropFirst().dropLast()
                lines += body.map { $0.replacingOccurrences(of: #"(\d+)\.\d+\.[0-9a-f]{16}"#, with: "$1", options: .regularExpression) }
            }
        }
        return lines.sorted()
    }

    @Test func aFirstSyncInManyGroupsPublishesWhatOneGroupDoesAndAnotherDeviceGetsItAll() throws {
        let (oneStore, oneFolder) = try copy("one")
        let (manyStore, manyFolder) = try copy("many")
        let one = try repository(oneStore).sync(with: oneFolder)
        let many = try repository(manyStore, FaultInjector(firstSyncBatch: 3)).sync(with: manyFolder)
        #expect(one.published == many.published && many.published >= 31)
        #expect(try changeLines(manyFolder) == changeLines(oneFolder))
        #expect(try changeLines(manyFolder).count == many.published)

        let laptop = repository(manyStore)
        let phone = repository(work.url.appendingPathComponent("phone"))
        _ = try phone.sync(with: manyFolder)
        #expect(try collection(phone) == collection(laptop))
        #expect(try collection(phone).count == 29)
        #expect(try laptop.sync(with: manyFolder).published == 0)
        try unlikeTheFirstAndCheckTheFolder(laptop, phone, manyFolder, device: many.device, label: "many groups")
        #expect(try laptop.verify().problems.isEmpty && phone.verify().problems.isEmpty)
    }

    /// The images' uses were counted: once every device merged the unlike of `p0`, its image
    /// leaves the folder, and the photographer's picture it shares with `p10` and `p20` stays, so
    /// that a device new to the folder still gets them.
    func unlikeTheFirstAndCheckTheFolder(_ laptop: LikeRepository, _ phone: LikeRepository, _ folder: URL, device: String, label: String) throws {
        let images = folder.appendingPathComponent(device).appendingPathComponent("images")
        let before = try FileManager.default.contentsOfDirectory(atPath: images.path).count
        _ = try laptop.unlike(PhotoID(valid: "p0"))
        for side in [laptop, phone, laptop] { _ = try side.sync(with: folder) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: images.path).count == before - 1, "\(label)")
        #expect(try phone.record(for: PhotoID(valid: "p0")) == nil, "\(label)")
        let newcomer = repository(work.url.appendingPathComponent("newcomer-\(label)"))
        _ = try newcomer.sync(with: folder)
        #expect(try collection(newcomer) == collection(laptop), "\(label)")
        #expect(try newcomer.record(for: PhotoID(valid: "p10"))?.userImage != nil, "\(label)")
    }

    @Test func aFirstSyncCutAtAnyStepOfTheStoreIsFinishedByTheNext() throws {
        let (countedStore, countedFolder) = try copy("counted")
        let counter = FaultInjector(firstSyncBatch: 3)
        _ = try repository(countedStore, counter).sync(with: countedFolder)
        let total = counter.steps.count
        let expected = try collection(repository(countedStore))
        #expect(total > 20)
        for cut in stride(from: 1, to: total, by: max(1, total / 12)) {
            let (store, folder) = try copy("cut-\(cut)")
            #expect(throws: (any Error).self) { try repository(store, FaultInjector(.crash(after: cut), firstSyncBatch: 3)).sync(with: folder) }
            let laptop = repository(store)
            _ = try laptop.sync(with: folder)
            #expect(try laptop.verify().problems.isEmpty, "cut after \(cut) of \(total) steps")
            let phone = repository(work.url.appendingPathComponent("phone-\(cut)"))
            _ = try phone.sync(with: folder)
            #expect(try collection(phone) == expected, "cut after \(cut) of \(total) steps")
            #expect(try collection(laptop) == expected, "cut after \(cut) of \(total) steps")
            let report = try laptop.sync(with: folder)
            #expect(report.published == 0)
            // No lines of the cut sync left in the folder.
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(report.device).path)
            #expect(!names.contains { $0.hasSuffix(".lines") }, "\(names)")
            try unlikeTheFirstAndCheckTheFolder(laptop, phone, folder, device: report.device, label: "cut after \(cut) of \(total) steps")
        }
    }

    /// A first sync cut part way, then the store changed, and another device liked one of its
    /// photos, before the next: that sync publishes the collection as it is then, each like
    /// stamped at the time it was made, so that the other device's later like of the same photo
    /// does not take its place as the like that started the photo's period.
    @Test func aFirstSyncCutThenChangesMadeKeepsEachLikesTime() throws {
        let (countedStore, countedFolder) = try copy("counted")
        let counter = FaultInjector(firstSyncBatch: 3)
        _ = try repository(countedStore, counter).sync(with: countedFolder)
        let total = counter.steps.count
        for cut in stride(from: 2, to: total, by: max(1, total / 6)) {
            let label = "cut after \(cut) of \(total) steps"
            let (store, folder) = try copy("changed-\(cut)")
            #expect(throws: (any Error).self) { try repository(store, FaultInjector(.crash(after: cut), firstSyncBatch: 3)).sync(with: folder) }
            let laptop = repository(store)
            _ = try laptop.setNote("after the cut", for: PhotoID(valid: "p4"))
            try laptop.unlike(PhotoID(valid: "p6"))
            try laptop.like(PhotoID(valid: "p40"), image: Samples.jpeg(seed: 40))
            let liked = try #require(try laptop.record(for: PhotoID(valid: "p3"))).likedAt
            let phone = repository(work.url.appendingPathComponent("phone-changed-\(cut)"))
            try phone.like(PhotoID(valid: "p3"), image: Samples.jpeg(seed: 300))
            for side in [laptop, phone, laptop] { _ = try side.sync(with: folder) }
            #expect(try laptop.record(for: PhotoID(valid: "p3"))?.likedAt == liked, "\(label)")
            #expect(try phone.record(for: PhotoID(valid: "p3"))?.likedAt == liked, "\(label)")
            #expect(try collection(phone) == collection(laptop), "\(label)")
            #expect(try collection(phone).count == 29, "\(label)")
        }
    }
}

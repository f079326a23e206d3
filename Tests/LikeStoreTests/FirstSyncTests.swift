// A new device's first sync, which publishes every photo a group of photos at a time: the same
// changes whatever the groups, a collection another device gets whole, the images' uses counted,
// and a first sync cut at any step of the store's finished by the next. Through LikeStore's own
// interface (the fault injector its seam).

import Foundation
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct FirstSyncTests {
    let template = TemporaryFolder("template")
    let work = TemporaryFolder("work")

    /// A store of 30 photos liked the ways people like them: notes, albums, a chosen cover, a
    /// photographer's picture, one note given later, two unlikes (one liked again after).
    init() throws {
        let store = Store(path: template.store.path, durable: false, lockTimeout: 10, faults: nil)
        for number in 0..<30 {
            let user = number % 10 == 0 ? try StoreRequest.Image(MadeUpJPEG.data(seed: 1_000), kind: .userImage) : nil
            try store.like(
                StoreRequest(
                    id: "p\(number)", image: try StoreRequest.Image(MadeUpJPEG.data(seed: number), kind: .image), userImage: user,
                    note: number % 4 == 0 ? "note \(number)" : nil, photo: nil, albums: number % 3 == 0 ? ["Trips"] : []))
        }
        try store.like(StoreRequest(id: "p9", chooseCovers: ["Trips"]))
        try store.like(StoreRequest(id: "p5", note: .set("given later")))
        _ = try store.unlike("p7", onCommit: { _ in })
        _ = try store.unlike("p8", onCommit: { _ in })
        try store.like(
            StoreRequest(
                id: "p8", image: try StoreRequest.Image(MadeUpJPEG.data(seed: 8), kind: .image), userImage: nil, note: nil, photo: nil, albums: []))
    }

    /// A copy of the template store in `name`, with its sync folder.
    func copy(_ name: String) throws -> (store: String, folder: String) {
        let place = work.url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: place.appendingPathComponent("folder"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: template.store, to: place.appendingPathComponent("store"))
        return (place.appendingPathComponent("store").path, place.appendingPathComponent("folder").path)
    }

    func store(_ path: String, _ faults: FaultInjector? = nil) -> Store {
        Store(path: path, durable: false, lockTimeout: 10, faults: faults)
    }

    @discardableResult
    func sync(_ store: Store, _ folder: String) throws -> StoreSyncReport { try store.sync(with: folder, onCommit: { _ in }) }

    /// Every photo as a device shows it: id, when it was liked (to the millisecond), note, albums,
    /// covers, the user image's size.
    func collection(_ store: Store) throws -> [String] {
        let all = StoreQuery(newestFirst: true, limit: nil, offset: 0, after: nil, since: nil, album: nil, color: nil, words: nil)
        return try store.page(all).items.map(\.record).map { record in
            "\(record.id) \(record.likedAt) \(record.note ?? "-") \(record.albums) \(record.covers) \(record.userImage?.bytes ?? 0)"
        }
    }

    /// The changes of a device's change files, each line with its stamp's counter and device
    /// left out (a new device's id is new each time), sorted.
    func changeLines(_ folder: String) throws -> [String] {
        let devices = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }
        var lines: [String] = []
        for device in devices {
            let directory = folder + "/" + device
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasPrefix("changes-") {
                let text = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
                let body = text.split(separator: "\n").dropFirst().dropLast()
                lines += body.map { $0.replacingOccurrences(of: #"(\d+)\.\d+\.[0-9a-f]{16}"#, with: "$1", options: .regularExpression) }
            }
        }
        return lines.sorted()
    }

    @Test func aFirstSyncInManyGroupsPublishesWhatOneGroupDoesAndAnotherDeviceGetsItAll() throws {
        let (oneStore, oneFolder) = try copy("one")
        let (manyStore, manyFolder) = try copy("many")
        let one = try sync(store(oneStore), oneFolder)
        let many = try sync(store(manyStore, FaultInjector(firstSyncBatch: 3)), manyFolder)
        #expect(one.published == many.published && many.published >= 31)
        #expect(try changeLines(manyFolder) == changeLines(oneFolder))
        #expect(try changeLines(manyFolder).count == many.published)

        let laptop = store(manyStore)
        let phone = store(work.path("phone"))
        try sync(phone, manyFolder)
        #expect(try collection(phone) == collection(laptop))
        #expect(try collection(phone).count == 29)
        #expect(try sync(laptop, manyFolder).published == 0)
        try unlikeTheFirstAndCheckTheFolder(laptop, phone, manyFolder, device: many.device, label: "many groups")
        #expect(try laptop.verify().problems.isEmpty && phone.verify().problems.isEmpty)
    }

    /// The images' uses were counted: once every device merged the unlike of `p0`, its image
    /// leaves the folder, and the photographer's picture it shares with `p10` and `p20` stays, so
    /// that a device new to the folder still gets them.
    func unlikeTheFirstAndCheckTheFolder(_ laptop: Store, _ phone: Store, _ folder: String, device: String, label: String) throws {
        let images = folder + "/" + device + "/images"
        let before = try FileManager.default.contentsOfDirectory(atPath: images).count
        _ = try laptop.unlike("p0", onCommit: { _ in })
        for side in [laptop, phone, laptop] { try sync(side, folder) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: images).count == before - 1, "\(label)")
        #expect(try phone.storedRecord(for: "p0") == nil, "\(label)")
        let newcomer = store(work.path("newcomer-\(label)"))
        try sync(newcomer, folder)
        #expect(try collection(newcomer) == collection(laptop), "\(label)")
        #expect(try newcomer.storedRecord(for: "p10")?.userImage != nil, "\(label)")
    }

    @Test func aFirstSyncCutAtAnyStepOfTheStoreIsFinishedByTheNext() throws {
        let (countedStore, countedFolder) = try copy("counted")
        let counter = FaultInjector(firstSyncBatch: 3)
        try sync(store(countedStore, counter), countedFolder)
        let total = counter.steps.count
        let expected = try collection(store(countedStore))
        #expect(total > 20)
        for cut in stride(from: 1, to: total, by: max(1, total / 12)) {
            let (path, folder) = try copy("cut-\(cut)")
            #expect(throws: (any Error).self) { try sync(store(path, FaultInjector(.crash(after: cut), firstSyncBatch: 3)), folder) }
            let laptop = store(path)
            try sync(laptop, folder)
            #expect(try laptop.verify().problems.isEmpty, "cut after \(cut) of \(total) steps")
            let phone = store(work.path("phone-\(cut)"))
            try sync(phone, folder)
            #expect(try collection(phone) == expected, "cut after \(cut) of \(total) steps")
            #expect(try collection(laptop) == expected, "cut after \(cut) of \(total) steps")
            let report = try sync(laptop, folder)
            #expect(report.published == 0)
            // No lines of the cut sync left in the folder.
            let names = try FileManager.default.contentsOfDirectory(atPath: folder + "/" + report.device)
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
        try sync(store(countedStore, counter), countedFolder)
        let total = counter.steps.count
        for cut in stride(from: 2, to: total, by: max(1, total / 6)) {
            let label = "cut after \(cut) of \(total) steps"
            let (path, folder) = try copy("changed-\(cut)")
            #expect(throws: (any Error).self) { try sync(store(path, FaultInjector(.crash(after: cut), firstSyncBatch: 3)), folder) }
            let laptop = store(path)
            try laptop.like(StoreRequest(id: "p4", note: .set("after the cut")))
            _ = try laptop.unlike("p6", onCommit: { _ in })
            try laptop.like(
                StoreRequest(
                    id: "p40", image: try StoreRequest.Image(MadeUpJPEG.data(seed: 40), kind: .image), userImage: nil, note: nil, photo: nil,
                    albums: []))
            let liked = try #require(try laptop.storedRecord(for: "p3")).likedAt
            let phone = store(work.path("phone-changed-\(cut)"))
            try phone.like(
                StoreRequest(
                    id: "p3", image: try StoreRequest.Image(MadeUpJPEG.data(seed: 300), kind: .image), userImage: nil, note: nil, photo: nil,
                    albums: []))
            for side in [laptop, phone, laptop] { try sync(side, folder) }
            #expect(try laptop.storedRecord(for: "p3")?.likedAt == liked, "\(label)")
            #expect(try phone.storedRecord(for: "p3")?.likedAt == liked, "\(label)")
            #expect(try collection(phone) == collection(laptop), "\(label)")
            #expect(try collection(phone).count == 29, "\(label)")
        }
    }

    /// A device joining the collection merges it a group of photos at a time: the collection it
    /// ends with is the one a merge in one group gives, and one cut at any step of the store is
    /// finished by the next sync, no photo twice and none lost.
    @Test func aJoinInManyGroupsGivesTheCollectionAndOneCutAtAnyStepIsFinishedByTheNext() throws {
        let (laptopStore, folder) = try copy("joined")
        let laptop = store(laptopStore)
        try sync(laptop, folder)
        let expected = try collection(laptop)
        let counter = FaultInjector(firstSyncBatch: 4)
        let counted = store(work.path("joining-counted"), counter)
        #expect(try sync(counted, folder).merged >= 29)
        #expect(try collection(counted) == expected)
        let counts = try uses(work.path("joining-counted"))
        #expect(counts.count >= 29)
        let total = counter.steps.count
        #expect(total > 20)
        for cut in stride(from: 1, to: total, by: max(1, total / 12)) {
            let label = "cut after \(cut) of \(total) steps"
            let path = work.path("joining-\(cut)")
            #expect(throws: (any Error).self, "\(label)") { try sync(store(path, FaultInjector(.crash(after: cut), firstSyncBatch: 4)), folder) }
            let phone = store(path)
            try sync(phone, folder)
            #expect(try collection(phone) == expected, "\(label)")
            #expect(try phone.verify().problems.isEmpty, "\(label)")
            #expect(try sync(phone, folder).merged == 0, "\(label): merged again")
            // The images' uses, kept aside while the groups are merged, are those of a join
            // never cut: counted anew where the cut left them unwritten.
            #expect(try uses(path) == counts, "\(label)")
        }
    }

    /// How many photos have each image, as the store's sync bookkeeping keeps it.
    func uses(_ storePath: String) throws -> [String: Int] {
        let directory = storePath + "/sync"
        var counts: [String: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasPrefix("uses-") {
            let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
            let shard = try JSONDecoder().decode([String: Int].self, from: data)
            counts.merge(shard.filter { $0.key != "format" }) { _, new in new }
        }
        return counts
    }
}

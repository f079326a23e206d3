// The fault seam stops or fails every write at each of its steps in turn; the reopened store
// must always hold the state before or after the operation, intact, with at worst orphans.

import Foundation
import LikeKit
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct CrashSafetyTests {
    enum Operation: String, CaseIterable, Sendable {
        case firstLike, updateWithImages, updateNoteOnly, unlike, toggleOn, toggleOff, purge, batch
        case setNote, clearNote, addToAlbum, removeFromAlbum

        /// A batch commits photo by photo: each is before or after, not necessarily all alike.
        var commitsPerPhoto: Bool { self == .batch || self == .addToAlbum }
    }

    /// What a reader can see of one record.
    struct Visible: Equatable {
        var note: String?
        var image: Data
        var userImage: Data?
        var likedAt: Date
        var albums: [String] = []
    }

    static let base = PhotoID(valid: "Base_ID")
    static let other = PhotoID(valid: "other")
    static let fresh = PhotoID(valid: "fresh")
    static let trip = try! AlbumName("Trip to Lisbon")
    static let new = try! AlbumName("Café")

    func prepare(_ folder: TemporaryFolder) throws {
        let repository = folder.repository()
        try repository.like(Self.base, image: Samples.rocket, userImage: Samples.chelsea, note: "before", albums: [Self.trip])
        try repository.like(Self.other, image: Samples.coffee)
        try Data("leftover".utf8).write(to: folder.store.appendingPathComponent("images/lost~0123456789ab.jpg"))
    }

    func run(_ operation: Operation, on repository: LikeRepository) throws {
        switch operation {
        case .firstLike: try repository.like(Self.fresh, image: Samples.astronaut, userImage: Samples.jpeg(seed: 9), note: "new")
        case .updateWithImages: try repository.like(Self.base, image: Samples.astronaut, userImage: Samples.jpeg(seed: 7), note: "after")
        case .updateNoteOnly: try repository.like(Self.base, image: nil, note: "after")
        case .unlike: try repository.unlike(Self.base)
        case .toggleOn: try repository.toggle(Self.fresh, image: Samples.astronaut, userImage: Samples.jpeg(seed: 9), note: "new")
        case .toggleOff: try repository.toggle(Self.base, image: nil)
        case .purge: try repository.purge()
        case .setNote: try repository.setNote("after", for: Self.base)
        case .clearNote: try repository.setNote(nil, for: Self.base)
        case .addToAlbum: #expect(try repository.addPhotos([Self.base, Self.other], toAlbum: Self.new).count == 2)
        case .removeFromAlbum: #expect(try repository.removePhotos([Self.base], fromAlbum: Self.trip).count == 1)
        case .batch:
            let results = try repository.likeAll([
                LikeItem(id: Self.fresh, image: Samples.astronaut, userImage: Samples.jpeg(seed: 9), note: "new"),
                LikeItem(id: Self.base, image: Samples.astronaut, userImage: Samples.jpeg(seed: 7), note: "after"),
                LikeItem(id: Self.other, image: nil, note: "batched"),
            ])
            #expect(results.allSatisfy { (try? $0.get()) != nil })
        }
    }

    func visible(_ repository: LikeRepository) throws -> [String: Visible] {
        var result: [String: Visible] = [:]
        for record in try repository.list().records {
            result[record.id.rawValue] = Visible(
                note: record.note, image: try Data(contentsOf: record.image.file),
                userImage: try record.userImage.map { try Data(contentsOf: $0.file) }, likedAt: record.likedAt,
                albums: record.albums.map(\.rawValue))
        }
        return result
    }

    func expected(after operation: Operation, from before: [String: Visible]) -> [String: Visible] {
        var after = before
        let baseKey = Self.base.rawValue
        switch operation {
        case .firstLike, .toggleOn:
            after[Self.fresh.rawValue] = Visible(note: "new", image: Samples.astronaut, userImage: Samples.jpeg(seed: 9), likedAt: .distantPast)
        case .updateWithImages:
            after[baseKey]?.image = Samples.astronaut
            after[baseKey]?.userImage = Samples.jpeg(seed: 7)
            after[baseKey]?.note = "after"
        case .updateNoteOnly, .setNote:
            after[baseKey]?.note = "after"
        case .clearNote:
            after[baseKey]?.note = nil
        case .addToAlbum:
            after[baseKey]?.albums = [Self.new.rawValue, Self.trip.rawValue]
            after[Self.other.rawValue]?.albums = [Self.new.rawValue]
        case .removeFromAlbum:
            after[baseKey]?.albums = []
        case .unlike, .toggleOff:
            after[baseKey] = nil
        case .purge:
            break
        case .batch:
            after[Self.fresh.rawValue] = Visible(note: "new", image: Samples.astronaut, userImage: Samples.jpeg(seed: 9), likedAt: .distantPast)
            after[baseKey]?.image = Samples.astronaut
            after[baseKey]?.userImage = Samples.jpeg(seed: 7)
            after[baseKey]?.note = "after"
            after[Self.other.rawValue]?.note = "batched"
        }
        return after
    }

    /// Whether every photo is as it was before or as it is after, each on its own.
    func eachBeforeOrAfter(_ now: [String: Visible], _ before: [String: Visible], _ after: [String: Visible]) -> Bool {
        Set(now.keys).union(before.keys).union(after.keys).allSatisfy { key in
            func one(_ state: [String: Visible]) -> [String: Visible] { state[key].map { [key: $0] } ?? [:] }
            return same(one(now), one(before)) || same(one(now), one(after))
        }
    }

    /// Compares, ignoring the `likedAt` of a photo liked by the operation itself.
    func same(_ a: [String: Visible], _ b: [String: Visible]) -> Bool {
        guard a.keys == b.keys else { return false }
        return a.allSatisfy { key, value in
            guard var other = b[key] else { return false }
            if key == Self.fresh.rawValue { other.likedAt = value.likedAt }
            return other == value
        }
    }

    func checkRecovered(_ folder: TemporaryFolder, operation: Operation, before: [String: Visible], acknowledged: Bool, step: String) throws {
        let reopened = folder.repository()
        let report = try reopened.verify()
        #expect(report.problems.isEmpty, "\(operation) stopped at \(step): \(report.problems)")
        let now = try visible(reopened)
        let after = expected(after: operation, from: before)
        // The newest page read from the journal's end agrees with the full listing.
        let all = try reopened.list().records
        #expect(try reopened.list(LikeQuery(limit: 2)).records == Array(all.prefix(2)), "\(operation) at \(step): newest page")
        // Albums, counted from the index, agree with the records.
        var counts: [String: Int] = [:]
        for record in all { for album in record.albums { counts[album.rawValue, default: 0] += 1 } }
        #expect(
            Dictionary(uniqueKeysWithValues: try reopened.albums().map { ($0.name.rawValue, $0.count) }) == counts, "\(operation) at \(step): albums")
        for album in try reopened.albums() {
            let members = all.filter { $0.albums.contains(album.name) }
            #expect(try reopened.list(LikeQuery(album: album.name)).records == members)
            #expect(try reopened.list(LikeQuery(limit: 1, album: album.name)).records == Array(members.prefix(1)), "\(operation) at \(step)")
        }
        if acknowledged {
            #expect(same(now, after), "\(operation) returned, but its change is not all there (stopped at \(step))")
        } else if operation.commitsPerPhoto {
            #expect(eachBeforeOrAfter(now, before, after), "\(operation) stopped at \(step) left a photo neither before nor after")
        } else {
            #expect(same(now, before) || same(now, after), "\(operation) stopped at \(step) left a state that is neither before nor after")
        }
        try reopened.purge()
        #expect(try reopened.verify() == VerificationReport(problems: [], orphans: []), "after purge (\(operation) at \(step))")
        #expect(same(try visible(reopened), now), "purge changed the records")
        // The store goes on working.
        try reopened.like(PhotoID(valid: "next"), image: Samples.jpeg(seed: 42))
        try reopened.unlike(operation == .unlike || operation == .toggleOff ? PhotoID(valid: "next") : Self.base)
        #expect(try reopened.verify().isOK)
    }

    /// Both ways of flushing, whatever file system the tests run on: one syncfs before each
    /// commit (ext4, xfs, btrfs) and a flush of each file and directory (FUSE, NFS, others).
    static let strategies: [FlushStrategy] = [.wholeFileSystem, .eachFile]

    @Test(arguments: Operation.allCases, strategies)
    func crashAtEveryStepLeavesTheStateBeforeOrAfter(operation: Operation, flushing: FlushStrategy) throws {
        var stepsSeen = 0
        for crashPoint in 0... {
            let folder = TemporaryFolder("crash\(operation)\(crashPoint)")
            try prepare(folder)
            let before = try visible(folder.repository())
            let faults = FaultInjector(.crash(after: crashPoint), flushStrategy: flushing.method)
            var acknowledged = false
            do {
                try run(operation, on: folder.repository(faults: faults))
                acknowledged = true
            } catch {}
            let step = faults.steps.last ?? "start"
            try checkRecovered(folder, operation: operation, before: before, acknowledged: acknowledged, step: step)
            stepsSeen = faults.steps.count
            if !faults.hasCrashed { break }
        }
        #expect(stepsSeen >= (operation == .purge ? 3 : 5), "the seam saw only \(stepsSeen) steps")
    }

    @Test(arguments: Operation.allCases, strategies)
    func failureAtEveryStepLeavesTheStoreAsItWas(operation: Operation, flushing: FlushStrategy) throws {
        for failPoint in 0... {
            var reachedFault = false
            for code in [EIO, ENOSPC, EACCES] {
                reachedFault = try fail(operation, at: failPoint, with: code, flushing: flushing)
            }
            if !reachedFault { break }
        }
    }

    /// Runs `operation` with step `failPoint` failing with `code`; returns whether it got there.
    func fail(_ operation: Operation, at failPoint: Int, with code: Int32, flushing: FlushStrategy) throws -> Bool {
        let folder = TemporaryFolder("fail\(operation)\(failPoint)")
        try prepare(folder)
        let before = try visible(folder.repository())
        let faults = FaultInjector(.fail(at: failPoint, code: code), flushStrategy: flushing.method)
        var thrown: (any Error)?
        do {
            try run(operation, on: folder.repository(faults: faults))
        } catch {
            thrown = error
        }
        let reachedFault = faults.steps.count > failPoint
        let step = reachedFault ? faults.steps[failPoint] : "none"
        let reopened = folder.repository()
        let report = try reopened.verify()
        #expect(report.problems.isEmpty, "\(operation) failing at \(step): \(report.problems)")
        if let thrown {
            #expect(thrown is LikeRepositoryError, "\(operation) failing at \(step) threw \(thrown)")
            if operation.commitsPerPhoto {
                let after = expected(after: operation, from: before)
                #expect(
                    eachBeforeOrAfter(try visible(reopened), before, after), "\(operation) failed at \(step): a photo is neither before nor after"
                )
            } else if operation != .purge {
                #expect(same(try visible(reopened), before), "\(operation) failed at \(step) but changed the records")
            }
        } else {
            #expect(same(try visible(reopened), expected(after: operation, from: before)), "\(operation) succeeded past a failure at \(step)")
        }
        try checkRecovered(folder, operation: operation, before: before, acknowledged: thrown == nil, step: step)
        return reachedFault
    }

    @Test func tornJournalLineIsCutAndTheLikeAfterItIsKept() throws {
        let folder = TemporaryFolder()
        try prepare(folder)
        let journal = folder.store.appendingPathComponent("likes.journal")
        let handle = try FileHandle(forWritingTo: journal)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("L 17637746251".utf8))
        try handle.close()
        let repository = folder.repository()
        #expect(try repository.list().records.count == 2)
        try repository.like(Self.fresh, image: Samples.astronaut)
        #expect(try repository.list().records.map(\.id) == [Self.fresh, Self.other, Self.base])
        #expect(try repository.verify().isOK)
        let text = try String(contentsOf: journal, encoding: .utf8)
        #expect(!text.contains("L 17637746251 "))
    }
}

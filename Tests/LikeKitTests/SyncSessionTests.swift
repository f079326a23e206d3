// A sync session as an app runs it: the store kept in step with a folder, within 2 s of a change
// on either side, reported as it goes, stopped on demand or when released.

import Foundation
import LikeKit
import TestSupport
import Testing

@Suite struct SyncSessionTests {
    let laptopFolder = TemporaryFolder("laptop")
    let phoneFolder = TemporaryFolder("phone")
    let folder: URL

    init() throws {
        folder = laptopFolder.url.appendingPathComponent("sync-folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Waits until `condition` holds, a few milliseconds at a time; the seconds it took, or `nil`.
    func seconds(within limit: Double, _ condition: () async throws -> Bool) async throws -> Double? {
        let start = Date()
        while Date().timeIntervalSince(start) < limit {
            if try await condition() { return Date().timeIntervalSince(start) }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition() ? Date().timeIntervalSince(start) : nil
    }

    @Test func eachSideFollowsTheOtherAndTheSessionReportsAndStops() async throws {
        let laptop = laptopFolder.repository(durability: .relaxed)
        let phone = phoneFolder.repository(durability: .relaxed)
        let rocket = try PhotoID("rocket")
        let coffee = try PhotoID("coffee")
        let onLaptop = laptop.startSyncing(with: folder)
        let onPhone = phone.startSyncing(with: folder)
        // Each session's first sync (a new device each) done before the clock starts.
        var laptopReports = onLaptop.reports.makeAsyncIterator()
        _ = await laptopReports.next()
        var phoneReports = onPhone.reports.makeAsyncIterator()
        _ = await phoneReports.next()
        let reports = Task {
            var merged = 0
            while let report = await phoneReports.next() { merged += report.merged }
            return merged
        }

        // A like on the laptop reaches the phone, and the phone's note reaches the laptop: on a
        // quiet machine in about half a second each (a sync as soon as either side changes,
        // looked for every quarter of a second; the figures are printed). How fast is for the
        // benchmarks; here only a hang fails, since the suites around this one make a sync of a
        // debug build cost seconds.
        try await laptop.like(rocket, image: Samples.rocket)
        let there = try await seconds(within: patienceAgainstHanging) { try await phone.isLiked(rocket) }
        #expect(there != nil, "the phone never had it")
        try await phone.setNote("from the phone", for: rocket)
        let back = try await seconds(within: patienceAgainstHanging) { try await laptop.record(for: rocket)?.note == "from the phone" }
        #expect(back != nil, "the laptop never had it")
        print("sync session: the phone had the laptop's like after \(there ?? -1) s, the laptop the phone's note after \(back ?? -1) s")

        // syncNow publishes at once, without waiting for the look.
        try await phone.like(coffee, image: Samples.coffee)
        onPhone.syncNow()
        #expect(try await seconds(within: patienceAgainstHanging) { try await laptop.isLiked(coffee) } != nil)

        onPhone.stop()
        #expect(await reports.value >= 1, "the phone's reports say what it merged")
        #expect(onPhone.isStopped)
        // Stopped (its reports ended above: its loop is done), the phone no longer follows: the
        // laptop's unlike reaches the folder, and the phone keeps its like.
        try await laptop.unlike(coffee)
        onLaptop.syncNow()
        #expect(await laptopReports.next() != nil, "the laptop published its unlike")
        #expect(try await phone.isLiked(coffee))
        onLaptop.stop()
    }

    @Test func aFailureIsReportedAndTheSessionGoesOnUntilTheFolderIsBack() async throws {
        let phone = phoneFolder.repository(durability: .relaxed)
        let missing = phoneFolder.url.appendingPathComponent("not-yet")
        let session = phone.startSyncing(with: missing)
        var failures = session.failures.makeAsyncIterator()
        let first = await failures.next()
        #expect(first == .syncFolderMissing(path: missing.path))
        // Liked while the folder is missing, then the folder comes: the first sync publishes it.
        try await phone.like(try PhotoID("rocket"), image: Samples.rocket)
        try FileManager.default.createDirectory(at: missing, withIntermediateDirectories: true)
        var reports = session.reports.makeAsyncIterator()
        let report = await reports.next()
        #expect(report?.published == 1, "\(String(describing: report))")
        session.stop()
    }
}

// Power cuts on a real FUSE file system that keeps only what was flushed: the `likes` binary,
// run by Tests/Tools/powercut.py, must lose no acknowledged change and leave a store that
// verifies.

import Foundation
import TestSupport
import Testing

/// Debian's python3 with pyfuse3 (python3-pyfuse3), and a usable /dev/fuse.
enum FUSE {
    static let python = URL(fileURLWithPath: "/usr/bin/python3")
    static let script = Samples.root.appendingPathComponent("Tests/Tools/powercut.py")

    static var isUsable: Bool {
        guard FileManager.default.fileExists(atPath: "/dev/fuse"), FileManager.default.isExecutableFile(atPath: python.path) else {
            return false
        }
        return (try? TemporaryFolder.execute(["-c", "import pyfuse3, trio"], executable: python).status) == 0
    }

    /// In CI the test must run: there a missing FUSE is a failure, not a reason to skip.
    static var isRequired: Bool { isUsable || ProcessInfo.processInfo.environment["CI"] == "true" }

    static func powercut(_ arguments: [String]) throws -> Run {
        try #require(isUsable, "FUSE is not usable here: apt-get install fuse3 python3-pyfuse3, and /dev/fuse must exist")
        return try TemporaryFolder.execute(
            [script.path] + arguments + ["--likes", Binary.url.path, "--samples", Samples.photos.path], executable: python)
    }
}

@Suite(.serialized, .ownLane) struct PowerCutTests {
    /// Every kind of change cut at every third step (`powercut.py steps` cuts at each one, by
    /// hand: CI keeps its time).
    @Test(.enabled(if: FUSE.isRequired, "needs FUSE (fuse3, python3-pyfuse3)"))
    func aCutAtEveryThirdStepOfEveryKindOfChangeLosesNothingAcknowledged() throws {
        let run = try FUSE.powercut(["steps", "--stride", "3"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        // The store on the FUSE mount is flushed file by file: syncfs would reach no FUSE server.
        #expect(run.stdout.contains("store on fuse, flushed with fsync"), "\(run.stdout)")
        for kind in [
            "like into an empty store", "first like", "update with images", "update of the image alone", "unlike", "toggle off",
            "toggle on", "note", "note cleared", "album add", "album remove", "import batch", "purge", "export",
            "export over an earlier one", "restore into an empty store", "restore among newer photos", "restore of camera photos",
            "thumbnails and renditions being made",
        ] {
            #expect(run.stdout.contains("ok   \(kind): "), "no cut run for \(kind): \(run.stdout)")
        }
        #expect(run.stdout.contains("powercut: 23 passed, 0 failed"), "\(run.stdout)")
    }

    /// As on ext4 or xfs: one syncfs per change, its journal line the commit and the rename after
    /// it unflushed; a cut at every fourth step, and one keeping each file's and folder's
    /// unflushed state by a coin (a file system writing back in any order) at the steps between
    /// (every step of the thumbnails' making; the run at every step is made by hand).
    @Test(.enabled(if: FUSE.isRequired, "needs FUSE (fuse3, python3-pyfuse3)"))
    func aCutAtEveryFourthStepWithOneSyncfsPerChangeLosesNothingAcknowledged() throws {
        let run = try FUSE.powercut(["steps", "--flush", "syncfs", "--stride", "4"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("store on fuse, flushed with syncfs"), "\(run.stdout)")
        #expect(run.stdout.contains("ok   update with images: "), "\(run.stdout)")
        #expect(run.stdout.contains("powercut: 23 passed, 0 failed"), "\(run.stdout)")
        // Unflushed, written back in any order: some cuts leave a thumbnail or rendition damaged
        // under its own name, and every reader after them still got whole images.
        let line = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("ok   thumbnails and renditions being made, unflushed: ") })
        let damaged = try #require(line.split(separator: ", ").last?.split(separator: " ").first.flatMap { Int($0) }, "\(line)")
        #expect(damaged > 0, "no cut left a damaged derived file, so reading them after proves nothing: \(line)")
    }

    @Test(.enabled(if: FUSE.isRequired, "needs FUSE (fuse3, python3-pyfuse3)"))
    func cutsAtRandomStepsOfAStreamWithOneSyncfsPerChangeLoseNothingAcknowledged() throws {
        let seed = Int.random(in: 0..<1_000_000)
        let run = try FUSE.powercut(["stream", "--rounds", "30", "--seed", "\(seed)", "--flush", "syncfs"])
        #expect(run.status == 0, "seed \(seed): \(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains(", 0 photos lost or torn"), "seed \(seed): \(run.stdout)")
        #expect(run.stdout.contains("powercut: 30 passed, 0 failed"), "seed \(seed): \(run.stdout)")
    }

    @Test(.enabled(if: FUSE.isRequired, "needs FUSE (fuse3, python3-pyfuse3)"))
    func cutsAtRandomStepsOfAStreamOfCommandsLoseNothingAcknowledged() throws {
        let seed = Int.random(in: 0..<1_000_000)
        let run = try FUSE.powercut(["stream", "--rounds", "30", "--seed", "\(seed)"])
        #expect(run.status == 0, "seed \(seed): \(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains(", 0 photos lost or torn"), "seed \(seed): \(run.stdout)")
        #expect(run.stdout.contains("powercut: 30 passed, 0 failed"), "seed \(seed): \(run.stdout)")
    }

    /// `likes sync` cut at every third step, the store and the sync folder on the power-cut file
    /// system: nothing acknowledged lost on either device, the next sync recovers, and the folder
    /// still gives every device the same collection (`powercut.py sync` cuts at each step, by hand).
    @Test(.enabled(if: FUSE.isRequired, "needs FUSE (fuse3, python3-pyfuse3)"))
    func aCutAtEveryThirdStepOfASyncLosesNothingOnAnyDevice() throws {
        let run = try FUSE.powercut(["sync", "--stride", "3"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        for kind in [
            "first sync of a store", "sync publishing a like and a note", "sync merging another device's likes, note and unlike",
            "sync merging another device's user images and album memberships",
            "sync letting go of images and compacting its change files",
        ] {
            #expect(run.stdout.contains("ok   \(kind): "), "no cut run for \(kind): \(run.stdout)")
        }
        #expect(run.stdout.contains("powercut: 5 passed, 0 failed"), "\(run.stdout)")
    }
}

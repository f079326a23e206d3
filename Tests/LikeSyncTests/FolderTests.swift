// The sync folder as a carrying program leaves it: change files written whole and read back,
// and everything else such a program puts beside them (its temporary files, conflict copies,
// files cut short or still arriving, a newer format) ignored, pending or named, never merged.

import Foundation
import LikeSync
import TestSupport
import Testing

extension TemporaryFolder {
    /// A sync folder at the folder's path.
    var folder: SyncFolder { SyncFolder(path: url.path) }
}

let deviceA = "a000000000000001"
let deviceB = "b000000000000002"

func jpegLike(_ seed: UInt8, count: Int = 3_000) -> [UInt8] {
    [0xFF, 0xD8] + (0..<count).map { UInt8(truncatingIfNeeded: Int($0) &* 31 &+ Int(seed)) } + [0xFF, 0xD9]
}

func like(_ id: String, _ bytes: [UInt8], device: String, at milliseconds: Int64, note: String? = nil) -> SyncChange {
    SyncChange(
        id: id, stamp: Stamp(milliseconds: milliseconds, counter: 0, device: device), kind: .like, likedAt: milliseconds,
        image: ImageReference(sha256: SyncFolder.digest(bytes), bytes: bytes.count), note: .some(note))
}

@Suite(.ownLane) struct FolderTests {
    @Test func publishedChangesAndImagesReadBackWhole() throws {
        let box = TemporaryFolder()
        let rocket = jpegLike(1)
        let coffee = jpegLike(2)
        let first = [like("rocket", rocket, device: deviceA, at: 10, note: "launch"), like("coffee", coffee, device: deviceA, at: 11)]
        try box.folder.publish(
            device: deviceA, name: "laptop", sequence: 1, changes: first, images: [first[0].image!.sha256: rocket, first[1].image!.sha256: coffee])
        let second = [SyncChange(id: "rocket", stamp: Stamp(milliseconds: 20, counter: 0, device: deviceB), kind: .unlike)]
        try box.folder.publish(device: deviceB, name: "phone", sequence: 1, changes: second, images: [:])

        let scan = try box.folder.scan(merged: MergedFiles())
        #expect(scan.devices == [deviceA: "laptop", deviceB: "phone"])
        #expect(
            scan.segments == [
                ChangeSegment(device: deviceA, sequence: 1, changes: first), ChangeSegment(device: deviceB, sequence: 1, changes: second),
            ])
        #expect(scan.pending.isEmpty && scan.newer.isEmpty)
        #expect(box.folder.image(first[0].image!, devices: [deviceB, deviceA]) == rocket)
        // Merged already: not read again.
        #expect(try box.folder.scan(merged: MergedFiles([deviceA: [1], deviceB: [1]])).segments.isEmpty)
        // The files: only under each device's own id, no temporary name left.
        #expect(
            box.files()
                == [
                    "\(deviceA)/changes-00000001.jsonl", "\(deviceA)/device.json", "\(deviceA)/images/\(first[1].image!.sha256).jpg",
                    "\(deviceA)/images/\(first[0].image!.sha256).jpg", "\(deviceB)/changes-00000001.jsonl", "\(deviceB)/device.json",
                ].sorted())
    }

    @Test func whatTheCarryingProgramLeavesIsIgnored() throws {
        let box = TemporaryFolder()
        let bytes = jpegLike(3)
        let change = like("cat", bytes, device: deviceA, at: 5)
        try box.folder.publish(device: deviceA, name: "laptop", sequence: 1, changes: [change], images: [change.image!.sha256: bytes])
        let garbage = Data("not a change file\n".utf8)
        let whole = try Data(contentsOf: box.url.appendingPathComponent("\(deviceA)/changes-00000001.jsonl"))
        for name in [
            ".stfolder/.keep", ".stignore", "~syncthing~notes.tmp", "\(deviceA)/.syncthing.changes-00000002.jsonl.tmp",
            "\(deviceA)/changes-00000001.sync-conflict-20261125-101010-ABCDEFG.jsonl",
            "\(deviceA)/changes-00000001 (conflicted copy 2026-11-25).jsonl",
            "\(deviceA)/changes-00000003.jsonl.part", "\(deviceA)/changes-3.jsonl",
            "\(deviceA).sync-conflict-20261125-101010-ABCDEFG/changes-00000001.jsonl",
            "A000000000000001/changes-00000001.jsonl", "notes.txt", "\(deviceA)/.likes-0123456789abcdef.tmp",
        ] {
            box.file(name, name.contains("conflict") ? whole : garbage)
        }
        let scan = try box.folder.scan(merged: MergedFiles())
        #expect(scan.segments == [ChangeSegment(device: deviceA, sequence: 1, changes: [change])])
        #expect(scan.pending.isEmpty && scan.newer.isEmpty, "\(scan.pending) \(scan.newer)")
    }

    /// A change file at every length short of whole: pending and named, never merged, never a
    /// crash; whole again, it reads.
    @Test func aChangeFileCutShortOrStillArrivingIsPendingUntilWhole() throws {
        let box = TemporaryFolder()
        let bytes = jpegLike(4)
        let changes = [like("a", bytes, device: deviceA, at: 1, note: "x"), like("b", bytes, device: deviceA, at: 2)]
        let whole = try SyncFolder.encode(device: deviceA, sequence: 1, changes: changes)
        for length in 0..<whole.count {
            #expect(
                SyncFolder.decode(Array(whole[..<length]), device: deviceA, sequence: 1)
                    != .whole(ChangeSegment(device: deviceA, sequence: 1, changes: changes)) || length == whole.count, "\(length)")
            if case .whole = SyncFolder.decode(Array(whole[..<length]), device: deviceA, sequence: 1) {
                Issue.record("cut at \(length) read as whole")
            }
        }
        // Zero-filled where the rest has not arrived, as some programs leave a file.
        var zeros = whole
        for index in (whole.count / 2)..<whole.count { zeros[index] = 0 }
        if case .whole = SyncFolder.decode(zeros, device: deviceA, sequence: 1) { Issue.record("a zero-filled file read as whole") }
        box.file("\(deviceA)/changes-00000001.jsonl", Data(whole[..<(whole.count - 9)]))
        let cut = try box.folder.scan(merged: MergedFiles())
        #expect(cut.segments.isEmpty && cut.pending.map(\.id) == ["\(deviceA)/changes-00000001.jsonl"])
        box.file("\(deviceA)/changes-00000001.jsonl", Data(whole))
        #expect(try box.folder.scan(merged: MergedFiles()).segments == [ChangeSegment(device: deviceA, sequence: 1, changes: changes)])
    }

    @Test func anImageIsTakenOnlyWholeAndAsNamed() throws {
        let box = TemporaryFolder()
        let bytes = jpegLike(5)
        let reference = ImageReference(sha256: SyncFolder.digest(bytes), bytes: bytes.count)
        let path = "\(deviceB)/images/\(reference.sha256).jpg"
        #expect(box.folder.image(reference, devices: [deviceB]) == nil)
        box.file(path, Data(bytes[..<1_000]))
        #expect(box.folder.image(reference, devices: [deviceB]) == nil)
        var changed = bytes
        changed[500] ^= 0xFF
        box.file(path, Data(changed))
        #expect(box.folder.image(reference, devices: [deviceB]) == nil)
        try FileManager.default.removeItem(atPath: box.path(path))
        try FileManager.default.createSymbolicLink(atPath: box.path(path), withDestinationPath: box.file("outside.jpg", Data(bytes)))
        #expect(box.folder.image(reference, devices: [deviceB]) == nil)
        try FileManager.default.removeItem(atPath: box.path(path))
        box.file(path, Data(bytes))
        #expect(box.folder.image(reference, devices: [deviceA, deviceB]) == bytes)
    }

    @Test func aNewerFormatIsNamedAndSkippedAndAForeignLineIsRefused() throws {
        let box = TemporaryFolder()
        var newer = Array("{\"count\":0,\"device\":\"\(deviceA)\",\"format\":2,\"sequence\":1}\n".utf8)
        newer += Array("{\"sha256\":\"\(SyncFolder.digest(newer))\"}\n".utf8)
        box.file("\(deviceA)/changes-00000001.jsonl", Data(newer))
        // A device's file holding a change stamped by another device: a copy, never merged.
        let bytes = jpegLike(6)
        let foreign = try SyncFolder.encode(device: deviceB, sequence: 1, changes: [like("x", bytes, device: deviceA, at: 3)])
        box.file("\(deviceB)/changes-00000001.jsonl", Data(foreign))
        let scan = try box.folder.scan(merged: MergedFiles())
        #expect(scan.segments.isEmpty)
        #expect(scan.newer.map(\.id) == ["\(deviceA)/changes-00000001.jsonl"] && scan.newer[0].reason.contains("format 2"))
        #expect(scan.pending.map(\.id) == ["\(deviceB)/changes-00000001.jsonl"])
    }

    @Test func aMissingFolderIsNamedAndAnEmptyOneHoldsNothing() throws {
        let box = TemporaryFolder()
        #expect(throws: FolderError.missing(box.path("nowhere"))) { try SyncFolder(path: box.path("nowhere")).scan(merged: MergedFiles()) }
        let scan = try box.folder.scan(merged: MergedFiles())
        #expect(scan.segments.isEmpty && scan.devices.isEmpty && scan.pending.isEmpty)
    }
}

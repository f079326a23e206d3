// Where one syncfs flushes a change, its journal line is its commit and the rename after it is
// not flushed: a power cut may leave the line on disk without the rename (or the removal of an
// unlike), and the next change's line may reach the disk without its own flush. These tests build
// those states on a real file system and check that the next reader or writer finishes what was
// flushed and takes back what was not, and that the journal's length is noted on the journal
// file itself.

import Foundation
import LikeKit
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct PendingCommitTests {
    let folder = TemporaryFolder()

    /// A repository flushing with one syncfs per change whose writer stops before the step that
    /// starts with `step` (counted on a run of the same operation on a copy), as a power cut
    /// right after the flush would leave it: files and lines written, nothing after.
    func stopping(before step: String, _ operation: (LikeRepository) throws -> Void) throws {
        let counting = TemporaryFolder("counting")
        try FileManager.default.copyItem(at: folder.store, to: counting.store)
        let counter = FaultInjector(flushStrategy: .wholeFileSystem)
        try operation(counting.repository(faults: counter))
        let index = try #require(counter.steps.firstIndex { $0.hasPrefix(step) }, "no step \(step) in \(counter.steps)")
        #expect(counter.steps[..<index].contains("syncfs"), "the flush comes before \(step): \(counter.steps)")
        let faults = FaultInjector(.crash(after: index), flushStrategy: .wholeFileSystem)
        #expect(throws: (any Error).self) { try operation(folder.repository(faults: faults)) }
    }

    var recordNames: [String] { folder.files(under: "store/records") }
    var journal: String { (try? String(contentsOf: folder.store.appendingPathComponent("likes.journal"), encoding: .utf8)) ?? "" }

    @Test func aLikeWhoseRenameWasLostIsFinishedByTheFirstReader() throws {
        try folder.repository().like(PhotoID(valid: "old"), image: Samples.coffee)
        let id = PhotoID(valid: "new")
        try stopping(before: "rename") { try $0.like(id, image: Samples.rocket, note: "kept") }
        #expect(recordNames.contains { $0.hasPrefix("new~") && $0.hasSuffix(".tmp") })
        #expect(!recordNames.contains("new.json"))

        // A reader, first after the cut: it finishes the like under the lock, then reads.
        let reader = folder.repository()
        #expect(try reader.list().records.map(\.id) == [id, PhotoID(valid: "old")])
        #expect(try reader.record(for: id)?.note == "kept")
        #expect(recordNames == ["new.json", "old.json"])
        #expect(try reader.verify() == VerificationReport(problems: [], orphans: []))
        #expect(!journal.contains("\nA "), "nothing was taken back")
    }

    /// A repository keeps the journal it found settled and skips the look at its last lines
    /// while the journal is the same: a cut after its last read is still finished by its next.
    @Test func aReaderThatReadBeforeTheCutStillFinishesTheLikeAtItsNextRead() throws {
        try folder.repository().like(PhotoID(valid: "old"), image: Samples.coffee)
        let reader = folder.repository()
        #expect(try reader.list().records.map(\.id) == [PhotoID(valid: "old")])
        #expect(try reader.record(for: PhotoID(valid: "old")) != nil)
        let id = PhotoID(valid: "new")
        try stopping(before: "rename") { try $0.like(id, image: Samples.rocket, note: "kept") }
        #expect(!recordNames.contains("new.json"))

        #expect(try reader.list().records.map(\.id) == [id, PhotoID(valid: "old")])
        #expect(try reader.record(for: id)?.note == "kept")
        #expect(recordNames == ["new.json", "old.json"])
    }

    /// A repository's write session skips the look at the journal's end while the journal is as
    /// its own last session left it: another's cut after that is still finished by its next change.
    @Test func aWriterThatWroteBeforeTheCutStillFinishesTheLikeAtItsNextChange() throws {
        let writer = folder.repository()
        try writer.like(PhotoID(valid: "old"), image: Samples.coffee)
        try writer.like(PhotoID(valid: "older"), image: Samples.chelsea)
        let id = PhotoID(valid: "new")
        try stopping(before: "rename") { try $0.like(id, image: Samples.rocket, note: "kept") }
        #expect(!recordNames.contains("new.json"))

        try writer.like(PhotoID(valid: "after"), image: Samples.coffee)
        #expect(recordNames == ["after.json", "new.json", "old.json", "older.json"])
        #expect(try writer.record(for: id)?.note == "kept")
        #expect(try writer.list().records.map(\.id.rawValue) == ["after", "new", "older", "old"])
        #expect(try writer.verify() == VerificationReport(problems: [], orphans: []))
        #expect(!journal.contains("\nA "), "nothing was taken back")
    }

    @Test func anUpdateWhoseRenameWasLostIsFinishedByTheNextWriterAndItsOldImageRemoved() throws {
        let id = PhotoID(valid: "photo")
        let first = try folder.repository().like(id, image: Samples.coffee, note: "first")
        let oldImage = try #require(first.record?.image.file)
        try stopping(before: "rename") { try $0.like(id, image: Samples.rocket, note: "second") }
        #expect(FileManager.default.fileExists(atPath: oldImage.path), "the old image stays until the rename")

        let writer = folder.repository()
        try writer.like(PhotoID(valid: "another"), image: Samples.chelsea)
        let record = try #require(try writer.record(for: id))
        #expect(record.note == "second")
        #expect(try Data(contentsOf: record.image.file) == Samples.rocket)
        #expect(!FileManager.default.fileExists(atPath: oldImage.path), "the image the update replaced is removed")
        #expect(try writer.verify() == VerificationReport(problems: [], orphans: []))
    }

    @Test func anUnlikeWhoseRemovalWasLostIsFinished() throws {
        let id = PhotoID(valid: "gone")
        try folder.repository().like(PhotoID(valid: "stays"), image: Samples.coffee)
        let liked = try folder.repository().like(id, image: Samples.rocket, userImage: Samples.chelsea)
        try stopping(before: "remove") { try $0.unlike(id) }
        #expect(recordNames.contains("gone.json"))

        let reader = folder.repository()
        #expect(try reader.list().records.map(\.id) == [PhotoID(valid: "stays")])
        #expect(!recordNames.contains("gone.json"))
        for file in [liked.record?.image.file, liked.record?.userImage?.file].compactMap(\.self) {
            #expect(!FileManager.default.fileExists(atPath: file.path), "\(file.lastPathComponent) went with its photo")
        }
        #expect(try reader.verify() == VerificationReport(problems: [], orphans: []))
    }

    /// The like before the cut was flushed but its rename lost; the like after it wrote its line
    /// (written back early) but neither its record nor its image reached the disk.
    @Test func theLineBeforeAnUnflushedLastLineIsFinishedAndTheLastTakenBack() throws {
        try folder.repository().like(PhotoID(valid: "old"), image: Samples.coffee)
        try stopping(before: "rename") { try $0.like(PhotoID(valid: "flushed"), image: Samples.rocket) }
        let lines = journal.split(separator: "\n")
        let flushedLine = try #require(lines.last)
        // The next like's line, as its writer would have appended it, with nothing behind it.
        var fields = flushedLine.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        fields[1] = String(Int64(fields[1])! + 1)
        fields[2] = "0123456789ab"
        fields[4] = "0123456789ab"
        fields[6] = "lost"
        fields[8] = "lost"
        let handle = try FileHandle(forWritingTo: folder.store.appendingPathComponent("likes.journal"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((fields.joined(separator: " ") + "\n").utf8))
        try handle.close()

        let reader = folder.repository()
        #expect(try reader.list().records.map(\.id.rawValue) == ["flushed", "old"])
        #expect(!journal.contains("\nA "), "a reader takes nothing back")
        // A writer takes the last line back, and the store verifies.
        try reader.like(PhotoID(valid: "after"), image: Samples.chelsea)
        #expect(journal.contains("\nA "))
        #expect(try reader.list().records.map(\.id.rawValue) == ["after", "flushed", "old"])
        #expect(try reader.verify() == VerificationReport(problems: [], orphans: []))
    }

    @Test func aLikeWhoseImageDidNotReachTheDiskIsTakenBack() throws {
        try folder.repository().like(PhotoID(valid: "old"), image: Samples.coffee)
        let change = try folder.repository().like(PhotoID(valid: "cut"), image: Samples.rocket)
        let image = try #require(change.record?.image.file)
        // As if the cut came before the flush and only part of the image was written back: the
        // like's record goes back to its temporary name, its image is cut short.
        // A first like's record and image share their generation: cut~GEN.jpg.
        let generation = try #require(change.record?.image.file.lastPathComponent.dropFirst(4).prefix(12))
        try FileManager.default.moveItem(
            at: folder.store.appendingPathComponent("records/cut.json"), to: folder.store.appendingPathComponent("records/cut~\(generation).tmp"))
        try Data(Samples.rocket.prefix(1000)).write(to: image)

        let writer = folder.repository()
        #expect(try writer.list().records.map(\.id.rawValue) == ["old"])
        try writer.like(PhotoID(valid: "next"), image: Samples.chelsea)
        #expect(journal.split(separator: "\n").contains { $0.hasPrefix("A ") })
        #expect(try writer.list().records.map(\.id.rawValue) == ["next", "old"])
        try writer.purge()
        #expect(try writer.verify() == VerificationReport(problems: [], orphans: []))
    }

    @Test func theJournalsLengthIsNotedOnItAndACutIsFoundWithoutTheLockFile() throws {
        let repository = folder.repository()
        for index in 0..<3 { try repository.like(PhotoID(valid: "p\(index)"), image: Samples.jpeg(seed: index)) }
        let path = folder.store.appendingPathComponent("likes.journal").path
        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let noted = Platform.attribute(fd, Platform.journalLengthAttribute, capacity: 24)
        try #require(noted != nil, "this file system keeps no extended attributes")
        #expect(noted.map { String(decoding: $0, as: UTF8.self) } == String(size))
        // The lock file carries no note of this journal's length past its rewrite.
        try Data().write(to: folder.store.appendingPathComponent("likes.lock"))
        #expect(truncate(path, off_t(size - 10)) == 0)
        let listing = try repository.list()
        #expect(listing.damage.first?.hasPrefix("The index likes.journal was cut short (\(size - 10) of \(size) bytes)") == true)
    }
}

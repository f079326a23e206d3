// likes.newest against the journal file it was written for: believed while the journal holds the
// lines it saw, not once the journal lost lines and had others written in their place (as a disk
// pulled out without a new boot may leave it), even though it is the same file, header and length.

import Foundation
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct NewestLinesFileTests {
    private static func line(_ operation: JournalLine.Operation, _ key: String, _ number: Int, at: Int64) -> JournalLine {
        let text = String(number, radix: 16)
        let generation = String(repeating: "0", count: Generation.length - text.count) + text
        return JournalLine(
            operation: operation, at: at, generation: generation, bytes: operation == .unliked ? 0 : 10, imageGeneration: generation,
            userImageGeneration: nil, key: key, id: operation == .unliked ? key : nil)
    }

    /// The file for the journal in `directory` as it is now, opened as a walk opens it.
    private static func opened(_ directory: StoreDirectory) throws -> NewestLines.Mapped? {
        let file = try #require(try directory.openForReading(StoreLayout.journalFileName))
        file.mayMap = true
        return try file.withMappedBytes { NewestLines.Mapped.open(in: directory, journal: $0, inode: file.inode) } ?? nil
    }

    @Test func aJournalThatLostItsLastLinesAndGrewOthersIsNotTheOneTheFileDescribes() throws {
        let folder = TemporaryFolder()
        let directory = try #require(try StoreDirectory.open(path: folder.url.path, faults: nil))
        let header = JournalLine.header(at: 1, snapshotLines: 0)
        let likes = (0..<20).map { Self.line(.liked, "p\($0)", $0 + 1, at: Int64(10 + $0)) }
        let kept = likes + [Self.line(.updated, "p3", 100, at: 40)]
        let lost = [Self.line(.updated, "p5", 101, at: 41), Self.line(.updated, "p6", 102, at: 42)]
        let journal = folder.url.appendingPathComponent(StoreLayout.journalFileName)
        try Data(([header] + kept + lost).flatMap(\.encoded)).write(to: journal)
        let reader = try #require(try Journal(root: directory).reader(records: nil, mapped: true))
        let file = try #require(reader.source as? StoreDirectory.OpenFile)
        _ = try file.withMappedBytes { NewestLines.write(in: directory, reader: reader, journal: $0, inode: file.inode, previous: nil) }
        let written = try #require(try Self.opened(directory))
        #expect(written.likeCount == 20)
        #expect(written.covered == ([header] + kept + lost).flatMap(\.encoded).count)

        // The same file: its last two lines lost, and another written after them, padded with
        // newlines so that a line ends at covered again.
        var regrown = ([header] + kept + [Self.line(.updated, "p7", 103, at: 41)]).flatMap(\.encoded)
        try #require(regrown.count < written.covered)
        regrown += [UInt8](repeating: 0x0A, count: written.covered - regrown.count) + Self.line(.updated, "p8", 104, at: 42).encoded
        let handle = try FileHandle(forUpdating: journal)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(regrown))
        try handle.close()
        #expect(try directory.entry(StoreLayout.journalFileName)?.inode == file.inode)
        #expect(try Self.opened(directory) == nil)

        // The lines it saw, back in place: believed again.
        let again = try FileHandle(forUpdating: journal)
        try again.truncate(atOffset: 0)
        try again.write(contentsOf: Data(([header] + kept + lost).flatMap(\.encoded)))
        try again.close()
        #expect(try directory.entry(StoreLayout.journalFileName)?.inode == file.inode)
        #expect(try Self.opened(directory) != nil)
    }
}

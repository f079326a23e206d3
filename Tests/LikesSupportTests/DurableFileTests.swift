// The one durable whole-file write: a reader finds the old file or the new one, a failure at any
// step leaves the old one and no temporary file, and a torn write never reaches the name.

import Foundation
import LikesSupport
import TestSupport
import Testing

@Suite(.ownLane) struct DurableFileTests {
    /// Opens the folder, runs `body` with its descriptor, and closes it.
    func withFolder<Result>(_ folder: TemporaryFolder, _ body: (Int32) throws -> Result) throws -> Result {
        let descriptor = open(folder.url.path, O_RDONLY | O_DIRECTORY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        return try body(descriptor)
    }

    func replace(_ text: String, in folder: TemporaryFolder, step: (DurableFile.Step) throws -> Bool = { _ in false }) throws {
        try withFolder(folder) { directory in
            try Array(text.utf8).withUnsafeBytes { bytes in
                try DurableFile.replace(
                    "note.txt", in: directory, displayPath: folder.url.path, with: bytes, temporary: ".note.tmp",
                    flushFile: { FileFlush.fullSync($0) }, flushFolder: { FileFlush.fullSync($0) }, step: step)
            }
        }
    }

    @Test func theFileIsReplacedWholeThroughEveryStepInOrder() throws {
        let folder = TemporaryFolder()
        folder.file("note.txt", Data("old".utf8))
        var steps: [DurableFile.Step] = []
        try replace("new and longer", in: folder) { step in
            steps.append(step)
            return false
        }
        #expect(try String(contentsOfFile: folder.path("note.txt"), encoding: .utf8) == "new and longer")
        #expect(folder.files() == ["note.txt"])
        #expect(
            steps == [
                .create(temporary: ".note.tmp"), .write(temporary: ".note.tmp"), .flush(temporary: ".note.tmp"),
                .rename(temporary: ".note.tmp", name: "note.txt"), .flushFolder,
            ])
    }

    struct Stop: Error {}

    /// A failure before the rename, at each step in turn, leaves the old file and nothing else.
    @Test(arguments: 0..<4)
    func aFailureBeforeTheRenameLeavesTheOldFileAlone(failingAt index: Int) throws {
        let folder = TemporaryFolder("failure-\(index)")
        folder.file("note.txt", Data("old".utf8))
        var count = 0
        #expect(throws: Stop.self) {
            try replace("new", in: folder) { _ in
                defer { count += 1 }
                if count == index { throw Stop() }
                return false
            }
        }
        #expect(try String(contentsOfFile: folder.path("note.txt"), encoding: .utf8) == "old")
        #expect(folder.files() == ["note.txt"])
    }

    @Test func aTornWriteNeverReachesTheName() throws {
        let folder = TemporaryFolder()
        folder.file("note.txt", Data("old".utf8))
        #expect(throws: DurableFile.TornWrite.self) {
            try replace("twelve bytes", in: folder) { step in
                if case .write = step { return true }
                return false
            }
        }
        #expect(try String(contentsOfFile: folder.path("note.txt"), encoding: .utf8) == "old")
        #expect(folder.files() == ["note.txt"])
    }

    @Test func aTemporaryNameAlreadyTakenIsRefusedAndLeftAlone() throws {
        let folder = TemporaryFolder()
        folder.file(".note.tmp", Data("someone else's".utf8))
        do {
            try replace("new", in: folder)
            Issue.record("a taken temporary name was written over")
        } catch let failure as FileStepFailure {
            #expect(failure == FileStepFailure(action: "create", path: folder.url.path + "/.note.tmp", code: EEXIST))
        }
        #expect(try String(contentsOfFile: folder.path(".note.tmp"), encoding: .utf8) == "someone else's")
        #expect(!FileManager.default.fileExists(atPath: folder.path("note.txt")))
    }
}

@Suite(.ownLane) struct StampedPartTests {
    @Test(arguments: ["Trip", "Été", "a,b%", "🐈 cats", ""])
    func anAlbumsPartNamesItBack(name: String) {
        let part = StampedPart.album(name)
        #expect(part.hasPrefix("album:"))
        #expect(StampedPart.albumName(ofPart: part) == name)
    }

    @Test(arguments: ["note", "album:6", "album:zz", "album:ff", "like@12"])
    func otherPartsNameNoAlbum(part: String) {
        #expect(StampedPart.albumName(ofPart: part) == nil)
    }
}

// The store's side of LikesSupport's shared pieces: its whole-file replacement steps are the
// fault injector's steps (so the power-cut tests break each one), and its record fields are the
// parts the sync merge stamps.

import Foundation
import LikeStore
import LikesSupport
import TestSupport
import Testing

@Suite(.ownLane) struct StoreFilesTests {
    @Test func aReplacedFileTakesTheStepsAFaultInjectorBreaks() throws {
        let folder = TemporaryFolder()
        let faults = FaultInjector()
        let directory = try #require(try StoreDirectory.open(path: folder.url.path, faults: faults))
        try Array("budget".utf8).withUnsafeBytes {
            try directory.replaceFile("budget", bytes: $0, temporary: "budget.tmp", durable: true, flushFolder: true)
        }
        let last = folder.url.lastPathComponent
        #expect(faults.steps == ["create budget.tmp", "write budget.tmp", "sync budget.tmp", "rename budget.tmp budget", "sync \(last)/"])
        #expect(folder.files() == ["budget"])
    }

    /// A crash at each step leaves the old file whole; a crash in the write leaves the torn
    /// temporary file (as a real one would), never a torn `budget`.
    @Test(arguments: 0..<5)
    func aCrashAtAnyStepLeavesTheOldFileOrTheNew(after steps: Int) throws {
        let folder = TemporaryFolder("crash-\(steps)")
        folder.file("budget", Data("old".utf8))
        let directory = try #require(try StoreDirectory.open(path: folder.url.path, faults: FaultInjector(.crash(after: steps))))
        #expect(throws: (any Error).self) {
            try Array("the new budget".utf8).withUnsafeBytes {
                try directory.replaceFile("budget", bytes: $0, temporary: "budget.tmp", durable: true, flushFolder: true)
            }
        }
        let now = try String(contentsOfFile: folder.path("budget"), encoding: .utf8)
        #expect(now == (steps >= 4 ? "the new budget" : "old"))
    }

    @Test func theRecordFieldsAreThePartsSyncStamps() {
        #expect(RecordField.allCases.map(\.rawValue) == StampedPart.fields)
        #expect(RecordStamps.parts == StampedPart.all)
    }
}

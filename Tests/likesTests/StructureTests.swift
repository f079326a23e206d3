// The structural rules CI checks (.ci/structure.py): they hold on the tree as it is, and each
// breaks on a change that plants what they forbid, in a copy of the package.

import Foundation
import TestSupport
import Testing

@Suite(Needs.python3, .ownLane) struct StructureTests {
    static let script = Samples.root.appendingPathComponent(".ci/structure.py")

    /// A copy of Package.swift and Sources/ in a folder of the test's own.
    func copy() throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        for name in ["Package.swift", "Sources"] {
            try FileManager.default.copyItem(at: Samples.root.appendingPathComponent(name), to: folder.url.appendingPathComponent(name))
        }
        return folder
    }

    /// A copy that also holds Tests/, for the rules on tests.
    func copyWithTests() throws -> TemporaryFolder {
        let folder = try copy()
        try FileManager.default.copyItem(at: Samples.root.appendingPathComponent("Tests"), to: folder.url.appendingPathComponent("Tests"))
        return folder
    }

    func check(_ folder: TemporaryFolder) throws -> Run {
        try TemporaryFolder.execute([Self.script.path, folder.url.path], executable: URL(fileURLWithPath: "/usr/bin/python3"))
    }

    func append(_ text: String, to relative: String, in folder: TemporaryFolder) throws {
        let url = folder.url.appendingPathComponent(relative)
        try (try String(contentsOf: url, encoding: .utf8) + text).write(to: url, atomically: true, encoding: .utf8)
    }

    @Test func theTreeKeepsTheRules() throws {
        let run = try check(try copy())
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    }

    @Test func aForceUnwrapWithoutAReasonFails() throws {
        let folder = try copy()
        try append(
            """

            func planted(_ values: [Int]) -> Int {
                let words = "a ! b!"  // a string's ! is not code
                return values.first! + words.count
            }

            func reasoned(_ values: [Int]) -> Int {
                values.first!  // unwrap: the caller passes one value at least
            }

            """, to: "Sources/LikesSupport/Locked.swift", in: folder)
        let run = try check(folder)
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("Sources/LikesSupport/Locked.swift:"), "\(run.stdout)")
        #expect(run.stdout.contains("a force unwrap without a reason"))
    }

    @Test func aLongFunctionWithoutAReasonFails() throws {
        let folder = try copy()
        let body = (0..<61).map { "    total += \($0)" }.joined(separator: "\n")
        try append(
            "\nfunc plantedLong() -> Int {\n    var total = 0\n\(body)\n    return total\n}\n", to: "Sources/LikesSupport/Locked.swift",
            in: folder)
        let run = try check(folder)
        #expect(run.status == 1)
        #expect(run.stdout.contains("plantedLong is 65 lines, over 60"), "\(run.stdout)")
        // Given a reason, the same function passes.
        let url = folder.url.appendingPathComponent("Sources/LikesSupport/Locked.swift")
        let text = try String(contentsOf: url, encoding: .utf8)
        try text.replacingOccurrences(of: "\nfunc plantedLong", with: "\n// long: a table written out\nfunc plantedLong")
            .write(to: url, atomically: true, encoding: .utf8)
        #expect(try check(folder).status == 0)
    }

    /// The lane is what the rule says it is: a synchronous test of a suite that has the trait
    /// runs on one of its threads, not on one of the cooperative pool's.
    @Test func aSynchronousTestOnTheLaneRunsOnTheLanesThreads() throws {
        guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
        #expect(TestLane.shared.isCurrent)
    }

    @Test func aTestableImportAndASynchronousTestOffTheLaneFail() throws {
        let folder = try copyWithTests()
        let url = folder.url.appendingPathComponent("Tests/LikeSyncTests/MergeTests.swift")
        let text = try String(contentsOf: url, encoding: .utf8)
        try text.replacingOccurrences(of: "\nimport LikeSync\n", with: "\n@testable import LikeSync\n")
            .replacingOccurrences(of: "@Suite(.ownLane) struct MergeTests", with: "@Suite struct MergeTests")
            .write(to: url, atomically: true, encoding: .utf8)
        let run = try check(folder)
        #expect(run.status == 1)
        #expect(run.stdout.contains("Tests/LikeSyncTests/MergeTests.swift:5: a @testable import of LikeSync"), "\(run.stdout)")
        #expect(run.stdout.contains("would hold a thread of the cooperative pool"), "\(run.stdout)")
        #expect(!run.stdout.split(separator: "\n").contains { !$0.hasPrefix("Tests/LikeSyncTests/MergeTests.swift:") }, "\(run.stdout)")
    }

    @Test func anImportPackageSwiftDoesNotDeclareFails() throws {
        let folder = try copy()
        let url = folder.url.appendingPathComponent("Sources/LikeSync/Stamp.swift")
        try ("import LikeStore\n" + (try String(contentsOf: url, encoding: .utf8))).write(to: url, atomically: true, encoding: .utf8)
        let run = try check(folder)
        #expect(run.status == 1)
        #expect(run.stdout.contains("Sources/LikeSync/Stamp.swift:1: imports LikeStore, which Package.swift does not list"), "\(run.stdout)")
    }
}

// One list of a store's files: StoreLayout.topLevelNames, which repair sorts the store's top by.
// The lists a reader meets (StoreLayout's own comment, docs/design.md, and the DocC article
// *Design*, which names a part of them) are held to it, so that none of them forgets a file the
// code keeps or names one it does not.

import Foundation
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct StoreFilesListTests {
    /// The repository's root: three folders above this file.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The top-level names of the first code block after `marker` in the file at `path` (each
    /// line's first word; names before a `/` are folders; `a, b` are two), with `prefix` taken off
    /// each line first.
    static func listedNames(in path: String, after marker: String, prefix: String = "") throws -> Set<String> {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : String(line)
        }
        let start = try #require(lines.firstIndex { $0.contains(marker) }, "\(path) has \"\(marker)\"")
        let open = try #require(lines[start...].firstIndex { $0.hasPrefix("```") })
        let close = try #require(lines[(open + 1)...].firstIndex { $0.hasPrefix("```") })
        var names: Set<String> = []
        for line in lines[(open + 1)..<close] {
            // The first word, and the next while a word ends with a comma.
            for word in line.split(separator: " ") {
                let entry = word.hasSuffix(",") ? word.dropLast() : word
                if let name = entry.split(separator: "/").first { names.insert(String(name)) }
                if !word.hasSuffix(",") { break }
            }
        }
        return names
    }

    @Test func everyListOfTheStoresFilesIsTheCodesList() throws {
        let code = Set(StoreLayout.topLevelNames.keys)
        #expect(code.count == StoreLayout.topLevelNames.count)
        let comment = try Self.listedNames(in: "Sources/LikeStore/StoreLayout.swift", after: "The files of a store", prefix: "/// ")
        #expect(comment == code, "StoreLayout's comment lacks \(code.subtracting(comment).sorted()), names \(comment.subtracting(code).sorted())")
        let design = try Self.listedNames(in: "docs/design.md", after: "A store is one directory")
        #expect(design == code, "docs/design.md lacks \(code.subtracting(design).sorted()), names \(design.subtracting(code).sorted())")
        // The article names what an app relies on: a part of the list, nothing outside it.
        let article = try Self.listedNames(in: "Sources/LikeKit/LikeKit.docc/Design.md", after: "A store is one directory")
        #expect(!article.isEmpty && article.isSubset(of: code), "the article names \(article.subtracting(code).sorted())")
        // The files among them are the ones purge and verify pass over as the store's own.
        #expect(StoreLayout.bookkeepingFiles == Set(StoreLayout.topLevelNames.filter { !$0.value }.keys))
        #expect(StoreLayout.bookkeepingFiles.contains(TakenOrder.fileName) && StoreLayout.topLevelNames[StoreLayout.recordsDirectory] == true)
    }
}

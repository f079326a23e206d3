// The one reader of the journal: settling by `A` lines, the last line's commit check and torn
// ends, read forward and backward, on journals written line by line here.

import Foundation
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct JournalReaderTests {
    private static func generation(_ number: Int) -> String {
        let text = String(number, radix: 16)
        return String(repeating: "0", count: Generation.length - text.count) + text
    }

    private static func line(_ operation: JournalLine.Operation, _ key: String, _ generation: Int, at: Int64) -> JournalLine {
        JournalLine(
            operation: operation, at: at, generation: Self.generation(generation), bytes: operation == .unliked ? 0 : 10,
            imageGeneration: Self.generation(generation), userImageGeneration: nil, key: key, id: operation == .unliked ? key : nil)
    }

    private static func journal(_ lines: [JournalLine]) -> [UInt8] {
        ([JournalLine.header(at: 1, snapshotLines: 0)] + lines).flatMap(\.encoded)
    }

    /// Every line handed on, read forward and backward.
    private static func read(_ bytes: [UInt8], committed: @escaping (JournalLine) -> Bool = { _ in true }) throws -> (
        forward: [JournalLine], backward: [JournalLine], end: JournalReader.ForwardEnd, walk: JournalReader.BackwardEnd
    ) {
        let reader = JournalReader(source: bytes, isCommitted: committed)
        var forward: [JournalLine] = []
        let end = try reader.forward { item in
            if let line = item.line, line.operation != .header { forward.append(line) }
            return true
        }
        var backward: [JournalLine] = []
        let walk = try reader.backward { line in
            backward.append(line)
            return true
        }
        return (forward, backward, end, walk)
    }

    @Test func anALineTakesBackTheLineBeforeItAndOnlyThatLine() throws {
        let a = Self.line(.liked, "a", 1, at: 10)
        let b = Self.line(.liked, "b", 2, at: 11)
        let c = Self.line(.updated, "a", 3, at: 12)
        // `A` for b, then an `A` naming a's first generation, which is not the line before it.
        let bytes = Self.journal([a, b, .aborting(b), c, .aborting(a)])
        let read = try Self.read(bytes)
        #expect(read.forward == [a, c])
        #expect(read.backward == [c, a])
        #expect(read.walk == .header)
        #expect(read.end.end == bytes.count)
        #expect(read.end.lineCount == 6)
    }

    @Test func anUncommittedLastLineIsNotHandedOnAndReadingStopsBeforeIt() throws {
        let a = Self.line(.liked, "a", 1, at: 10)
        let b = Self.line(.unliked, "a", 1, at: 11)
        let bytes = Self.journal([a, b])
        let read = try Self.read(bytes, committed: { $0 != b })
        #expect(read.forward == [a])
        #expect(read.backward == [a])
        #expect(read.end.end == bytes.count - b.encoded.count)
        // Only the last line is judged: the same line earlier is taken as written.
        let later = Self.journal([a, b, Self.line(.liked, "c", 3, at: 12)])
        #expect(try Self.read(later, committed: { $0 != b }).forward.count == 3)
        // The end a sync keeps stops before such a line, and is the file's end once it took effect
        // or another line follows it.
        #expect(try JournalReader(source: bytes, isCommitted: { $0 != b }).settledEnd() == bytes.count - b.encoded.count)
        #expect(try JournalReader(source: bytes, isCommitted: { _ in true }).settledEnd() == bytes.count)
        #expect(try JournalReader(source: later, isCommitted: { $0 != b }).settledEnd() == later.count)
    }

    @Test func aTornAppendIsLeftOutAndCounted() throws {
        let a = Self.line(.liked, "a", 1, at: 10)
        let b = Self.line(.liked, "b", 2, at: 11)
        let whole = Self.journal([a])
        let torn = whole + b.encoded.prefix(9)
        let read = try Self.read(torn)
        #expect(read.forward == [a])
        #expect(read.backward == [a])
        #expect(read.end.tornTailBytes == 9)
        #expect(read.end.end == whole.count)
        let end = try JournalReader(source: torn, isCommitted: { _ in true }).end()
        #expect(end.lastLine == a)
        #expect(end.tornTailBytes == 9)
    }

    @Test func aHeaderAnywhereButFirstIsDamage() throws {
        let a = Self.line(.liked, "a", 1, at: 10)
        let bytes = Self.journal([a]) + JournalLine.header(at: 2, snapshotLines: 0).encoded + Self.line(.liked, "b", 2, at: 11).encoded
        let reader = JournalReader(source: bytes, isCommitted: { _ in true })
        let index = try JournalIndex(reading: reader)
        #expect(index.damage?.contains("line 3") == true)
        #expect(try reader.backward { _ in true } == .damaged)
        // Without a header at all, the walk back reaches the start and says so.
        let headless = JournalReader(source: a.encoded, isCommitted: { _ in true })
        #expect(try headless.backward { _ in true } == .damaged)
    }

    @Test func aSnapshotIsSkippedByItsHeadersCount() throws {
        let snapshot = [Self.line(.liked, "a", 1, at: 10), Self.line(.liked, "b", 2, at: 11)]
        let change = Self.line(.unliked, "a", 1, at: 12)
        let bytes = (([JournalLine.header(at: 12, snapshotLines: 2)] + snapshot).flatMap(\.encoded)) + change.encoded
        let reader = JournalReader(source: bytes, isCommitted: { _ in true })
        let start = try reader.snapshotEnd()
        #expect(start == bytes.count - change.encoded.count)
        var after: [JournalLine] = []
        try reader.forward(from: start) { item in
            after.append(try #require(item.line))
            return true
        }
        #expect(after == [change])
    }

    /// Random journals of likes, updates, unlikes, `A` lines and purges, some lines longer than a
    /// 64 KiB chunk: the backward walk hands on exactly the forward lines, reversed.
    @Test func backwardIsForwardReversedOnRandomJournals() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<60 {
            var lines: [JournalLine] = []
            var at: Int64 = 100
            for step in 0..<Int.random(in: 1..<400, using: &generator) {
                at += Int64.random(in: 0..<2, using: &generator)
                let key = "k\(Int.random(in: 0..<12, using: &generator))"
                switch Int.random(in: 0..<6, using: &generator) {
                case 0: lines.append(Self.line(.unliked, key, step, at: at))
                case 1: if let last = lines.last, last.operation.changesPhoto { lines.append(.aborting(last)) }
                case 2: lines.append(.purged(path: "images/\(key) x.jpg", bytes: step, at: at))
                case 3:
                    var updated = Self.line(.updated, key, step, at: at)
                    if round % 20 == 0 {
                        updated.albums = Names.canonicalAlbums((0..<300).map { "album \($0) " + String(repeating: "x", count: 220) })
                    }
                    lines.append(updated)
                default: lines.append(Self.line(.liked, key, step, at: at))
                }
            }
            let bytes = Self.journal(lines)
            let read = try Self.read(bytes, committed: { $0.at % 2 == 0 })
            #expect(read.walk == .header, "round \(round)")
            // Compared line by line, so that a failure names one line, not the whole journal.
            #expect(read.backward.count == read.forward.count, "round \(round)")
            for (index, (back, forth)) in zip(read.backward, read.forward.reversed()).enumerated() where back != forth {
                Issue.record("round \(round): line \(index) from the end differs: \(back.operation) \(back.key) vs \(forth.operation) \(forth.key)")
                break
            }
            #expect(!read.forward.contains { $0.operation == .aborted })
        }
    }

    @Test func aJumpSaysWhenTheLikesAreOutOfOrderAndHandsOnNothingBeforeItsPlace() throws {
        // Found by the fuzzer: two likes of one millisecond out of key order ("-" sorts before "^"),
        // jumped into, oldest first, from the first of them.
        let first = Self.line(.liked, "^x", 1, at: 10)
        let second = Self.line(.liked, "-", 2, at: 10)
        var bytes = Self.journal([first, second])
        bytes.replaceSubrange(0..<bytes.firstIndex(of: 0x0A)!, with: Array("J 1 0123456789ab 0 - - likes-journal-2".utf8))
        let reader = JournalReader(source: MappedJournalBytes(bytes: bytes), isCommitted: { _ in true })
        var handed: [String] = []
        let ordered = try reader.likedLines(after: ListingKey(likedAt: 10, key: "^x"), newestFirst: false) { line in
            handed.append(String(decoding: line.key, as: UTF8.self))
            return true
        }
        #expect(ordered == false)
        #expect(handed.isEmpty)
        // In order, the same jump hands on what follows.
        var sorted = Self.journal([second, first])
        sorted.replaceSubrange(0..<sorted.firstIndex(of: 0x0A)!, with: Array("J 1 0123456789ab 0 - - likes-journal-2".utf8))
        handed = []
        #expect(
            try JournalReader(source: MappedJournalBytes(bytes: sorted), isCommitted: { _ in true }).likedLines(
                after: ListingKey(likedAt: 10, key: "-"), newestFirst: false
            ) { line in
                handed.append(String(decoding: line.key, as: UTF8.self))
                return true
            } == true)
        #expect(handed == ["^x"])
    }

    @Test func aJumpHandsOnEveryLikeWhateverLinesLieBetweenThem() throws {
        // Found by the randomized query test: a jump's binary search that met no `L` line between
        // its middle and its upper end moved that end to the middle byte, inside a line; walking
        // back from there, the `L` line cut in two was passed over. Here every layout of likes
        // among runs of long `M` lines, and every place, against a plain walk.
        var generator = SystemRandomNumberGenerator()
        for round in 0..<60 {
            var lines: [JournalLine] = []
            var at: Int64 = 100
            for step in 0..<Int.random(in: 5..<40, using: &generator) {
                at += 1
                lines.append(Self.line(.liked, "k\(step)", step, at: at))
                // Now and then a long run of them, longer than the search's last stretch (4 KB).
                for _
                    in 0..<(Int.random(in: 0..<6, using: &generator) == 0
                    ? Int.random(in: 10..<60, using: &generator) : Int.random(in: 0..<3, using: &generator))
                {
                    at += 1
                    var updated = Self.line(.updated, "k\(Int.random(in: 0...step, using: &generator))", step, at: at)
                    updated.albums = [String(repeating: "a", count: Int.random(in: 1..<250, using: &generator))]
                    lines.append(updated)
                }
            }
            let bytes = Self.journal(lines)
            let reader = JournalReader(source: MappedJournalBytes(bytes: bytes), isCommitted: { _ in true })
            let likes = lines.filter { $0.operation == .liked }.map { ListingKey(likedAt: $0.at, key: $0.key) }
            for place in likes {
                for newestFirst in [true, false] {
                    var handed: [ListingKey] = []
                    let ordered = try reader.likedLines(after: place, newestFirst: newestFirst) { line in
                        handed.append(ListingKey(line))
                        return true
                    }
                    let expected = newestFirst ? likes.filter { $0 < place }.reversed() : likes.filter { place < $0 }
                    #expect(ordered == true)
                    #expect(handed == expected, "round \(round), after \(place.key), newest first: \(newestFirst)")
                }
            }
        }
    }

    @Test func aScanPassesOverKeysThatAreNotPrintableASCII() throws {
        // Found by the fuzzer: two keys that differ only in a byte that is not UTF-8 became the
        // same string, so a scan that called itself complete handed on two equal places.
        var bytes = Array("J 1 0123456789ab 0 - - likes-journal-2\n".utf8)
        for byte: UInt8 in [0x86, 0xCF] {
            bytes += Array("L 10 1a2b3c4d5e6f 10 1a2b3c4d5e6f - ^a".utf8) + [byte] + Array("b\n".utf8)
        }
        bytes += Array("L 11 1a2b3c4d5e6f 10 1a2b3c4d5e6f - ^c\n".utf8)
        let reader = JournalReader(source: bytes, isCommitted: { _ in true })
        var places: [ListingKey] = []
        let scanned = try CatalogScan.photos(in: reader) { photo in
            places.append(photo.listingKey)
            return true
        }
        #expect(scanned != .complete, "lines with such keys are damage")
        #expect(places == [ListingKey(likedAt: 11, key: "^c")])
    }

    /// A scan's view of a line, which finds the spaces eight bytes at a time, against the line
    /// split at spaces byte by byte: fields of every length, spaces at every place in a word,
    /// doubled, at either end, and lines of more fields than any operation has.
    @Test func aLineIsSplitAtEverySpaceWhereverItFalls() {
        var generator = SystemRandomNumberGenerator()
        var parsed = 0
        for _ in 0..<20_000 {
            var fields = ["L", String(Int.random(in: 1...1_999_999_999_999, using: &generator)), "1a2b3c4d5e6f", "10", "1a2b3c4d5e6f", "-"]
            fields.append(String(repeating: "k", count: Int.random(in: 0...9, using: &generator)))
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                fields.append(String(repeating: "x", count: Int.random(in: 0...17, using: &generator)))
            }
            let bytes = Array(fields.joined(separator: " ").utf8)
            let expected = bytes.split(separator: 0x20, omittingEmptySubsequences: false)
            let view = bytes.withUnsafeBufferPointer { JournalLine.View($0, checkingEveryField: false) }
            let text = String(decoding: bytes, as: UTF8.self)
            guard expected.count <= 10, !expected[6].isEmpty else {
                #expect(view == nil, "\(text)")
                continue
            }
            guard let view else {
                Issue.record("not parsed: \(text)")
                continue
            }
            parsed += 1
            #expect(Array(view.key) == Array(expected[6]), "\(text)")
            #expect(view.at == Int64(String(decoding: expected[1], as: UTF8.self)))
            let last = expected.count == 8 || expected.count == 10 ? Array(expected[expected.count - 1]) : nil
            #expect(view.last.map(Array.init) == last, "\(text)")
            #expect(view.color.map(Array.init) == (expected.count >= 9 ? Array(expected[7]) : nil), "\(text)")
            #expect(view.text.map(Array.init) == (expected.count >= 9 ? Array(expected[8]) : nil), "\(text)")
        }
        #expect(parsed > 1_000)
        // Eleven fields: more than any line has.
        let eleven = Array("L 1 1a2b3c4d5e6f 10 1a2b3c4d5e6f - k a b c d".utf8)
        #expect(eleven.withUnsafeBufferPointer { JournalLine.View($0, checkingEveryField: false) } == nil)
    }

    @Test func anUnlikeLineWhoseIdIsNotUTF8IsMalformed() {
        // Found by the fuzzer: "%C3" then "5" is no UTF-8, and read leniently it did not encode
        // back to the line it came from.
        let line = Array("U 1763774625126 2a2b3c4d5e6f 0 1a2b3c4d5e6f 2a2b3c4d5e6f abc 01234%C3561".utf8)
        #expect(JournalLine.parse(line[...]) == nil)
        let valid = Array("U 1763774625126 2a2b3c4d5e6f 0 1a2b3c4d5e6f 2a2b3c4d5e6f abc Caf%C3%A9".utf8)
        #expect(JournalLine.parse(valid[...])?.id == "Café")
    }
}

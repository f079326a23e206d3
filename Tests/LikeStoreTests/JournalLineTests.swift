// The journal's lines: what the writer writes reads back as itself, and anything else is refused.

import Foundation
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct JournalLineTests {
    /// Found by Fuzz/run.sh: `048` parsed as 48, so the line did not encode back to itself.
    @Test(arguments: [
        "L 1763774625123 1a2b3c4d5e6f 048 1a2b3c4d5e6f - abc", "L 01763774625123 1a2b3c4d5e6f 48 1a2b3c4d5e6f - abc",
        "L 1763774625123 1A2B3C4D5E6F 48 1a2b3c4d5e6f - abc", "L 1763774625123 1a2b3c4d5e6f 48 1a2b3c4d5e6f - ABC",
        "L 1763774625123 1a2b3c4d5e6f 48 1a2b3c4d5e6f -  abc", "A 1 1a2b3c4d5e6f 48 1a2b3c4d5e6f - abc extra",
        "X 1 1a2b3c4d5e6f 48 1a2b3c4d5e6f - abc", "",
        // Found by Fuzz/run.sh: headers and purge lines whose other fields were not checked.
        "J 0 01\u{86}\u{0}\u{0}ab 0 - - likes-journal-1", "J 0 0123456789ab 0 x - likes-journal-1", "P 1 0123456789ab 12 - - images/x",
        // Album fields that are not exactly what the writer writes: unsorted, repeated, empty,
        // escaped needlessly or in lower case, not NFC, not UTF-8, a control character.
        "L 1 1a2b3c4d5e6f 48 1a2b3c4d5e6f - abc b,a", "L 1 1a2b3c4d5e6f 48 1a2b3c4d5e6f - abc a,a",
        "L 1 1a2b3c4d5e6f 48 1a2b3c4d5e6f - abc a,,b", "L 1 1a2b3c4d5e6f 48 1a2b3c4d5e6f - abc a,", "L 1 1a2b3c4d5e6f 48 1a2b3c4d5e6f - abc %61",
        "L 1 1a2b3c4d5e6f 48 1a2b3c4d5e6f - abc Caf%c3%a9", "L 1 1a2b3c4d5e6f 48 1a2b3c4d5e6f - abc Cafe%CC%81",
        "L 1 1a2b3c4d5e6f 48 1a2b3c4d5e6f - abc %FF", "L 1 1a2b3c4d5e6f 48 1a2b3c4d5e6f - abc a%0Ab", "P 1 - 12 - - images/x a",
    ])
    func malformedLinesAreRefused(text: String) {
        #expect(JournalLine.parse(Array(text.utf8)[...]) == nil)
    }

    @Test(arguments: [
        "J 0 0123456789ab 0 - - likes-journal-1", "L 1763774625123 1a2b3c4d5e6f 2048 1a2b3c4d5e6f - ^dwu85^p9^s^o^ik",
        "M 1763774625124 2a2b3c4d5e6f 0 1a2b3c4d5e6f 2a2b3c4d5e6f %c3%a9", "U 1763774625125 2a2b3c4d5e6f 0 1a2b3c4d5e6f - abc a%20b",
        "A 1763774625125 2a2b3c4d5e6f 0 - - abc", "P 1763774625126 - 12 - - images/x%20y",
        "L 1763774625127 3a2b3c4d5e6f 48 3a2b3c4d5e6f - abc Caf%C3%A9,Trip%20to%20Lisbon,a%2Cb%25",
    ])
    func wellFormedLinesEncodeBackToThemselves(text: String) throws {
        let line = try #require(JournalLine.parse(Array(text.utf8)[...]))
        #expect(String(decoding: line.encoded.dropLast(), as: UTF8.self) == text)
    }
}

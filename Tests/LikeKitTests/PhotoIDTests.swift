// Ids: which are valid, and how their file names stay safe, distinct and case-proof.

import Foundation
import LikeKit
import LikeStore
import LikesSupport
import TestSupport
import Testing

@Suite(.ownLane) struct PhotoIDTests {
    @Test(arguments: [
        "Dwu85P9SOIk", "52345678901", "ED7AC36B-A150-4C38-BB8C-B6D696F4F2ED/L0/001", "../../etc/passwd", "a/b", "..", ".",
        "with space", "emoji 📷", "%2e%2e", "^a", "#hash", "C:\\Windows", String(repeating: "x", count: 256),
    ])
    func validIDsAreAccepted(text: String) throws {
        #expect(try PhotoID(text).rawValue == text)
    }

    @Test(arguments: [
        ("", "it is empty"),
        (String(repeating: "x", count: 257), "it is 257 UTF-8 bytes long"),
        (String(repeating: "é", count: 129), "it is 258 UTF-8 bytes long"),
        ("a\u{0}b", "it contains the control character U+0000"),
        ("line\nbreak", "it contains the control character U+000A"),
        ("del\u{7F}", "it contains the control character U+007F"),
        ("c1\u{85}", "it contains the control character U+0085"),
    ])
    func invalidIDsAreRefusedWithTheReason(text: String, reason: String) {
        #expect(throws: LikeRepositoryError.invalidID(text, reason: reason)) { try PhotoID(text) }
    }

    @Test func errorMessageEscapesControlCharacters() {
        let error = LikeRepositoryError.invalidID("a\u{1B}[2Jb", reason: "it contains the control character U+001B")
        #expect(!error.description.contains("\u{1B}"))
        #expect(error.description.hasPrefix("Invalid photo id \"a\\u{1B}[2Jb\""))
    }

    @Test(arguments: ["../../etc/passwd", "a/b", "..", ".", "/", "\\..\\", "x\u{2215}y"])
    func storageKeysAreSingleSafeComponents(text: String) {
        let key = PhotoID(valid: text).storageKey
        #expect(!key.contains("/"))
        #expect(!key.contains("."))
        #expect(StorageKey.isWellFormed(key[...]))
    }

    @Test func caseTwinsGetDifferentKeysEvenWhenTheFileSystemIgnoresCase() {
        let twins = ["abc", "ABC", "Abc", "aBC", "dwu85p9soik", "Dwu85P9SOIk"].map { PhotoID(valid: $0).storageKey }
        #expect(Set(twins.map { $0.lowercased() }).count == twins.count)
        #expect(twins.allSatisfy { $0 == $0.lowercased() })
    }

    @Test func normalizationTwinsAreOneIDWithOneKey() {
        let composed = PhotoID(valid: "caf\u{E9}")
        let decomposed = PhotoID(valid: "cafe\u{301}")
        #expect(composed == decomposed)
        #expect(composed.hashValue == decomposed.hashValue)
        #expect(composed.storageKey == decomposed.storageKey)
    }

    @Test func keysOfTrickyIDsNeverCollide() {
        let ids = [
            "a%b", "a%25b", "a b", "a%20b", "a^b", "a^^b", "A", "^a", "a\u{0}b".replacingOccurrences(of: "\u{0}", with: "%00"),
            "ab%00cd", "#", "%23", String(repeating: "x", count: 256), String(repeating: "x", count: 255), String(repeating: "📷", count: 64),
        ]
        let keys = ids.map { PhotoID(valid: $0).storageKey }
        #expect(Set(keys).count == Set(ids).count)
    }

    @Test(arguments: ["Dwu85P9SOIk", "a/b", "caf\u{E9}", "^x%", "x y"])
    func readableKeysDecodeToTheirID(text: String) {
        #expect(StorageKey.decode(PhotoID(valid: text).storageKey) == text.precomposedStringWithCanonicalMapping)
    }

    /// Found by Fuzz/run.sh: `^` followed by a byte below `a` made the decoder trap.
    @Test(arguments: ["^\u{0}", "^", "%4", "%zz", "^A", "#abc"])
    func malformedKeysDecodeToNothing(key: String) {
        #expect(StorageKey.decode(key) == nil)
    }

    @Test func longIDsAreHashedAndFitAFileName() {
        let key = PhotoID(valid: String(repeating: "📷", count: 64)).storageKey
        #expect(key.hasPrefix("#"))
        #expect(key.utf8.count == 65)
        let readable = PhotoID(valid: "Dwu85P9SOIk").storageKey
        #expect(readable == "^dwu85^p9^s^o^ik")
    }

    @Test(arguments: [
        ("2026-11-22T01:23:45.123Z", Int64(1_795_310_625_123)), ("2016-05-03T11:00:28Z", 1_462_273_228_000),
        ("2021-02-02T03:10:25-05:00", 1_612_253_425_000), ("1970-01-01T00:00:00.000Z", 0),
    ])
    func timestampsParse(text: String, milliseconds: Int64) {
        #expect(Timestamp.parse(text) == milliseconds)
    }

    @Test func timestampsRoundTrip() {
        for value: Int64 in [0, 1, 999, 1_763_774_625_123, 951_782_400_000, 4_102_444_800_000] {
            #expect(Timestamp.parse(Timestamp.string(value)) == value)
        }
        #expect(Timestamp.string(1_763_774_625_123) == "2025-11-22T01:23:45.123Z")
        // Either side of the digits written in place, and the first and last instants of years.
        let written: [(Int64, String)] = [
            (0, "1970-01-01T00:00:00.000Z"), (-1, "1969-12-31T23:59:59.999Z"), (951_782_400_007, "2000-02-29T00:00:00.007Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"), (253_402_300_800_000, "10000-01-01T00:00:00.000Z"),
            (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
        ]
        for (value, text) in written { #expect(Timestamp.string(value) == text) }
    }
}

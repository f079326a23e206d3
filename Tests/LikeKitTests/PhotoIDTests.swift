// Ids: which are valid, and how their file names stay safe, distinct and case-proof.

import Foundation
import Testing

@testable import LikeKit
@testable import LikeStore
@testable import LikesSupport

@Suite struct PhotoIDTests {
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
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256MatchesTheStandardVectors(message: String, digest: String) {
        #expect(SHA256.hexDigest(of: Array(message.utf8)) == digest)
    }

    @Test func crc32MatchesTheCheckValue() {
        let value = Array("123456789".utf8).withUnsafeBytes { CRC32.checksum($0) }
        #expect(value == 0xCBF4_3926)
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

@Suite struct CRC32Tests {
    /// The byte-at-a-time definition, to check the sliced one against.
    func reference(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    @Test(arguments: [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 79, 80, 127, 128, 129, 1000, 4099])
    func bothWaysMatchTheDefinition(length: Int) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(bytes.withUnsafeBytes { CRC32.checksum($0) } == reference(bytes))
        #expect(bytes.withUnsafeBytes { CRC32.checksumByTables($0) } == reference(bytes))
    }

    /// The folding kernel (where this processor has it) against the tables: every length up to
    /// 600, unaligned starts, pieces continued one after another, and all-ones and all-zeros data.
    @Test func foldingAgreesWithTheTablesEverywhere() throws {
        try #require(CRC32.folds || ProcessInfo.processInfo.environment["CI"] != "true" || !Self.isX86, "x86-64 here should fold")
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes.withUnsafeBytes { all in
            for length in 0...600 {
                for start in [0, 1, 3, 8] {
                    let piece = UnsafeRawBufferPointer(rebasing: all[start..<(start + length)])
                    #expect(CRC32.checksum(piece) == CRC32.checksumByTables(piece), "length \(length) from \(start)")
                }
            }
            let first = UnsafeRawBufferPointer(rebasing: all[..<1234])
            let rest = UnsafeRawBufferPointer(rebasing: all[1234...])
            #expect(CRC32.checksum(rest, continuing: CRC32.checksum(first)) == CRC32.checksumByTables(all))
        }
        for fill: UInt8 in [0, 0xFF] {
            let run = [UInt8](repeating: fill, count: 4096)
            #expect(run.withUnsafeBytes { CRC32.checksum($0) } == reference(run))
        }
    }

    static var isX86: Bool {
        #if arch(x86_64)
            return true
        #else
            return false
        #endif
    }
}

@Suite struct JournalLineTests {
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

// CRC-32 and SHA-256 as LikesSupport computes them: the standard check values, the definition
// byte by byte, sha256sum's answers, with the processor's instructions and without.

import Foundation
import LikesSupport
import TestSupport
import Testing

@Suite(.ownLane) struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256MatchesTheStandardVectors(message: String, digest: String) {
        #expect(SHA256.hexDigest(of: Array(message.utf8)) == digest)
    }

    @Test func theDigestFedInPiecesIsSha256sumsWithEitherRounds() throws {
        print("SHA-256 rounds in hardware: \(SHA256.hasRoundsInHardware)")
        var generator = SystemRandomNumberGenerator()
        let folder = TemporaryFolder()
        let file = folder.url.appendingPathComponent("random.bin")
        for length in [0, 1, 55, 56, 63, 64, 65, 127, 128, 1000, 100_003] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try Data(bytes).write(to: file)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
            process.arguments = [file.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let expected = String(output.prefix(64))
            var hash = SHA256()
            var offset = 0
            while offset < bytes.count {
                let piece = min(Int.random(in: 1...200, using: &generator), bytes.count - offset)
                bytes[offset..<(offset + piece)].withUnsafeBytes { hash.update($0) }
                offset += piece
            }
            #expect(hash.finalizeHex() == expected, "length \(length)")
            #expect(SHA256.hexDigest(of: bytes) == expected, "length \(length)")
            // Both rounds, where the processor has the SHA extensions.
            #expect(bytes.withUnsafeBytes { SHA256.hexDigestInSwift(of: $0) } == expected, "length \(length)")
        }
    }
}

@Suite(.ownLane) struct CRC32Tests {
    @Test func crc32MatchesTheCheckValue() {
        let value = Array("123456789".utf8).withUnsafeBytes { CRC32.checksum($0) }
        #expect(value == 0xCBF4_3926)
    }

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

// The fast record reader against JSONDecoder: the same record from every file this version
// writes, and the same record or the same error, by falling back, from any other spelling.

import Foundation
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct RecordReaderTests {
    static let texts = [
        "plain", "Café ☕️ 서울 ガ 🐈‍⬛", "quote \" and back\\slash / slash", "tab\tand\nnew line\r", "bell \u{07} and del \u{7F} and c1 \u{85}",
        "line separator \u{2028} end", "", "    ",
    ]

    static func records() throws -> [StoredRecord] {
        let plain = StoredRecord.Image(generation: "0123456789ab", bytes: 2048, width: 4000, height: 3000, crc32: "a7ee2ffc")
        var records: [StoredRecord] = []
        for (index, text) in texts.enumerated() {
            // Images as older versions kept them, and with what is read from their files now.
            var image = plain
            if index % 2 == 1 {
                image.orientation = 1 + index % 8
                image.color = "0c2640"
                var exif = StoredRecord.StoredExif()
                (exif.make, exif.model, exif.focalLength, exif.iso) = (text.isEmpty ? nil : text, "Model \"X\"", "6.86", index)
                (exif.fNumber, exif.exposureTime, exif.takenAt, exif.lens) = (
                    "1.8", "1/250", "2026-05-03T11:00:28+02:00", index % 4 == 1 ? nil : "Lens"
                )
                image.exif = exif
            }
            let photo =
                index % 3 == 2
                ? nil
                : StoredPhoto(
                    description: text, photographer: index % 2 == 0 ? text : nil, photographerUsername: "user", color: "#60544D",
                    sourceURL: "https://unsplash.com/photos/x?a=1&b=2", width: index % 2 == 0 ? 4000 : nil, height: -1,
                    createdAt: index % 2 == 0 ? Timestamp.date(1_462_273_228_000) : nil,
                    photographerURL: index % 4 == 0 ? "https://unsplash.com/@user" : nil, title: index % 4 == 1 ? text : nil,
                    license: index % 4 == 0 ? "Attribution License" : nil)
            records.append(
                StoredRecord(
                    id: "id-\(index)-\(text.filter { !$0.isWhitespace && !($0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false) })",
                    generation: "ba9876543210", likedAt: 1_795_475_742_731 + Int64(index),
                    image: image, userImage: index % 2 == 0 ? image : nil, note: text.isEmpty ? nil : text, photo: photo,
                    albums: index % 2 == 0 ? ["Été".precomposedStringWithCanonicalMapping, "Cats"] : []))
            if index % 5 == 3 { records[records.count - 1].changed = [] }
        }
        return records
    }

    @Test func everyRecordThisVersionWritesIsReadAsJSONDecoderReadsIt() throws {
        for record in try Self.records() {
            let data = record.encoded()
            let fast = try #require(RecordReader.record(in: data), "\(String(decoding: data, as: UTF8.self))")
            #expect(fast == (try JSONDecoder().decode(StoredRecord.self, from: data)))
            #expect(fast == record)
        }
    }

    @Test func recordFilesAreTheBytesJSONEncoderWrites() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var records = try Self.records()
        // Every byte below U+0080 and a few beyond, in each kind of string a record holds.
        let everyCharacter = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self) + "é\u{2028}\u{85}😀"
        var record = records[0]
        record.note = everyCharacter
        record.photo?.title = everyCharacter
        record.photo?.description = everyCharacter
        records.append(record)
        // Changes named and stamps kept, a part stamped apart from the period and merged ones.
        for (index, var record) in try Self.records().enumerated() {
            record.changed = index % 6 == 0 ? nil : Array(RecordField.allCases.prefix(index % 6))
            var stamps = RecordStamps(read: ["liked": "1795000000000"])
            for part in RecordField.allCases.prefix(index % 6) {
                stamps = stamps.setting(part.rawValue, to: index % 2 == 0 ? "1795000000\(index)00" : "1795000000001.\(index).b000000000000002")
            }
            if index == 3 { stamps = stamps.setting(RecordStamps.unliked, to: "1795000000002.1.b000000000000003") }
            record.stamps = index == 5 ? nil : stamps
            records.append(record)
        }
        for record in records {
            let written = record.encoded()
            #expect(written == (try encoder.encode(record)), "\(String(decoding: written, as: UTF8.self))")
            #expect(try StoredRecord.decode(written) == record)
        }
    }

    @Test func otherSpellingsFallBackToJSONDecoderWithTheSameResult() throws {
        let record = try #require(try Self.records().first)
        let pretty = try {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted]
            return try encoder.encode(record)
        }()
        #expect(RecordReader.record(in: pretty) == nil)
        #expect(try StoredRecord.decode(pretty) == record)
        let escaped = Data(String(decoding: record.encoded(), as: UTF8.self).replacingOccurrences(of: "\"plain\"", with: "\"pl\\u0061in\"").utf8)
        #expect(try StoredRecord.decode(escaped) == record)
        for damaged in ["", "{", "{\"format\":1}", "{\"format\":2,\"id\":\"x\"}", String(decoding: record.encoded().dropLast(), as: UTF8.self)] {
            #expect(RecordReader.record(in: Data(damaged.utf8)) == nil, "\(damaged)")
            #expect(throws: (any Error).self) { try StoredRecord.decode(Data(damaged.utf8)) }
        }
    }

    @Test func membersThisReaderDoesNotKnowOrFindsTwiceAreLeftToJSONDecoder() throws {
        let record = try #require(try Self.records().first)
        let text = String(decoding: record.encoded(), as: UTF8.self)
        // A member a later version may add, at the top and inside the image and the photo.
        for (marker, added) in [
            ("\"format\"", "\"later\":[1,{\"a\":null}],\"format\""), ("\"crc32\"", "\"later\":2,\"crc32\""),
            ("\"color\"", "\"later\":\"x\",\"color\""),
        ] {
            let spelled = Data(text.replacingOccurrences(of: marker, with: added).utf8)
            #expect(RecordReader.record(in: spelled) == nil, "\(added)")
            #expect(try StoredRecord.decode(spelled) == record, "\(added)")
        }
        // A member twice: not this reader's to decide.
        let twice = Data(text.replacingOccurrences(of: "\"format\":1,", with: "\"format\":1,\"format\":1,").utf8)
        #expect(RecordReader.record(in: twice) == nil)
    }

    @Test func stampsAreTheirMillisecondsOrAWholeStampAndNothingElse() {
        for stamp in ["1", "1795000000000", "1234567890123456", "1795000000001.2.b000000000000002", "0.0.ABCDEFGHIJKLMNOP", "1.23.é00000000000000"] {
            #expect(RecordStamps.isStamp(stamp), "\(stamp)")
        }
        for stamp in [
            "", ".", "12345678901234567", "1.", "1..b000000000000002", "1.2.b00000000000000", "1.2.b0000000000000002", "1.2.b00000000.000002",
            "a", "1a", "-1", "1.2", "1.2.", ".2.b000000000000002", "1.x.b000000000000002", "1.2.3.4", " 1",
        ] {
            #expect(!RecordStamps.isStamp(stamp), "\(stamp)")
        }
    }
}

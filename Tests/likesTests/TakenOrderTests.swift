// End-to-end: `list --by taken` through the real `likes` binary, on camera files (with an Exif
// offset, another offset, none), an Unsplash photo's own date and a photo with neither.

import Foundation
import TestSupport
import Testing

@Suite(.ownLane) struct TakenOrderTests {
    let box = TemporaryFolder()

    /// `data` with every `from` replaced by `to` (of the same length), which must be there.
    func replacing(_ from: [UInt8], with to: [UInt8], in data: Data) throws -> Data {
        var bytes = [UInt8](data)
        var found = 0
        var index = 0
        while index + from.count <= bytes.count {
            if Array(bytes[index..<(index + from.count)]) == from {
                bytes.replaceSubrange(index..<(index + from.count), with: to)
                found += 1
            }
            index += 1
        }
        try #require(found == 1, "the bytes to replace are in the file once")
        return Data(bytes)
    }

    func like(_ id: String, _ data: Data, meta: String? = nil) throws {
        var arguments = ["like", id, "--image", box.file(id + ".jpg", data)]
        if let meta { arguments += ["--meta", box.file(id + ".json", Data(meta.utf8))] }
        let run = try box.run(arguments)
        try #require(run.status == 0, "\(run.stderr)")
    }

    /// The records `likes list ARGUMENTS --json` prints; it must succeed.
    func listing(_ arguments: [String]) throws -> [[String: Any]] {
        let run = try box.run(["list"] + arguments + ["--json"])
        try #require(run.status == 0, "list \(arguments): \(run.stderr)")
        return try run.array()
    }

    func ids(_ arguments: [String]) throws -> [String?] { try listing(arguments).map { $0["id"] as? String } }

    @Test func theListingByDateTakenFollowsTheCameraThenTheSourceThenTheLike() throws {
        // Liked in an order unlike the one they were taken in.
        try like("unsplash", SamplePhotos.data("coffee.jpg"), meta: #"{"id": "unsplash", "created_at": "2016-05-03T11:00:28Z"}"#)
        try like("camera-zoned", CameraFixtures.data("o1-progressive"))  // 2021-01-11 09:30:01 at +02:00
        // The same camera west of Greenwich: 09:30:03 at -05:00 is 14:30:03 UTC.
        try like("camera-west", try replacing(Array("+02:00".utf8), with: Array("-05:00".utf8), in: CameraFixtures.data("o3-progressive")))
        // No OffsetTimeOriginal (its tag renamed to one nobody reads; this file is big-endian): 2021-02-12 09:30:02 as UTC.
        try like("camera-plain", try replacing([0x90, 0x11, 0x00, 0x02], with: [0x9F, 0xFF, 0x00, 0x02], in: CameraFixtures.data("o2")))
        try like("mine", SamplePhotos.data("rocket.jpg"))

        let records = try listing(["--by", "taken"])
        #expect(records.map { $0["id"] as? String } == ["mine", "camera-west", "camera-plain", "camera-zoned", "unsplash"])
        let taken = Dictionary(uniqueKeysWithValues: records.map { ($0["id"] as! String, ($0["takenAt"] as? String, $0["takenFrom"] as? String)) })
        #expect(taken["camera-west"]! == ("2021-03-13T14:30:03.000Z", "exif"))
        #expect(taken["camera-plain"]! == ("2021-02-12T09:30:02.000Z", "exif"))
        #expect(taken["camera-zoned"]! == ("2021-01-11T07:30:01.000Z", "exif"))
        #expect(taken["unsplash"]! == ("2016-05-03T11:00:28.000Z", "source"))
        let mine = try #require(records.first)
        #expect(mine["takenFrom"] as? String == "liked" && mine["takenAt"] as? String == mine["likedAt"] as? String)
        #expect((mine["cursor"] as? String)?.hasPrefix("t") == true, "a cursor of the order by date taken")
        // By date liked, as ever.
        #expect(try ids([]) == ["mine", "camera-plain", "camera-west", "camera-zoned", "unsplash"])
        #expect(try ids(["--by", "taken", "--oldest-first"]) == ["unsplash", "camera-zoned", "camera-plain", "camera-west", "mine"])
        #expect(try ids(["--by", "taken", "--search", "camera"]) == ["camera-west", "camera-plain", "camera-zoned"])

        // Paged: the next page's command repeats --by taken, and goes on from its cursor.
        let first = try box.run(["list", "--by", "taken", "--limit", "2"])
        #expect(first.status == 0 && first.stdout.hasPrefix("TAKEN "), "\(first.stdout)")
        let more = try #require(first.stdout.split(separator: "\n").last { $0.hasPrefix("More: ") })
        #expect(more.hasSuffix("--limit 2 --by taken"))
        let cursor = try #require(more.components(separatedBy: "--after '").last?.split(separator: "'").first.map(String.init))
        #expect(try ids(["--after", cursor, "--limit", "2", "--by", "taken"]) == ["camera-plain", "camera-zoned"])
        // A cursor names its order: given alone it lists by it, and with the other it is refused.
        #expect(try ids(["--after", cursor]) == ["camera-plain", "camera-zoned", "unsplash"])
        let mixed = try box.run(["list", "--after", cursor, "--by", "liked"])
        #expect(mixed.status == 64 && mixed.stderr.contains("--by taken") && mixed.stderr.split(separator: "\n").count == 1, "\(mixed.stderr)")
        let wrong = try box.run(["list", "--by", "shot"])
        #expect(wrong.status == 64 && wrong.stderr.contains("--by takes liked or taken"), "\(wrong.stderr)")

        let show = try box.run(["show", "camera-west"])
        #expect(show.stdout.contains("(the camera's date, 2021-03-13T09:30:03-05:00 in its Exif)"), "\(show.stdout)")
        #expect(try box.run(["show", "unsplash"]).stdout.contains("(the source's date)"))
        #expect(!(try box.run(["show", "mine"]).stdout.contains("taken:")))
        #expect(try box.run(["verify"]).status == 0)
    }
}

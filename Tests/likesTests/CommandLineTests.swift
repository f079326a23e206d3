// End-to-end: the real `likes` binary on a temporary store, stdout, stderr and exit status.

import Foundation
import LikeKit
import LikesSupport
import TestSupport
import Testing

@Suite(.ownLane) struct CommandLineTests {
    let box = TemporaryFolder()

    @Test func versionAndHelp() throws {
        let version = try box.run(["--version"], store: false)
        #expect(version.status == 0 && version.stdout == "likes 0.1.0\n")
        let help = try box.run(["--help"], store: false)
        #expect(help.status == 0)
        for command in ["like", "unlike", "toggle", "list", "show", "import", "purge", "verify", "stats", "note", "album", "albums", "export"] {
            #expect(help.stdout.contains("  \(command) "), "overview lacks \(command)")
            let own = try box.run([command, "--help"], store: false)
            #expect(
                own.status == 0 && own.stdout.contains("Usage: likes [--store DIR] \(command)") && own.stdout.contains("Example:\n  likes "),
                "\(command) --help")
        }
    }

    @Test func anEmptyStoreSaysSoWhateverTheLimitOrOrder() throws {
        let box = TemporaryFolder()
        #expect(try box.run(["like", "a", "--image", Samples.photo("rocket.jpg").path]).status == 0)
        #expect(try box.run(["unlike", "a"]).status == 0)
        for arguments in [["list"], ["list", "--limit", "20"], ["list", "--oldest-first", "--limit", "5"]] {
            let run = try box.run(arguments)
            #expect(run.status == 0 && run.stdout == "No liked photos yet. Like one with `likes like ID --image FILE`.\n", "\(arguments)")
        }
        #expect(try box.run(["like", "a", "--image", Samples.photo("rocket.jpg").path]).status == 0)
        #expect(try box.run(["list", "--offset", "3"]).stdout == "Nothing past the first 3 liked photos.\n")
        #expect(try box.run(["list", "--search", "zzz", "--limit", "20"]).stdout == "No liked photo matches.\n")
        // --limit 0 lists nothing, and says why: the store is not empty.
        let zero = try box.run(["list", "--limit", "0"])
        #expect(zero.status == 0 && zero.stdout == "No photo listed: --limit is 0 (the store holds 1 liked photo).\n", "\(zero.stdout)")
        #expect(try box.run(["list", "--limit", "0", "--json"]).array().isEmpty)
    }

    /// A store that is not there is named as missing by every command that only reads it, so
    /// that a mistyped --store never passes for an empty or a sound collection.
    @Test(arguments: [
        ["list"], ["show", "a"], ["stats"], ["verify"], ["albums"], ["purge", "--dry-run"], ["repair", "--dry-run"], ["export", "OUT"],
    ])
    func aStoreThatDoesNotExistIsNamedAsMissing(_ arguments: [String]) throws {
        let missing = box.path("no/such/store")
        let out = box.path("out")
        let run = try TemporaryFolder.execute(["--store", missing] + arguments.map { $0 == "OUT" ? out : $0 })
        #expect(run.status == 66, "\(arguments): \(run.status) \(run.stdout)")
        #expect(
            run.stdout.isEmpty
                && run.stderr
                    == "likes: There is no store at \(missing): nothing was ever liked there. Check --store or LIKES_STORE; the first like makes a store.\n",
            "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing) && !FileManager.default.fileExists(atPath: out))
        // A file where the store should be is no store either.
        let file = box.file("a-file", Data("x".utf8))
        let notFolder = try TemporaryFolder.execute(["--store", file] + arguments.map { $0 == "OUT" ? out : $0 })
        #expect(notFolder.status == 66 && notFolder.stderr.contains("is not a folder"), "\(notFolder.stderr)")
    }

    @Test func likePrintsTheRecordAsJSONFieldByField() throws {
        let run = try box.run([
            "like", "vUGBY_MnSsg", "--image", Samples.photo("rocket.jpg").path, "--note", "checkered",
            "--meta", Samples.fixtures.appendingPathComponent("photo.json").path, "--json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let record = try run.object()
        #expect(record["id"] as? String == "vUGBY_MnSsg")
        let likedAt = try #require(record["likedAt"] as? String)
        #expect(likedAt.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
        let image = try #require(record["image"] as? [String: Any])
        let file = try #require(image["file"] as? String)
        #expect(file.hasPrefix(box.store.path + "/"))
        #expect(FileManager.default.contents(atPath: file) == Samples.data("rocket.jpg"))
        #expect(image["bytes"] as? Int == Samples.data("rocket.jpg").count)
        #expect(image["width"] as? Int == 640 && image["height"] as? Int == 427)
        #expect(record["userImage"] is NSNull)
        #expect(record["note"] as? String == "checkered")
        let photo = try #require(record["photo"] as? [String: Any])
        #expect(photo["description"] as? String == "black and white checkered textile")
        #expect(photo["photographer"] as? String == "Hao Wen")
        #expect(photo["color"] as? String == "#262626")
        #expect(photo["width"] as? Int == 5000 && photo["height"] as? Int == 6438)
        #expect(photo["sourceURL"] as? String == "https://unsplash.com/photos/vUGBY_MnSsg")
        #expect(photo["createdAt"] as? String == "2021-02-02T08:10:25.000Z")
    }

    @Test func theCommandLinesRecordJSONIsLikeKitsEncodingOfTheRecord() throws {
        // Two writers of one shape (the command line's, by hand, for speed; LikeKit's Codable
        // one, for apps): every key and value must agree, for a record with every field set.
        let meta = box.file("meta.json", try Data(contentsOf: Samples.fixtures.appendingPathComponent("photo.json")))
        let liked = try box.run([
            "like", "Dwu85P9SOIk", "--image", Samples.photo("rocket.jpg").path, "--user-image", Samples.photo("astronaut.jpg").path,
            "--note", "Line one\n\t\"two\" é 📷", "--album", "Été", "--album", "Sky", "--meta", meta, "--json",
        ])
        #expect(liked.status == 0, "\(liked.stderr)")
        let record = try #require(try LikeRepository(directory: box.store).record(for: PhotoID("Dwu85P9SOIk")))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let library = try #require(try JSONSerialization.jsonObject(with: encoder.encode(record)) as? NSDictionary)
        for arguments in [["show", "Dwu85P9SOIk", "--json"], ["list", "--json"]] {
            let run = try box.run(arguments)
            let printed = try #require(
                (try run.json() as? NSDictionary) ?? (try run.json() as? [NSDictionary])?.first, "\(arguments): \(run.stdout)")
            // A listing's record also carries its place in the listing.
            let record = printed.mutableCopy() as! NSMutableDictionary
            if arguments[0] == "list" {
                #expect(
                    record["cursor"] as? String
                        == LikeCursor(record: try #require(try LikeRepository(directory: box.store).record(for: PhotoID("Dwu85P9SOIk")))).description)
                record.removeObject(forKey: "cursor")
            }
            #expect(record == library, "\(arguments): the command line printed \(printed), LikeKit encodes \(library)")
        }
        #expect(try liked.json() as? NSDictionary == library)
    }

    @Test func jsonOutputEscapesEveryAwkwardCharacter() throws {
        let note = "a \"quoted\" word\\path\nnew line\ttab\r\n ünïcødé 📷 \u{2028} </script>"
        let run = try box.run(["like", "odd", "--image", Samples.photo("rocket.jpg").path, "--note", note, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.object()["note"] as? String == note)
        #expect(try box.run(["list", "--json"]).array().first?["note"] as? String == note)
    }

    @Test func jsonStringsAreWrittenByteForByte() {
        // Every character that must be escaped, at the start, the middle and the end of a run
        // of plain text, and the near misses that are written as themselves.
        let text = "\"a\\b\u{0}c\u{1F}\u{7F}\u{80}\u{9F}\u{A0}é\u{2027}\u{2028}\u{2029}\u{202A}📷\n\r\t/<\u{85}"
        let expected = #""\"a\\b\u0000c\u001f\u007f\u0080\u009f"# + "\u{A0}é\u{2027}" + #"\u2028\u2029"# + "\u{202A}📷" + #"\n\r\t/<\u0085""#
        #expect(JSONValue.string(text).rendered(pretty: false) == expected)
        #expect(JSONValue.string("").rendered(pretty: false) == #""""#)
        #expect(JSONValue.string("plain").rendered(pretty: false) == #""plain""#)
    }

    @Test func jsonMembersAreSortedAsStringsSortThem() {
        // ASCII names by their bytes; any other as String orders it (the Ångström sign sorts as
        // the letter Å it is the same as, before Ç, though its bytes come after).
        let names = ["b", "a\u{301}", "ab", "B", "é", "a", "_", "Z9", "aa", "e\u{301}z", "ez", "", "\u{212B}", "Ç"]
        let object = JSONValue.object(names.reversed().map { ($0, .int(1)) })
        let expected = "{" + names.sorted().map { JSONValue.string($0).rendered(pretty: false) + ":1" }.joined(separator: ",") + "}"
        #expect(object.rendered(pretty: false) == expected)
        #expect(names.sorted() != names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    @Test func likingAgainUpdatesAndKeepsTheDate() throws {
        let first = try box.run(["like", "a", "--image", Samples.photo("rocket.jpg").path, "--note", "one", "--json"]).object()
        let second = try box.run(["like", "a", "--image", Samples.photo("coffee.jpg").path, "--json"])
        #expect(second.status == 0)
        let record = try second.object()
        #expect(record["likedAt"] as? String == first["likedAt"] as? String)
        #expect(record["note"] as? String == "one")
        #expect((record["image"] as? [String: Any])?["width"] as? Int == 600)
        let human = try box.run(["like", "a", "--image", Samples.photo("chelsea.jpg").path])
        #expect(human.stdout == "Updated a: 27.18 KB, 451×300\n")
    }

    @Test func unlikeRemovesAndSaysSoThenFailsWithOne() throws {
        _ = try box.run(["like", "a", "--image", Samples.photo("rocket.jpg").path, "--user-image", Samples.photo("chelsea.jpg").path])
        let run = try box.run(["unlike", "a"])
        #expect(run.status == 0 && run.stdout == "Unliked a; removed 3 files.\n")
        let again = try box.run(["unlike", "a"])
        #expect(again.status == 1)
        #expect(again.stderr == "likes: Photo \"a\" is not liked. Check the id with `likes list`.\n")
        #expect(try box.run(["list", "--json"]).array().isEmpty)
    }

    @Test func toggleReportsTheNewState() throws {
        let on = try box.run(["toggle", "heart", "--image", Samples.photo("rocket.jpg").path, "--json"]).object()
        #expect(on["id"] as? String == "heart" && on["liked"] as? Bool == true)
        #expect((on["record"] as? [String: Any])?["id"] as? String == "heart")
        let off = try box.run(["toggle", "heart", "--json"]).object()
        #expect(off["liked"] as? Bool == false && off["record"] is NSNull)
        let human = try box.run(["toggle", "heart", "--image", Samples.photo("rocket.jpg").path])
        #expect(human.stdout == "heart is now liked.\n")
        let refused = try box.run(["toggle", "other"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("needs --image FILE"))
    }

    func likeThree() throws {
        for (id, file, note) in [("r", "rocket.jpg", "launch day"), ("c", "coffee.jpg", "morning"), ("k", "chelsea.jpg", "the cat")] {
            let run = try box.run([
                "like", id, "--image", Samples.photo(file).path, "--note", note, "--meta",
                Samples.photo(file.replacingOccurrences(of: ".jpg", with: ".json")).path,
            ])
            #expect(run.status == 0, "\(run.stderr)")
        }
    }

    @Test func listOrdersPagesAndFilters() throws {
        try likeThree()
        func ids(_ arguments: [String]) throws -> [String] {
            try box.run(["list", "--json"] + arguments).array().map { $0["id"] as? String ?? "?" }
        }
        #expect(try ids([]) == ["k", "c", "r"])
        #expect(try ids(["--oldest-first"]) == ["r", "c", "k"])
        #expect(try ids(["--limit", "1", "--offset", "1"]) == ["c"])
        #expect(try ids(["--limit=2"]) == ["k", "c"])
        #expect(try ids(["--color", "#9f5533"]) == ["c"])
        #expect(try ids(["--search", "CAT"]) == ["k"])
        #expect(try ids(["--search", "spacex"]) == ["r"])
        #expect(try ids(["--search", "nothing like it"]) == [])
        let records = try box.run(["list", "--json"]).array()
        #expect(records[0]["note"] as? String == "the cat")
        #expect(
            Set(records[0].keys) == [
                "id", "likedAt", "image", "userImage", "thumbnail", "note", "photo", "albums", "cursor", "exif", "color", "colorFrom", "takenAt",
                "takenFrom",
            ])
    }

    @Test func listPagesWithCursors() throws {
        try likeThree()
        let first = try box.run(["list", "--json", "--limit", "2", "--search", "a"]).array()
        #expect(first.map { $0["id"] as? String } == ["k", "c"])
        let cursor = try #require(first.last?["cursor"] as? String)
        let next = try box.run(["list", "--json", "--limit", "2", "--search", "a", "--after", cursor]).array()
        #expect(next.map { $0["id"] as? String } == ["r"])
        // For people, a page with more after it says how to get the next one, filters and all.
        let people = try box.run(["list", "--limit", "2", "--search", "a"])
        #expect(
            people.stdout.hasSuffix("More: likes --store '\(box.store.path)' list --after '\(cursor)' --limit 2 --search 'a'\n"), "\(people.stdout)")
        #expect(try !box.run(["list", "--limit", "3"]).stdout.contains("More:"))
        let bad = try box.run(["list", "--after", "nonsense"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--after takes the \"cursor\" of a record printed by `likes list --json`"), "\(bad.stderr)")
    }

    @Test func listForPeopleAlignsColumnsAndCutsToTheTerminal() throws {
        try likeThree()
        let run = try box.run(["list"], environment: ["COLUMNS": "70"])
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("LIKED "))
        #expect(lines.allSatisfy { $0.count <= 70 })
        let idColumn = lines[0].range(of: "ID")!.lowerBound.utf16Offset(in: lines[0])
        #expect(lines.dropFirst().allSatisfy { $0.count > idColumn })
        #expect(lines[3].contains("109.89 KB") && lines[3].contains("640×427"))
        #expect(lines[1].contains("the cat"))
        let wide = try box.run(["list", "--search", "launch"], environment: ["COLUMNS": "200"])
        #expect(wide.stdout.contains("launch day"))
        let narrow = try box.run(["list", "--search", "launch"], environment: ["COLUMNS": "50"])
        #expect(narrow.stdout.contains("…"))
        let emptied = TemporaryFolder()
        #expect(try emptied.run(["like", "a", "--image", Samples.photo("rocket.jpg").path]).status == 0)
        #expect(try emptied.run(["unlike", "a"]).status == 0)
        let empty = try emptied.run(["list"])
        #expect(empty.status == 0 && empty.stdout.hasPrefix("No liked photos yet."))
    }

    @Test func listShowsTheLikedDateInLocalTime() throws {
        let record = try box.run(["like", "a", "--image", Samples.photo("rocket.jpg").path, "--json"]).object()
        let likedAt = try #require((record["likedAt"] as? String).flatMap { ISO8601DateFormatter.withFractions.date(from: $0) })
        let tokyo = try box.run(["list"], environment: ["TZ": "Asia/Tokyo"]).stdout.split(separator: "\n")[1]
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Asia/Tokyo")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        #expect(tokyo.hasPrefix(formatter.string(from: likedAt)), "\(tokyo)")
    }

    @Test func showPrintsFileSizeDimensionsDateNoteAndMetadata() throws {
        try likeThree()
        let run = try box.run(["show", "r"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("size:         109.89 KB\n"))
        #expect(run.stdout.contains("pixels:       640×427\n"))
        #expect(run.stdout.contains("note:         launch day\n"))
        #expect(run.stdout.contains("photographer: SpaceX (@spacex)\n"))
        #expect(run.stdout.contains("file:         \(box.store.path)/images/r~"))
        let json = try box.run(["show", "r", "--json"]).object()
        #expect(json["id"] as? String == "r")
        let missing = try box.run(["show", "nope"])
        #expect(missing.status == 1 && missing.stderr.hasPrefix("likes: Photo \"nope\" is not liked."))
    }

    @Test func statsCountsBytesAndDates() throws {
        #expect(try box.run(["stats", "--json"]).status == 66, "no store yet")
        #expect(try box.run(["like", "gone", "--image", Samples.photo("rocket.jpg").path]).status == 0)
        #expect(try box.run(["unlike", "gone"]).status == 0)
        let empty = try box.run(["stats", "--json"]).object()
        #expect(empty["count"] as? Int == 0 && empty["oldest"] is NSNull)
        try likeThree()
        let stats = try box.run(["stats", "--json"]).object()
        #expect(stats["count"] as? Int == 3)
        #expect(stats["bytes"] as? Int == ["rocket.jpg", "coffee.jpg", "chelsea.jpg"].map { Samples.data($0).count }.reduce(0, +))
        let list = try box.run(["list", "--json"]).array()
        #expect(stats["newest"] as? String == list.first?["likedAt"] as? String)
        #expect(stats["oldest"] as? String == list.last?["likedAt"] as? String)
        #expect(try box.run(["stats"]).stdout.hasPrefix("3 liked photos, "))
    }

    @Test func importLikesGoodFilesAndSkipsBadOnesWithReasons() throws {
        let folder = box.path("incoming")
        box.file("incoming/rocket.jpg", Samples.data("rocket.jpg"))
        box.file("incoming/nested/deeper/Coffee.JPEG", Samples.data("coffee.jpg"))
        box.file("incoming/png.jpg", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0]))
        box.file("incoming/cut.jpg", Samples.data("chelsea.jpg").prefix(5000))
        box.file("incoming/empty.jpeg", Data())
        box.file("incoming/notes.txt", Data("ignored".utf8))
        box.file("incoming/meta.jpg", Samples.data("astronaut.jpg"))
        box.file("incoming/meta.json", Data("{\"not\": \"a photo\"}".utf8))

        let run = try box.run(["import", folder, "--json"])
        #expect(run.status == 1)
        #expect(run.stderr == "likes: 4 of 6 files were skipped; see the summary.\n")
        let summary = try run.object()
        #expect(summary["liked"] as? [String] == ["Coffee", "rocket"])
        #expect((summary["updated"] as? [String])?.isEmpty == true)
        let skipped = try #require(summary["skipped"] as? [[String: String]])
        let reasons = Dictionary(uniqueKeysWithValues: skipped.map { (($0["file"]! as NSString).lastPathComponent, $0["reason"]!) })
        #expect(reasons["png.jpg"] == "it is a PNG image, not a JPEG")
        #expect(reasons["cut.jpg"] == "not a JPEG: it does not end with the EOI marker (FF D9), so it is probably cut short")
        #expect(reasons["empty.jpeg"] == "not a JPEG: the data is empty")
        #expect(reasons["meta.jpg"]?.contains("is not usable") == true)

        let stored = try box.run(["show", "Coffee", "--json"]).object()
        let file = try #require((stored["image"] as? [String: Any])?["file"] as? String)
        #expect(FileManager.default.contents(atPath: file) == Samples.data("coffee.jpg"))

        let again = try box.run(["import", box.path("incoming/rocket.jpg")])
        #expect(again.status == 0 && again.stdout == "Liked 0, updated 0, unchanged 1, skipped 0.\n", "\(again.stdout)")
        #expect(try box.run(["verify"]).status == 0)
    }

    /// Importing a folder again changes nothing and writes nothing: every photo is unchanged;
    /// files that are not JPEGs are counted by their extension.
    @Test func importingAnUnchangedFolderAgainWritesNothingAndCountsWhatItIgnored() throws {
        let folder = box.path("photos")
        try FileManager.default.copyItem(atPath: Samples.photos.path, toPath: folder)
        for name in ["notes.txt", "scan.png", "raw.heic", "other.png"] { box.file("photos/\(name)", Data("not a photo".utf8)) }
        let first = try box.run(["import", folder, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect((try first.object()["liked"] as? [String])?.count == 6)
        #expect(
            (try first.object()["ignored"] as? [String])?.map { PathText.lastComponent($0) } == ["notes.txt", "other.png", "raw.heic", "scan.png"])
        let images = try FileManager.default.contentsOfDirectory(atPath: box.store.appendingPathComponent("images").path).sorted()
        let journal = try Data(contentsOf: box.store.appendingPathComponent("likes.journal"))

        let again = try box.run(["import", folder])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stdout == "Liked 0, updated 0, unchanged 6, skipped 0.\nIgnored 4 files that are not a JPEG (2 .png, 1 .heic, 1 .txt).\n",
            "\(again.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: box.store.appendingPathComponent("images").path).sorted() == images)
        #expect(try Data(contentsOf: box.store.appendingPathComponent("likes.journal")) == journal, "a rerun wrote to the journal")
        let json = try box.run(["import", folder, "--json"]).object()
        #expect((json["unchanged"] as? [String])?.count == 6 && (json["updated"] as? [String])?.isEmpty == true)

        // One photo changed on disk: updated, the rest unchanged.
        try FileManager.default.removeItem(atPath: folder + "/rocket.jpg")
        try FileManager.default.copyItem(atPath: Samples.photo("coffee.jpg").path, toPath: folder + "/rocket.jpg")
        let changed = try box.run(["import", folder, "--json"]).object()
        #expect(changed["updated"] as? [String] == ["rocket"] && (changed["unchanged"] as? [String])?.count == 5)
        // Liking the same file again, once more: unchanged, and said so.
        let same = try box.run(["like", "rocket", "--image", folder + "/rocket.jpg"])
        #expect(
            same.status == 0 && same.stdout == "rocket is liked with that image, note, albums and metadata already; nothing was written.\n",
            "\(same.stdout)")
    }

    @Test func importOfTheSamplesTakesTheirMetadata() throws {
        let run = try box.run(["import", Samples.photos.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Liked 6, updated 0, skipped 0.\n")
        #expect(run.stderr.isEmpty, "no progress bar when stderr is not a terminal")
        let list = try box.run(["list", "--json", "--search", "Häggström"]).array()
        #expect(list.map { $0["id"] as? String } == ["retina"])
    }

    @Test(Needs.script) func importOnATerminalDrawsProgress() throws {
        let command = "\(Binary.url.path) --store \(box.store.path) import \(Samples.photos.path)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        process.environment = ["NO_COLOR": "1", "PATH": "/usr/bin:/bin", "TERM": "dumb"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(output.contains("6/6") && output.contains("/s") && output.contains("done"), "\(output)")
        #expect(!output.contains("\u{1B}["), "NO_COLOR turns colour off")
    }

    @Test func purgeReportsAndRemovesOrphans() throws {
        try likeThree()
        box.file("store/images/gone~0123456789ab.jpg", Data(count: 1000))
        box.file("store/records/x~0123456789ab.tmp", Data(count: 24))
        let dry = try box.run(["purge", "--dry-run", "--json"]).object()
        #expect(dry["dryRun"] as? Bool == true && dry["count"] as? Int == 2 && dry["bytes"] as? Int == 1024)
        #expect(dry["files"] as? [String] == ["images/gone~0123456789ab.jpg", "records/x~0123456789ab.tmp"])
        let human = try box.run(["purge"])
        #expect(human.stdout == "Removed 2 orphan files (1.00 KB):\n  images/gone~0123456789ab.jpg\n  records/x~0123456789ab.tmp\n")
        let after = try box.run(["purge", "--json"]).object()
        #expect(after["count"] as? Int == 0 && after["dryRun"] as? Bool == false)
        #expect(try box.run(["list", "--json"]).array().count == 3)
    }

    @Test func verifyPassesOnASoundStoreAndFailsOnAChangedImage() throws {
        try likeThree()
        let good = try box.run(["verify", "--json"])
        #expect(good.status == 0)
        #expect(try good.object()["ok"] as? Bool == true)
        let record = try box.run(["show", "c", "--json"]).object()
        let file = try #require((record["image"] as? [String: Any])?["file"] as? String)
        try Data(count: 10).write(to: URL(fileURLWithPath: file))
        let bad = try box.run(["verify", "--json"])
        #expect(bad.status == 1)
        let problems = try #require(try bad.object()["problems"] as? [String])
        #expect(problems.count == 1 && problems[0].contains("of photo \"c\" has 10 bytes"))
        let human = try box.run(["verify"])
        #expect(human.status == 1 && human.stdout.hasPrefix("problem: The image images/c~"))
        #expect(human.stderr == "likes: verify found 1 problem in the store. Run `likes repair` to mend it (it deletes nothing).\n")
    }

    @Test func listOnADamagedStorePrintsWhatItCanNamesTheDamageAndExitsOne() throws {
        try likeThree()
        try Data("{broken".utf8).write(to: box.store.appendingPathComponent("records/c.json"))
        let run = try box.run(["list", "--json"])
        #expect(run.status == 1)
        #expect(try run.array().map { $0["id"] as? String } == ["k", "r"])
        #expect(run.stderr.contains("records/c.json is damaged"))
    }

    @Test func idsThatStartWithADashFollowTheDoubleDash() throws {
        let like = try box.run(["like", "--image", Samples.photo("rocket.jpg").path, "--", "-x"])
        #expect(like.status == 0, "\(like.stderr)")
        #expect(try box.run(["list", "--json"]).array().first?["id"] as? String == "-x")
        let refused = try box.run(["unlike", "-x"])
        #expect(refused.status == 64 && refused.stderr.contains("goes after `--`"))
        #expect(try box.run(["unlike", "--", "-x"]).status == 0)
    }

    @Test(arguments: [
        (["frob"], "unknown command \"frob\""),
        (["list", "--frob"], "unknown option --frob for `likes list`"),
        (["list", "--limit", "-1"], "--limit takes a whole number of 0 or more; \"-1\" is not one"),
        (["list", "--limit", "many"], "--limit takes a whole number of 0 or more; \"many\" is not one"),
        (["list", "--offset"], "--offset needs a value"),
        (["like", "a"], "`likes like` needs --image FILE or --url URL"),
        (["like", "a", "--image", "x", "--url", "http://127.0.0.1/"], "--image and --url cannot be given together"),
        (["like"], "`likes like` needs a photo ID"),
        (["show", "a", "b"], "`likes show` takes a photo ID and nothing more; unexpected \"b\""),
        (["like", "a", "b", "--image", "x"], "`likes like` takes a photo ID and nothing more; unexpected \"b\""),
        (["note", "a", "b", "c"], "`likes note` takes a photo ID and the note's TEXT and nothing more; unexpected \"c\""),
        (["like", "a", "--image", "x", "--image", "y"], "--image is given twice"),
        (["list", "--json=yes"], "--json takes no value"),
        (["--durability", "fast", "list"], "--durability takes full or relaxed, not \"fast\""),
    ])
    func usageErrorsExitSixtyFourWithOneLine(arguments: [String], message: String) throws {
        let run = try box.run(arguments)
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("likes: \(message). See `likes"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    @Test func badInputDataExitsSixtyFive() throws {
        let tooLong = String(repeating: "x", count: 257)
        #expect(try box.run(["like", tooLong, "--image", Samples.photo("rocket.jpg").path]).status == 65)
        let control = try box.run(["like", "a\u{1}b", "--image", Samples.photo("rocket.jpg").path])
        #expect(control.status == 65 && control.stderr.contains("control character U+0001"))
        let notJPEG = try box.run(["like", "a", "--image", box.file("x.jpg", Data("plain text".utf8))])
        #expect(notJPEG.status == 65 && notJPEG.stderr.contains("x.jpg is not a usable JPEG"))
        // The user image is named as such, from the error's field (no text parsed back).
        let userNotJPEG = try box.run(["like", "a", "--image", Samples.photo("rocket.jpg").path, "--user-image", box.path("x.jpg")])
        #expect(
            userNotJPEG.status == 65
                && userNotJPEG.stderr
                    == "likes: The user image \(box.path("x.jpg")) is not a usable JPEG: it does not start with the JPEG SOI marker (FF D8). Give a complete JPEG file.\n",
            "\(userNotJPEG.stderr)")
        let badMeta = try box.run(["like", "a", "--image", Samples.photo("rocket.jpg").path, "--meta", box.file("m.json", Data("{oops".utf8))])
        #expect(badMeta.status == 65 && badMeta.stderr.contains("is not valid JSON"))
        let notPhoto = try box.run(["like", "a", "--image", Samples.photo("rocket.jpg").path, "--meta", box.file("n.json", Data("[1,2]".utf8))])
        #expect(notPhoto.status == 65)
        let listed = try box.run(["list", "--json"])
        #expect(listed.status == 66 || listed.stdout == "[\n\n]\n", "nothing was stored: \(listed.stdout)")
    }

    @Test func missingOrUnreadableInputExitsSixtySix() throws {
        let missing = try box.run(["like", "a", "--image", box.path("nope.jpg")])
        #expect(missing.status == 66 && missing.stderr == "likes: The image \(box.path("nope.jpg")) does not exist. Check the path.\n")
        #expect(try box.run(["like", "a", "--image", box.url.path]).status == 66)
        #expect(try box.run(["import", box.path("nowhere")]).status == 66)
        #expect(try box.run(["like", "a", "--image", "/dev/null"]).status == 66)
    }

    @Test func aStoreThatCannotBeCreatedIsAnIOError() throws {
        let blocker = box.file("blocker", Data("a file".utf8))
        let run = try TemporaryFolder.execute(["--store", blocker + "/store", "like", "a", "--image", Samples.photo("rocket.jpg").path])
        #expect(run.status == 74)
        #expect(run.stderr.hasPrefix("likes: Could not "))
    }

    @Test func readingCommandsWorkOnAReadOnlyStore() throws {
        try likeThree()
        // A read-only bind mount of the store, in a user and mount namespace of its own (root in
        // CI cannot be kept out by file modes). Skipped where namespaces are not allowed.
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["--user", "--map-root-user", "--mount", "true"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return }
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else { return }

        let store = box.store.path
        let likes = Binary.url.path
        let script = """
            mount --bind '\(store)' '\(store)' && mount -o remount,ro,bind '\(store)' || exit 99
            '\(likes)' --store '\(store)' list --limit 2 --json >/dev/null || exit 1
            '\(likes)' --store '\(store)' list --search cat --json >/dev/null || exit 2
            '\(likes)' --store '\(store)' show r >/dev/null || exit 3
            '\(likes)' --store '\(store)' stats --json >/dev/null || exit 4
            '\(likes)' --store '\(store)' verify >/dev/null || exit 5
            '\(likes)' --store '\(store)' purge --dry-run >/dev/null || exit 6
            '\(likes)' --store '\(store)' unlike r 2>'\(box.path("unlike.txt"))'
            [ $? -eq 74 ] || exit 7
            '\(likes)' --store '\(store)' album add X r 2>'\(box.path("album.txt"))'
            [ $? -eq 74 ] || exit 8
            """
        let run = Process()
        run.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        run.arguments = ["--user", "--map-root-user", "--mount", "/bin/sh", "-c", script]
        try run.run()
        run.waitUntilExit()
        #expect(run.terminationStatus == 0, "step \(run.terminationStatus) failed on the read-only store")
        #expect(try box.run(["list", "--json"]).array().count == 3, "the unlike refused by the read-only store changed nothing")
        // A single change says it left the store as it was; a command that may have done part of
        // its work (albums of several photos, import, purge, export) does not claim it.
        let unlike = try String(contentsOfFile: box.path("unlike.txt"), encoding: .utf8)
        #expect(unlike.hasPrefix("likes: Could not ") && unlike.hasSuffix(" The store was left as it was.\n"), "\(unlike)")
        let album = try String(contentsOfFile: box.path("album.txt"), encoding: .utf8)
        #expect(album.hasPrefix("likes: Could not ") && !album.contains("left as it was"), "\(album)")
    }

    @Test func aFullDiskFailsTheLikeAndKeepsTheStoreAsItWas() throws {
        // A 64 KB tmpfs in a user and mount namespace of its own: a real ENOSPC. Skipped where
        // namespaces are not allowed.
        let mountPoint = box.url.appendingPathComponent("small-disk")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let small = box.file("small.jpg", madeUpJPEG(seed: 1, scanBytes: 200))
        let store = mountPoint.appendingPathComponent("store").path
        let likes = Binary.url.path
        let script = """
            mount -t tmpfs -o size=64k tmpfs '\(mountPoint.path)' || exit 99
            '\(likes)' --store '\(store)' like small --image '\(small)' >/dev/null || exit 1
            '\(likes)' --store '\(store)' like big --image '\(Samples.photo("rocket.jpg").path)' 2>'\(box.path("error.txt"))'
            [ $? -eq 74 ] || exit 2
            '\(likes)' --store '\(store)' list --json > '\(box.path("list.json"))' || exit 3
            '\(likes)' --store '\(store)' verify >/dev/null || exit 4
            [ "$(ls '\(store)/images' | wc -l)" -eq 1 ] || exit 5
            """
        let run = Process()
        run.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        run.arguments = ["--user", "--map-root-user", "--mount", "/bin/sh", "-c", script]
        run.standardError = FileHandle.nullDevice
        guard (try? run.run()) != nil else { return }
        run.waitUntilExit()
        guard run.terminationStatus != 99 else { return }  // no tmpfs mount allowed here
        #expect(run.terminationStatus == 0, "step \(run.terminationStatus) failed on the full disk")
        let error = try String(contentsOfFile: box.path("error.txt"), encoding: .utf8)
        #expect(error.hasPrefix("likes: Could not write ") && error.contains("No space left on device"), "\(error)")
        let listed = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: box.path("list.json")))) as? [[String: Any]]
        #expect(listed?.map { $0["id"] as? String } == ["small"])
    }

    @Test func aHugeSparseFileIsRefusedWithoutReadingIt() throws {
        let path = box.path("huge.jpg")
        #expect(FileManager.default.createFile(atPath: path, contents: Data([0xFF, 0xD8])))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 1 << 30)
        try handle.close()
        // Whether it was read, by its time of last access, set back a year: a read moves it on,
        // as a read of the same kind of file shows first (on a file system that keeps no such
        // time, the refusal and its message are all that is judged).
        func accessed(_ path: String) -> Int {
            var info = stat()
            guard stat(path, &info) == 0 else { return -1 }
            #if canImport(Darwin)
                return Int(info.st_atimespec.tv_sec)
            #else
                return Int(info.st_atim.tv_sec)
            #endif
        }
        func setBack(_ path: String) {
            var times = [timespec(tv_sec: time(nil) - 365 * 86_400, tv_nsec: 0), timespec(tv_sec: time(nil), tv_nsec: 0)]
            _ = utimensat(AT_FDCWD, path, &times, 0)
        }
        let control = box.file("control.jpg", Data([0xFF, 0xD8, 0xFF]))
        setBack(control)
        let before = accessed(control)
        _ = try Data(contentsOf: URL(fileURLWithPath: control))
        let readsShow = accessed(control) != before
        setBack(path)
        let untouched = accessed(path)
        let run = try box.run(["like", "huge", "--image", path])
        #expect(run.status == 65)
        #expect(run.stderr.contains("is 1.00 GB, more than the 256.00 MB a photo may have"), "\(run.stderr)")
        if readsShow { #expect(accessed(path) == untouched, "the file was read") }
        let folder = box.path("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: path, toPath: folder + "/huge.jpg")
        let imported = try box.run(["import", folder, "--json"])
        #expect(imported.status == 1)
        #expect((try imported.object()["skipped"] as? [[String: String]])?.first?["reason"]?.contains("256.00 MB") == true)
    }

    @Test func aLockedStoreIsBusyAfterTheTimeout() throws {
        _ = try box.run(["like", "a", "--image", Samples.photo("rocket.jpg").path])
        let fd = open(box.store.appendingPathComponent("likes.lock").path, O_RDWR)
        #expect(fd >= 0)
        #expect(flock(fd, LOCK_EX) == 0)
        let run = try box.run(["unlike", "a"], environment: ["LIKES_LOCK_TIMEOUT": "0.3"])
        flock(fd, LOCK_UN)
        close(fd)
        #expect(run.status == 75)
        #expect(run.stderr.contains("stayed locked by another process"))
        #expect(try box.run(["unlike", "a"]).status == 0)
    }

    @Test func storeLocationComesFromOptionEnvironmentOrXDG() throws {
        // An `=` and a letter beyond ASCII in the value: all of it after the first `=` is the path.
        let viaEnvironment = box.url.appendingPathComponent("env=store é").path
        #expect(
            try box.run(["like", "a", "--image", Samples.photo("rocket.jpg").path], store: false, environment: ["LIKES_STORE": viaEnvironment]).status
                == 0)
        #expect(FileManager.default.fileExists(atPath: viaEnvironment + "/records/a.json"))
        let xdg = box.url.appendingPathComponent("xdg").path
        #expect(
            try box.run(["like", "b", "--image", Samples.photo("rocket.jpg").path], store: false, environment: ["XDG_DATA_HOME": xdg]).status == 0)
        #expect(FileManager.default.fileExists(atPath: xdg + "/likes/records/b.json"))
        let home = box.url.appendingPathComponent("home").path
        #expect(
            try box.run(["like", "c", "--image", Samples.photo("rocket.jpg").path], store: false, environment: ["HOME": home, "XDG_DATA_HOME": ""])
                .status == 0)
        #expect(FileManager.default.fileExists(atPath: home + "/.local/share/likes/records/c.json"))
        // --store wins over the environment.
        let named = try box.run(["list", "--json"], environment: ["LIKES_STORE": viaEnvironment])
        #expect(named.status == 66 && named.stderr.contains(box.store.path), "\(named.stderr)")
    }

    @Test func relaxedDurabilityStillStoresEverything() throws {
        #expect(try box.run(["like", "a", "--image", Samples.photo("rocket.jpg").path], environment: ["LIKES_DURABILITY": "relaxed"]).status == 0)
        #expect(try box.run(["--durability", "relaxed", "like", "b", "--image", Samples.photo("coffee.jpg").path]).status == 0)
        #expect(try box.run(["verify"]).status == 0)
        #expect(try box.run(["list", "--json"]).array().count == 2)
    }
}

extension ISO8601DateFormatter {
    static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}

extension CommandLineTests {
    /// One command honours a photographer's or a source's request to take their photos down:
    /// `unlike --source` and `--photographer`, with `--dry-run` to see them first.
    @Test func unlikeBySourceOrPhotographerHonoursARemovalRequest() throws {
        func meta(_ name: String, page: String, username: String) -> String {
            box.file(
                "\(name).json",
                Data(#"{"id": "\#(name)", "links": {"html": "\#(page)"}, "user": {"name": "N", "username": "\#(username)"}}"#.utf8))
        }
        let photos = [
            ("u1", "https://unsplash.com/photos/u1", "ann"), ("u2", "https://unsplash.com/photos/u2", "bob"),
            ("f1", "https://www.flickr.com/photos/ann/1/", "ann"), ("f2", "https://www.flickr.com/photos/cy/2/", "cy"),
        ]
        for (id, page, username) in photos {
            let run = try box.run(["like", id, "--image", Samples.photo("rocket.jpg").path, "--meta", meta(id, page: page, username: username)])
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(try box.run(["like", "plain", "--image", Samples.photo("coffee.jpg").path]).status == 0)
        let dry = try box.run(["unlike", "--source", "flickr", "--dry-run", "--json"]).object()
        #expect(dry["dryRun"] as? Bool == true && (dry["unliked"] as? [String])?.sorted() == ["f1", "f2"])
        #expect(try box.run(["list", "--json"]).array().count == 5, "a dry run unlikes nothing")
        let ann = try box.run(["unlike", "--photographer", "ANN"])
        #expect(ann.status == 0 && ann.stdout.hasPrefix("Unliked 2 photos by ANN:"), "\(ann.stdout)")
        let flickr = try box.run(["unlike", "--source", "flickr", "--photographer", "cy", "--json"]).object()
        #expect(flickr["unliked"] as? [String] == ["f2"])
        #expect(try box.run(["list", "--json"]).array().compactMap { $0["id"] as? String }.sorted() == ["plain", "u2"])
        #expect(try box.run(["unlike", "--source", "flickr"]).stdout == "No photo from Flickr is liked.\n")
        #expect(try box.run(["unlike", "--source", "instagram"]).status == 64)
        #expect(try box.run(["unlike", "u2", "--source", "unsplash"]).status == 64)
    }
}

extension CommandLineTests {
    /// On a terminal `likes serve` says how to stop it, on stderr: stdout holds the address alone.
    @Test(Needs.script) func serveOnATerminalSaysHowToStop() throws {
        #expect(try box.run(["like", "a", "--image", Samples.photo("rocket.jpg").path]).status == 0)
        let command = "timeout -s INT 2 \(Binary.url.path) --store '\(box.store.path)' serve --port 0"
        let run = try TemporaryFolder.execute(["-qec", command, "/dev/null"], executable: URL(fileURLWithPath: "/usr/bin/script"))
        let lines = run.stdout.split(separator: "\r\n").map(String.init)
        #expect(lines.first?.hasPrefix("http://127.0.0.1:") == true, "\(run.stdout)")
        #expect(lines.contains { $0.hasSuffix("Ctrl-C to stop.") }, "\(run.stdout)")
    }
}

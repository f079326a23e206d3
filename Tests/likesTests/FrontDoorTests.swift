// What a newcomer meets first: a mistyped store named, not made; `likes` alone helping; a
// mistyped command guessed; hints that can be pasted back; tables without trailing spaces;
// refusals that say what a file is; help that lists what the command prints.

import Foundation
import TestSupport
import Testing

@Suite(.ownLane) struct FrontDoorTests {
    /// The commands that read a store, or would change something liked already: on a store that
    /// does not exist, each names it as missing (66) and makes nothing.
    @Test(arguments: [
        ["unlike", "chelsea"], ["note", "chelsea", "a note"], ["album", "add", "Trip", "chelsea"], ["album", "remove", "Trip", "chelsea"],
        ["album", "rename", "Trip", "Journey"], ["album", "delete", "Trip"], ["toggle", "chelsea"], ["serve"], ["watch"], ["list"],
    ])
    func aCommandOnAStoreThatIsNotThereNamesItAndMakesNothing(arguments: [String]) throws {
        let box = TemporaryFolder()
        let typo = box.path("typo")
        let run = try TemporaryFolder.execute(["--store", typo] + arguments)
        #expect(run.status == 66, "\(run.stderr)")
        #expect(
            run.stderr
                == "likes: There is no store at \(typo): nothing was ever liked there. Check --store or LIKES_STORE; the first like makes a store.\n")
        #expect(!FileManager.default.fileExists(atPath: typo))
    }

    @Test func withoutStoreOptionTheDefaultPlaceIsNotMadeEither() throws {
        let box = TemporaryFolder()
        let run = try TemporaryFolder.execute(["toggle", "chelsea"], environment: ["XDG_DATA_HOME": box.path("data")])
        #expect(run.status == 66, "\(run.stderr)")
        #expect(box.files().isEmpty && !FileManager.default.fileExists(atPath: box.path("data")))
    }

    @Test func onlyALikeAnImportARestoreOrASyncMakesAStore() throws {
        let box = TemporaryFolder()
        let toggled = try TemporaryFolder.execute(["--store", box.path("toggled"), "toggle", "rocket", "--image", Samples.photo("rocket.jpg").path])
        #expect(toggled.status == 0 && toggled.stdout.contains("liked"), "\(toggled.stderr)")
        let imported = try TemporaryFolder.execute(["--store", box.path("imported"), "import", Samples.photos.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let folder = box.path("sync-folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let synced = try TemporaryFolder.execute(["--store", box.path("synced"), "sync", folder])
        #expect(synced.status == 0, "\(synced.stderr)")
        for store in ["toggled", "imported", "synced"] {
            #expect(FileManager.default.fileExists(atPath: box.path(store + "/likes.lock")), "\(store)")
        }
    }

    @Test func likesAlonePrintsTheHelp() throws {
        let run = try TemporaryFolder.execute([])
        let help = try TemporaryFolder.execute(["--help"])
        #expect(run.status == 0 && run.stderr.isEmpty)
        #expect(run.stdout == help.stdout && run.stdout.contains("Usage: likes"))
    }

    @Test(arguments: [("lst", "list"), ("shw", "show"), ("stat", "stats"), ("unlik", "unlike"), ("imprt", "import"), ("tog", "toggle")])
    func aMistypedCommandNamesTheNearest(typed: String, meant: String) throws {
        let run = try TemporaryFolder.execute([typed])
        #expect(run.status == 64)
        #expect(run.stderr == "likes: unknown command \"\(typed)\". Did you mean `\(meant)`? See `likes --help`.\n")
    }

    @Test(arguments: ["xyz", "al"])
    func aCommandNearNoneOrTwoGuessesNothing(typed: String) throws {
        let run = try TemporaryFolder.execute([typed])
        #expect(run.status == 64 && run.stderr == "likes: unknown command \"\(typed)\". See `likes --help`.\n")
    }

    @Test func theNextPagesHintRepeatsTheStoreAndRunsAsPrinted() throws {
        let box = TemporaryFolder()
        let store = box.path("my store")
        #expect(try TemporaryFolder.execute(["--store", store, "import", Samples.photos.path]).status == 0)
        let first = try TemporaryFolder.execute(["--store", store, "list", "--limit", "2"])
        let hint = try #require(first.stdout.split(separator: "\n").last.map(String.init))
        #expect(hint.hasPrefix("More: likes --store '\(store)' list --after '"), "\(hint)")
        // Pasted into a shell, it lists the next two.
        let pasted = "\"$0\"" + hint.dropFirst("More: likes".count)
        let next = try TemporaryFolder.execute(["-c", pasted, Binary.url.path], executable: URL(fileURLWithPath: "/bin/sh"))
        let all = try TemporaryFolder.execute(["--store", store, "list", "--json"]).json() as? [[String: Any]]
        let ids = (all ?? []).compactMap { $0["id"] as? String }
        #expect(next.status == 0, "\(next.stderr)")
        #expect(
            ids.count > 4 && next.stdout.contains(ids[2]) && next.stdout.contains(ids[3]) && !next.stdout.contains(" \(ids[0]) "), "\(next.stdout)")
    }

    @Test func tableRowsEndInNoSpaceAndTheLastColumnIsTheCaption() throws {
        let box = TemporaryFolder()
        #expect(try box.run(["like", "plain", "--image", Samples.photo("rocket.jpg").path]).status == 0)
        #expect(try box.run(["like", "noted", "--image", Samples.photo("coffee.jpg").path, "--note", "Morning"]).status == 0)
        let run = try box.run(["list"])
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 3 && lines.allSatisfy { !$0.hasSuffix(" ") }, "\(run.stdout.replacingOccurrences(of: " ", with: "·"))")
        #expect(lines[0].hasSuffix("PIXELS  CAPTION") && lines[1].hasSuffix("Morning"))
    }

    @Test func anOptionAfterTheEndOfOptionsIsNamedAsSuch() throws {
        let box = TemporaryFolder()
        let photo = Samples.photo("rocket.jpg").path
        let wrong = try box.run(["like", "--", "-dash", "--image", photo])
        #expect(wrong.status == 64)
        #expect(
            wrong.stderr == "likes: \"--image\" comes after `--`, which makes everything after it a photo ID or text, never an option; "
                + "put the options before `--` (likes like --image … -- -dash). See `likes like --help`.\n")
        #expect(!FileManager.default.fileExists(atPath: box.store.path))
        let right = try box.run(["like", "--image", photo, "--", "-dash"])
        #expect(right.status == 0, "\(right.stderr)")
    }

    @Test(arguments: [
        ("PNG", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] as [UInt8]), ("GIF", Array("GIF89a......".utf8)),
        ("HEIC", [0, 0, 0, 24] + Array("ftypheic".utf8)), ("WebP", Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8)),
    ])
    func anotherFormatNamedJpgIsCalledWhatItIs(format: String, lead: [UInt8]) throws {
        let box = TemporaryFolder()
        let file = box.file("photo.jpg", Data(lead + [UInt8](repeating: 0, count: 200)))
        let run = try box.run(["like", "photo", "--image", file])
        #expect(run.status == 65)
        #expect(run.stderr == "likes: The image \(file) is not a usable JPEG: it is a \(format) image, not a JPEG. Give a complete JPEG file.\n")
        let imported = try box.run(["import", file, "--json"])
        let skipped = try #require((imported.json() as? [String: Any])?["skipped"] as? [[String: String]])
        #expect(skipped.first?["reason"] == "it is a \(format) image, not a JPEG")
    }

    @Test func importsHelpNamesEveryKeyItsJSONHas() throws {
        let box = TemporaryFolder()
        let run = try box.run(["import", Samples.photos.path, "--json"])
        let keys = try #require((run.json() as? [String: Any])?.keys)
        let help = try box.run(["import", "--help"]).stdout
        let line = try #require(help.split(separator: "\n").first { $0.hasPrefix("  --json") })
        for key in keys { #expect(line.contains("\"\(key)\""), "\(key) is not in \(line)") }
    }

    /// On a terminal the summary says what was skipped; no line on stderr says it again.
    @Test func anImportOnATerminalDoesNotRepeatItsSummary() throws {
        let box = TemporaryFolder()
        let folder = box.path("in")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Samples.photo("rocket.jpg").path, toPath: folder + "/rocket.jpg")
        box.file("in/broken.jpg", Data([0xFF, 0xD8, 0xFF]))
        let command = "'\(Binary.url.path)' --store '\(box.store.path)' import '\(folder)'"
        // script(1) runs it on a pseudo-terminal, stdout and stderr both.
        let run = try TemporaryFolder.execute(["-qec", command, "/dev/null"], executable: URL(fileURLWithPath: "/usr/bin/script"))
        #expect(run.status == 1)
        #expect(run.stdout.contains("skipped 1") && !run.stdout.contains("were skipped"), "\(run.stdout)")
        // Piped, the line is there for whoever reads stderr.
        let piped = try box.run(["import", folder])
        #expect(piped.status == 1 && piped.stderr == "likes: 1 of 2 files were skipped; see the summary.\n", "\(piped.stderr)")
    }

    @Test func serveOnAPortTakenSaysWhatToDo() throws {
        let box = TemporaryFolder()
        #expect(try box.run(["like", "rocket", "--image", Samples.photo("rocket.jpg").path]).status == 0)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(listener, 1) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = UInt16(bigEndian: address.sin_port)
        let run = try box.run(["serve", "--port", String(port)])
        #expect(run.status == 74)
        #expect(
            run.stderr.hasPrefix("likes: Cannot serve on 127.0.0.1:\(port): bind failed: ")
                && run.stderr.hasSuffix(". Choose another --port, or leave it out for any free one.\n"), "\(run.stderr)")
    }
}

// End-to-end: notes, albums and export through the real `likes` binary.

import Foundation
import TestSupport
import Testing

@Suite(.ownLane) struct NoteCommandTests {
    let box = TemporaryFolder()

    @Test func aNoteIsSetShownSearchedAndCleared() throws {
        #expect(try box.run(["like", "rocket", "--image", Samples.photo("rocket.jpg").path]).status == 0)
        let set = try box.run(["note", "rocket", "Launch day\nat dawn"])
        #expect(set.status == 0 && set.stdout == "Noted rocket.\n", "\(set.stderr)")
        let show = try box.run(["show", "rocket"])
        #expect(show.stdout.contains("note:") && show.stdout.contains("Launch day at dawn"))
        #expect(try box.run(["list"]).stdout.contains("Launch day at dawn"))
        #expect(try box.run(["list", "--search", "DAWN", "--json"]).array().map { $0["id"] as? String } == ["rocket"])
        #expect(try box.run(["show", "rocket", "--json"]).object()["note"] as? String == "Launch day\nat dawn")

        let again = try box.run(["note", "rocket", "Launch day\nat dawn"])
        #expect(again.status == 0 && again.stdout == "rocket has that note already.\n")
        let replaced = try box.run(["note", "rocket", "replaced", "--json"])
        #expect(try replaced.object()["note"] as? String == "replaced")
        let cleared = try box.run(["note", "rocket", "--clear"])
        #expect(cleared.status == 0 && cleared.stdout == "Cleared the note of rocket.\n")
        #expect(try box.run(["show", "rocket", "--json"]).object()["note"] is NSNull)
        #expect(try box.run(["list", "--search", "replaced", "--json"]).array().isEmpty)
        #expect(try box.run(["verify"]).status == 0)
    }

    @Test func mistakesHaveTheirExitStatus() throws {
        #expect(try box.run(["like", "a", "--image", Samples.photo("rocket.jpg").path, "--note", "kept"]).status == 0)
        let both = try box.run(["note", "a", "text", "--clear"])
        #expect(both.status == 64 && both.stderr.hasPrefix("likes: give the note's TEXT or --clear, not both."))
        #expect(try box.run(["note", "a"]).status == 64)
        #expect(try box.run(["note", "a", "b", "c"]).status == 64)
        let ghost = try box.run(["note", "ghost", "text"])
        #expect(ghost.status == 1 && ghost.stderr.contains("\"ghost\" is not liked"))
        let blank = try box.run(["note", "a", "  "])
        #expect(blank.status == 65 && blank.stderr.contains("Invalid note: it is blank"))
        let control = try box.run(["note", "a", "bell\u{7}"])
        #expect(control.status == 65 && control.stderr.contains("U+0007"))
        #expect(try box.run(["like", "a", "--image", Samples.photo("rocket.jpg").path, "--note", "\u{1b}[2J"]).status == 65)
        #expect(try box.run(["show", "a", "--json"]).object()["note"] as? String == "kept")
        for run in [both, ghost, blank, control] { #expect(run.stderr.split(separator: "\n").count == 1) }
    }
}

@Suite(.ownLane) struct AlbumCommandTests {
    let box = TemporaryFolder()

    func likeSamples(_ names: [String]) throws {
        for name in names {
            #expect(try box.run(["like", name, "--image", Samples.photo("\(name).jpg").path]).status == 0)
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    @Test func addListAndRemove() throws {
        try likeSamples(["rocket", "coffee", "chelsea"])
        let none = try box.run(["albums"])
        #expect(none.status == 0 && none.stdout.hasPrefix("No albums yet."))
        #expect(try box.run(["albums", "--json"]).array().isEmpty)
        let added = try box.run(["album", "add", "Trip to Lisbon", "coffee", "rocket"])
        #expect(added.status == 0 && added.stdout == "Added 2 photos to \"Trip to Lisbon\".\n", "\(added.stderr)")
        let json = try box.run(["album", "add", "Trip to Lisbon", "coffee", "chelsea", "--json"]).object()
        #expect(json["album"] as? String == "Trip to Lisbon")
        #expect(json["added"] as? [String] == ["chelsea"] && json["unchanged"] as? [String] == ["coffee"])
        #expect(try box.run(["album", "add", "Cats", "chelsea"]).status == 0)

        let listed = try box.run(["list", "--album", "Trip to Lisbon", "--json"]).array()
        #expect(listed.map { $0["id"] as? String } == ["chelsea", "coffee", "rocket"])
        #expect(listed[0]["albums"] as? [String] == ["Cats", "Trip to Lisbon"])
        #expect(try box.run(["show", "chelsea"]).stdout.contains(/\nalbums: +Cats, Trip to Lisbon\n/))

        let albums = try box.run(["albums", "--json"]).array()
        #expect(albums.map { $0["name"] as? String } == ["Cats", "Trip to Lisbon"])
        #expect(albums.map { $0["count"] as? Int } == [1, 3])
        #expect((albums[1]["cover"] as? [String: Any])?["id"] as? String == "chelsea")
        let bytes = ["rocket", "coffee", "chelsea"].map { Samples.data("\($0).jpg").count }.reduce(0, +)
        #expect(albums[1]["bytes"] as? Int == bytes)
        let table = try box.run(["albums"], environment: ["COLUMNS": "200"]).stdout.split(separator: "\n")
        #expect(table.first?.hasPrefix("ALBUM") == true && table.count == 3)
        #expect(table[2].hasPrefix("Trip to Lisbon") && table[2].hasSuffix("chelsea"))

        let removed = try box.run(["album", "remove", "Cats", "chelsea"])
        #expect(removed.status == 0 && removed.stdout == "Took 1 photo out of \"Cats\".\n")
        #expect(try box.run(["albums", "--json"]).array().count == 1)  // an album with no photo is gone
        let gone = try box.run(["list", "--album", "Cats"])
        #expect(gone.status == 1 && gone.stderr.contains("There is no album \"Cats\""))

        // Unliking takes the photo out of its albums.
        #expect(try box.run(["unlike", "chelsea"]).status == 0)
        #expect(try box.run(["albums", "--json"]).array().first?["count"] as? Int == 2)
        #expect(try box.run(["verify"]).status == 0)
    }

    @Test func mistakesChangeNothing() throws {
        try likeSamples(["rocket", "coffee"])
        #expect(try box.run(["album", "add", "Lisbon", "rocket"]).status == 0)
        let journal = box.store.appendingPathComponent("likes.journal")
        let before = try Data(contentsOf: journal)
        let ghost = try box.run(["album", "add", "Lisbon", "coffee", "ghost"])
        #expect(ghost.status == 1 && ghost.stderr.contains("\"ghost\" is not liked"))
        let notIn = try box.run(["album", "remove", "Lisbon", "rocket", "coffee"])
        #expect(notIn.status == 1 && notIn.stderr.contains("\"coffee\" is not in the album \"Lisbon\""))
        let badName = try box.run(["album", "add", "tab\there", "rocket"])
        #expect(badName.status == 65 && badName.stderr.contains("Invalid album name"))
        #expect(try box.run(["album", "add", "", "rocket"]).status == 65)
        #expect(try box.run(["album", "add", String(repeating: "a", count: 257), "rocket"]).status == 65)
        #expect(try box.run(["album", "move", "Lisbon", "rocket"]).status == 64)
        #expect(try box.run(["album", "rename", "Lisbon"]).status == 64)
        #expect(try box.run(["album", "rename", "Lisbon", "Porto", "rocket"]).status == 64)
        #expect(try box.run(["album", "delete", "Lisbon", "rocket"]).status == 64)
        #expect(try box.run(["album", "delete", "Porto"]).status == 1)
        #expect(try box.run(["album", "rename", "Porto", "Lisbon"]).status == 1)
        #expect(try box.run(["album", "add", "Lisbon"]).status == 64)
        #expect(try box.run(["list", "--album", "bad\u{1}"]).status == 65)
        #expect(try Data(contentsOf: journal) == before)
        for run in [ghost, notIn, badName] { #expect(run.stderr.split(separator: "\n").count == 1) }
    }

    /// Issue 53: a store a newer version wrote is refused with exit 1, never repaired.
    @Test func aStoreFromANewerVersionIsRefusedNotRepaired() throws {
        try likeSamples(["rocket"])
        let journal = box.store.appendingPathComponent("likes.journal")
        let text = try String(contentsOf: journal, encoding: .utf8)
        try Data(text.replacingOccurrences(of: " likes-journal-3\n", with: " likes-journal-7\n").utf8).write(to: journal)
        for command in [["list"], ["repair"], ["like", "coffee", "--image", Samples.photo("coffee.jpg").path]] {
            let run = try box.run(command)
            #expect(run.status == 1, "\(command): \(run.status)")
            #expect(run.stderr.contains("written by a newer version (likes-journal-7)") && run.stderr.hasSuffix("Update likes.\n"), "\(run.stderr)")
        }
        #expect(try String(contentsOf: journal, encoding: .utf8).contains(" likes-journal-7\n"))
    }

    /// Issue 52: `album cover` chooses a cover, `--newest` goes back; `albums` and `show` say
    /// so; mistakes change nothing.
    @Test func aCoverIsChosenAndGivenBack() throws {
        try likeSamples(["rocket", "coffee", "chelsea"])
        #expect(try box.run(["album", "add", "Trip", "rocket", "coffee", "chelsea"]).status == 0)
        #expect(try box.run(["albums", "--json"]).array().first?["coverChosen"] as? Bool == false)
        let chosen = try box.run(["album", "cover", "trip", "rocket"])
        #expect(chosen.status == 0 && chosen.stdout == "rocket is now the cover of \"trip\".\n", "\(chosen.stderr)")
        let again = try box.run(["album", "cover", "Trip", "rocket", "--json"]).object()
        #expect(again["cover"] as? String == "rocket" && again["changed"] as? [String] == [])
        let albums = try box.run(["albums", "--json"]).array()
        #expect((albums.first?["cover"] as? [String: Any])?["id"] as? String == "rocket" && albums.first?["coverChosen"] as? Bool == true)
        #expect(try box.run(["albums"], environment: ["COLUMNS": "200"]).stdout.split(separator: "\n").last?.hasSuffix("rocket") == true)
        #expect(try box.run(["show", "rocket"]).stdout.contains(/\nalbums: +Trip \(its cover\)\n/))
        #expect(try box.run(["show", "rocket", "--json"]).object()["covers"] as? [String] == ["Trip"])

        let journal = box.store.appendingPathComponent("likes.journal")
        let before = try Data(contentsOf: journal)
        let outside = try box.run(["album", "cover", "Trip", "ghost"])
        #expect(outside.status == 1 && outside.stderr.contains("\"ghost\" is not liked"))
        #expect(try box.run(["album", "cover", "Nowhere", "rocket"]).status == 1)
        #expect(try box.run(["album", "cover", "Trip"]).status == 64)
        #expect(try box.run(["album", "cover", "Trip", "rocket", "--newest"]).status == 64)
        #expect(try box.run(["album", "add", "Trip", "rocket", "--newest"]).status == 64)
        #expect(try Data(contentsOf: journal) == before)

        let back = try box.run(["album", "cover", "Trip", "--newest"])
        #expect(back.status == 0 && back.stdout == "\"Trip\" has its newest photo as its cover again.\n")
        let newest = try box.run(["albums", "--json"]).array().first
        #expect((newest?["cover"] as? [String: Any])?["id"] as? String == "chelsea" && newest?["coverChosen"] as? Bool == false)
        #expect(try box.run(["verify"]).status == 0)
    }

    /// Issue 35: an album renamed or deleted keeps its photos liked; names match without regard
    /// to case; the table lines up names with emoji and CJK.
    @Test func renameAndDeleteKeepThePhotosLiked() throws {
        try likeSamples(["rocket", "coffee", "chelsea"])
        #expect(try box.run(["album", "add", "Mornings", "rocket", "coffee"]).status == 0)
        #expect(try box.run(["album", "add", "Cats", "chelsea"]).status == 0)
        #expect(try box.run(["list", "--album", "mornings", "--json"]).array().map { $0["id"] as? String } == ["coffee", "rocket"])
        #expect(try box.run(["list", "--album", "MORNINGS", "--json"]).array().count == 2)

        let renamed = try box.run(["album", "rename", "mornings", "Early Light"])
        #expect(renamed.status == 0 && renamed.stdout == "Renamed \"mornings\" to \"Early Light\": 2 photos.\n", "\(renamed.stderr)")
        #expect(try box.run(["albums", "--json"]).array().map { $0["name"] as? String } == ["Cats", "Early Light"])
        #expect(try box.run(["show", "rocket", "--json"]).object()["albums"] as? [String] == ["Early Light"])
        let joined = try box.run(["album", "rename", "Cats", "Early Light", "--json"]).object()
        #expect(joined["photos"] as? [String] == ["chelsea"] && joined["to"] as? String == "Early Light")
        #expect(try box.run(["albums", "--json"]).array().map { $0["count"] as? Int } == [3])

        let deleted = try box.run(["album", "delete", "early light"])
        #expect(deleted.status == 0 && deleted.stdout.contains("3 photos taken out of it, still liked"), "\(deleted.stderr)")
        #expect(try box.run(["albums", "--json"]).array().isEmpty)
        let listed = try box.run(["list", "--json"]).array()
        #expect(listed.count == 3 && listed.allSatisfy { ($0["albums"] as? [String])?.isEmpty == true })
        #expect(try box.run(["verify"]).status == 0)

        #expect(try box.run(["album", "add", "🌅 Sun", "rocket"]).status == 0)
        #expect(try box.run(["album", "add", "東京", "coffee"]).status == 0)
        #expect(try box.run(["album", "add", "Cats", "chelsea"]).status == 0)
        let table = try box.run(["albums"], environment: ["COLUMNS": "200"]).stdout.split(separator: "\n").map(String.init)
        // Each name padded to the widest's columns (an emoji and a CJK character take two).
        #expect(table[0].hasPrefix("ALBUM   PHOTOS"), "\(table)")
        #expect(table[1].hasPrefix("Cats         1"), "\(table)")
        #expect(table[2].hasPrefix("東京         1"), "\(table)")
        #expect(table[3].hasPrefix("🌅 Sun       1"), "\(table)")
    }

    @Test func likeAndImportPutPhotosInAlbums() throws {
        let like = try box.run([
            "like", "rocket", "--image", Samples.photo("rocket.jpg").path, "--album", "Sky", "--album", "Launches", "--json",
        ])
        #expect(try like.object()["albums"] as? [String] == ["Launches", "Sky"])
        let folder = box.url.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["coffee", "chelsea"] {
            try FileManager.default.copyItem(at: Samples.photo("\(name).jpg"), to: folder.appendingPathComponent("\(name).jpg"))
        }
        #expect(try box.run(["import", folder.path, "--album", "Café"]).status == 0)
        #expect(try box.run(["toggle", "astronaut", "--image", Samples.photo("astronaut.jpg").path, "--album", "Sky"]).status == 0)
        let albums = try box.run(["albums", "--json"]).array()
        #expect(albums.map { "\($0["name"] as? String ?? "?") \($0["count"] as? Int ?? 0)" } == ["Café 2", "Launches 1", "Sky 2"])
        // The two spellings of Café name one album.
        #expect(try box.run(["list", "--album", "Cafe\u{301}", "--json"]).array().count == 2)
    }

    @Test func purgeRebuildsAnIndexThatAHandEditedRecordContradicts() throws {
        try likeSamples(["rocket"])
        #expect(try box.run(["album", "add", "Sky", "rocket"]).status == 0)
        let file = box.store.appendingPathComponent("records/rocket.json")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        object["albums"] = ["Sea"]
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        let verify = try box.run(["verify"])
        #expect(
            verify.status == 1 && verify.stdout.contains("Repairing the store rebuilds it.") && verify.stderr.contains("Run `likes repair`"),
            "\(verify.stdout)")
        #expect(try box.run(["purge", "--dry-run", "--rebuild-index"]).status == 64)
        let rebuilt = try box.run(["purge", "--rebuild-index"])
        #expect(rebuilt.status == 0 && rebuilt.stdout.hasPrefix("Rebuilt the index from 1 record file.\n"))
        #expect(try box.run(["verify"]).status == 0)
        #expect(try box.run(["albums", "--json"]).array().map { $0["name"] as? String } == ["Sea"])
    }

    @Test func listSince() throws {
        try likeSamples(["rocket"])
        #expect(try box.run(["list", "--since", "2000-01-01", "--json"]).array().count == 1)
        #expect(try box.run(["list", "--since", "2999-01-01T00:00:00Z", "--json"]).array().isEmpty)
        for bad in ["yesterday", "2026-02-30", "2026-1-1", ""] {
            let run = try box.run(["list", "--since", bad])
            #expect(run.status == 64 && run.stderr.contains("--since takes a date"), "\(bad)")
        }
    }

    @Test func watchPrintsNoteAndAlbumChanges() throws {
        try likeSamples(["rocket"])
        let watcher = try Watcher(store: box.store)
        defer { watcher.stop() }
        #expect(try box.run(["note", "rocket", "hello"]).status == 0)
        var line = try watcher.line(0)
        #expect(line["change"] as? String == "updated" && (line["record"] as? [String: Any])?["note"] as? String == "hello")
        #expect(try box.run(["album", "add", "Sky", "rocket"]).status == 0)
        line = try watcher.line(1)
        #expect(line["change"] as? String == "updated" && (line["record"] as? [String: Any])?["albums"] as? [String] == ["Sky"])
        #expect(try box.run(["album", "remove", "Sky", "rocket"]).status == 0)
        line = try watcher.line(2)
        #expect((line["record"] as? [String: Any])?["albums"] as? [String] == [])
        #expect(try box.run(["note", "rocket", "--clear"]).status == 0)
        line = try watcher.line(3)
        #expect((line["record"] as? [String: Any])?["note"] is NSNull)
        // Changes that change nothing print nothing: the line after the fourth is the change
        // made after the one that changed nothing.
        #expect(try box.run(["note", "rocket", "--clear"]).status == 0)
        #expect(try box.run(["note", "rocket", "after"]).status == 0)
        line = try watcher.line(4)
        #expect((line["record"] as? [String: Any])?["note"] as? String == "after")
    }
}

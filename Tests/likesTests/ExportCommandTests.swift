// End-to-end: `likes export`, and its contact sheet opened in a real headless browser.

import Foundation
import TestSupport
import Testing

/// Debian's chromium (or another Chromium found on PATH), run headless.
enum Browser {
    static let path: String? = {
        let names = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        for name in names {
            for directory in directories where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
                return "\(directory)/\(name)"
            }
        }
        return nil
    }()

    /// In CI the browser must be there (`.ci/run` installs it); elsewhere its test is skipped
    /// without one.
    static var isRequired: Bool { path != nil || ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Opens `page` in a frame of a probe page of our own, waits for it to load, and returns
    /// what the probe read from the page's DOM: per photo, its id, whether its image loaded and
    /// at what size, and the caption's text as shown.
    static func inspect(_ page: URL, scratch: URL) throws -> [String: Any] {
        let browser = try #require(path, "no Chromium on PATH: install Debian's chromium (apt-get install chromium)")
        let probe = scratch.appendingPathComponent("probe.html")
        let script = """
            <!DOCTYPE html><html><body>
            <iframe id="sheet" src="\(page.absoluteString)" style="width:1280px;height:6000px;border:0"></iframe>
            <pre id="result">pending</pre>
            <script>
            document.getElementById('sheet').addEventListener('load', () => {
              const doc = document.getElementById('sheet').contentDocument;
              const photos = [...doc.querySelectorAll('figure.photo')].map(figure => {
                const image = figure.querySelector('a.frame img');
                const box = image.getBoundingClientRect();
                return {id: figure.dataset.id, src: image.getAttribute('src'), loaded: image.complete && image.naturalWidth > 0,
                        link: figure.querySelector('a.frame').getAttribute('href'),
                        naturalWidth: image.naturalWidth, naturalHeight: image.naturalHeight,
                        shownWidth: Math.round(box.width), shownHeight: Math.round(box.height),
                        avatars: [...figure.querySelectorAll('img.avatar')].map(a => a.complete && a.naturalWidth > 0),
                        caption: figure.querySelector('figcaption').innerText};
              });
              const scripts = doc.querySelectorAll('script').length;
              const json = JSON.stringify({title: doc.title, heading: doc.querySelector('h1').innerText,
                                           summary: doc.querySelector('.summary').innerText, scripts, photos});
              document.getElementById('result').textContent = btoa(unescape(encodeURIComponent(json)));
            });
            </script></body></html>
            """
        try Data(script.utf8).write(to: probe)
        let process = Process()
        // A browser that hangs must not hang the tests: coreutils' timeout gives it a minute and
        // then kills it with the helpers it started (its process group).
        let timeout = "/usr/bin/timeout"
        let limited = FileManager.default.isExecutableFile(atPath: timeout)
        process.executableURL = URL(fileURLWithPath: limited ? timeout : browser)
        process.arguments =
            (limited ? ["--kill-after=5", "60", browser] : []) + [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--allow-file-access-from-files",
                "--user-data-dir=\(scratch.appendingPathComponent("profile").path)", "--virtual-time-budget=10000", "--dump-dom",
                probe.absoluteString,
            ]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let dom = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let encoded = try #require(dom.firstMatch(of: /<pre id="result">([A-Za-z0-9+\/=]+)<\/pre>/)?.1, "the probe read nothing: \(dom.prefix(500))")
        let json = try #require(Data(base64Encoded: String(encoded)))
        return try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
    }
}

@Suite(.ownLane) struct ExportCommandTests {
    let box = TemporaryFolder()

    /// The sample photos with their metadata, a note with markup in it, and an album.
    func prepare() throws {
        let imported = try box.run(["import", Samples.photos.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(
            try box.run(["like", "rocket", "--image", Samples.photo("rocket.jpg").path, "--user-image", Samples.photo("astronaut.jpg").path]).status
                == 0)
        #expect(try box.run(["note", "rocket", "Launch day <b>not bold</b>\nsecond line"]).status == 0)
        #expect(try box.run(["album", "add", "Sky & space", "rocket", "hubble_deep_field", "astronaut"]).status == 0)
    }

    @Test func exportWritesTheFolderAndSaysWhere() throws {
        try prepare()
        let destination = box.url.appendingPathComponent("share")
        let run = try box.run(["export", destination.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout == "Exported 6 photos (\(sizeText(destination))) to \(destination.path); open \(destination.path)/index.html to see them.\n")
        let names = try FileManager.default.contentsOfDirectory(atPath: destination.path).sorted()
        #expect(
            names == [
                "astronaut.jpg", "astronaut.thumbnail.jpg", "chelsea.jpg", "chelsea.thumbnail.jpg", "coffee.jpg", "coffee.thumbnail.jpg",
                "hubble_deep_field.jpg", "hubble_deep_field.thumbnail.jpg", "index.html", "index.json", "retina.jpg", "retina.thumbnail.jpg",
                "rocket.jpg", "rocket.photographer.jpg", "rocket.thumbnail.jpg",
            ])
        for name in ["chelsea", "coffee", "retina"] {
            #expect(try Data(contentsOf: destination.appendingPathComponent("\(name).jpg")) == Samples.data("\(name).jpg"))
        }

        let album = box.url.appendingPathComponent("sky")
        let json = try box.run(["export", album.path, "--album", "Sky & space", "--json"]).object()
        #expect(json["count"] as? Int == 3 && json["directory"] as? String == album.path)
        let photos = try #require(json["photos"] as? [[String: Any]])
        let inAlbum = try box.run(["list", "--album", "Sky & space", "--json"]).array().map { $0["id"] as? String }
        #expect(inAlbum.count == 3 && photos.map { $0["id"] as? String } == inAlbum)
        #expect(photos[0]["userImage"] as? String == "rocket.photographer.jpg" && photos[1]["userImage"] is NSNull)

        // Again into the same folder: replaced. Into a folder of other files: refused.
        #expect(try box.run(["export", album.path, "--since", "2999-01-01"]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: album.path).sorted() == ["index.html", "index.json"])
        let busy = box.url.appendingPathComponent("busy")
        box.file("busy/notes.txt", Data("mine".utf8))
        let refused = try box.run(["export", busy.path])
        #expect(refused.status == 1 && refused.stderr.contains("holds files that are not an earlier export"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: busy.path) == ["notes.txt"])
        let noAlbum = try box.run(["export", box.path("x"), "--album", "Nope"])
        #expect(noAlbum.status == 1 && noAlbum.stderr.contains("There is no album \"Nope\""))
        #expect(try box.run(["export", box.path("x"), "--since", "soon"]).status == 64)
        #expect(try box.run(["export"]).status == 64)
        #expect(!FileManager.default.fileExists(atPath: box.path("x")))
        for run in [refused, noAlbum] { #expect(run.stderr.split(separator: "\n").count == 1) }
        #expect(try box.run(["verify"]).status == 0)

        // A photo whose image changed in the store is left out, named, and the export says so.
        let coffee = try #require((try box.run(["show", "coffee", "--json"]).object()["image"] as? [String: Any])?["file"] as? String)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: coffee))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: coffee))
        let damaged = try box.run(["export", destination.path])
        #expect(damaged.status == 1)
        #expect(damaged.stdout.hasPrefix("Exported 5 photos"))
        #expect(damaged.stderr.contains("photo \"coffee\" changed since it was liked") && damaged.stderr.contains("the export holds the rest"))
        #expect(!FileManager.default.fileExists(atPath: destination.appendingPathComponent("coffee.jpg").path))
    }

    func sizeText(_ folder: URL) -> String {
        let bytes =
            (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.filter { $0.hasSuffix(".jpg") && !$0.hasSuffix(".thumbnail.jpg") }
            .compactMap { try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent($0).path)[.size] as? Int }
            .reduce(0, +) ?? 0
        let value = Double(bytes) / 1024 / 1024
        return String(format: "%.2f MB", value)
    }

    @Test(.enabled(if: Browser.isRequired, "needs a headless Chromium"))
    func theContactSheetShowsEveryPhotoInARealBrowser() throws {
        try prepare()
        let destination = box.url.appendingPathComponent("share")
        #expect(try box.run(["export", destination.path]).status == 0)
        let records = try box.run(["list", "--json"]).array()
        let page = try Browser.inspect(destination.appendingPathComponent("index.html"), scratch: box.url)

        #expect(page["title"] as? String == "Favorites")
        #expect((page["summary"] as? String)?.hasPrefix("6 photos · ") == true)
        #expect(page["scripts"] as? Int == 0)
        let photos = try #require(page["photos"] as? [[String: Any]])
        #expect(photos.map { $0["id"] as? String } == records.map { $0["id"] as? String })
        for (photo, record) in zip(photos, records) {
            let image = try #require(record["image"] as? [String: Any])
            let id = photo["id"] as? String ?? "?"
            #expect(photo["loaded"] as? Bool == true, "\(id): the image did not load")
            // The photo's thumbnail is shown, the full JPEG beside it is what it links to.
            let thumbnail = try #require(record["thumbnail"] as? [String: Any], "\(id) has no thumbnail")
            #expect(
                photo["naturalWidth"] as? Int == thumbnail["width"] as? Int && photo["naturalHeight"] as? Int == thumbnail["height"] as? Int, "\(id)")
            #expect((photo["src"] as? String)?.hasSuffix(".thumbnail.jpg") == true, "\(id)")
            let link = try #require(photo["link"] as? String)
            #expect(link.hasSuffix(".jpg") && !link.hasSuffix(".thumbnail.jpg"), "\(id)")
            #expect(image["width"] as? Int ?? 0 >= thumbnail["width"] as? Int ?? 0)
            // A thumbnail: shown, and smaller than the photo itself.
            let shown = photo["shownWidth"] as? Int ?? 0
            #expect(shown > 100 && shown < 400, "\(id) is shown \(shown) px wide")
            let caption = photo["caption"] as? String ?? ""
            let metadata = record["photo"] as? [String: Any]
            if let description = metadata?["description"] as? String { #expect(caption.contains(description), "\(id)") }
            if let photographer = metadata?["photographer"] as? String { #expect(caption.contains(photographer), "\(id)") }
            #expect(caption.contains(id))
        }
        let rocket = try #require(photos.first { $0["id"] as? String == "rocket" })
        #expect(rocket["avatars"] as? [Bool] == [true])
        let caption = rocket["caption"] as? String ?? ""
        // The note's markup shows as text, its line break as a line break.
        #expect(caption.contains("Launch day <b>not bold</b>\nsecond line"))
        #expect(caption.contains("Sky & space"))

        // An album's sheet is titled by it and shows its photos only.
        let album = box.url.appendingPathComponent("sky")
        #expect(try box.run(["export", album.path, "--album", "Sky & space"]).status == 0)
        let sky = try Browser.inspect(album.appendingPathComponent("index.html"), scratch: box.url)
        #expect(sky["heading"] as? String == "Favorites: Sky & space")
        let skyPhotos = try #require(sky["photos"] as? [[String: Any]])
        #expect(
            skyPhotos.map { $0["id"] as? String } == (try box.run(["list", "--album", "Sky & space", "--json"]).array().map { $0["id"] as? String }))
        #expect(skyPhotos.count == 3)
        #expect(skyPhotos.allSatisfy { $0["loaded"] as? Bool == true })

        // The folder works where it is moved to: every path in it is relative.
        let moved = box.url.appendingPathComponent("moved")
        try FileManager.default.moveItem(at: album, to: moved)
        let again = try Browser.inspect(moved.appendingPathComponent("index.html"), scratch: box.url)
        #expect((again["photos"] as? [[String: Any]])?.allSatisfy { $0["loaded"] as? Bool == true } == true)
    }
}

// `likes serve`, the built binary on a real store: every rule of access over HTTP
// (Tests/Tools/gallery_http.py), and the pages driven in a real headless Chromium
// (Tests/Tools/gallery_browser.py), each check a line of their output.

import Foundation
import Testing

enum GalleryTools {
    static let python = URL(fileURLWithPath: "/usr/bin/python3")
    static let http = Samples.root.appendingPathComponent("Tests/Tools/gallery_http.py")
    static let browser = Samples.root.appendingPathComponent("Tests/Tools/gallery_browser.py")
    static let links = Samples.root.appendingPathComponent("Tests/Tools/store_links.py")

    /// Chromium, its driver, Selenium and Pillow for Debian's python3 (and the stand-in for the
    /// photo sources, Tests/Tools/source_server.py, which needs nothing more).
    static var browserIsUsable: Bool {
        ["/usr/bin/chromium", "/usr/bin/chromedriver"].allSatisfy(FileManager.default.isExecutableFile(atPath:))
            && (try? Sandbox.execute(["-c", "import selenium, PIL"], executable: python).status) == 0
    }

    /// In CI the browser test must run: a missing browser is a failure, not a reason to skip.
    static var browserIsRequired: Bool { browserIsUsable || ProcessInfo.processInfo.environment["CI"] == "true" }
}

@Suite struct GalleryTests {
    @Test(Needs.python3) func everyRuleOfAccessHoldsOverHTTP() throws {
        let run = try Sandbox.execute(
            [GalleryTools.http.path, "--likes", Binary.url.path, "--samples", Samples.photos.path], executable: GalleryTools.python)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        for check in [
            "no token: / is refused", "the token in the query is exchanged for an HttpOnly, SameSite=Strict cookie",
            "a strict content security policy on every page", "Host evil.example is refused", "a change with a foreign Origin is refused",
            "the store is unchanged after every refused change", "a thousand random requests are all answered",
            "a like by another process arrives on the event stream within 1 s", "a zip of the checked photos",
            "a request that does not arrive gets 408", "an idle and a half-sent connection are closed within a few seconds",
            "an album's cover is cached for good", "a photo's size as `likes show` prints it", "SIGTERM stops it with exit 0",
            "SIGINT stops it with exit 0",
        ] {
            #expect(run.stdout.contains("ok   \(check)"), "no passing check \"\(check)\": \(run.stdout)")
        }
        #expect(run.stdout.contains(" 0 failed"), "\(run.stdout)")
    }

    /// A link or changed bytes in place of each of a photo's files: no command and no route
    /// reads through it or hands its bytes on (Tests/Tools/store_links.py).
    @Test(Needs.python3) func noCommandOrPageFollowsALinkOrHandsOnChangedBytes() throws {
        let run = try Sandbox.execute(
            [GalleryTools.links.path, "--likes", Binary.url.path, "--samples", Samples.photos.path], executable: GalleryTools.python)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        for kind in ["image", "userImage", "thumbnail", "record", "images folder"] {
            #expect(
                run.stdout.contains("ok   \(kind) linked outside the store: its bytes reached no output, page, zip, export or store file"),
                "\(run.stdout)")
        }
        #expect(run.stdout.contains("ok   image changed in place: the zip of a selection holding it is refused"), "\(run.stdout)")
        #expect(run.stdout.contains(" 0 failed"), "\(run.stdout)")
    }

    @Test(.enabled(if: GalleryTools.browserIsRequired, "needs chromium, chromium-driver, python3-selenium and python3-pil"))
    func thePagesWorkInARealBrowser() throws {
        try #require(GalleryTools.browserIsUsable, "apt-get install chromium chromium-driver python3-selenium python3-pil")
        let run = try Sandbox.execute(
            [GalleryTools.browser.path, "--likes", Binary.url.path, "--samples", Samples.photos.path], executable: GalleryTools.python)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        for check in [
            "scrolling loads the rest, each photo once", "a hostile id is shown as text, never as markup", "search filters as one types",
            "a colour chip shows that family", "the heart unlikes", "pressed again, it undoes the unlike", "Tab reaches a heart",
            "a like by another process appears within 1 s, without a reload", "two checked photos download as one zip",
            "credit: Photo by NAME on Unsplash", "the note is saved", "the photo is added to an album",
            "the albums page: the album with its count, size and cover", "the dark scheme is dark",
            "the Search pages are linked from every page", "an Unsplash search shows its results",
            "a result liked already shows a pressed heart, the others not", "a heart on a result likes it",
            "...its download is counted once, after the photo", "...and it is in Favorites", "a Flickr search shows its results with their titles",
            "the Flickr search page says Flickr's terms' line",
        ] {
            #expect(run.stdout.contains("ok   \(check)"), "no passing check \"\(check)\": \(run.stdout)")
        }
        #expect(run.stdout.contains(" 0 failed"), "\(run.stdout)")
    }
}

// `likes serve`, the built binary on a real store: every rule of access over HTTP
// (Tests/Tools/gallery_http.py), and the pages driven in a real headless Chromium
// (Tests/Tools/gallery_browser.py), each check a line of their output.

import Foundation
import TestSupport
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
            && (try? TemporaryFolder.execute(["-c", "import selenium, PIL"], executable: python).status) == 0
    }

    /// In CI the browser test must run: a missing browser is a failure, not a reason to skip.
    static var browserIsRequired: Bool { browserIsUsable || ProcessInfo.processInfo.environment["CI"] == "true" }
}

@Suite struct GalleryTests {
    @Test(Needs.python3) func everyRuleOfAccessHoldsOverHTTP() throws {
        let run = try TemporaryFolder.execute(
            [GalleryTools.http.path, "--likes", Binary.url.path, "--samples", Samples.photos.path], executable: GalleryTools.python)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        for check in [
            "no token: / is refused", "the token in the query is exchanged for an HttpOnly, SameSite=Strict cookie",
            "a strict content security policy on every page", "Host evil.example is refused", "a change with a foreign Origin is refused",
            "the store is unchanged after every refused change", "a thousand random requests are all answered",
            "a like by another process arrives on the event stream within 1 s", "a zip of the checked photos",
            "a request that does not arrive gets 408", "an idle and a half-sent connection are closed within a few seconds",
            "an album's cover is cached for good", "a photo's size as `likes show` prints it", "SIGTERM stops it with exit 0",
            "SIGTERM stops it within 0.5 s, an event stream open",
            "a page of photos asked again after a change shows the change at once",
            "SIGINT stops it with exit 0",
        ] {
            #expect(run.stdout.contains("ok   \(check)"), "no passing check \"\(check)\": \(run.stdout)")
        }
        #expect(run.stdout.contains(" 0 failed"), "\(run.stdout)")
    }

    /// A link or changed bytes in place of each of a photo's files: no command and no route
    /// reads through it or hands its bytes on (Tests/Tools/store_links.py).
    @Test(Needs.python3) func noCommandOrPageFollowsALinkOrHandsOnChangedBytes() throws {
        let run = try TemporaryFolder.execute(
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
        let run = try TemporaryFolder.execute(
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
            // Issue 35: the gallery as a photo app, at 1280×800 on a 2× screen and at 390×844.
            "the favorites have no album's actions and no heading repeating the navigation",
            "the grid is justified rows that keep each photo's shape, edge to edge",
            "on a 2× screen no photo is drawn larger than its pixels", "captions only where there are words",
            "the heart and the check box show on hover and on focus, not before", "selection mode: boxes shown, a click checks a photo",
            "a search with no results says No photos match …", "an album's page: its name, count and size, and the way back",
            "album names match without regard to case", "an album is renamed from its page", "an album is deleted from its page",
            "the viewer draws the photo as large as the window allows", "the viewer has the heart",
            "← → and the buttons go to the previous and next photo in the listing's order", "the newest photo has no previous",
            "opened from a listing by colour, next is the next photo of that colour", "the viewer's heart unlikes",
            "Back from a photo returns to the same place, with the photos loaded so far",
            "Escape from the viewer returns to the grid, the last photo viewed in sight", "on a phone, three photos a row from edge to edge",
            "on a phone, the tools fold behind a Search button", "on a phone, nothing fixed covers the photos",
            "on a phone's 3× screen no thumbnail is drawn larger than its pixels", "on a phone, a swipe to the left shows the next photo",
            "without a source's key, Search is still in the navigation and says which variable to set",
        ] {
            #expect(run.stdout.contains("ok   \(check)"), "no passing check \"\(check)\": \(run.stdout)")
        }
        #expect(run.stdout.contains(" 0 failed"), "\(run.stdout)")
    }
}

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

@Suite(.ownLane) struct GalleryTests {
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
            // Issue 52: the token kept, the months and the selection's ids, drops under the same rules.
            "the token is kept in the store, readable by its owner alone (0600)",
            "the next serve gives the same address, port and token, so a bookmark works",
            "--new-token replaces it: the old token is refused (403), the new one served", "...and it is the one kept",
            "verify counts the kept token as the store's own, no orphan", "a dropped photo with a foreign Origin is refused",
            "a dropped photo with no token is refused", "the months of the listing count every photo",
            "Select all's ids are the listing's, in its order",
            "an album's cover is chosen through the page's API (a foreign Origin refused), answered with the album",
            "a cover of an album that does not exist, or a photo not in it: 404, nothing changed",
            "unlike, then undo: gone, then back in its place with its date, note, albums, cover, metadata and image",
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
            "a like by another process appears without a reload", "two checked photos download as one zip",
            "credit: Photo by NAME on Unsplash", "a note typed saves itself, and says so under the field once it is stored",
            "the photo is added to an album",
            "the albums page: the album with its count, size and cover", "the dark scheme is dark",
            "an Unsplash search shows its results",
            "a result liked already shows a pressed heart, the others not", "a heart on a result likes it",
            "...its download is counted once, after the photo", "...and it is in Favorites", "a Flickr search shows its results with their titles",
            "the Flickr search page says Flickr's terms' line",
            // Issue 35: the gallery as a photo app, at 1280×800 on a 2× screen and at 390×844.
            "the favorites have no album's actions and no heading repeating the navigation",
            "on a 2× screen no photo is drawn larger than its pixels", "captions only where there are words",
            "the heart and the check box show on hover and on focus, not before", "selection mode: boxes shown, a click checks a photo",
            "a search with no results says No photos match …", "an album's page: its name, count and size, and the way back",
            "album names match without regard to case", "an album is renamed from its page", "an album is deleted from its page",
            "the viewer has the heart", "← → and the buttons go to the previous and next photo in the listing's order",
            "the newest photo has no previous", "opened from a listing by colour, next is the next photo of that colour",
            "the viewer's heart unlikes", "Back from a photo returns to the same place, with the photos loaded so far",
            "Escape from the viewer returns to the grid, the last photo viewed in sight", "on a phone, nothing fixed covers the photos",
            "on a phone's 3× screen no thumbnail is drawn larger than its pixels", "on a phone, a swipe to the left shows the next photo",
            // Issue 52: SPEC §10 "As a photo app", at both sizes.
            "the grid is justified rows that keep each photo's shape, one height a row, edge to edge (±1 px)",
            "a photo smaller than its cell is scaled up to fill it, no gap beside it", "on a phone, justified rows from edge to edge",
            "on a 2× screen each photo is the smallest of its images that covers its device pixels",
            "on a phone's 3× screen each photo is the smallest of its images that covers its device pixels",
            "the viewer: the photo fills the window beside its details (scaled up when smaller), no navigation around it",
            "at the fit the viewer shows a rendition, the original not fetched",
            "double-click zooms to the original's pixels", "zoomed, a drag pans the photo",
            "Escape returns to the fit; + and - zoom by steps; the wheel with Ctrl zooms",
            "i closes the details (the photo takes the window) and opens them again", "? lists the keyboard shortcuts",
            "on a phone, two fingers spread apart zoom the photo",
            "the grid begins with the month's header", "a header for each month, newest first",
            "on a wide screen a scrubber of years and months beside the grid",
            "choosing the oldest month shows it from its newest photo, loading only its page and, to fill the view, the page before",
            "scrolling up from there brings the newer photos above, what was in view staying where it was",
            "on a phone the months have headers and no rail",
            "the rail's newest month takes a grid that begins further back to the top",
            "shift-click selects the range between two photos", "scrolled 2,500 px down, the bar with the count and the actions is still in view",
            "Select all and Ctrl-A select the whole listing, photos not yet loaded among them",
            "an album is made from a selection, its name asked in the page and Enter taking it",
            "a selection is unliked together; Undo brings each back as it was, in its place",
            "on a phone, the search box and Select are in reach without opening anything",
            "on a phone, selecting shows the bar with the count and the actions",
            "dropped JPEGs are liked under their file names, byte for byte, and shown",
            "...what is not a JPEG is named and skipped, by its name and by its bytes",
            "with their keys, the sources' pages are in the navigation, named Unsplash and Flickr", "the search box searches one's own photos",
            "without a source's key the navigation names no source page (and nothing called Search)",
            "...and the source page, asked for anyway, says which variable to set",
            "deleting asks in the page, naming the album and saying its photos stay",
            "an album that does not exist says so and offers no Rename or Delete",
            "on an album's page, Use as cover makes the one photo selected its cover: kept in the store, shown on the albums page",
            "an album's cover is as sharp as the screen: an image with the device pixels of its square, or the original",
            "a photo that does not exist shows no heart, note or album field", "Enter in the album field adds the photo to that album",
            "the page's own unlike is not announced back to it as someone else's: the undo hint stays",
            // Issue 67: the keys after a tick, and a photo that does not exist, on both screens.
            "with a ticked check box focused, Ctrl-A selects the whole listing and no text",
            "on a phone, with a ticked check box focused, Ctrl-A selects the whole listing and no text",
            "then Escape ends the selection, ? lists the shortcuts and / goes to the search",
            "on a phone, then Escape ends the selection, ? lists the shortcuts and / goes to the search",
            "a photo still being asked for shows no heart, zoom, details button, note or album field, and ? lists its keys",
            "on a phone, a photo still being asked for shows no heart, zoom, details button, note or album field, and ? lists its keys",
            "a photo that does not exist says why and offers nothing to act on, the details button among them",
            "on a phone, a photo that does not exist says why and offers nothing to act on, the details button among them",
            "there, ? lists only Escape and ?, and Escape goes back to the photos",
            "on a phone, there, ? lists only Escape and ?, and Escape goes back to the photos",
            // Issue 67: the note saving itself, selecting as on a phone, and time at a glance.
            "the note has no Save button to miss", "on a phone, the note has no Save button to miss",
            "on a phone, a note typed saves itself, and says so under the field once it is stored",
            "a note typed just before the page is left is saved all the same",
            "on a phone, a note typed just before the page is left is saved all the same",
            "on a phone, a long press on a photo selects it and shows the selection bar",
            "on a phone, the finger dragged on selects every photo from the first to the one under it",
            "on a phone, dragged back, the photos it leaves are not selected again",
            "on a phone, the drag's release opens nothing, and a tap while selecting adds a photo",
            "on a phone, a drag held at the bottom edge scrolls on, selecting every photo it passes",
            "on a phone, a short tap opens the photo",
            "a dense month has a header for each day, each photo under its own day; a sparse month none",
            "dragged along the scrubber, the month under the pointer is named; released, the grid shows that month",
            "a month at the end of the listing fills the view with the photos before it, never a few photos above an empty screen",
            // Issue 67: the timeline by date taken, on both screens.
            "photos taken over years are listed by date liked at first", "on a phone, photos taken over years are listed by date liked at first",
            "chosen, the order by date taken lists them as `likes list --by taken` does, a header for each month taken, newest first",
            "on a phone, chosen, the order by date taken lists them as `likes list --by taken` does, a header for each month taken, newest first",
            "the scrubber has the months taken, and its oldest starts the grid at that month's newest photo taken",
            "in the viewer, the next photo is the next by date taken", "on a phone, in the viewer, the next photo is the next by date taken",
            "a photo dated by its source says so among its details", "on a phone, a photo dated by its source says so among its details",
            "the page opened again keeps the order chosen", "on a phone, the page opened again keeps the order chosen",
            "and by date liked again", "on a phone, and by date liked again",
        ] {
            #expect(run.stdout.contains("ok   \(check)"), "no passing check \"\(check)\": \(run.stdout)")
        }
        #expect(run.stdout.contains(" 0 failed"), "\(run.stdout)")
    }
}

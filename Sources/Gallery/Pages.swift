// The gallery's pages: plain HTML shells here; one style sheet and one script in Resources/. Store
// text reaches a page only through the script, as text nodes (`textContent`), never as markup.

import HTTPServer
import LikeKit

enum Pages {
    enum Page {
        case favorites, photo, albums, search

        /// The page's name (the script's `data-page`), title and the markup of its `<main>`.
        var content: (name: String, title: String, body: String) {
            switch self {
            case .favorites:
                (
                    "favorites", "Favorites",
                    """
                    <h1 id="title">Favorites</h1>
                    <div class="tools">
                      <input type="search" id="search" name="search" placeholder="Search notes, photographers, albums…" aria-label="Search">
                      <div class="chips" role="group" aria-label="Colour"></div>
                      <button type="button" name="download" id="download" disabled>Download selected</button>
                    </div>
                    <div id="grid" class="grid"></div>
                    <p id="empty" hidden>No photos here yet.</p>
                    <div id="more" aria-hidden="true"></div>
                    """
                )
            case .photo:
                (
                    "photo", "Photo",
                    """
                    <article id="detail" aria-busy="true"></article>
                    """
                )
            case .search:
                (
                    "search", "Search",
                    """
                    <h1 id="title">Search</h1>
                    <form class="tools" id="search-form" role="search">
                      <input type="search" name="q" id="query" placeholder="Search photos…" aria-label="Search photos" required>
                      <span id="filters"></span>
                      <button type="submit">Search</button>
                    </form>
                    <div id="grid" class="grid"></div>
                    <p id="empty" hidden>Nothing found.</p>
                    <div id="more" aria-hidden="true"></div>
                    """
                )
            case .albums:
                (
                    "albums", "Albums",
                    """
                    <h1>Albums</h1>
                    <div id="albums" class="grid"></div>
                    <p id="empty" hidden>No albums yet: add a photo to one from its page.</p>
                    """
                )
            }
        }
    }

    /// A page: the shell every page shares around its own content.
    static func page(_ page: Page) -> HTTPResponse {
        let (name, title, body) = page.content
        let html = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(title) · likes</title>
            <link rel="stylesheet" href="/static/gallery.css">
            <link rel="icon" href="/favicon.svg" type="image/svg+xml">
            <script src="/static/gallery.js" defer></script>
            </head>
            <body data-page="\(name)">
            <header><nav aria-label="Gallery"><a href="/">Favorites</a><a href="/albums">Albums</a></nav></header>
            <main>
            \(body)
            </main>
            <p id="status" role="status" aria-live="polite"></p>
            </body>
            </html>

            """
        return HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", text: html)
    }

    static func asset(_ bytes: [UInt8], type: String) -> HTTPResponse {
        var response = HTTPResponse(status: 200, body: .bytes(bytes))
        response.headers.set("Content-Type", type)
        response.headers.set("Cache-Control", "no-cache")
        return response
    }

    /// The page's files, kept as files in `Resources/` and compiled in as bytes.
    static let icon = PackageResources.favicon_svg
    static let css = PackageResources.gallery_css
    static let script = PackageResources.gallery_js
}

// The gallery's pages, all files in Resources/: the HTML shells, one style sheet and one script.
// Store text reaches a page only through the script, as text nodes (`textContent`), never as
// markup.

import HTTPServer
import LikeKit

enum Pages {
    enum Page: String {
        case favorites, photo, albums, search

        /// The page's title.
        var title: String { rawValue == "favorites" ? "Favorites" : rawValue.prefix(1).uppercased() + rawValue.dropFirst() }

        /// The markup of its `<main>`: `Resources/NAME.html`.
        var main: [UInt8] {
            switch self {
            case .favorites: PackageResources.favorites_html
            case .photo: PackageResources.photo_html
            case .albums: PackageResources.albums_html
            case .search: PackageResources.search_html
            }
        }
    }

    /// A page: `Resources/page.html`, the shell every page shares, around its own content. The
    /// shell's `{{title}}`, `{{page}}` and `{{main}}` are the only text put in, and none of it
    /// comes from the store.
    static func page(_ page: Page) -> HTTPResponse {
        var response = HTTPResponse(status: 200, body: .bytes(pages[page] ?? []))
        response.headers.set("Content-Type", "text/html; charset=utf-8")
        return response
    }

    /// Every page's bytes, put together once.
    private static let pages: [Page: [UInt8]] = Dictionary(
        uniqueKeysWithValues: [Page.favorites, .photo, .albums, .search].map { page in
            let html = String(decoding: PackageResources.page_html, as: UTF8.self)
                .replacing("{{title}}", with: page.title)
                .replacing("{{page}}", with: page.rawValue)
                .replacing("{{main}}", with: String(decoding: page.main, as: UTF8.self).trimmingSuffixNewlines())
            return (page, Array(html.utf8))
        })

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

extension String {
    /// The text without the newlines at its end.
    func trimmingSuffixNewlines() -> String {
        var text = Substring(self)
        while text.last == "\n" { text = text.dropLast() }
        return String(text)
    }
}

// index.html of an export: a contact sheet that needs nothing but the folder it is in.

import LikeStore
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// A self-contained web page showing an export's photos as thumbnails with their metadata.
///
/// No script, no font, nothing fetched from elsewhere: the images are the exported files beside
/// the page, scaled down by the browser, and every text from the store is escaped, so a hostile
/// description or note shows as text.
package struct ContactSheet {
    let index: ExportIndex

    package init(index: ExportIndex) {
        self.index = index
    }

    /// The sheet of photos that lie beside it as `file`: the gallery's zip of a selection, the
    /// same page an export writes, its images the JPEGs themselves.
    package init(photos: [(file: String, record: LikeRecord)]) {
        index = ExportIndex(
            photos: photos.map { ExportIndex.Photo($0.record, file: $0.file) }, query: LikeQuery(), format: LikeRepository.exportFormat)
    }

    /// The page, as the bytes of a file.
    package var bytes: [UInt8] { Array(html.utf8) }

    package var html: String {
        var page = Self.head(album: index.album, since: index.since, exportedAt: index.exportedAt, count: index.count, bytes: index.bytes)
        for (number, photo) in index.photos.enumerated() { page += Self.figure(photo, number: number + 1) }
        return page + Self.tail(empty: index.photos.isEmpty)
    }

    /// The page up to its photos: the title and the summary of what it shows.
    static func head(album: String?, since: String?, exportedAt: String, count: Int, bytes: Int) -> String {
        let title = album.map { "Favorites: \($0)" } ?? "Favorites"
        var summary = "\(count) photo\(count == 1 ? "" : "s") · \(ByteCount.formatted(bytes))"
        if let since { summary += " · liked since \(Self.shortDate(since))" }
        summary += " · exported \(Self.shortDate(exportedAt))"
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="\(LikeRepository.exportFormat)">
            <title>\(Self.escape(title))</title>
            <style>
            \(Self.style)
            </style>
            </head>
            <body>
            <header>
            <h1>\(Self.escape(title))</h1>
            <p class="summary">\(Self.escape(summary))</p>
            </header>
            <main class="sheet">

            """
    }

    /// The page after its photos; `empty` says so when none matched.
    static func tail(empty: Bool) -> String {
        (empty ? "<p class=\"empty\">No photo matched.</p>\n" : "") + "</main>\n</body>\n</html>\n"
    }

    /// The figure of the `number`th photo (from 1).
    static func figure(_ photo: ExportIndex.Photo, number: Int) -> String {
        let metadata = photo.photo
        let description = metadata?.description.flatMap { $0.isEmpty ? nil : $0 }
        var text = """
            <figure class="photo" id="photo-\(number)" data-id="\(Self.escape(photo.id.rawValue))">
            <a class="frame" href="\(Self.link(photo.file))"><img src="\(Self.link(photo.thumbnail?.file ?? photo.file))" width="\(photo.thumbnail?.width ?? photo.width)" height="\(photo.thumbnail?.height ?? photo.height)" alt="\(Self.escape(description ?? photo.id.rawValue))" loading="lazy"></a>
            <figcaption>

            """
        if let description { text += "<p class=\"description\">\(Self.escape(description))</p>\n" }
        if let photographer = metadata?.photographer ?? metadata?.photographerUsername {
            text += "<p class=\"photographer\">"
            if let user = photo.userImage {
                text += "<img class=\"avatar\" src=\"\(Self.link(user.file))\" width=\"32\" height=\"32\" alt=\"\">"
            }
            if let page = PhotoOrigin(metadata)?.photographerPage(metadata), Self.isWebLink(page) {
                text += "<a class=\"name\" href=\"\(Self.escape(page))\">\(Self.escape(photographer))</a>"
            } else {
                text += "<span class=\"name\">\(Self.escape(photographer))</span>"
            }
            if let origin = PhotoOrigin(metadata) { text += " on \(origin.name)" }
            if let username = metadata?.photographerUsername, metadata?.photographer != nil {
                text += " <span class=\"username\">@\(Self.escape(username))</span>"
            }
            text += "</p>\n"
        }
        if let note = photo.note { text += "<p class=\"note\">\(Self.escape(note))</p>\n" }
        text += "<dl>\n"
        text += "<dt>Id</dt><dd class=\"id\">\(Self.escape(photo.id.rawValue))</dd>\n"
        text += "<dt>Liked</dt><dd><time datetime=\"\(Self.escape(photo.likedAt))\">\(Self.escape(Self.shortDate(photo.likedAt)))</time></dd>\n"
        text += "<dt>Size</dt><dd>\(photo.width)×\(photo.height), \(Self.escape(ByteCount.formatted(photo.bytes)))</dd>\n"
        if !photo.albums.isEmpty {
            text += "<dt>Albums</dt><dd class=\"albums\">\(photo.albums.map { Self.escape($0.rawValue) }.joined(separator: ", "))</dd>\n"
        }
        if let color = metadata?.color {
            text += "<dt>Colour</dt><dd>"
            if Self.isHexColor(color) { text += "<span class=\"swatch\" style=\"background:\(color)\"></span>" }
            text += "\(Self.escape(color))</dd>\n"
        }
        if let source = metadata?.sourceURL {
            if let url = URL(string: source), Self.isWebLink(source) {
                text += "<dt>Source</dt><dd><a href=\"\(Self.escape(PhotoOrigin.referral(source)))\">\(Self.escape(url.host ?? source))</a></dd>\n"
            } else {
                text += "<dt>Source</dt><dd>\(Self.escape(source))</dd>\n"
            }
        }
        text += "<dt>File</dt><dd class=\"file\">\(Self.escape(photo.file))</dd>\n"
        text += "</dl>\n</figcaption>\n</figure>\n"
        return text
    }

    /// Whether `link` is an http(s) address: the only links the sheet makes.
    private static func isWebLink(_ link: String) -> Bool {
        guard let url = URL(string: link) else { return false }
        return ["http", "https"].contains(url.scheme?.lowercased() ?? "")
    }

    private static let style = """
        :root { color-scheme: light dark; --muted: #6b6b6b; --line: #d8d8d8; --card: #ffffff; --page: #f4f4f2; }
        @media (prefers-color-scheme: dark) { :root { --muted: #a0a0a0; --line: #3a3a3a; --card: #1e1e1e; --page: #121212; } }
        * { box-sizing: border-box; }
        body { margin: 0; padding: 24px; background: var(--page); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
        header { margin: 0 0 20px; }
        h1 { margin: 0; font-size: 22px; }
        .summary { margin: 4px 0 0; color: var(--muted); }
        .sheet { display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: 16px; }
        .photo { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
        .frame { display: block; aspect-ratio: 4 / 3; background: var(--line); }
        .frame img { display: block; width: 100%; height: 100%; object-fit: cover; }
        figcaption { padding: 10px 12px 12px; }
        figcaption p { margin: 0 0 6px; overflow-wrap: anywhere; }
        .description { font-weight: 600; }
        .photographer { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 8px; }
        .avatar { width: 32px; height: 32px; border-radius: 50%; object-fit: cover; }
        .username { color: var(--muted); white-space: nowrap; }
        .note { white-space: pre-line; font-style: italic; }
        dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 8px 0 0; font-size: 12px; }
        dt { color: var(--muted); }
        dd { margin: 0; overflow-wrap: anywhere; }
        .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; border: 1px solid var(--line); vertical-align: baseline; }
        .empty { color: var(--muted); }
        """

    /// Text as HTML text or attribute value.
    package static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// A file name beside the page as a relative URL: every byte but unreserved ones escaped,
    /// so that `#`, `?` or `%` in a name cannot change what it points to.
    static func link(_ fileName: String) -> String {
        "./" + PercentEscaping.uriComponent.escape(fileName)
    }

    /// `#RGB` or `#RRGGBB`: the only colours put into a style attribute.
    static func isHexColor(_ text: String) -> Bool {
        let digits = text.utf8.dropFirst()
        return text.hasPrefix("#") && (digits.count == 3 || digits.count == 6)
            && digits.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
    }

    /// `2026-11-22 04:11 UTC` from an ISO 8601 time as the store writes them.
    static func shortDate(_ iso: String) -> String {
        guard iso.count >= 16 else { return iso }
        return iso.prefix(10) + " " + iso.dropFirst(11).prefix(5) + " UTC"
    }
}

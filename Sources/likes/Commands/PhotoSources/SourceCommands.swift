// unsplash and flickr: search a photo source and like what it finds, as the apps we learn from do.

import LikeKit
import LikesSupport
import PhotoSources

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// What both sources' commands share: a search's lines and JSON, and a like's last steps.
enum SourceResults {
    struct Row {
        var id: String
        var text: String
        var photographer: String?
        var color: String?
        var liked: Bool
    }

    /// One line per result naming its id; a liked one starts with ♥, no other line has it.
    static func print(_ rows: [Row], page: Int, totalPages: Int, total: Int, next: String, output: Output) {
        for row in rows {
            let by = row.photographer.map { " — " + Format.oneLine($0) } ?? ""
            output.print("\(row.liked ? "♥" : " ") \(Format.oneLine(row.id))  \(Format.oneLine(row.text))\(by)")
        }
        output.print(
            rows.isEmpty
                ? "Nothing found."
                : "Page \(page) of \(totalPages), \(total) photos." + (page < totalPages ? " Next: \(next) --page \(page + 1)" : ""))
    }

    /// A page of results, for people or as JSON (Flickr's results have a title where Unsplash's
    /// have a description and a colour).
    static func show(_ page: SourcePage, json: Bool, next: String, context: Context, flickr: Bool = false) throws {
        let liked = try liked(page.results.map(\.id), repository: context.repository)
        let rows = page.results.map { Row(id: $0.id, text: $0.text, photographer: $0.photographer, color: $0.color, liked: liked.contains($0.id)) }
        guard json else {
            print(rows, page: page.page, totalPages: page.totalPages, total: page.total, next: next, output: context.output)
            return
        }
        let results: [JSONValue] = rows.map { row in
            flickr
                ? .object([
                    ("id", .string(row.id)), ("title", .string(row.text)), ("photographer", .string(row.photographer)), ("liked", .bool(row.liked)),
                ])
                : .object([
                    ("id", .string(row.id)), ("description", .string(row.text.isEmpty ? nil : row.text)), ("photographer", .string(row.photographer)),
                    ("color", .string(row.color)), ("liked", .bool(row.liked)),
                ])
        }
        context.output.printJSON(
            .object([("total", .int(page.total)), ("totalPages", .int(page.totalPages)), ("page", .int(page.page)), ("results", .array(results))]))
    }

    /// The store's answer to "which of these are liked?", in one question.
    static func liked(_ ids: [String], repository: LikeRepository) throws -> Set<String> {
        Set(try repository.likedIDs(among: ids.compactMap { try? PhotoID($0) }).map(\.rawValue))
    }

    static func failure(_ error: PhotoSourceError) -> CommandFailure {
        CommandFailure(error.description + (error.kind == .notFound || error.kind == .failed ? " Nothing was stored." : ""), status: .failure)
    }
}

/// What both sources' commands take besides their filters: the page, and for a like its note
/// and albums.
struct SourceOptions {
    let page: Int
    let perPage: Int
    let albums: [AlbumName]
    let note: String?
    let printsJSON: Bool

    init(
        _ arguments: ParsedArguments, page: Option, perPage: Option, maxPerPage: Int, album: Option, note: Option, json: Option,
        command: String
    ) throws {
        self.page = try arguments.count(page) ?? 1
        self.perPage = try arguments.count(perPage) ?? 10
        guard self.page >= 1, (1...maxPerPage).contains(self.perPage) else {
            throw UsageError(message: "--page starts at 1 and --per-page takes 1 to \(maxPerPage)", command: command)
        }
        albums = try Input.albums(arguments.allValues(album))
        self.note = arguments.value(note)
        printsJSON = arguments.has(json)
    }
}

struct UnsplashCommand: Command {
    static let order = Option.value("--order", "ORDER", "relevant (the default) or latest.")
    static let color = Option.value("--color", "NAME", "Unsplash's colour filter: \(UnsplashAPI.colors.joined(separator: ", ")).")
    static let page = Option.value("--page", "N", "The page of results, from 1.")
    static let perPage = Option.value("--per-page", "N", "Results per page, 1 to 30 (10 by default).")
    static let album = Option.repeatable(
        "--album", "NAME", "like, import-likes: put the photos in this album too (may be given more than once).")
    static let note = Option.value("--note", "TEXT", "like: the photo's note.")
    static let dryRun = Option.flag("--dry-run", "import-likes: ask only for the listing, and say how many photos are new.")
    static let json = Option.json(
        "search: {\"total\", \"totalPages\", \"page\", \"results\": [{\"id\", \"description\", \"photographer\", \"color\", \"liked\"}]}; like: the record; import-likes: {\"source\", \"user\", \"liked\", \"alreadyLiked\", \"failed\": [{\"id\", \"reason\"}], \"left\", \"stoppedBy\"}."
    )
    static let spec = CommandSpec(
        name: "unsplash", summary: "Search Unsplash, like a photo from it, or bring a person's likes home.",
        usage:
            "unsplash search QUERY [--order relevant|latest] [--color NAME] [--page N] [--per-page N] [--json] | unsplash like ID [--album NAME]... [--note TEXT] [--json] | unsplash import-likes USERNAME [--album NAME]... [--dry-run] [--json]",
        details: """
            Needs an Unsplash access key in UNSPLASH_ACCESS_KEY (exit 78 without it). search lists one result a line, its id first; \
            a liked one starts with ♥. like asks Unsplash for the photo, downloads its JPEG (urls.regular) and the photographer's \
            picture, likes it with its credit (photographer, user name and page, the photo's page), and then, as Unsplash's API \
            guidelines ask of a photo kept, requests its download location once: owed in the like's own commit, so that a \
            request that cannot be made now (the hourly limit, the network, a kill) is made by the next unsplash command that \
            can, once. A failed request is one line (exit 1): the HTTP status, or for the hourly limit, that it is reached; \
            nothing of a photo that failed is stored. import-likes likes every photo USERNAME liked on Unsplash, 30 a page, \
            from the listing itself (no request per photo; photos liked already cost nothing), in the listing's order; at the \
            hourly limit it stops with exit 75 and says what is left, and the same command goes on where it stopped. \
            LIKES_UNSPLASH_API sets another address for the API.
            """,
        example: "likes unsplash search \"tram lisbon\" --color blue && likes unsplash like Dwu85P9SOIk --album Lisbon",
        options: [order, color, page, perPage, album, note, dryRun, json], minimumPositionals: 2, maximumPositionals: 2,
        positionalName: "search QUERY, like ID or import-likes USERNAME")
    static let failureLeavesStoreAsItWas = true

    enum Action {
        case search(String)
        case like(String)
        case importLikes(String)
    }

    let action: Action
    let order: UnsplashAPI.Order
    let colorName: String?
    let options: SourceOptions
    let dryRunOnly: Bool

    init(_ arguments: ParsedArguments) throws {
        switch arguments[positional: 0] {
        case "search": action = .search(arguments[positional: 1])
        case "like": action = .like(arguments[positional: 1])
        case "import-likes": action = .importLikes(arguments[positional: 1])
        case let other:
            throw UsageError(message: "`likes unsplash` takes search, like or import-likes, not \"\(Format.oneLine(other))\"", command: "unsplash")
        }
        dryRunOnly = arguments.has(Self.dryRun)
        guard let order = UnsplashAPI.Order(rawValue: arguments.value(Self.order) ?? "relevant") else {
            throw UsageError(message: "--order takes relevant or latest", command: "unsplash")
        }
        self.order = order
        colorName = arguments.value(Self.color)
        if let colorName, !UnsplashAPI.colors.contains(colorName) {
            throw UsageError(
                message: "--color takes one of \(UnsplashAPI.colors.joined(separator: ", ")); \"\(Format.oneLine(colorName))\" is not one",
                command: "unsplash")
        }
        options = try SourceOptions(
            arguments, page: Self.page, perPage: Self.perPage, maxPerPage: 30, album: Self.album, note: Self.note, json: Self.json,
            command: "unsplash")
    }

    func run(_ context: Context) throws {
        let source = UnsplashSource(
            accessKey: try SourceAPI.key("UNSPLASH_ACCESS_KEY", environment: context.environment, source: "Unsplash"),
            base: SourceAPI.setting("LIKES_UNSPLASH_API", environment: context.environment) ?? UnsplashAPI.defaultBase,
            client: SourceAPI.client(environment: context.environment, source: "Unsplash"))
        do {
            switch action {
            case .search(let query):
                // Download counts owed by earlier likes first: this command can make them.
                _ = try? source.payOwedTracking(for: context.repository)
                let page = try source.search(query, order: order, color: colorName, page: options.page, perPage: options.perPage)
                try SourceResults.show(page, json: options.printsJSON, next: "likes unsplash search \(Format.shellQuoted(query))", context: context)
            case .like(let text):
                let id = try Input.photoID(text)
                let liked = try source.like(id, into: context.repository, note: options.note, albums: options.albums)
                if let trackingFailure = liked.trackingFailure {
                    context.output.printError("The photo is liked, but Unsplash did not take the download count (\(trackingFailure)).")
                }
                LikeCommand.printLiked(liked.change, json: options.printsJSON, context: context)
            case .importLikes(let username):
                let report = try source.importLikes(
                    of: username, into: context.repository, albums: options.albums, dryRun: dryRunOnly,
                    progress: FavoritesImportOutput.progress(context))
                try FavoritesImportOutput.finish(
                    report, displayName: "Unsplash", command: "likes unsplash import-likes \(Format.shellQuoted(username))",
                    json: options.printsJSON, context: context)
            }
        } catch let error as PhotoSourceError {
            throw SourceResults.failure(error)
        }
    }
}

struct FlickrCommand: Command {
    static let sort = Option.value("--sort", "S", "flickr.photos.search's sort: \(FlickrAPI.sorts.joined(separator: ", ")).")
    static let page = Option.value("--page", "N", "The page of results, from 1.")
    static let perPage = Option.value("--per-page", "N", "Results per page, 1 to 500 (10 by default).")
    static let album = Option.repeatable(
        "--album", "NAME", "like, import-favorites: put the photos in this album too (may be given more than once).")
    static let note = Option.value("--note", "TEXT", "like: the photo's note.")
    static let dryRun = Option.flag("--dry-run", "import-favorites: ask only for the listing, and say how many photos are new.")
    static let json = Option.json(
        "search: {\"total\", \"totalPages\", \"page\", \"results\": [{\"id\", \"title\", \"photographer\", \"liked\"}]}; like: the record; import-favorites: {\"source\", \"user\", \"liked\", \"alreadyLiked\", \"failed\": [{\"id\", \"reason\"}], \"left\", \"stoppedBy\"}."
    )
    static let spec = CommandSpec(
        name: "flickr", summary: "Search Flickr, like a photo from it, or bring a person's favorites home.",
        usage:
            "flickr search TEXT [--sort S] [--page N] [--per-page N] [--json] | flickr like ID [--album NAME]... [--note TEXT] [--json] | flickr import-favorites USER [--album NAME]... [--dry-run] [--json]",
        details: """
            Needs a Flickr API key in FLICKR_API_KEY (exit 78 without it). search lists one result a line, its id first; a liked \
            one starts with ♥. like asks Flickr for the photo's information, its sizes and the licences' names, downloads the \
            largest size whose long side is at most 2048 pixels, and likes it with its owner, title, licence and page. A failed \
            request is one line (exit 1); nothing of a photo that failed is stored. import-favorites likes every photo USER (an \
            NSID, or a user name) starred on Flickr, each as like stores it, at the time it was starred; photos liked already \
            cost nothing; when Flickr refuses more requests for now it stops with exit 75, and the same command goes on where it \
            stopped. LIKES_FLICKR_API sets another address for the API. A photo's owner may ask that it be taken down: `likes unlike --source flickr --photographer USERNAME` \
            unlikes all of theirs.

            This product uses the Flickr API but is not endorsed or certified by SmugMug, Inc.
            """,
        example: "likes flickr search \"tram lisbon\" --sort date-posted-desc && likes flickr like 8436466166",
        options: [sort, page, perPage, album, note, dryRun, json], minimumPositionals: 2, maximumPositionals: 2,
        positionalName: "search TEXT, like ID or import-favorites USER")
    static let failureLeavesStoreAsItWas = true

    let searching: Bool
    let importing: Bool
    let dryRunOnly: Bool
    let argument: String
    let sortOrder: String
    let options: SourceOptions

    init(_ arguments: ParsedArguments) throws {
        switch arguments[positional: 0] {
        case "search": (searching, importing) = (true, false)
        case "like": (searching, importing) = (false, false)
        case "import-favorites": (searching, importing) = (false, true)
        case let other:
            throw UsageError(message: "`likes flickr` takes search, like or import-favorites, not \"\(Format.oneLine(other))\"", command: "flickr")
        }
        dryRunOnly = arguments.has(Self.dryRun)
        argument = arguments[positional: 1]
        sortOrder = arguments.value(Self.sort) ?? "relevance"
        guard FlickrAPI.sorts.contains(sortOrder) else {
            throw UsageError(message: "--sort takes one of \(FlickrAPI.sorts.joined(separator: ", "))", command: "flickr")
        }
        options = try SourceOptions(
            arguments, page: Self.page, perPage: Self.perPage, maxPerPage: 500, album: Self.album, note: Self.note, json: Self.json,
            command: "flickr")
    }

    func run(_ context: Context) throws {
        let source = FlickrSource(
            apiKey: try SourceAPI.key("FLICKR_API_KEY", environment: context.environment, source: "Flickr"),
            base: SourceAPI.setting("LIKES_FLICKR_API", environment: context.environment) ?? FlickrAPI.defaultBase,
            client: SourceAPI.client(environment: context.environment, source: "Flickr"))
        do {
            if importing {
                let report = try source.importFavorites(
                    of: argument, into: context.repository, albums: options.albums, dryRun: dryRunOnly,
                    progress: FavoritesImportOutput.progress(context))
                try FavoritesImportOutput.finish(
                    report, displayName: "Flickr", command: "likes flickr import-favorites \(Format.shellQuoted(argument))",
                    json: options.printsJSON, context: context)
            } else if searching {
                let page = try source.search(argument, sort: sortOrder, page: options.page, perPage: options.perPage)
                try SourceResults.show(
                    page, json: options.printsJSON, next: "likes flickr search \(Format.shellQuoted(argument))", context: context, flickr: true)
            } else {
                let liked = try source.like(try Input.photoID(argument), into: context.repository, note: options.note, albums: options.albums)
                LikeCommand.printLiked(liked.change, json: options.printsJSON, context: context)
            }
        } catch let error as PhotoSourceError {
            throw SourceResults.failure(error)
        }
    }
}

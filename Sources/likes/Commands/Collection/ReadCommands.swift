// list, show and stats: reading the collection, for people and for scripts.

import LikeKit
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

struct ListCommand: Command {
    static let oldestFirst = Option.flag("--oldest-first", "Oldest first.")
    static let by = Option.value(
        "--by", "DATE",
        "Order by the date each photo was liked (liked, the default) or taken (taken: the camera's date, else the source's, else the like's).")
    static let limit = Option.value("--limit", "N", "Show at most N photos.")
    static let offset = Option.value("--offset", "N", "Skip the first N photos (the slow way to page: see --after).")
    static let after = Option.value(
        "--after", "CURSOR", "Continue after this place in the listing: the \"cursor\" of the last record of the page before (with --json).")
    static let album = Option.value("--album", "NAME", "Only the photos in this album.")
    static let since = Option.value("--since", "DATE", "Only photos liked since DATE: 2026-11-01 (local midnight) or 2026-11-01T08:00:00Z.")
    static let color = Option.value(
        "--color", "C",
        "Only photos of this hex colour (#0C2340), or of a colour family: black, white, gray, yellow, orange, red, purple, magenta, green, teal, blue or brown."
    )
    static let search = Option.value(
        "--search", "TEXT", "Only photos whose id, description, photographer, note or albums contain every word of TEXT (case and accents ignored).")
    static let json = Option.json("Print an array of records as JSON.")
    static let spec = CommandSpec(
        name: "list", summary: "List liked photos, newest first.",
        usage:
            "list [--by liked|taken] [--oldest-first] [--limit N] [--after CURSOR] [--offset N] [--album NAME] [--since DATE] [--color C] [--search TEXT] [--json]",
        details: """
            Columns: liked (local time; taken with --by taken), id, size, width×height, and the note or else the description. \
            With --limit, a page that has more after it ends with the command for the next page; with --json, \
            every record carries its "cursor". Pages by --after never repeat or skip a photo, whatever is liked \
            between them, and a deep page costs no more than the first.
            """,
        example: "likes list --limit 20 --search cat",
        options: [by, oldestFirst, limit, after, offset, album, since, color, search, json], minimumPositionals: 0, maximumPositionals: 0,
        positionalName: "no arguments")
    static let readsExistingStore = true

    let query: LikeQuery
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        let orderDate = try arguments.value(Self.by).map { text in
            guard let date = LikeQuery.OrderDate(rawValue: text) else {
                throw UsageError(message: "--by takes liked or taken; \"\(text)\" is neither", command: "list")
            }
            return date
        }
        var query = LikeQuery(
            order: arguments.has(Self.oldestFirst) ? .oldestFirst : .newestFirst, limit: try arguments.count(Self.limit),
            offset: try arguments.count(Self.offset) ?? 0, color: arguments.value(Self.color), search: arguments.value(Self.search),
            album: try arguments.value(Self.album).map(Input.albumName), since: try Input.since(arguments.value(Self.since), command: "list"),
            after: try arguments.value(Self.after).map { text in
                guard let cursor = LikeCursor(text) else {
                    throw UsageError(
                        message: "--after takes the \"cursor\" of a record printed by `likes list --json`; \"\(text)\" is not one", command: "list")
                }
                return cursor
            })
        query.orderDate = orderDate ?? query.after?.orderDate ?? .liked
        if let after = query.after, after.orderDate != query.orderDate {
            throw UsageError(
                message:
                    "--after \(after) is a place in the listing --by \(after.orderDate.rawValue); list --by \(after.orderDate.rawValue) to go on from it",
                command: "list")
        }
        self.query = query
        printsJSON = arguments.has(Self.json)
    }

    func run(_ context: Context) throws {
        let listing = try context.repository.list(query)
        if listing.records.isEmpty, let album = query.album { try AlbumsCommand.checkAlbumExists(album, repository: context.repository) }
        if printsJSON {
            context.output.printJSON(.array(listing.records.map { Self.jsonWithCursor($0, orderDate: query.orderDate) }))
        } else if listing.records.isEmpty, query.limit == 0 {
            let count = try context.repository.statistics().count
            context.output.print("No photo listed: --limit is 0 (the store holds \(count) liked photo\(count == 1 ? "" : "s")).")
        } else if listing.records.isEmpty {
            context.output.print(emptyMessage)
        } else {
            Self.printTable(listing.records, byTaken: query.orderDate == .taken, output: context.output)
            if let next = listing.next, let limit = query.limit {
                context.output.print("More: likes\(context.storeArgument) list --after '\(next)' --limit \(limit)\(otherOptions)")
            }
        }
        for damage in listing.damage { context.output.printError("likes: \(damage)") }
        if !listing.damage.isEmpty {
            throw CommandFailure(
                "\(listing.damage.count) problem\(listing.damage.count == 1 ? "" : "s") with the store; run `likes verify` for the full list and `likes repair` to mend it.",
                status: .failure)
        }
    }

    /// A record as `list --json` prints it: with the cursor of its place in the listing.
    static func jsonWithCursor(_ record: LikeRecord, orderDate: LikeQuery.OrderDate = .liked) -> JSONValue {
        guard case .object(let members) = record.json else { return record.json }
        return .object(members + [("cursor", .string(LikeCursor(record: record, orderDate: orderDate).description))])
    }

    /// The filters and order of this listing, as the command line for its next page repeats them.
    private var otherOptions: String {
        var options: [String] = []
        if query.orderDate == .taken { options += ["--by", "taken"] }
        if query.order == .oldestFirst { options.append("--oldest-first") }
        if let album = query.album { options += ["--album", Format.shellQuoted(album.rawValue)] }
        if let since = query.since { options += ["--since", LikeTimestamp.string(from: since)] }
        if let color = query.color { options += ["--color", Format.shellQuoted(color)] }
        if let search = query.search { options += ["--search", Format.shellQuoted(search)] }
        return options.map { " " + $0 }.joined()
    }

    /// Without a filter an empty page says the store is empty, whatever --limit or order.
    private var emptyMessage: String {
        let filtered = query.search != nil || query.color != nil || query.album != nil || query.since != nil
        if filtered { return "No liked photo matches." }
        if query.offset == 0 { return "No liked photos yet. Like one with `likes like ID --image FILE`." }
        return "Nothing past the first \(query.offset) liked photo\(query.offset == 1 ? "" : "s")."
    }

    static func printTable(_ records: [LikeRecord], byTaken: Bool = false, output: Output) {
        let rows = records.map { record in
            [
                Format.localDate(byTaken ? record.takenAt : record.likedAt), Format.oneLine(record.id.rawValue), Format.size(record.totalBytes),
                "\(record.image.width)×\(record.image.height)", Format.oneLine(record.note ?? record.photo?.description ?? ""),
            ]
        }
        // The last column is the note, else the description: what the photo says in words.
        output.printTable(header: [byTaken ? "TAKEN" : "LIKED", "ID", "SIZE", "PIXELS", "CAPTION"], rows: rows, rightAligned: [2, 3])
    }
}

struct ShowCommand: Command {
    static let json = Option.json("Print the record as JSON.")
    static let spec = CommandSpec(
        name: "show", summary: "Show one liked photo: file, size, dimensions, date, note, albums and metadata.",
        usage: "show ID [--json]", example: "likes show Dwu85P9SOIk",
        options: [json], minimumPositionals: 1, maximumPositionals: 1, positionalName: "a photo ID")
    static let readsExistingStore = true

    let id: PhotoID
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        id = try Input.photoID(arguments[positional: 0])
        printsJSON = arguments.has(Self.json)
    }

    func run(_ context: Context) throws {
        guard var record = try context.repository.record(for: id) else { throw CommandFailure(LikeRepositoryError.notLiked(id: id)) }
        // A thumbnail missing (a power cut took it, or it was never made) is made now, where the
        // store can be written: what show names is always whole.
        if record.thumbnail == nil { record.thumbnail = try? context.repository.thumbnail(for: id) }
        if printsJSON {
            context.output.printJSON(record.json)
            return
        }
        var lines: [(String, String)] = [
            ("id", Format.oneLine(record.id.rawValue)),
            ("file", record.image.path),
            ("size", Format.size(record.image.byteCount)),
            (
                "pixels",
                "\(record.image.width)×\(record.image.height)"
                    + (record.image.orientation == 1 ? "" : " (Exif orientation \(record.image.orientation))")
            ),
            ("liked", Format.localDate(record.likedAt, seconds: true)),
        ]
        // When it was taken, as `list --by taken` orders it, and from where; the camera's own
        // text (its wall-clock time, with the offset where it wrote one) beside it.
        switch record.takenSource {
        case .exif:
            let written = record.exif?.takenAt.map { ", \(Format.oneLine($0)) in its Exif" } ?? ""
            lines.append(("taken", Format.localDate(record.takenAt, seconds: true) + " (the camera's date\(written))"))
        case .source: lines.append(("taken", Format.localDate(record.takenAt, seconds: true) + " (the source's date)"))
        case .liked: break
        }
        if let color = record.color, record.colorSource == .pixels { lines.append(("color", color + " (mean of the pixels)")) }
        if let exif = record.exif { lines += Self.cameraLines(exif) }
        if let user = record.userImage {
            lines.append(("user image", "\(user.path) (\(Format.size(user.byteCount)), \(user.width)×\(user.height))"))
        }
        if let thumbnail = record.thumbnail {
            lines.append(("thumbnail", "\(thumbnail.path) (\(Format.size(thumbnail.byteCount)), \(thumbnail.width)×\(thumbnail.height))"))
        }
        if let note = record.note { lines.append(("note", Format.oneLine(note))) }
        if !record.albums.isEmpty {
            // The albums whose cover the photo was chosen as are marked so.
            let names = record.albums.map { Format.oneLine($0.rawValue) + (record.covers.contains($0) ? " (its cover)" : "") }
            lines.append(("albums", names.joined(separator: ", ")))
        }
        if let photo = record.photo {
            if let text = photo.description { lines.append(("description", Format.oneLine(text))) }
            if let name = photo.photographer {
                lines.append(("photographer", Format.oneLine(name) + (photo.photographerUsername.map { " (@\(Format.oneLine($0)))" } ?? "")))
            }
            if let color = photo.color { lines.append(("color", Format.oneLine(color))) }
            if let width = photo.width, let height = photo.height { lines.append(("original", "\(width)×\(height)")) }
            if let created = photo.createdAt { lines.append(("created", Format.localDate(created, seconds: true))) }
            if let source = photo.sourceURL { lines.append(("source", Format.oneLine(source))) }
        }
        let width = lines.map(\.0.count).max() ?? 0
        for (label, value) in lines { context.output.print("\((label + ":").padded(to: width + 1)) \(value)") }
    }

    /// The camera's facts as `show` prints them: `camera: Canon PowerShot S40`, `exposure:
    /// 1/500 s, f/4.9, 21.31 mm, ISO 100` (the date taken is `show`'s own line).
    static func cameraLines(_ exif: CameraDetails) -> [(String, String)] {
        var lines: [(String, String)] = []
        let camera = [exif.make, exif.model].compactMap { $0 }
        // A model that repeats its maker ("Canon" "Canon PowerShot S40") is shown once.
        let name = camera.count == 2 && camera[1].hasPrefix(camera[0]) ? camera[1] : camera.joined(separator: " ")
        if !name.isEmpty { lines.append(("camera", Format.oneLine(name))) }
        if let lens = exif.lens { lines.append(("lens", Format.oneLine(lens))) }
        func number(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
        let exposure = [
            exif.exposureTime.map { Format.oneLine($0) + " s" }, exif.fNumber.map { "f/" + number($0) },
            exif.focalLength.map { number($0) + " mm" }, exif.iso.map { "ISO \($0)" },
        ].compactMap { $0 }
        if !exposure.isEmpty { lines.append(("exposure", exposure.joined(separator: ", "))) }
        return lines
    }
}

struct StatsCommand: Command {
    static let json = Option.json(
        "Print {\"count\", \"bytes\", \"oldest\", \"newest\", \"fileSystem\", \"flush\", \"owedTracking\", \"renditions\"} as JSON.")
    static let spec = CommandSpec(
        name: "stats", summary: "Count the liked photos, their bytes, and the oldest and newest like.",
        usage: "stats [--json]", example: "likes stats --json",
        options: [json], minimumPositionals: 0, maximumPositionals: 0, positionalName: "no arguments")
    static let readsExistingStore = true

    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        printsJSON = arguments.has(Self.json)
    }

    func run(_ context: Context) throws {
        let statistics = try context.repository.statistics()
        if printsJSON {
            context.output.printJSON(
                .object([
                    ("count", .int(statistics.count)), ("bytes", .int(statistics.bytes)), ("oldest", .date(statistics.oldest)),
                    ("newest", .date(statistics.newest)), ("fileSystem", .string(statistics.fileSystem)),
                    ("flush", .string(statistics.flushStrategy.rawValue)), ("owedTracking", .int(statistics.owedRequests)),
                    (
                        "renditions",
                        .object([
                            ("count", .int(statistics.renditions)), ("bytes", .int(statistics.renditionBytes)),
                            ("budget", .int(statistics.renditionBudget)),
                        ])
                    ),
                ]))
            return
        }
        var text = "\(statistics.count) liked photo\(statistics.count == 1 ? "" : "s"), \(Format.size(statistics.bytes))"
        if let oldest = statistics.oldest, let newest = statistics.newest {
            text += "; oldest like \(Format.localDate(oldest)), newest \(Format.localDate(newest))"
        }
        context.output.print(text + ".")
        context.output.print(
            statistics.flushStrategy == .none
                ? "Stored on \(statistics.fileSystem); changes are not flushed (relaxed durability)."
                : "Stored on \(statistics.fileSystem); changes are flushed with \(statistics.flushStrategy).")
        context.output.print(
            "\(statistics.renditions) rendition\(statistics.renditions == 1 ? "" : "s") (\(Format.size(statistics.renditionBytes))) "
                + "of a budget of \(Format.size(statistics.renditionBudget)); `likes renditions --budget SIZE` changes it.")
        if statistics.owedRequests > 0 {
            context.output.print(
                "\(statistics.owedRequests) Unsplash download count\(statistics.owedRequests == 1 ? " is" : "s are") owed; the next `likes unsplash` command makes \(statistics.owedRequests == 1 ? "it" : "them")."
            )
        }
    }
}

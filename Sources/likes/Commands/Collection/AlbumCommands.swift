// note, album and albums: the person's own words and groups for the photos kept.

import LikeKit

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

struct NoteCommand: Command {
    static let readsExistingStore = true
    static let imageFactsSeconds = 0.5
    static let clear = Option.flag("--clear", "Remove the note.")
    static let json = Option.json("Print the record as JSON.")
    static let spec = CommandSpec(
        name: "note", summary: "Set or replace a liked photo's note, or clear it.",
        usage: "note ID (TEXT | --clear) [--json]",
        details: "A note may have several lines; it is at most 10,000 UTF-8 bytes. `list --search` finds it.",
        example: "likes note Dwu85P9SOIk \"Lisbon, the first evening\"",
        options: [clear, json], minimumPositionals: 1, maximumPositionals: 2, positionalName: "a photo ID and the note's TEXT")
    static let failureLeavesStoreAsItWas = true

    let id: PhotoID
    /// The new note; `nil` to clear it.
    let text: String?
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        id = try Input.photoID(arguments[positional: 0])
        let clear = arguments.has(Self.clear)
        text = arguments.positionals.count > 1 ? arguments[positional: 1] : nil
        if clear, text != nil { throw UsageError(message: "give the note's TEXT or --clear, not both", command: "note") }
        if !clear, text == nil { throw UsageError(message: "`likes note` needs the note's TEXT, or --clear to remove it", command: "note") }
        printsJSON = arguments.has(Self.json)
    }

    func run(_ context: Context) throws {
        let change = try context.repository.setNote(text, for: id)
        guard let record = try change?.record ?? context.repository.record(for: id) else {
            throw CommandFailure(LikeRepositoryError.notLiked(id: id))
        }
        let name = Format.oneLine(id.rawValue)
        if printsJSON {
            context.output.printJSON(record.json)
        } else if change == nil {
            context.output.print(text == nil ? "\(name) has no note." : "\(name) has that note already.")
        } else {
            context.output.print(text == nil ? "Cleared the note of \(name)." : "Noted \(name).")
        }
    }
}

struct AlbumCommand: Command {
    static let readsExistingStore = true
    static let imageFactsSeconds = 0.5
    static let json = Option.json(
        "Print {\"album\", \"added\" or \"removed\": [ids], \"unchanged\": [ids]} as JSON (rename and delete: {\"album\", \"to\", \"photos\": [ids]}; cover: {\"album\", \"cover\": id or null, \"changed\": [ids]})."
    )
    static let newest = Option.flag("--newest", "With cover: make the album's newest photo its cover again.")
    static let spec = CommandSpec(
        name: "album", summary: "Put liked photos in an album or take them out of it; rename or delete an album; choose its cover.",
        usage: "album (add | remove) NAME ID... | album rename NAME NEW | album delete NAME | album cover NAME (ID | --newest) [--json]",
        details: """
            An album exists while a photo is in it. Names are any text of at most 256 UTF-8 bytes
            without control characters, matched without regard to case. Every ID must be liked
            (and, to remove, in the album); if one is not, nothing changes. Unliking a photo
            takes it out of all its albums. Renaming or deleting an album keeps its photos liked;
            renaming to an album that exists joins the two. An album's cover is its newest photo
            until one of its photos is chosen with `cover`; the choice is synced, and holds while
            that photo is in the album.
            """,
        example: "likes album add \"Trip to Lisbon\" Dwu85P9SOIk rocket",
        options: [json, newest], minimumPositionals: 2, maximumPositionals: nil,
        positionalName: "add or remove, an album NAME and at least one photo ID; rename NAME NEW; delete NAME; or cover NAME ID")

    enum Action: String { case add, remove, rename, delete, cover }

    let action: Action
    let album: AlbumName
    let ids: [PhotoID]
    let newName: AlbumName?
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        let word = arguments[positional: 0]
        guard let action = Action(rawValue: word) else {
            throw UsageError(
                message: "`likes album` takes add, remove, rename, delete or cover, not \"\(Format.oneLine(word))\"", command: "album")
        }
        let count = arguments.positionals.count
        if arguments.has(Self.newest), action != .cover {
            throw UsageError(message: "--newest goes with `likes album cover` only", command: "album")
        }
        switch action {
        case .cover:
            guard count == (arguments.has(Self.newest) ? 2 : 3) else {
                throw UsageError(message: "`likes album cover` takes the album's NAME and one photo ID, or NAME and --newest", command: "album")
            }
        case .add, .remove:
            guard count >= 3 else {
                throw UsageError(message: "`likes album \(word)` takes an album NAME and at least one photo ID", command: "album")
            }
        case .rename:
            guard count == 3 else {
                throw UsageError(message: "`likes album rename` takes the album's NAME and its NEW name, nothing more", command: "album")
            }
        case .delete:
            guard count == 2 else { throw UsageError(message: "`likes album delete` takes the album's NAME and nothing more", command: "album") }
        }
        self.action = action
        album = try Input.albumName(arguments[positional: 1])
        newName = action == .rename ? try Input.albumName(arguments[positional: 2]) : nil
        ids = action == .add || action == .remove || action == .cover ? try arguments.positionals.dropFirst(2).map(Input.photoID) : []
        printsJSON = arguments.has(Self.json)
    }

    func run(_ context: Context) throws {
        switch action {
        case .add, .remove: try changeMembers(context)
        case .rename, .delete: try renameOrDelete(context)
        case .cover: try chooseCover(context)
        }
    }

    private func chooseCover(_ context: Context) throws {
        let changes = try context.repository.setCover(ids.first, ofAlbum: album)
        let changed = changes.compactMap(\.id?.rawValue)
        if printsJSON {
            context.output.printJSON(
                .object([
                    ("album", .string(album.rawValue)), ("cover", ids.first.map { .string($0.rawValue) } ?? .null), ("changed", .strings(changed)),
                ]))
            return
        }
        let name = LikeRepositoryError.quoted(album.rawValue)
        if let id = ids.first {
            let photo = Format.oneLine(id.rawValue)
            context.output.print(changed.isEmpty ? "\(photo) is the cover of \(name) already." : "\(photo) is now the cover of \(name).")
        } else {
            context.output.print(
                changed.isEmpty ? "\(name) has its newest photo as its cover already." : "\(name) has its newest photo as its cover again.")
        }
    }

    private func renameOrDelete(_ context: Context) throws {
        let changes = try newName.map { try context.repository.renameAlbum(album, to: $0) } ?? context.repository.deleteAlbum(album)
        let moved = changes.compactMap(\.id?.rawValue)
        if printsJSON {
            context.output.printJSON(
                .object([("album", .string(album.rawValue)), ("to", newName.map { .string($0.rawValue) } ?? .null), ("photos", .strings(moved))]))
            return
        }
        let name = LikeRepositoryError.quoted(album.rawValue)
        if let newName {
            context.output.print("Renamed \(name) to \(LikeRepositoryError.quoted(newName.rawValue)): \(Self.photos(moved.count)).")
        } else {
            context.output.print("Deleted the album \(name): \(Self.photos(moved.count)) taken out of it, still liked.")
        }
    }

    private func changeMembers(_ context: Context) throws {
        let adding = action == .add
        let changes = adding ? try context.repository.addPhotos(ids, toAlbum: album) : try context.repository.removePhotos(ids, fromAlbum: album)
        let changed = Set(changes.compactMap(\.id))
        var seen: Set<PhotoID> = []
        let unchanged = ids.filter { !changed.contains($0) && seen.insert($0).inserted }
        let changedIDs = changes.compactMap(\.id?.rawValue)
        if printsJSON {
            context.output.printJSON(
                .object([
                    ("album", .string(album.rawValue)), (adding ? "added" : "removed", .strings(changedIDs)),
                    ("unchanged", .strings(unchanged.map(\.rawValue))),
                ]))
            return
        }
        let name = LikeRepositoryError.quoted(album.rawValue)
        var text = adding ? "Added \(Self.photos(changedIDs.count)) to \(name)" : "Took \(Self.photos(changedIDs.count)) out of \(name)"
        if !unchanged.isEmpty { text += " (\(Self.photos(unchanged.count)) \(unchanged.count == 1 ? "was" : "were") in it already)" }
        context.output.print(text + ".")
    }

    private static func photos(_ count: Int) -> String { "\(count) photo\(count == 1 ? "" : "s")" }
}

struct AlbumsCommand: Command {
    static let json = Option.json(
        "Print an array of {\"name\", \"count\", \"bytes\", \"newest\", \"cover\": record, \"coverChosen\"} as JSON.")
    static let spec = CommandSpec(
        name: "albums", summary: "List the albums: photos, size, newest photo and cover of each (the newest photo unless one was chosen).",
        usage: "albums [--json]", example: "likes albums",
        options: [json], minimumPositionals: 0, maximumPositionals: 0, positionalName: "no arguments")
    static let readsExistingStore = true

    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        printsJSON = arguments.has(Self.json)
    }

    func run(_ context: Context) throws {
        let albums = try context.repository.albums()
        if printsJSON {
            context.output.printJSON(
                .array(
                    albums.map { album in
                        .object([
                            ("name", .string(album.name.rawValue)), ("count", .int(album.count)), ("bytes", .int(album.bytes)),
                            ("newest", .date(album.newest)), ("cover", album.cover.json), ("coverChosen", .bool(album.coverChosen)),
                        ])
                    }))
            return
        }
        guard !albums.isEmpty else {
            context.output.print("No albums yet. Put photos in one with `likes album add NAME ID...`.")
            return
        }
        let rows = albums.map { album in
            [
                Format.oneLine(album.name.rawValue), "\(album.count)", Format.size(album.bytes), Format.localDate(album.newest),
                album.cover.map { Format.oneLine($0.id.rawValue) } ?? "?",
            ]
        }
        context.output.printTable(header: ["ALBUM", "PHOTOS", "SIZE", "NEWEST", "COVER"], rows: rows, rightAligned: [1, 2])
    }

    /// `list --album NAME` of an album that does not exist: an error, not an empty listing, so
    /// that a misspelt name does not pass for an empty album.
    static func checkAlbumExists(_ album: AlbumName, repository: LikeRepository) throws {
        guard try repository.albums().contains(where: { $0.name.sameAlbum(as: album) }) else {
            throw CommandFailure(LikeRepositoryError.noSuchAlbum(album))
        }
    }
}

// like, unlike and toggle: the heart button from the command line.

import LikeKit
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// What `like` and `toggle` take to like a photo: its image (a file or an address), the
/// photographer's picture, a note, metadata and albums.
struct LikeOptions {
    static let image = Option.value("--image", "FILE", "The photo's JPEG file.")
    static let url = Option.value(
        "--url", "URL", "Download the photo's JPEG from this http(s) address instead ($LIKES_DOWNLOAD_TIMEOUT, default 30 s).")
    static let userImage = Option.value("--user-image", "FILE", "The photographer's profile picture, a JPEG file.")
    static let note = Option.value("--note", "TEXT", "Your note on the photo.")
    static let meta = Option.value("--meta", "FILE", "An Unsplash photo object (JSON file) to take the metadata from.")
    static let album = Option.repeatable("--album", "NAME", "Put the photo in this album too (may be given more than once).")
    static let all = [image, url, userImage, note, meta, album]

    var imagePath: String?
    var url: String?
    var userImagePath: String?
    var note: String?
    var metaPath: String?
    var albums: [AlbumName]

    init(_ arguments: ParsedArguments) throws {
        imagePath = arguments.value(Self.image)
        url = arguments.value(Self.url)
        if imagePath != nil, url != nil {
            throw UsageError(message: "--image and --url cannot be given together", command: arguments.command)
        }
        userImagePath = arguments.value(Self.userImage)
        note = arguments.value(Self.note)
        metaPath = arguments.value(Self.meta)
        albums = try Input.albums(arguments.allValues(Self.album))
    }

    var hasImage: Bool { imagePath != nil || url != nil }

    /// The files read and the image downloaded (unless `download` is false); refuses nothing but
    /// bad input.
    func read(environment: [String: String], download: Bool = true) throws -> (image: Data?, userImage: Data?, photo: PhotoMetadata?) {
        let downloaded = try download ? url.map { try Download.jpeg(from: $0, what: "image", environment: environment) } : nil
        return (
            try imagePath.map { try Input.readFile($0, what: "image") } ?? downloaded,
            try userImagePath.map { try Input.readFile($0, what: "user image") },
            try metaPath.map(Input.metadata)
        )
    }

    /// Names the file in a not-a-JPEG error, which LikeKit reports without paths.
    func naming<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch LikeRepositoryError.notJPEG(let image, let reason) {
            let isUser = image == .userImage
            let path = (isUser ? userImagePath : imagePath ?? url) ?? "?"
            throw CommandFailure(
                "The \(isUser ? "user image" : "image") \(path) is not a usable JPEG: \(reason). Give a complete JPEG file.", status: .badData)
        }
    }
}

/// `{"id", "liked", "record"}`, the record `null` when unliked: what unlike and toggle print.
func likedStateJSON(id: PhotoID, liked: Bool, record: LikeRecord?) -> JSONValue {
    .object([("id", .string(id.rawValue)), ("liked", .bool(liked)), ("record", record.json)])
}

struct LikeCommand: Command {
    static let imageFactsSeconds = 0.5
    static let json = Option.json("Print the record as JSON.")
    static let spec = CommandSpec(
        name: "like", summary: "Like a photo, storing its JPEG; on a liked photo, update what is given.",
        usage: "like ID (--image FILE | --url URL) [--user-image FILE] [--note TEXT] [--meta FILE] [--album NAME]... [--json]",
        details: "Liking a photo again replaces what is given and keeps the rest, and the date it was first liked.",
        example: "likes like Dwu85P9SOIk --image ~/Downloads/Dwu85P9SOIk.jpg --note \"Our first trip\"",
        options: LikeOptions.all + [json], minimumPositionals: 1, maximumPositionals: 1, positionalName: "a photo ID")
    static let failureLeavesStoreAsItWas = true

    let id: PhotoID
    let options: LikeOptions
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        id = try Input.photoID(arguments[positional: 0])
        options = try LikeOptions(arguments)
        guard options.hasImage else { throw UsageError(message: "`likes like` needs --image FILE or --url URL", command: "like") }
        printsJSON = arguments.has(Self.json)
    }

    func run(_ context: Context) throws {
        let change: LikeChange
        if let imagePath = options.imagePath {
            // Copied into the store a piece at a time: a photo of any size costs a megabyte.
            let image = try Input.checkedFile(imagePath, what: "image")
            let userImage = try options.userImagePath.map { try Input.checkedFile($0, what: "user image") }
            let photo = try options.metaPath.map(Input.metadata)
            change = try options.naming {
                try context.repository.like(
                    id, imageFile: image, userImageFile: userImage, note: options.note, photo: photo, albums: options.albums)
            }
        } else {
            let input = try options.read(environment: context.environment)
            change = try options.naming {
                try context.repository.like(
                    id, image: input.image, userImage: input.userImage, note: options.note, photo: input.photo, albums: options.albums)
            }
        }
        Self.printLiked(change, json: printsJSON, context: context)
    }

    /// Makes the photo's thumbnail, then prints the record: as JSON, or a line for people.
    static func printLiked(_ change: LikeChange, json: Bool, context: Context) {
        guard var record = change.record else { return }
        let thumbnail = try? context.repository.file(.thumbnail, of: record.id)
        record.thumbnail = thumbnail?.image
        if let damage = thumbnail?.damage {
            context.output.printError(
                "likes: \(Format.oneLine(record.id.rawValue)) is a damaged JPEG: \(damage). It is stored as it is; its thumbnail shows what could be read."
            )
        }
        if json {
            context.output.printJSON(record.json)
        } else if change.kind == .unchanged {
            context.output.print(
                "\(Format.oneLine(record.id.rawValue)) is liked with that image, note, albums and metadata already; nothing was written.")
        } else {
            context.output.print(
                "\(change.kind == .liked ? "Liked" : "Updated") \(Format.oneLine(record.id.rawValue)): \(Format.size(record.image.byteCount)), \(record.image.width)×\(record.image.height)"
            )
        }
    }
}

struct UnlikeCommand: Command {
    static let readsExistingStore = true
    static let imageFactsSeconds = 0.5
    static let json = Option.json("Print {\"id\", \"liked\", \"record\"} as JSON; with --source or --photographer, {\"dryRun\", \"unliked\": [ids]}.")
    static let source = Option.value(
        "--source", "SOURCE", "Instead of one ID: every photo liked from this source, unsplash or flickr (by its page's address).")
    static let photographer = Option.value(
        "--photographer", "USERNAME", "Instead of one ID: every photo by this photographer (their Unsplash or Flickr username).")
    static let dryRun = Option.flag("--dry-run", "With --source or --photographer: list the photos, unlike none.")
    static let spec = CommandSpec(
        name: "unlike", summary: "Unlike a photo: remove its record and every image of it.",
        usage: "unlike ID [--json] | unlike [--source unsplash|flickr] [--photographer USERNAME] [--dry-run] [--json]",
        details: """
            With --source, --photographer or both, unlikes every photo that matches them all: what honours a \
            photographer's request to remove their photos, or a source's. --dry-run lists them first.
            """,
        example: "likes unlike Dwu85P9SOIk", options: [source, photographer, dryRun, json], minimumPositionals: 0, maximumPositionals: 1,
        positionalName: "a photo ID")
    static let failureLeavesStoreAsItWas = true

    /// One photo, or those matching a source and a photographer.
    enum Target {
        case one(PhotoID)
        case matching(origin: PhotoOrigin?, photographer: String?, dryRun: Bool)
    }

    let target: Target
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        printsJSON = arguments.has(Self.json)
        let origin = try arguments.value(Self.source).map { name in
            guard let origin = PhotoOrigin(rawValue: name.lowercased()) else {
                throw UsageError(message: "--source takes unsplash or flickr, not \"\(Format.oneLine(name))\"", command: "unlike")
            }
            return origin
        }
        let photographer = arguments.value(Self.photographer)
        if origin != nil || photographer != nil {
            guard arguments.positionals.isEmpty else {
                throw UsageError(message: "give an ID or --source/--photographer, not both", command: "unlike")
            }
            target = .matching(origin: origin, photographer: photographer, dryRun: arguments.has(Self.dryRun))
        } else {
            guard let id = arguments.positionals.first else { throw UsageError(message: "`likes unlike` needs a photo ID", command: "unlike") }
            guard !arguments.has(Self.dryRun) else { throw UsageError(message: "--dry-run goes with --source or --photographer", command: "unlike") }
            target = .one(try Input.photoID(id))
        }
    }

    func run(_ context: Context) throws {
        switch target {
        case .one(let id):
            let change = try context.repository.unlike(id)
            if printsJSON {
                context.output.printJSON(likedStateJSON(id: id, liked: false, record: nil))
            } else {
                context.output.print("Unliked \(Format.oneLine(id.rawValue)); removed \(change.files.count) files.")
            }
        case .matching(let origin, let photographer, let dryRun):
            try unlikeMatching(origin: origin, photographer: photographer, dryRun: dryRun, context: context)
        }
    }

    /// Every photo from `origin` by `photographer` (each when given), unliked unless `dryRun`.
    private func unlikeMatching(origin: PhotoOrigin?, photographer: String?, dryRun: Bool, context: Context) throws {
        let matching = try context.repository.list().records.filter { record in
            if let origin, PhotoOrigin(record.photo) != origin { return false }
            if let photographer, record.photo?.photographerUsername?.lowercased() != photographer.lowercased() { return false }
            return true
        }
        var unliked: [PhotoID] = []
        if !dryRun {
            for record in matching {
                do {
                    try context.repository.unlike(record.id)
                    unliked.append(record.id)
                } catch LikeRepositoryError.notLiked {
                    continue  // unliked by someone else meanwhile
                }
            }
        }
        let ids = dryRun ? matching.map(\.id) : unliked
        if printsJSON {
            context.output.printJSON(.object([("dryRun", .bool(dryRun)), ("unliked", .strings(ids.map(\.rawValue)))]))
            return
        }
        let from = [origin.map { "from \($0.name)" }, photographer.map { "by \(Format.oneLine($0))" }].compactMap { $0 }.joined(separator: " ")
        let count = "\(ids.count) photo\(ids.count == 1 ? "" : "s") \(from)"
        context.output.print(ids.isEmpty ? "No photo \(from) is liked." : dryRun ? "Would unlike \(count):" : "Unliked \(count):")
        for id in ids { context.output.print("  \(Format.oneLine(id.rawValue))") }
    }
}

struct ToggleCommand: Command {
    static let imageFactsSeconds = 0.5
    static let json = Option.json("Print {\"id\", \"liked\", \"record\"} as JSON.")
    static let spec = CommandSpec(
        name: "toggle", summary: "Unlike a liked photo, else like it; print the new state.",
        usage: "toggle ID [--image FILE | --url URL] [--user-image FILE] [--note TEXT] [--meta FILE] [--album NAME]... [--json]",
        details: "Liking needs --image or --url; unliking needs nothing else (and downloads nothing).",
        example: "likes toggle Dwu85P9SOIk --image Dwu85P9SOIk.jpg",
        options: LikeOptions.all + [json], minimumPositionals: 1, maximumPositionals: 1, positionalName: "a photo ID")
    static let failureLeavesStoreAsItWas = true

    let id: PhotoID
    let options: LikeOptions
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        id = try Input.photoID(arguments[positional: 0])
        options = try LikeOptions(arguments)
        printsJSON = arguments.has(Self.json)
    }

    /// Without an image it can only unlike, which needs a store; with one it may make the store.
    var needsExistingStore: Bool { options.imagePath == nil && options.url == nil }

    func run(_ context: Context) throws {
        // Download only to like: unliking needs no image.
        let input = try options.read(environment: context.environment, download: try !context.repository.isLiked(id))
        let change: LikeChange
        do {
            change = try options.naming {
                try context.repository.toggle(
                    id, image: input.image, userImage: input.userImage, note: options.note, photo: input.photo, albums: options.albums)
            }
        } catch LikeRepositoryError.imageRequired {
            throw UsageError(
                message: "\(LikeRepositoryError.quoted(id.rawValue)) is not liked, so `likes toggle` needs --image FILE or --url URL to like it",
                command: "toggle"
            )
        }
        let liked = change.kind != .unliked
        var record = change.record
        if liked { record?.thumbnail = try? context.repository.thumbnail(for: id) }
        if printsJSON {
            context.output.printJSON(likedStateJSON(id: id, liked: liked, record: record))
        } else {
            context.output.print("\(Format.oneLine(id.rawValue)) is now \(liked ? "liked" : "not liked").")
        }
    }
}

extension LikeRepositoryError {
    static func quoted(_ text: String) -> String { "\"\(Format.oneLine(text))\"" }
}

// like, unlike and toggle: the heart button from the command line.

import Foundation
import LikeKit

enum LikeCommands {
    static let likeOptions = [
        "--image": "The photo's JPEG file.",
        "--url": "Download the photo's JPEG from this http(s) address instead ($LIKES_DOWNLOAD_TIMEOUT, default 30 s).",
        "--user-image": "The photographer's profile picture, a JPEG file.",
        "--note": "Your note on the photo.",
        "--meta": "An Unsplash photo object (JSON file) to take the metadata from.",
        "--album": "Put the photo in this album too (may be given more than once).",
    ]

    static let like = CommandSpec(
        name: "like", summary: "Like a photo, storing its JPEG; on a liked photo, update what is given.",
        usage: "like ID (--image FILE | --url URL) [--user-image FILE] [--note TEXT] [--meta FILE] [--album NAME]... [--json]",
        details: "Liking a photo again replaces what is given and keeps the rest, and the date it was first liked.",
        example: "likes like Dwu85P9SOIk --image ~/Downloads/Dwu85P9SOIk.jpg --note \"Our first trip\"",
        valueOptions: likeOptions, flags: ["--json": "Print the record as JSON."], repeatable: ["--album"],
        minimumPositionals: 1, maximumPositionals: 1, positionalName: "a photo ID")

    static let unlike = CommandSpec(
        name: "unlike", summary: "Unlike a photo: remove its record and every image of it.",
        usage: "unlike ID [--json]", example: "likes unlike Dwu85P9SOIk",
        flags: ["--json": "Print {\"id\", \"liked\", \"record\"} as JSON."],
        minimumPositionals: 1, maximumPositionals: 1, positionalName: "a photo ID")

    static let toggle = CommandSpec(
        name: "toggle", summary: "Unlike a liked photo, else like it; print the new state.",
        usage: "toggle ID [--image FILE | --url URL] [--user-image FILE] [--note TEXT] [--meta FILE] [--album NAME]... [--json]",
        details: "Liking needs --image or --url; unliking needs nothing else (and downloads nothing).",
        example: "likes toggle Dwu85P9SOIk --image Dwu85P9SOIk.jpg",
        valueOptions: likeOptions, flags: ["--json": "Print {\"id\", \"liked\", \"record\"} as JSON."], repeatable: ["--album"],
        minimumPositionals: 1, maximumPositionals: 1, positionalName: "a photo ID")

    struct LikeInput {
        var image: Data?
        var userImage: Data?
        var note: String?
        var photo: PhotoMetadata?
        var albums: [AlbumName]
    }

    /// Reads the like options' files, or downloads the image; refuses nothing but bad input.
    static func likeInput(_ arguments: ParsedArguments, command: String, environment: [String: String], download: Bool = true) throws -> LikeInput {
        if arguments.value("--image") != nil, arguments.value("--url") != nil {
            throw UsageError(message: "--image and --url cannot be given together", command: command)
        }
        let albums = try Input.albums(arguments)
        let downloaded = try download ? arguments.value("--url").map { try Download.jpeg(from: $0, what: "image", environment: environment) } : nil
        return LikeInput(
            image: try arguments.value("--image").map { try Input.readFile($0, what: "image") } ?? downloaded,
            userImage: try arguments.value("--user-image").map { try Input.readFile($0, what: "user image") },
            note: arguments.value("--note"),
            photo: try arguments.value("--meta").map(Input.metadata), albums: albums)
    }

    static func runLike(_ context: Context) throws {
        let id = try Input.photoID(context.arguments.positionals[0])
        guard context.arguments.value("--image") != nil || context.arguments.value("--url") != nil else {
            throw UsageError(message: "`likes like` needs --image FILE or --url URL", command: "like")
        }
        let input = try likeInput(context.arguments, command: "like", environment: context.environment)
        let change = try naming(context.arguments) {
            try context.repository.like(
                id, image: input.image, userImage: input.userImage, note: input.note, photo: input.photo, albums: input.albums)
        }
        guard let record = change.record else { return }
        if context.arguments.has("--json") {
            context.output.printJSON(record.json)
        } else {
            context.output.print(
                "\(change.kind == .liked ? "Liked" : "Updated") \(Format.oneLine(id.rawValue)): \(Format.size(record.image.byteCount)), \(record.image.width)×\(record.image.height)"
            )
        }
    }

    /// Names the file in a not-a-JPEG error, which LikeKit reports without paths.
    static func naming<Result>(_ arguments: ParsedArguments, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch LikeRepositoryError.notJPEG(let image, let reason) {
            let isUser = image == .userImage
            let path = (isUser ? arguments.value("--user-image") : arguments.value("--image")) ?? "?"
            throw CommandFailure(
                "The \(isUser ? "user image" : "image") \(path) is not a usable JPEG: \(reason). Give a complete JPEG file.", status: .badData)
        }
    }

    /// `{"id", "liked", "record"}`, the record `null` when unliked.
    static func toggleJSON(id: PhotoID, liked: Bool, record: LikeRecord?) -> JSONValue {
        .object([("id", .string(id.rawValue)), ("liked", .bool(liked)), ("record", record.json)])
    }

    static func runUnlike(_ context: Context) throws {
        let id = try Input.photoID(context.arguments.positionals[0])
        let change = try context.repository.unlike(id)
        if context.arguments.has("--json") {
            context.output.printJSON(toggleJSON(id: id, liked: false, record: nil))
        } else {
            context.output.print("Unliked \(Format.oneLine(id.rawValue)); removed \(change.files.count) files.")
        }
    }

    static func runToggle(_ context: Context) throws {
        let id = try Input.photoID(context.arguments.positionals[0])
        // Download only to like: unliking needs no image.
        let needsImage = try !context.repository.isLiked(id)
        let input = try likeInput(context.arguments, command: "toggle", environment: context.environment, download: needsImage)
        let change: LikeChange
        do {
            change = try naming(context.arguments) {
                try context.repository.toggle(
                    id, image: input.image, userImage: input.userImage, note: input.note, photo: input.photo, albums: input.albums)
            }
        } catch LikeRepositoryError.imageRequired {
            throw UsageError(
                message: "\(LikeRepositoryError.quoted(id.rawValue)) is not liked, so `likes toggle` needs --image FILE or --url URL to like it",
                command: "toggle"
            )
        }
        let liked = change.kind != .unliked
        if context.arguments.has("--json") {
            context.output.printJSON(toggleJSON(id: id, liked: liked, record: change.record))
        } else {
            context.output.print("\(Format.oneLine(id.rawValue)) is now \(liked ? "liked" : "not liked").")
        }
    }
}

extension LikeRepositoryError {
    static func quoted(_ text: String) -> String { "\"\(Format.oneLine(text))\"" }
}

// import: like every JPEG in the files and folders given, with progress and a summary.

import LikeKit

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

struct ImportCommand: Command {
    static let album = Option.repeatable("--album", "NAME", "Put every photo imported in this album too (may be given more than once).")
    static let json = Option.json("Print {\"liked\", \"updated\", \"skipped\": [{\"file\", \"reason\"}]} as JSON.")
    static let spec = CommandSpec(
        name: "import", summary: "Like every JPEG in the given files and folders (id = file name without extension).",
        usage: "import PATH... [--album NAME]... [--json]",
        details: """
            Folders are walked; in them, files ending .jpg or .jpeg (any case) are taken. A file named
            directly is taken whatever its name. An id liked already is updated with the new image.
            A bad file is skipped with the reason, and the rest go on; then the exit status is 1.
            On a terminal a progress bar is drawn on stderr (NO_COLOR turns its colour off).
            """,
        example: "likes import Samples/photos",
        options: [album, json], minimumPositionals: 1, maximumPositionals: nil, positionalName: "at least one PATH")

    struct Skipped {
        var file: String
        var reason: String
    }

    struct Summary {
        var liked: [String] = []
        var updated: [String] = []
        var skipped: [Skipped] = []

        var json: JSONValue {
            .object([
                ("liked", .strings(liked)), ("updated", .strings(updated)),
                ("skipped", .array(skipped.map { .object([("file", .string($0.file)), ("reason", .string($0.reason))]) })),
            ])
        }
    }

    let paths: [String]
    let albums: [AlbumName]
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        paths = arguments.positionals
        albums = try Input.albums(arguments.allValues(Self.album))
        printsJSON = arguments.has(Self.json)
    }

    func run(_ context: Context) throws {
        let files = try collectFiles()
        let summary = try importFiles(files, context: context)
        // Every like is durable by now: the thumbnails follow.
        let liked = (summary.liked + summary.updated).compactMap { try? PhotoID($0) }
        if context.output.standardErrorIsTerminal, !liked.isEmpty {
            System.write("Making \(liked.count) thumbnail\(liked.count == 1 ? "" : "s")…\n", to: 2)
        }
        // Right after the likes are durable, two at a time, flushed together; a failure leaves
        // them for the next need.
        _ = try? context.repository.makeThumbnails(for: liked)
        if printsJSON {
            context.output.printJSON(summary.json)
        } else {
            context.output.print("Liked \(summary.liked.count), updated \(summary.updated.count), skipped \(summary.skipped.count).")
            for skipped in summary.skipped { context.output.print("  skipped \(Format.oneLine(skipped.file)): \(Format.oneLine(skipped.reason))") }
        }
        if !summary.skipped.isEmpty {
            throw CommandFailure("\(summary.skipped.count) of \(files.count) files were skipped; see the summary.", status: .failure)
        }
    }

    /// The files named, and the JPEG files in the folders named.
    private func collectFiles() throws -> [String] {
        var files: [String] = []
        for path in paths {
            guard let kind = System.kind(of: path) else {
                throw CommandFailure("\(path) does not exist. Check the path.", status: .noInput)
            }
            if kind == .directory {
                files += try Self.jpegFiles(in: path)
            } else {
                files.append(path)
            }
        }
        return files
    }

    /// Reads each file and likes it, 32 at a time (`likeAll`: one flush fewer per photo), with a
    /// progress bar; a file that cannot be liked is skipped with its reason.
    private func importFiles(_ files: [String], context: Context) throws -> Summary {
        var summary = Summary()
        let progress = Progress(total: files.count, output: context.output)
        var batch: [(path: String, item: LikeItem)] = []
        for (index, path) in files.enumerated() {
            progress.update(done: index)
            do {
                batch.append((path, try item(for: path)))
            } catch LikeRepositoryError.invalidID(_, let reason) {
                summary.skipped.append(Skipped(file: path, reason: "its name is not a usable id: \(reason)"))
            } catch let failure as CommandFailure {
                summary.skipped.append(Skipped(file: path, reason: failure.message))
            }
            if batch.count == 32 { try like(&batch, into: &summary, repository: context.repository) }
        }
        try like(&batch, into: &summary, repository: context.repository)
        progress.finish()
        return summary
    }

    /// The like a file makes: its name as the id, its bytes, and the metadata of a `.json` file
    /// beside it, if any.
    private func item(for path: String) throws -> LikeItem {
        let stem = PathText.deletingExtension(PathText.lastComponent(path))
        let id = try PhotoID(stem)
        let data = try Input.readFile(path, what: "file")
        let sidecar = PathText.deletingExtension(path) + ".json"
        let photo = FileManager.default.fileExists(atPath: sidecar) ? try Input.metadata(sidecar) : nil
        return LikeItem(id: id, image: data, photo: photo, albums: albums)
    }

    /// Likes a batch and empties it, noting each photo's outcome.
    private func like(_ batch: inout [(path: String, item: LikeItem)], into summary: inout Summary, repository: LikeRepository) throws {
        guard !batch.isEmpty else { return }
        let results: [Result<LikeChange, LikeRepositoryError>]
        do {
            results = try repository.likeAll(batch.map(\.item))
        } catch let error as LikeRepositoryError {
            throw CommandFailure(error)  // the store itself failed: stop
        }
        for (entry, result) in zip(batch, results) {
            switch result {
            case .success(let change):
                if change.kind == .liked { summary.liked.append(entry.item.id.rawValue) } else { summary.updated.append(entry.item.id.rawValue) }
            case .failure(.notJPEG(_, let reason)):
                summary.skipped.append(Skipped(file: entry.path, reason: "not a JPEG: \(reason)"))
            case .failure(let error):
                summary.skipped.append(Skipped(file: entry.path, reason: error.description))
            }
        }
        batch.removeAll()
    }

    /// The .jpg and .jpeg files below `directory`, sorted by path.
    static func jpegFiles(in directory: String) throws -> [String] {
        guard let paths = System.walk(directory) else {
            throw CommandFailure("The folder \(directory) cannot be read. Check its permissions.", status: .noInput)
        }
        var result: [String] = []
        for full in paths {
            let lowered = PathText.pathExtension(full).lowercased()
            guard lowered == "jpg" || lowered == "jpeg" else { continue }
            if let kind = System.kind(of: full), kind != .directory { result.append(full) }
        }
        return result.sorted()
    }
}

/// A progress bar on stderr, drawn only when stderr is a terminal.
final class Progress {
    let total: Int
    let output: Output
    let enabled: Bool
    let start = Date()
    var lastDraw = Date.distantPast

    init(total: Int, output: Output) {
        self.total = total
        self.output = output
        enabled = output.standardErrorIsTerminal && total > 0
    }

    func update(done: Int) {
        guard enabled, Date().timeIntervalSince(lastDraw) >= 0.1 || done == 0 else { return }
        lastDraw = Date()
        draw(done: done)
    }

    func finish() {
        guard enabled else { return }
        draw(done: total)
        System.write("\n", to: 2)
    }

    private func draw(done: Int) {
        let elapsed = Date().timeIntervalSince(start)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let remaining = rate > 0 ? Double(total - done) / rate : 0
        let width = 30
        let filled = total > 0 ? width * done / total : width
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let colored = output.useColor ? "\u{1B}[32m\(bar)\u{1B}[0m" : bar
        let text =
            "\r\(colored) \(done)/\(total)  \(decimalText(rate, places: 1))/s  \(done < total ? "\(Int(remaining.rounded())) s left" : "done")   "
        System.write(text, to: 2)
    }
}

// import: like every JPEG in the files and folders given, with progress and a summary.

import Foundation
import LikeKit

enum ImportCommand {
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
        valueOptions: ["--album": "Put every photo imported in this album too (may be given more than once)."],
        flags: ["--json": "Print {\"liked\", \"updated\", \"skipped\": [{\"file\", \"reason\"}]} as JSON."], repeatable: ["--album"],
        minimumPositionals: 1, maximumPositionals: nil, positionalName: "at least one PATH")

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

    static func run(_ context: Context) throws {
        let albums = try Input.albums(context.arguments)
        var files: [String] = []
        for path in context.arguments.positionals {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CommandFailure("\(path) does not exist. Check the path.", status: .noInput)
            }
            if isDirectory.boolValue {
                files += try jpegFiles(in: path)
            } else {
                files.append(path)
            }
        }

        var summary = Summary()
        let progress = Progress(total: files.count, output: context.output)
        // Likes go to the store 32 at a time (`likeAll`): one flush fewer per photo.
        var pending: [(path: String, item: LikeItem)] = []
        func likePending() throws {
            guard !pending.isEmpty else { return }
            let results: [Result<LikeChange, LikeRepositoryError>]
            do {
                results = try context.repository.likeAll(pending.map(\.item))
            } catch let error as LikeRepositoryError {
                throw CommandFailure(error)  // the store itself failed: stop
            }
            for (entry, result) in zip(pending, results) {
                switch result {
                case .success(let change):
                    if change.kind == .liked { summary.liked.append(entry.item.id.rawValue) } else { summary.updated.append(entry.item.id.rawValue) }
                case .failure(.notJPEG(_, let reason)):
                    summary.skipped.append(Skipped(file: entry.path, reason: "not a JPEG: \(reason)"))
                case .failure(let error):
                    summary.skipped.append(Skipped(file: entry.path, reason: error.description))
                }
            }
            pending.removeAll()
        }
        for (index, path) in files.enumerated() {
            progress.update(done: index)
            let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            do {
                let id = try PhotoID(stem)
                let data = try Input.readFile(path, what: "file")
                let sidecar = ((path as NSString).deletingPathExtension as NSString).appendingPathExtension("json")!
                let photo = FileManager.default.fileExists(atPath: sidecar) ? try Input.metadata(sidecar) : nil
                pending.append((path, LikeItem(id: id, image: data, photo: photo, albums: albums)))
            } catch LikeRepositoryError.invalidID(_, let reason) {
                summary.skipped.append(Skipped(file: path, reason: "its name is not a usable id: \(reason)"))
            } catch let failure as CommandFailure {
                summary.skipped.append(Skipped(file: path, reason: failure.message))
            }
            if pending.count == 32 { try likePending() }
        }
        try likePending()
        progress.finish()

        if context.arguments.has("--json") {
            context.output.printJSON(summary.json)
        } else {
            context.output.print("Liked \(summary.liked.count), updated \(summary.updated.count), skipped \(summary.skipped.count).")
            for skipped in summary.skipped { context.output.print("  skipped \(Format.oneLine(skipped.file)): \(Format.oneLine(skipped.reason))") }
        }
        if !summary.skipped.isEmpty {
            throw CommandFailure("\(summary.skipped.count) of \(files.count) files were skipped; see the summary.", status: .failure)
        }
    }

    /// The .jpg and .jpeg files below `directory`, sorted by path.
    static func jpegFiles(in directory: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else {
            throw CommandFailure("The folder \(directory) cannot be read. Check its permissions.", status: .noInput)
        }
        var result: [String] = []
        while let relative = walker.nextObject() as? String {
            let lowered = (relative as NSString).pathExtension.lowercased()
            guard lowered == "jpg" || lowered == "jpeg" else { continue }
            let full = (directory as NSString).appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                result.append(full)
            }
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
        FileHandle.standardError.write(Data("\n".utf8))
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
            "\r\(colored) \(done)/\(total)  \(String(format: "%.1f", rate))/s  \(done < total ? "\(Int(remaining.rounded())) s left" : "done")   "
        FileHandle.standardError.write(Data(text.utf8))
    }
}

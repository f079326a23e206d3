// import: like every JPEG in the files and folders given, with progress and a summary.

import LikeKit
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

struct ImportCommand: Command {
    static let imageFactsSeconds = 2
    static let album = Option.repeatable(
        "--album", "NAME", "Put every photo imported or restored in this album too (may be given more than once).")
    static let json = Option.json(
        "Print {\"liked\", \"updated\", \"unchanged\", \"skipped\": [{\"file\", \"reason\"}], \"ignored\", \"damaged\": [{\"id\", \"damage\"}]} as JSON."
    )
    static let spec = CommandSpec(
        name: "import", summary: "Like every JPEG in the given files and folders (id = file name without extension), or restore an export.",
        usage: "import PATH... [--album NAME]... [--json]",
        details: """
            Folders are walked; in them, files ending .jpg or .jpeg (any case) are taken. A file named
            directly is taken whatever its name. An id liked already is updated with the new image.
            A bad file is skipped with the reason, and the rest go on; then the exit status is 1.
            A folder with an index.json is an export (likes export), and is restored: each photo as it
            was exported (id, likedAt, note, albums, metadata, the same bytes), its files checked
            against the sizes and SHA-256 in index.json. A photo liked already is left as it is and
            reported; a file that differs from index.json is refused and named (exit status 1), the
            rest restored; an index of a format this version does not know stops the import before
            anything is stored (exit status 65). Running it again finishes a restore cut short.
            On a terminal a progress bar is drawn on stderr (NO_COLOR turns its colour off).
            """,
        example: "likes import Samples/photos",
        options: [album, json], minimumPositionals: 1, maximumPositionals: nil, positionalName: "at least one PATH")

    struct Skipped {
        var file: String
        var reason: String
        /// How the text summary says it: a restore's refusals are "refused".
        var verb = "skipped"
    }

    struct Summary {
        var liked: [String] = []
        var updated: [String] = []
        /// Photos liked already with the same bytes and metadata: nothing was written.
        var unchanged: [String] = []
        var skipped: [Skipped] = []
        /// Files in the folders walked that are neither JPEGs nor a JPEG's metadata.
        var ignored: [String] = []
        /// Photos liked whose JPEG data is damaged: stored, their thumbnails what could be read.
        var damaged: [DamagedPhoto] = []
        /// Exports restored (their photos are among `liked`, and those not restored among `skipped`).
        var restores: [RestoreReport] = []

        /// Files that kept a photo out: every skipped one but a photo found liked already.
        var failures: Int { skipped.count - restores.reduce(0) { $0 + $1.alreadyLiked.count } }

        var json: JSONValue {
            .object([
                ("liked", .strings(liked)), ("updated", .strings(updated)), ("unchanged", .strings(unchanged)),
                ("skipped", .array(skipped.map { .object([("file", .string($0.file)), ("reason", .string($0.reason))]) })),
                ("ignored", .strings(ignored)),
                ("damaged", .array(damaged.map { .object([("id", .string($0.id.rawValue)), ("damage", .string($0.damage))]) })),
            ])
        }

        /// Adds what a restore did: restored photos as liked, the others as skipped with their reason.
        mutating func add(_ report: RestoreReport) {
            restores.append(report)
            let folder = report.directory.path
            liked += report.restored.map(\.id.rawValue)
            for photo in report.alreadyLiked {
                skipped.append(
                    Skipped(file: folder + "/" + photo.file, reason: "photo \(LikeRepositoryError.quoted(photo.id.rawValue)) is liked already"))
            }
            for refusal in report.refused {
                let photo = refusal.id.map { " (photo \(LikeRepositoryError.quoted($0)))" } ?? ""
                skipped.append(Skipped(file: folder + "/" + refusal.file, reason: refusal.reason + photo, verb: "refused"))
            }
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
        let (files, exports, ignored) = try collectFiles()
        var summary = try restoreExports(exports, context: context, into: Summary(ignored: ignored))
        let restored = summary.liked.count
        // Each batch's thumbnails are made right after its likes (a restore's came with it).
        summary = try importFiles(files, context: context, into: summary)
        if printsJSON {
            context.output.printJSON(summary.json)
        } else {
            printSummary(summary, restored: restored, files: files, output: context.output)
        }
        let failures = summary.failures
        if failures > 0 {
            let refused = summary.restores.reduce(0) { $0 + $1.refused.count }
            let parts = [
                refused > 0 ? "\(refused) photo\(refused == 1 ? "" : "s") of the export \(refused == 1 ? "was" : "were") refused" : nil,
                failures > refused ? "\(failures - refused) of \(files.count) files were skipped" : nil,
            ]
            var failure = CommandFailure("\(parts.compactMap { $0 }.joined(separator: " and ")); see the summary.", status: .failure)
            // On a terminal the summary just said so; the line is for a summary that went elsewhere.
            failure.alreadyShown = !printsJSON && context.output.standardOutputIsTerminal && context.output.standardErrorIsTerminal
            throw failure
        }
    }

    /// Restores each export folder, with the albums asked for; every export's index is checked
    /// first, so that one of a format unknown stops the import before anything is stored.
    private func restoreExports(_ exports: [String], context: Context, into summary: Summary) throws -> Summary {
        var summary = summary
        for export in exports {
            do {
                try LikeRepository.checkExport(URL(fileURLWithPath: export, isDirectory: true))
            } catch let error as LikeRepositoryError {
                throw CommandFailure(error)
            }
        }
        for export in exports {
            let progress = Progress(total: 1, output: context.output)
            do {
                let report = try context.repository.restore(from: URL(fileURLWithPath: export, isDirectory: true)) { done, total in
                    progress.update(done: done, of: total)
                }
                // The albums asked for, besides those each photo had.
                for album in albums where !report.restored.isEmpty {
                    try context.repository.addPhotos(report.restored.map(\.id), toAlbum: album)
                }
                summary.add(report)
            } catch let error as LikeRepositoryError {
                throw CommandFailure(error)
            }
            progress.finish()
        }
        return summary
    }

    /// The summary in words: a line per export, the files' counts, what was ignored and why
    /// each file was skipped.
    private func printSummary(_ summary: Summary, restored: Int, files: [String], output: Output) {
        for report in summary.restores {
            output.print(
                "Restored \(report.restored.count) of \(report.restored.count + report.alreadyLiked.count + report.refused.count) photos from the export \(Format.oneLine(report.directory.path)): \(report.alreadyLiked.count) liked already, \(report.refused.count) refused."
            )
        }
        if !files.isEmpty || summary.restores.isEmpty {
            let plain = summary.skipped.count - summary.restores.reduce(0) { $0 + $1.alreadyLiked.count + $1.refused.count }
            let unchanged = summary.unchanged.isEmpty ? "" : ", unchanged \(summary.unchanged.count)"
            output.print("Liked \(summary.liked.count - restored), updated \(summary.updated.count)\(unchanged), skipped \(plain).")
        }
        if !summary.ignored.isEmpty {
            output.print("Ignored \(Self.describeIgnored(summary.ignored)).")
        }
        for photo in summary.damaged {
            output.print(
                "  damaged \(Format.oneLine(photo.id.rawValue)): \(Format.oneLine(photo.damage)); stored as it is, its thumbnail shows what could be read"
            )
        }
        // A photo of an export liked already is counted in its line, not named: a rerun of a
        // restore says so in one line.
        let alreadyLiked = Set(summary.restores.flatMap { report in report.alreadyLiked.map { report.directory.path + "/" + $0.file } })
        for skipped in summary.skipped where !alreadyLiked.contains(skipped.file) {
            output.print("  \(skipped.verb) \(Format.oneLine(skipped.file)): \(Format.oneLine(skipped.reason))")
        }
    }

    /// "3 files that are not JPEGs (2 .png, 1 .heic)": the files ignored, counted by extension.
    static func describeIgnored(_ paths: [String]) -> String {
        var counts: [String: Int] = [:]
        for path in paths {
            let suffix = PathText.pathExtension(PathText.lastComponent(path)).lowercased()
            counts[suffix.isEmpty ? "without an extension" : "." + suffix, default: 0] += 1
        }
        let parts = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.value) \($0.key)" }
        return
            "\(paths.count) file\(paths.count == 1 ? "" : "s") that \(paths.count == 1 ? "is" : "are") not a JPEG (\(parts.joined(separator: ", ")))"
    }

    /// The files named and the JPEG files in the folders named; the folders that are exports,
    /// which are restored instead; and the other files found in the folders, ignored.
    private func collectFiles() throws -> (files: [String], exports: [String], ignored: [String]) {
        var files: [String] = []
        var exports: [String] = []
        var ignored: [String] = []
        for path in paths {
            guard let kind = System.kind(of: path) else {
                throw CommandFailure("\(path) does not exist. Check the path.", status: .noInput)
            }
            if kind == .directory, LikeRepository.isExport(URL(fileURLWithPath: path, isDirectory: true)) {
                exports.append(path)
            } else if kind == .directory {
                let found = try Self.jpegFiles(in: path)
                files += found.jpegs
                ignored += found.ignored
            } else {
                files.append(path)
            }
        }
        return (files, exports, ignored)
    }

    /// Reads each file and likes it, 32 at a time (`likeAll`: one flush fewer per photo), with a
    /// progress bar; a file that cannot be liked is skipped with its reason.
    private func importFiles(_ files: [String], context: Context, into summary: Summary) throws -> Summary {
        var summary = summary
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
                switch change.kind {
                case .liked: summary.liked.append(entry.item.id.rawValue)
                case .unchanged: summary.unchanged.append(entry.item.id.rawValue)
                default: summary.updated.append(entry.item.id.rawValue)
                }
            case .failure(.notJPEG(_, let reason)):
                summary.skipped.append(Skipped(file: entry.path, reason: reason.hasSuffix("not a JPEG") ? reason : "not a JPEG: \(reason)"))
            case .failure(let error):
                summary.skipped.append(Skipped(file: entry.path, reason: error.description))
            }
        }
        // The batch's thumbnails, right after its likes are durable, two at a time, flushed
        // together; most come from the decode each like measured its photo's colour with. A
        // failure leaves them for the next need.
        let liked = zip(batch, results).compactMap { entry, result -> PhotoID? in
            guard case .success(let change) = result, change.kind != .unchanged else { return nil }
            return entry.item.id
        }
        if !liked.isEmpty, let made = try? repository.makeThumbnails(for: liked) { summary.damaged += made.damaged }
        batch.removeAll()
    }

    /// The .jpg and .jpeg files below `directory`, sorted by path, and the other files there:
    /// those are ignored, but for a `.json` file beside a JPEG of its name (its metadata).
    static func jpegFiles(in directory: String) throws -> (jpegs: [String], ignored: [String]) {
        guard let paths = System.walk(directory) else {
            throw CommandFailure("The folder \(directory) cannot be read. Check its permissions.", status: .noInput)
        }
        var jpegs: [String] = []
        var others: [String] = []
        for full in paths {
            guard let kind = System.kind(of: full), kind != .directory else { continue }
            let lowered = PathText.pathExtension(full).lowercased()
            if lowered == "jpg" || lowered == "jpeg" { jpegs.append(full) } else { others.append(full) }
        }
        let stems = Set(jpegs.map(PathText.deletingExtension))
        let ignored = others.filter { !($0.lowercased().hasSuffix(".json") && stems.contains(PathText.deletingExtension($0))) }
        return (jpegs.sorted(), ignored.sorted())
    }
}

/// A progress bar on stderr, drawn only when stderr is a terminal.
final class Progress {
    private(set) var total: Int
    let output: Output
    private(set) var enabled: Bool
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

    /// As ``update(done:)``, for work whose size is known only once it has begun.
    func update(done: Int, of total: Int) {
        self.total = total
        enabled = output.standardErrorIsTerminal && total > 0
        update(done: done)
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

// purge, verify and repair: keeping the store clean, proving it sound, and mending it.

import LikeKit

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

struct PurgeCommand: Command {
    static let dryRun = Option.flag("--dry-run", "Only report what would be removed.")
    static let rebuildIndex = Option.flag("--rebuild-index", "Rebuild the index from the record files first.")
    static let json = Option.json("Print {\"dryRun\", \"count\", \"bytes\", \"files\"} as JSON.")
    static let spec = CommandSpec(
        name: "purge", summary: "Remove orphan files (files that belong to no record); report count and bytes.",
        usage: "purge [--dry-run | --rebuild-index] [--json]",
        details: """
            The index (likes.journal) is rebuilt when it is damaged or names other records than there
            are; --rebuild-index rebuilds it from the record files in any case (decoding every record,
            which takes seconds at 100,000), as `likes verify` asks when the two disagree.
            """,
        example: "likes purge --dry-run",
        options: [dryRun, rebuildIndex, json], minimumPositionals: 0, maximumPositionals: 0, positionalName: "no arguments")
    static let readsExistingStore = true

    let isDryRun: Bool
    let rebuildsIndex: Bool
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        isDryRun = arguments.has(Self.dryRun)
        rebuildsIndex = arguments.has(Self.rebuildIndex)
        if isDryRun, rebuildsIndex { throw UsageError(message: "--dry-run and --rebuild-index cannot be given together", command: "purge") }
        printsJSON = arguments.has(Self.json)
    }

    func run(_ context: Context) throws {
        if rebuildsIndex {
            let count = try context.repository.rebuildIndex()
            if !printsJSON { context.output.print("Rebuilt the index from \(count) record file\(count == 1 ? "" : "s").") }
        }
        let report = try context.repository.purge(dryRun: isDryRun)
        if printsJSON {
            context.output.printJSON(
                .object([
                    ("dryRun", .bool(report.dryRun)), ("count", .int(report.count)), ("bytes", .int(report.bytes)), ("files", .strings(report.files)),
                ]))
            return
        }
        if report.count == 0 {
            context.output.print("No orphan files.")
            return
        }
        context.output.print(
            "\(isDryRun ? "Would remove" : "Removed") \(report.count) orphan file\(report.count == 1 ? "" : "s") (\(Format.size(report.bytes))):")
        for file in report.files { context.output.print("  \(Format.oneLine(file))") }
    }
}

struct VerifyCommand: Command {
    static let json = Option.json("Print {\"ok\", \"problems\", \"orphans\", \"remade\"} as JSON.")
    static let spec = CommandSpec(
        name: "verify", summary: "Check every record and image; exit 1 if any invariant is broken.",
        usage: "verify [--json]",
        details: """
            Reads every image to compare it with its checksum. Orphan files are listed but are not a failure. \
            A damaged thumbnail or rendition (a power cut can leave one) is made anew from its photo and listed; \
            it is no failure either.
            """,
        example: "likes verify",
        options: [json], minimumPositionals: 0, maximumPositionals: 0, positionalName: "no arguments")
    static let readsExistingStore = true

    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        printsJSON = arguments.has(Self.json)
    }

    func run(_ context: Context) throws {
        let report = try context.repository.verify()
        if printsJSON {
            context.output.printJSON(
                .object([
                    ("ok", .bool(report.isOK)), ("problems", .strings(report.problems)), ("orphans", .strings(report.orphans)),
                    ("remade", .strings(report.remade)),
                ]))
        } else {
            for problem in report.problems { context.output.print("problem: \(Format.oneLine(problem))") }
            for remade in report.remade { context.output.print("made anew: \(Format.oneLine(remade))") }
            if !report.orphans.isEmpty {
                context.output.print("\(report.orphans.count) orphan file\(report.orphans.count == 1 ? "" : "s") (run `likes purge` to remove):")
                for orphan in report.orphans { context.output.print("  \(Format.oneLine(orphan))") }
            }
            if report.isOK { context.output.print("OK: every record and image is intact.") }
        }
        if !report.isOK {
            throw CommandFailure(
                "verify found \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s") in the store. Run `likes repair` to mend it (it deletes nothing).",
                status: .failure)
        }
    }
}

struct RepairCommand: Command {
    static let dryRun = Option.flag("--dry-run", "Only report what would be done.")
    static let json = Option.json(
        "Print {\"dryRun\", \"rebuilt\", \"setAside\": [{\"id\", \"files\", \"reason\"}], \"thumbnailsMade\", \"ok\"} as JSON.")
    static let spec = CommandSpec(
        name: "repair", summary: "Bring a damaged store back to one that verifies, deleting nothing.",
        usage: "repair [--dry-run] [--json]",
        details: """
            What cannot stay (a damaged record file, a photo whose image is missing, cut short or changed,
            a damaged journal, stray folders and special files) is moved under damaged/ in the store, one
            line each saying what it was and why. A record whose file was lost but whose image is whole and
            known to the journal is rebuilt (its note and metadata are not). Then the journal is written anew,
            and each photo's thumbnail is made where it is missing or damaged. Exit 0 when the store verifies
            afterwards.
            """,
        example: "likes repair --dry-run",
        options: [dryRun, json], minimumPositionals: 0, maximumPositionals: 0, positionalName: "no arguments")
    static let readsExistingStore = true

    let isDryRun: Bool
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        isDryRun = arguments.has(Self.dryRun)
        printsJSON = arguments.has(Self.json)
    }

    func run(_ context: Context) throws {
        let report = try context.repository.repair(dryRun: isDryRun)
        if printsJSON {
            context.output.printJSON(
                .object([
                    ("dryRun", .bool(report.dryRun)), ("rebuilt", .strings(report.rebuilt.map(\.rawValue))),
                    (
                        "setAside",
                        .array(
                            report.setAside.map { item in
                                .object([("id", .string(item.id)), ("files", .strings(item.files)), ("reason", .string(item.reason))])
                            })
                    ),
                    ("thumbnailsMade", .int(report.thumbnailsMade)), ("ok", .bool(report.isOK)),
                ]))
        } else {
            let verb = report.dryRun ? "would be" : "was"
            for id in report.rebuilt {
                context.output.print(
                    "rebuilt: the record of \(LikeRepositoryError.quoted(id.rawValue)) \(verb) rebuilt from its image and the journal.")
            }
            for item in report.setAside {
                let files = item.files.isEmpty ? "nothing to move" : item.files.joined(separator: ", ")
                context.output.print("set aside: \(Format.oneLine(files)) (\(verb) moved to damaged/): \(Format.oneLine(item.reason)).")
            }
            if report.thumbnailsMade > 0 {
                context.output.print("thumbnails: \(report.thumbnailsMade) \(report.dryRun ? "would be" : "were") made.")
            }
            if report.rebuilt.isEmpty && report.setAside.isEmpty && report.thumbnailsMade == 0 { context.output.print("Nothing to repair.") }
            if report.isOK { context.output.print("OK: the store verifies.") }
        }
        if !report.isOK {
            throw CommandFailure(
                report.dryRun
                    ? "the store does not verify as it is; run `likes repair` without --dry-run."
                    : "the store still does not verify after the repair; run `likes verify` to see what is left.", status: .failure)
        }
    }
}

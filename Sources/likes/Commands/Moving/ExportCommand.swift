// export: the favorites, or an album of them, as a folder to share.

import LikeKit

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

struct ExportCommand: Command {
    static let album = Option.value("--album", "NAME", "Only the photos in this album.")
    static let since = Option.value("--since", "DATE", "Only photos liked since DATE: 2026-11-01 (local midnight) or 2026-11-01T08:00:00Z.")
    static let json = Option.json("Print {\"directory\", \"count\", \"bytes\", \"photos\": [{\"id\", \"file\", \"userImage\"}]} as JSON.")
    static let spec = CommandSpec(
        name: "export", summary: "Copy liked photos into a folder to share, with index.json and an index.html contact sheet.",
        usage: "export DIR [--album NAME] [--since DATE] [--json]",
        details: """
            Each JPEG gets a readable name from its id (Dwu85P9SOIk.jpg; the photographer's picture
            Dwu85P9SOIk.photographer.jpg). index.html shows them newest first with their metadata and
            needs nothing but the folder. DIR must be new, empty, or an earlier export, which is
            replaced whole; its parent must exist. The copies are checked against the checksums
            taken when each photo was liked.
            """,
        example: "likes export ~/Desktop/lisbon --album \"Trip to Lisbon\"",
        options: [album, since, json], minimumPositionals: 1, maximumPositionals: 1, positionalName: "the export folder DIR")
    static let readsExistingStore = true

    let directory: URL
    let query: LikeQuery
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        query = LikeQuery(
            album: try arguments.value(Self.album).map(Input.albumName), since: try Input.since(arguments.value(Self.since), command: "export"))
        directory = URL(fileURLWithPath: arguments[positional: 0])
        printsJSON = arguments.has(Self.json)
    }

    func run(_ context: Context) throws {
        let report = try context.repository.export(to: directory, query: query)
        if printsJSON {
            context.output.printJSON(
                .object([
                    ("directory", .string(report.directory.path)), ("count", .int(report.photos.count)), ("bytes", .int(report.byteCount)),
                    (
                        "photos",
                        .array(
                            report.photos.map {
                                .object([
                                    ("id", .string($0.id.rawValue)), ("file", .string($0.fileName)), ("userImage", .string($0.userImageFileName)),
                                ])
                            })
                    ),
                ]))
        } else {
            let count = report.photos.count
            context.output.print(
                "Exported \(count) photo\(count == 1 ? "" : "s") (\(Format.size(report.byteCount))) to \(report.directory.path); open \(report.directory.appendingPathComponent("index.html").path) to see them."
            )
        }
        for damage in report.damage { context.output.printError("likes: \(damage)") }
        if !report.damage.isEmpty {
            throw CommandFailure(
                "\(report.damage.count) problem\(report.damage.count == 1 ? "" : "s") with the store; the export holds the rest. Run `likes verify` for the full list and `likes repair` to mend it.",
                status: .failure)
        }
    }
}

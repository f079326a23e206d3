// `likes renditions`: how many of the photos' middle-sized images the store keeps, and the budget
// of bytes they are kept under, which `--budget` changes.

import LikeKit
import LikesSupport

struct RenditionsCommand: Command {
    static let budget = Option.value(
        "--budget", "SIZE", "Keep renditions under SIZE bytes (with K, M or G: 500M, 2G; 0 keeps none); the least recently used go first.")
    static let defaultBudget = Option.flag("--default-budget", "Go back to the default budget (1 GB).")
    static let make = Option.flag(
        "--make", "Make now what is missing of the thumbnails and renditions of the photos named (every photo, newest first, when none is).")
    static let json = Option.json(
        "Print {\"count\", \"bytes\", \"budget\"} as JSON; with --make, also {\"photos\", \"thumbnails\", \"renditions\", \"stoppedAtBudget\"} made.")
    static let spec = CommandSpec(
        name: "renditions", summary: "Show or set the budget of the photos' renditions, or make them ahead.",
        usage: "renditions [--budget SIZE | --default-budget] [--make [ID…]] [--json]",
        details: """
            Renditions are the sizes between a photo's thumbnail and its original (twice the thumbnail's \
            long side, doubled while smaller than the photo) that the gallery and apps ask for. The store \
            makes each on first use and keeps them under a budget of bytes, removing the least recently \
            used first; a removed one is made again when needed. Thumbnails and originals are never removed. \
            --make makes them now (before going offline, say), stopping once the renditions fill the budget.
            """,
        example: "likes renditions --make && likes renditions --budget 500M",
        options: [budget, defaultBudget, make, json], minimumPositionals: 0, maximumPositionals: Int.max, positionalName: "photo ids (with --make)")
    static let readsExistingStore = true

    let newBudget: Int??
    /// With --make: the photos named, or `nil` for every photo.
    let making: [PhotoID]??
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        if let text = arguments.value(Self.budget) {
            guard !arguments.has(Self.defaultBudget) else {
                throw UsageError(message: "--budget and --default-budget cannot be given together", command: "renditions")
            }
            guard let bytes = Self.bytes(text) else {
                throw UsageError(message: "--budget takes a size such as 500M or 2G; \(MessageText.quoted(text)) is not one", command: "renditions")
            }
            newBudget = .some(bytes)
        } else {
            newBudget = arguments.has(Self.defaultBudget) ? .some(nil) : nil
        }
        if arguments.has(Self.make) {
            making = .some(arguments.positionals.isEmpty ? nil : try arguments.positionals.map(PhotoID.init))
        } else {
            guard arguments.positionals.isEmpty else {
                throw UsageError(message: "photo ids are given with --make only", command: "renditions")
            }
            making = nil
        }
        printsJSON = arguments.has(Self.json)
    }

    /// `500M`, `2G`, `300K` or a number of bytes; `nil` for anything else.
    static func bytes(_ text: String) -> Int? {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = text.uppercased()
        var unit = 1
        if digits.hasSuffix("B"), digits.count > 1, units[digits[digits.index(digits.endIndex, offsetBy: -2)]] != nil { digits.removeLast() }
        if let last = digits.last, let scale = units[last] {
            unit = scale
            digits.removeLast()
        }
        guard let value = Int(digits), value >= 0, value <= Int.max / unit else { return nil }
        return value * unit
    }

    func run(_ context: Context) throws {
        if let newBudget { try context.repository.setRenditionBudget(newBudget) }
        let made = try making.map { named in try context.repository.makeImagesAhead(for: try named ?? Self.everyPhoto(context.repository)) }
        let statistics = try context.repository.statistics()
        if printsJSON {
            var members: [(String, JSONValue)] = [
                ("count", .int(statistics.renditions)), ("bytes", .int(statistics.renditionBytes)), ("budget", .int(statistics.renditionBudget)),
            ]
            if let made {
                members += [
                    ("photos", .int(made.photos)), ("thumbnails", .int(made.thumbnails)), ("renditions", .int(made.renditions)),
                    ("stoppedAtBudget", .bool(made.stoppedAtBudget)),
                ]
            }
            context.output.printJSON(.object(members))
            return
        }
        if let made {
            context.output.print(
                "Made \(made.thumbnails) thumbnail\(made.thumbnails == 1 ? "" : "s") and \(made.renditions) rendition\(made.renditions == 1 ? "" : "s") "
                    + "for \(made.photos) photo\(made.photos == 1 ? "" : "s")"
                    + (made.stoppedAtBudget ? "; stopped there, as the renditions fill their budget (`--budget` sets it)." : "."))
        }
        context.output.print(
            "\(statistics.renditions) rendition\(statistics.renditions == 1 ? "" : "s"), \(Format.size(statistics.renditionBytes)), "
                + "kept under a budget of \(Format.size(statistics.renditionBudget)).")
    }

    /// Every liked photo's id, newest first, a page at a time.
    private static func everyPhoto(_ repository: LikeRepository) throws -> [PhotoID] {
        var ids: [PhotoID] = []
        var query = LikeQuery(limit: 1000)
        while true {
            let page = try repository.list(query)
            ids += page.records.map(\.id)
            guard let next = page.next else { return ids }
            query.after = next
        }
    }
}

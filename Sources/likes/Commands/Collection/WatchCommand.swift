// watch: print each change to the store as it happens, from any process, until interrupted.

import LikeKit
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

struct WatchCommand: Command {
    static let readsExistingStore = true
    static let json = Option.json("Print one JSON object per change and line.")
    static let spec = CommandSpec(
        name: "watch", summary: "Print each change to the store as it happens (from any process) until interrupted.",
        usage: "watch [--json]",
        details: """
            One line per change: liked, updated, unliked or purged. With --json, one JSON object per line,
            {"change", "id", "at", "record", "files", "fields", "device"} (keys that do not apply are
            null; "fields" names what the change touched: image, userImage, note, albums, photo;
            "device" is the device a change merged by `likes sync` came from, or this store's own
            device id for its own changes, null before its first sync), flushed at once, so that it
            pipes into jq. A line on stderr says when watching has begun.
            """,
        example: "likes watch --json | jq -r .id",
        options: [json], minimumPositionals: 0, maximumPositionals: 0, positionalName: "no arguments")

    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        printsJSON = arguments.has(Self.json)
    }

    /// `{"change", "id", "at", "record", "files", "fields", "device"}`; keys that do not apply are
    /// null.
    static func json(_ change: LikeChange) -> JSONValue {
        let fields = orderedFields(change)
        return .object([
            ("change", .string(change.kind.rawValue)), ("id", .string(change.id?.rawValue)), ("at", .date(change.date)),
            ("record", change.record.json), ("files", change.files.isEmpty ? .null : .strings(change.files)),
            ("fields", fields.isEmpty ? .null : .strings(fields)), ("device", .string(change.device)),
        ])
    }

    /// What a change touched, in a fixed order.
    static func orderedFields(_ change: LikeChange) -> [String] {
        LikeChange.Field.allCases.filter(change.fields.contains).map(\.rawValue)
    }

    func run(_ context: Context) throws {
        let json = printsJSON
        let output = context.output
        let token = context.repository.observe { change in
            if json {
                output.print(Self.json(change).rendered(pretty: false))
            } else {
                output.print(Self.humanLine(change))
            }
        }
        // A parent may have blocked these (test runners do); watching ends only when they arrive.
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        output.printError("Watching \(context.repository.directory.path) for changes; stop with Ctrl-C.")
        // Changes are printed on the observer's thread; this one only keeps the token alive.
        withExtendedLifetime(token) {
            while true { sleep(3600) }
        }
    }

    static func humanLine(_ change: LikeChange) -> String {
        let time = Format.localDate(change.date, seconds: true)
        let id = change.id.map { Format.oneLine($0.rawValue) } ?? "?"
        switch change.kind {
        case .liked, .updated:
            var detail = change.record.map { "  \(Format.size($0.totalBytes))  \($0.image.width)×\($0.image.height)" } ?? ""
            if let note = change.record?.note { detail += "  note: \(Format.cut(Format.oneLine(note), to: 60))" }
            if let albums = change.record?.albums, !albums.isEmpty {
                detail += "  albums: \(albums.map { Format.oneLine($0.rawValue) }.joined(separator: ", "))"
            }
            if change.kind == .updated { detail += "  (changed: \(orderedFields(change).joined(separator: ", ")))" }
            return "\(time)  \(change.kind.rawValue.padded(to: 7))  \(id)\(detail)"
        case .unliked:
            return "\(time)  unliked  \(id)"
        case .purged:
            return
                "\(time)  purged   \(change.files.count) file\(change.files.count == 1 ? "" : "s"): \(change.files.map(Format.oneLine).joined(separator: ", "))"
        case .unchanged:
            return "\(time)  unchanged  \(id)"  // never observed: nothing was written
        }
    }
}

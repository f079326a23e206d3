// The front door: global options, the store's location, dispatch, and the error line.

import Foundation
import LikeKit

/// What every command gets: its arguments, the store, and the output streams.
struct Context {
    var arguments: ParsedArguments
    var repository: LikeRepository
    var output: Output
    var environment: [String: String]
    var command: String
}

enum LikesCommandLine {
    static let version = "0.1.0"

    static let commands: [CommandSpec] = [
        LikeCommands.like, LikeCommands.unlike, LikeCommands.toggle,
        ReadCommands.list, ReadCommands.show, ReadCommands.stats, AlbumCommands.note, AlbumCommands.album, AlbumCommands.albums,
        ExportCommand.spec,
        ImportCommand.spec, ImportUnsplashCommand.spec, MaintenanceCommands.purge, MaintenanceCommands.verify,
        MaintenanceCommands.repair, WatchCommand.spec,
    ]

    static let overview: String = {
        var text = """
            likes keeps your favorite photos offline: a record per liked photo and its JPEG, in one store directory.

            Usage: likes [--store DIR] [--durability full|relaxed] COMMAND [OPTIONS] [ARGUMENTS]
                   likes COMMAND --help
                   likes --version

            Commands:

            """
        let width = commands.map(\.name.count).max() ?? 0
        for spec in commands { text += "  \(spec.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(spec.summary)\n" }
        text += """

            The store is --store DIR, else $LIKES_STORE, else $XDG_DATA_HOME/likes or ~/.local/share/likes
            (on Apple platforms the Documents directory + Likes). Ids that start with '-' go after `--`.
            Exit status: 0 done, 1 not done (not found, skipped items, problems), 64 usage, 65 bad data,
            66 input file missing or unreadable, 74 store I/O error, 75 store busy.

            Example:
              likes like Dwu85P9SOIk --image photo.jpg --note "Our first trip"
            """
        return text
    }()

    /// Runs one command line and returns its exit status.
    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        let output = Output(environment: environment)
        do {
            try dispatch(arguments[...], environment: environment, output: output)
            return ExitStatus.success.rawValue
        } catch let failure as CommandFailure {
            output.printError("likes: \(failure.message)")
            return failure.status.rawValue
        } catch let usage as UsageError {
            let hint = usage.command.map { $0.isEmpty ? "likes --help" : "likes \($0) --help" } ?? "likes --help"
            output.printError("likes: \(usage.message). See `\(hint)`.")
            return ExitStatus.usage.rawValue
        } catch let error as LikeRepositoryError {
            let failure = CommandFailure(error)
            output.printError("likes: \(failure.message)")
            return failure.status.rawValue
        } catch {
            output.printError("likes: \(error)")
            return ExitStatus.ioError.rawValue
        }
    }

    private static func dispatch(_ arguments: ArraySlice<String>, environment: [String: String], output: Output) throws {
        // Global options before the command name.
        var rest = arguments
        var global = ParsedArguments()
        while let first = rest.first, first.hasPrefix("-") {
            rest.removeFirst()
            switch first {
            case "--version":
                output.print("likes \(version)")
                return
            case "--help", "-h":
                output.print(overview)
                return
            default:
                var name = first
                var value: String?
                if let equals = first.firstIndex(of: "=") {
                    name = String(first[..<equals])
                    value = String(first[first.index(after: equals)...])
                }
                guard ArgumentParser.globalValueOptions[name] != nil else {
                    throw UsageError(message: "unknown option \(first)", command: "")
                }
                guard let given = value ?? rest.popFirst() else { throw UsageError(message: "\(name) needs a value", command: "") }
                global.values[name] = given
            }
        }
        guard let name = rest.popFirst() else {
            throw UsageError(message: "no command given", command: "")
        }
        if name == "help" {
            if let topic = rest.first, let spec = commands.first(where: { $0.name == topic }) {
                output.print(spec.help)
            } else {
                output.print(overview)
            }
            return
        }
        guard let spec = commands.first(where: { $0.name == name }) else {
            throw UsageError(message: "unknown command \"\(Format.oneLine(name))\"", command: "")
        }
        var parsed = global
        try ArgumentParser.parse(rest, for: spec, into: &parsed)
        if parsed.wantsHelp {
            output.print(spec.help)
            return
        }
        let repository = LikeRepository(
            directory: storeDirectory(parsed, environment: environment), durability: try durability(parsed, environment: environment, command: name),
            lockTimeout: Double(environment["LIKES_LOCK_TIMEOUT"] ?? "") ?? 10)
        let context = Context(arguments: parsed, repository: repository, output: output, environment: environment, command: name)
        do {
            try run(name, context)
        } catch let error as LikeRepositoryError {
            // A single change undoes itself whole when it fails; an import, an album change of
            // several photos, a purge or an export may have done part of its work.
            throw CommandFailure(error, leavesStoreAsItWas: ["like", "unlike", "toggle", "note"].contains(name))
        }
    }

    private static func run(_ name: String, _ context: Context) throws {
        switch name {
        case "like": try LikeCommands.runLike(context)
        case "unlike": try LikeCommands.runUnlike(context)
        case "toggle": try LikeCommands.runToggle(context)
        case "list": try ReadCommands.runList(context)
        case "show": try ReadCommands.runShow(context)
        case "stats": try ReadCommands.runStats(context)
        case "note": try AlbumCommands.runNote(context)
        case "album": try AlbumCommands.runAlbum(context)
        case "albums": try AlbumCommands.runAlbums(context)
        case "export": try ExportCommand.run(context)
        case "import": try ImportCommand.run(context)
        case "import-unsplash": try ImportUnsplashCommand.run(context)
        case "purge": try MaintenanceCommands.runPurge(context)
        case "verify": try MaintenanceCommands.runVerify(context)
        case "repair": try MaintenanceCommands.runRepair(context)
        case "watch": try WatchCommand.run(context)
        default: throw UsageError(message: "unknown command \"\(name)\"", command: "")
        }
    }

    /// `--store`, else `$LIKES_STORE`, else the platform's default place.
    static func storeDirectory(_ parsed: ParsedArguments, environment: [String: String]) -> URL {
        if let path = parsed.value("--store"), !path.isEmpty { return URL(fileURLWithPath: path) }
        if let path = environment["LIKES_STORE"], !path.isEmpty { return URL(fileURLWithPath: path) }
        #if canImport(Darwin)
            let documents =
                FileManager.default.urls(for: .documentDirectory, in: .userDomainMask).first ?? FileManager.default.homeDirectoryForCurrentUser
            return documents.appendingPathComponent("Likes", isDirectory: true)
        #else
            if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
                return URL(fileURLWithPath: data).appendingPathComponent("likes", isDirectory: true)
            }
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            return URL(fileURLWithPath: home).appendingPathComponent(".local/share/likes", isDirectory: true)
        #endif
    }

    static func durability(_ parsed: ParsedArguments, environment: [String: String], command: String) throws -> Durability {
        let fromOption = parsed.value("--durability")
        switch fromOption ?? environment["LIKES_DURABILITY"] ?? "full" {
        case "full", "": return .full
        case "relaxed": return .relaxed
        case let other:
            if fromOption != nil { throw UsageError(message: "--durability takes full or relaxed, not \"\(other)\"", command: command) }
            throw UsageError(message: "LIKES_DURABILITY must be full or relaxed, not \"\(other)\"", command: command)
        }
    }
}

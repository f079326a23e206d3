// The front door: global options, the store's location, dispatch, and the error line.

import LikeKit

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// One command of `likes`: its options, read into typed fields, and its run.
///
/// A new command is a type conforming to this protocol, listed once in
/// ``LikesCommandLine/commands``; its help, its parsing and its dispatch follow from that.
protocol Command: Sendable {
    /// Its name, help and the options it accepts.
    static var spec: CommandSpec { get }
    /// Whether a run that fails with a store error leaves the store as it was: the command makes
    /// one change, which LikeKit undoes whole when it fails.
    static var failureLeavesStoreAsItWas: Bool { get }
    /// Whether the command only reads a store that is there: one that does not exist is named as
    /// missing (exit 66), so that a mistyped `--store` does not pass for an empty collection.
    static var readsExistingStore: Bool { get }
    /// Whether this run needs the store to exist (``readsExistingStore`` unless the command
    /// decides by its arguments: a toggle with an image may make the store, one without cannot).
    var needsExistingStore: Bool { get }
    /// Seconds a run that succeeded then spends giving photos liked before records kept their
    /// image files' facts those facts (see ``LikeRepository/readImageFacts(within:)``): the
    /// commands that change a store, so that an upgraded store gets them without a manual step.
    static var imageFactsSeconds: Double { get }
    /// Reads the parsed command line into the command's fields; throws ``UsageError`` or a
    /// ``CommandFailure`` for a value that is not usable (an id, an album name, a date).
    init(_ arguments: ParsedArguments) throws
    func run(_ context: Context) throws
}

extension Command {
    static var failureLeavesStoreAsItWas: Bool { false }
    static var readsExistingStore: Bool { false }
    var needsExistingStore: Bool { Self.readsExistingStore }
    static var imageFactsSeconds: Double { 0 }
}

/// What every command runs with: the store, the output streams and the environment.
struct Context {
    var repository: LikeRepository
    var output: Output
    var environment: [String: String]
    /// `--store DIR` as given before the command, for hints that print a next command; empty
    /// when the store came from `LIKES_STORE` or the default place.
    var storeArgument = ""
}

enum LikesCommandLine {
    static let version = "0.1.0"

    /// Every command, in the order `likes --help` lists them: the one registry.
    static let commands: [any Command.Type] = [
        LikeCommand.self, UnlikeCommand.self, ToggleCommand.self, ListCommand.self, ShowCommand.self, StatsCommand.self,
        NoteCommand.self, AlbumCommand.self, AlbumsCommand.self, ExportCommand.self, ImportCommand.self, ImportUnsplashCommand.self,
        PurgeCommand.self, VerifyCommand.self, RepairCommand.self, WatchCommand.self, ThumbnailCommand.self, ServeCommand.self, UnsplashCommand.self,
        FlickrCommand.self, SyncCommand.self, RenditionsCommand.self,
    ]

    static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.spec.name == name }
    }

    /// The command a mistyped name most likely meant: the only one it begins, else the nearest
    /// by edits (a letter added, left out, changed, or two swapped), at most two and fewer than
    /// the name has letters; `nil` when none is that near, or two are equally near.
    static func nearestCommand(to name: String) -> String? {
        let typed = Array(name.lowercased())
        let names = commands.map { $0.spec.name }
        let begun = names.filter { typed.count >= 2 && $0.hasPrefix(String(typed)) }
        if begun.count == 1 { return begun[0] }
        let scored = names.map { ($0, editDistance(typed, Array($0))) }.filter { $0.1 <= min(2, typed.count - 1) }
        guard let best = scored.map(\.1).min() else { return nil }
        let nearest = scored.filter { $0.1 == best }
        return nearest.count == 1 ? nearest[0].0 : nil
    }

    /// Edits between two words, a swap of neighbours counting one (optimal string alignment).
    static func editDistance(_ first: [Character], _ second: [Character]) -> Int {
        guard !first.isEmpty else { return second.count }
        guard !second.isEmpty else { return first.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: second.count + 1), count: first.count + 1)
        for row in 0...first.count { table[row][0] = row }
        for column in 0...second.count { table[0][column] = column }
        for row in 1...first.count {
            for column in 1...second.count {
                let change = first[row - 1] == second[column - 1] ? 0 : 1
                var best = min(table[row - 1][column] + 1, table[row][column - 1] + 1, table[row - 1][column - 1] + change)
                if row > 1, column > 1, first[row - 1] == second[column - 2], first[row - 2] == second[column - 1] {
                    best = min(best, table[row - 2][column - 2] + 1)
                }
                table[row][column] = best
            }
        }
        return table[first.count][second.count]
    }

    static let overview: String = {
        var text = """
            likes keeps your favorite photos offline: a record per liked photo and its JPEG, in one store directory.

            Usage: likes [--store DIR] [--durability full|relaxed] COMMAND [OPTIONS] [ARGUMENTS]
                   likes COMMAND --help
                   likes --version

            Commands:

            """
        let width = commands.map { $0.spec.name.count }.max() ?? 0
        for command in commands {
            text += "  \(command.spec.name.padded(to: width))  \(command.spec.summary)\n"
        }
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
            if !failure.alreadyShown { output.printError("likes: \(failure.message)") }
            return failure.status.rawValue
        } catch let usage as UsageError {
            let hint = usage.command.map { $0.isEmpty ? "likes --help" : "likes \($0) --help" } ?? "likes --help"
            output.printError("likes: \(usage.message)\(usage.endsSentence ? "" : ".") See `\(hint)`.")
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
        var rest = arguments
        var parsed = ParsedArguments()
        guard try readGlobalOptions(&rest, into: &parsed, output: output) else { return }
        guard let name = rest.popFirst() else {
            // `likes` alone: what it can do, rather than a complaint.
            output.print(overview)
            return
        }
        if name == "help" {
            output.print(rest.first.flatMap(command(named:))?.spec.help ?? overview)
            return
        }
        guard let type = command(named: name) else {
            let guess = nearestCommand(to: name).map { ". Did you mean `\($0)`?" } ?? ""
            throw UsageError(message: "unknown command \"\(Format.oneLine(name))\"\(guess)", command: "", endsSentence: !guess.isEmpty)
        }
        try ArgumentParser.parse(rest, for: type.spec, into: &parsed)
        if parsed.wantsHelp {
            output.print(type.spec.help)
            return
        }
        let location = storeLocation(parsed, environment: environment)
        let durability = try durability(parsed, environment: environment, command: name)
        let lockTimeout = Double(environment["LIKES_LOCK_TIMEOUT"] ?? "") ?? 10
        let repository = makeRepository(location, durability: durability, lockTimeout: lockTimeout, environment: environment)
        let command = try type.init(parsed)
        if command.needsExistingStore { try checkStoreExists(repository.path) }
        do {
            let storeArgument = parsed.value(.store).map { $0.isEmpty ? "" : " --store " + Format.shellQuoted($0) } ?? ""
            try command.run(Context(repository: repository, output: output, environment: environment, storeArgument: storeArgument))
            if type.imageFactsSeconds > 0 { _ = try? repository.readImageFacts(within: type.imageFactsSeconds) }
        } catch let error as LikeRepositoryError {
            throw CommandFailure(error, leavesStoreAsItWas: type.failureLeavesStoreAsItWas)
        }
    }

    /// Reads the options before the command's name; false when one of them (`--version`,
    /// `--help`) was the whole job.
    private static func readGlobalOptions(_ rest: inout ArraySlice<String>, into parsed: inout ParsedArguments, output: Output) throws -> Bool {
        while let first = rest.first, first.hasPrefix("-") {
            rest.removeFirst()
            switch first {
            case "--version":
                output.print("likes \(version)")
                return false
            case "--help", "-h":
                output.print(overview)
                return false
            default:
                var name = first
                var value: String?
                if let equals = first.firstIndex(of: "=") {
                    name = String(first[..<equals])
                    value = String(first[first.index(after: equals)...])
                }
                guard let option = Option.global.first(where: { $0.name == name }) else {
                    throw UsageError(message: "unknown option \(first)", command: "")
                }
                guard let given = value ?? rest.popFirst() else { throw UsageError(message: "\(name) needs a value", command: "") }
                try parsed.set(option, to: given)
            }
        }
        return true
    }

    /// Where the store is: a path as `--store` or `LIKES_STORE` gives it, or the default folder.
    enum StoreLocation {
        case path(String)
        case directory(URL)
    }

    #if LIKES_TEST_SEAMS
        /// The repository of the store; in the debug builds the tests run (and only there),
        /// `LIKES_TEST_FLUSH=syncfs` has it flush with one syncfs per change on any file system,
        /// followed by an fdatasync of the store's folder that the power-cut tests' FUSE file
        /// system takes as one (Tests/Tools/powercut.py). A release build has no such switch.
        static func makeRepository(
            _ location: StoreLocation, durability: Durability, lockTimeout: Double, environment: [String: String]
        ) -> LikeRepository {
            let flush: FlushStrategy? = environment["LIKES_TEST_FLUSH"] == "syncfs" ? .wholeFileSystem : nil
            switch location {
            case .path(let path): return LikeRepository(path: path, durability: durability, lockTimeout: lockTimeout, forcingFlush: flush)
            case .directory(let directory):
                guard let flush else { return LikeRepository(directory: directory, durability: durability, lockTimeout: lockTimeout) }
                return LikeRepository(directory: directory, durability: durability, lockTimeout: lockTimeout, forcingFlush: flush)
            }
        }
    #else
        /// The repository of the store.
        static func makeRepository(
            _ location: StoreLocation, durability: Durability, lockTimeout: Double, environment: [String: String]
        ) -> LikeRepository {
            switch location {
            case .path(let path): LikeRepository(path: path, durability: durability, lockTimeout: lockTimeout)
            case .directory(let directory): LikeRepository(directory: directory, durability: durability, lockTimeout: lockTimeout)
            }
        }
    #endif

    /// Refuses a store directory that does not exist, or is not a directory, naming it.
    static func checkStoreExists(_ path: String) throws {
        switch System.kind(of: path) {
        case .directory?: return
        case nil:
            throw CommandFailure(
                "There is no store at \(Format.oneLine(path)): nothing was ever liked there. Check --store or LIKES_STORE; the first like makes a store.",
                status: .noInput)
        default:
            throw CommandFailure("The store \(Format.oneLine(path)) is not a folder. Check --store or LIKES_STORE.", status: .noInput)
        }
    }

    /// `--store`, else `$LIKES_STORE`, else the platform's default place.
    static func storeLocation(_ parsed: ParsedArguments, environment: [String: String]) -> StoreLocation {
        if let path = parsed.value(.store), !path.isEmpty { return .path(path) }
        if let path = environment["LIKES_STORE"], !path.isEmpty { return .path(path) }
        #if canImport(Darwin)
            let documents =
                FileManager.default.urls(for: .documentDirectory, in: .userDomainMask).first ?? FileManager.default.homeDirectoryForCurrentUser
            return .directory(documents.appendingPathComponent("Likes", isDirectory: true))
        #else
            return .directory(LikeRepository.dataDirectory(environment: environment))
        #endif
    }

    static func durability(_ parsed: ParsedArguments, environment: [String: String], command: String) throws -> Durability {
        let fromOption = parsed.value(.durability)
        switch fromOption ?? environment["LIKES_DURABILITY"] ?? "full" {
        case "full", "": return .full
        case "relaxed": return .relaxed
        case let other:
            if fromOption != nil { throw UsageError(message: "--durability takes full or relaxed, not \"\(other)\"", command: command) }
            throw UsageError(message: "LIKES_DURABILITY must be full or relaxed, not \"\(other)\"", command: command)
        }
    }
}

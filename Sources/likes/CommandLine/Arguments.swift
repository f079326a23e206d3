// Our argument parser: subcommands, long options with or without `=`, and `--` to end options.

/// A usage error: the command line itself is wrong. Exit status 64.
struct UsageError: Error {
    var message: String
    var command: String?
    /// Whether `message` ends its own sentence (a question), so no full stop is added.
    var endsSentence = false
}

/// An option, declared once by the command that takes it: its name, what `--help` says of it,
/// and whether it is a flag, takes a value, or takes one each time it is given.
struct Option: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        case flag
        case value(placeholder: String)
        case repeatable(placeholder: String)
    }

    let name: String
    let help: String
    let kind: Kind

    static func flag(_ name: String, _ help: String) -> Option { Option(name: name, help: help, kind: .flag) }
    static func value(_ name: String, _ placeholder: String, _ help: String) -> Option {
        Option(name: name, help: help, kind: .value(placeholder: placeholder))
    }
    static func repeatable(_ name: String, _ placeholder: String, _ help: String) -> Option {
        Option(name: name, help: help, kind: .repeatable(placeholder: placeholder))
    }

    /// Options every command accepts, before or after its name.
    static let store = value("--store", "DIR", "The store directory (else $LIKES_STORE, else the platform default).")
    static let durability = value(
        "--durability", "MODE", "full (the default) or relaxed: skip fsync, for bulk loads (also $LIKES_DURABILITY).")
    static let global = [store, durability]

    /// The common `--json` flag, saying what is printed.
    static func json(_ what: String) -> Option { flag("--json", what) }
}

/// What a command accepts, and its help.
struct CommandSpec {
    var name: String
    var summary: String
    var usage: String
    var details: String = ""
    var example: String
    var options: [Option] = []
    var minimumPositionals: Int
    var maximumPositionals: Int?
    var positionalName: String

    func option(named name: String) -> Option? {
        options.first { $0.name == name } ?? Option.global.first { $0.name == name }
    }

    var help: String {
        var text = "\(summary)\n\nUsage: likes [--store DIR] \(usage)\n"
        if !details.isEmpty { text += "\n\(details)\n" }
        let rows =
            options.map { option -> (String, String) in
                switch option.kind {
                case .flag: (option.name, option.help)
                case .value(let placeholder), .repeatable(let placeholder): ("\(option.name) \(placeholder)", option.help)
                }
            }.sorted { $0.0 < $1.0 } + [("--help", "Show this help.")]
        let width = rows.map(\.0.count).max() ?? 0
        text += "\nOptions:\n"
        for (name, meaning) in rows {
            text += "  \(name.padded(to: width))  \(meaning)\n"
        }
        text += "\nExample:\n  \(example)\n"
        return text
    }
}

/// The parsed command line of one command, read by the command through its own options.
///
/// Options are kept in arrays, not dictionaries: a command has a dozen at most, and a dictionary's
/// first use in a process costs a search of the binary's conformances (for `Option: Hashable`).
struct ParsedArguments {
    private var values: [(option: Option, value: String)] = []
    /// Every value of a repeatable option, in order.
    private var lists: [(option: Option, value: String)] = []
    private var flags: [Option] = []
    var positionals: [String] = []
    var wantsHelp = false
    /// The command being parsed, for usage errors.
    var command = ""

    func value(_ option: Option) -> String? { values.last { $0.option == option }?.value }
    func allValues(_ option: Option) -> [String] { lists.filter { $0.option == option }.map(\.value) }
    func has(_ flag: Option) -> Bool { flags.contains(flag) }

    /// A non-negative whole number option such as `--limit`.
    func count(_ option: Option) throws -> Int? {
        guard let text = value(option) else { return nil }
        guard let number = Int(text), number >= 0 else {
            throw UsageError(message: "\(option.name) takes a whole number of 0 or more; \"\(text)\" is not one", command: command)
        }
        return number
    }

    /// The positional argument at `index`; the parser has checked that enough were given.
    subscript(positional index: Int) -> String { positionals[index] }

    mutating func set(_ option: Option, to value: String) throws {
        switch option.kind {
        case .flag:
            if !flags.contains(option) { flags.append(option) }
        case .repeatable:
            lists.append((option, value))
        case .value:
            if self.value(option) != nil, !Option.global.contains(option) {
                throw UsageError(message: "\(option.name) is given twice", command: command)
            }
            values.append((option, value))
        }
    }
}

enum ArgumentParser {
    static func parse(_ arguments: ArraySlice<String>, for spec: CommandSpec, into parsed: inout ParsedArguments) throws {
        parsed.command = spec.name
        var rest = arguments
        var optionsEnded = false
        // How many positionals came before `--`: one after it that names an option was meant as one.
        var positionalsBeforeEnd = Int.max
        while let argument = rest.popFirst() {
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                positionalsBeforeEnd = parsed.positionals.count
                continue
            }
            if argument == "--help" || argument == "-h" {
                parsed.wantsHelp = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = spec.option(named: name) else {
                throw UsageError(
                    message: "unknown option \(name)" + (spec.name.isEmpty ? "" : " for `likes \(spec.name)`")
                        + (argument.hasPrefix("--") ? "" : " (an id that starts with '-' goes after `--`)"),
                    command: spec.name)
            }
            if option.kind == .flag {
                guard inlineValue == nil else { throw UsageError(message: "\(name) takes no value", command: spec.name) }
                try parsed.set(option, to: "")
            } else {
                guard let value = inlineValue ?? rest.popFirst() else {
                    throw UsageError(message: "\(name) needs a value", command: spec.name)
                }
                try parsed.set(option, to: value)
            }
        }
        if parsed.wantsHelp { return }
        try checkPositionals(parsed.positionals, for: spec, optionsEndedAfter: positionalsBeforeEnd)
    }

    /// Refuses too few or too many positionals; an option given after `--` is named as such.
    private static func checkPositionals(_ positionals: [String], for spec: CommandSpec, optionsEndedAfter positionalsBeforeEnd: Int) throws {
        if positionals.count < spec.minimumPositionals {
            throw UsageError(message: "`likes \(spec.name)` needs \(spec.positionalName)", command: spec.name)
        }
        if let maximum = spec.maximumPositionals, positionals.count > maximum {
            let extra = positionals[maximum]
            let afterEnd = positionalsBeforeEnd < positionals.count ? positionals[positionalsBeforeEnd...] : []
            if let option = afterEnd.first(where: { spec.option(named: String($0.split(separator: "=")[0])) != nil }) {
                throw UsageError(
                    message: "\"\(option)\" comes after `--`, which makes everything after it \(spec.positionalName) or text, never an option; "
                        + "put the options before `--` (likes \(spec.name) \(option) … -- \(positionals[positionalsBeforeEnd]))",
                    command: spec.name)
            }
            throw UsageError(
                message:
                    "`likes \(spec.name)` takes \(maximum == 0 ? "no arguments" : spec.positionalName + " and nothing more"); unexpected \"\(extra)\"",
                command: spec.name)
        }
    }
}

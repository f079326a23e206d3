// Our argument parser: subcommands, long options with or without `=`, and `--` to end options.

/// A usage error: the command line itself is wrong. Exit status 64.
struct UsageError: Error {
    var message: String
    var command: String?
}

/// What a command accepts.
struct CommandSpec {
    var name: String
    var summary: String
    var usage: String
    var details: String = ""
    var example: String
    /// Options that take a value, such as `--image`.
    var valueOptions: [String: String] = [:]
    /// Options that are flags, such as `--json`.
    var flags: [String: String] = [:]
    /// Value options that may be given more than once, such as `--album`.
    var repeatable: Set<String> = []
    var minimumPositionals: Int
    var maximumPositionals: Int?
    var positionalName: String

    var help: String {
        var text = "\(summary)\n\nUsage: likes [--store DIR] \(usage)\n"
        if !details.isEmpty { text += "\n\(details)\n" }
        let rows =
            (valueOptions.map { ("\($0.key) \($0.key == "--store" ? "DIR" : "VALUE")", $0.value) } + flags.map { ($0.key, $0.value) })
            .sorted { $0.0 < $1.0 } + [("--help", "Show this help.")]
        let width = rows.map(\.0.count).max() ?? 0
        text += "\nOptions:\n"
        for (name, meaning) in rows {
            text += "  \(name.padding(toLength: width, withPad: " ", startingAt: 0))  \(meaning)\n"
        }
        text += "\nExample:\n  \(example)\n"
        return text
    }
}

/// The parsed command line of one command.
struct ParsedArguments {
    var values: [String: String] = [:]
    /// Every value of a repeatable option, in order.
    var lists: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    var wantsHelp = false

    func value(_ name: String) -> String? { values[name] }
    func allValues(_ name: String) -> [String] { lists[name] ?? [] }
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// A non-negative whole number option such as `--limit`.
    func count(_ name: String, command: String) throws -> Int? {
        guard let text = values[name] else { return nil }
        guard let number = Int(text), number >= 0 else {
            throw UsageError(message: "\(name) takes a whole number of 0 or more; \"\(text)\" is not one", command: command)
        }
        return number
    }
}

enum ArgumentParser {
    /// Options every command accepts, before or after its name.
    static let globalValueOptions = [
        "--store": "The store directory (else $LIKES_STORE, else the platform default).",
        "--durability": "full (the default) or relaxed: skip fsync, for bulk loads (also $LIKES_DURABILITY).",
    ]

    static func parse(_ arguments: ArraySlice<String>, for spec: CommandSpec, into parsed: inout ParsedArguments) throws {
        var rest = arguments
        var optionsEnded = false
        while let argument = rest.popFirst() {
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
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
            if spec.flags[name] != nil {
                guard inlineValue == nil else { throw UsageError(message: "\(name) takes no value", command: spec.name) }
                parsed.flags.insert(name)
            } else if spec.valueOptions[name] != nil || globalValueOptions[name] != nil {
                guard let value = inlineValue ?? rest.popFirst() else {
                    throw UsageError(message: "\(name) needs a value", command: spec.name)
                }
                if spec.repeatable.contains(name) {
                    parsed.lists[name, default: []].append(value)
                    continue
                }
                if parsed.values[name] != nil, globalValueOptions[name] == nil {
                    throw UsageError(message: "\(name) is given twice", command: spec.name)
                }
                parsed.values[name] = value
            } else {
                throw UsageError(
                    message: "unknown option \(name)" + (spec.name.isEmpty ? "" : " for `likes \(spec.name)`")
                        + (argument.hasPrefix("--") ? "" : " (an id that starts with '-' goes after `--`)"),
                    command: spec.name)
            }
        }
        if parsed.wantsHelp { return }
        if parsed.positionals.count < spec.minimumPositionals {
            throw UsageError(message: "`likes \(spec.name)` needs \(spec.positionalName)", command: spec.name)
        }
        if let maximum = spec.maximumPositionals, parsed.positionals.count > maximum {
            let extra = parsed.positionals[maximum]
            throw UsageError(
                message: "`likes \(spec.name)` takes \(maximum == 0 ? "no arguments" : "one \(spec.positionalName)"); unexpected \"\(extra)\"",
                command: spec.name)
        }
    }
}

// sync: one collection on several devices, through a folder another program carries.

import LikeKit
import LikesSupport

#if canImport(Darwin)
    import Darwin
    import Foundation
#else
    import FoundationEssentials
    import Glibc
#endif

struct SyncCommand: Command {
    static let watch = Option.flag("--watch", "Keep syncing: within 2 s of a change in the store or in DIR, until Ctrl-C or SIGTERM (exit 0).")
    static let newDevice = Option.flag("--new-device", "Give this store a new device id first (a store copied from another device's).")
    static let forget = Option.value(
        "--forget", "DEVICE", "Stop the folder waiting for DEVICE (a lost phone) before it lets go of images; it is waited for again if it syncs.")
    static let json = Option.json(
        "Print {\"device\", \"published\", \"merged\", \"released\", \"compacted\", \"pending\": [{\"id\", \"reason\"}], \"skipped\": [{\"id\", \"reason\"}], \"devices\": [{\"id\", \"name\", \"lastChange\", \"forgotten\"}]} as JSON."
    )
    static let spec = CommandSpec(
        name: "sync", summary: "Publish this store's changes into a sync folder and merge the other devices' changes from it.",
        usage: "sync DIR [--watch] [--new-device] [--forget DEVICE] [--json]",
        details: """
            DIR is a folder that Syncthing, iCloud Drive, Dropbox or a USB stick carries between
            devices; each device syncs its own store with its own copy. Every change carries a
            stamp, and each photo ends as applying every device's changes in stamp order gives:
            the later change wins field by field, an unlike removes the photo everywhere, and
            files missing from DIR never unlike anything. A change whose files have not all
            arrived is pending and merged by a later sync. An empty DIR is a new folder; one that
            does not exist is refused (exit 66). Files of a newer format are skipped and named
            (exit 1). --watch keeps syncing: a sync within 2 s of a change in the store or in
            DIR, a line (or, with --json, a JSON document on one line) for each sync that moved
            something, until Ctrl-C or SIGTERM (exit 0). The folder stays about the size of the
            collection: once every device it knows has merged an unlike, the images published of
            that photo leave it, and each device compacts its change files into a snapshot when
            they have grown (the last unlike of every photo is kept for ever). --forget DEVICE stops
            the folder waiting for a device that will not come back; "devices" shows each one's
            last change, so that you can tell which.
            """,
        example: "likes sync ~/Sync/likes",
        options: [watch, newDevice, forget, json], minimumPositionals: 1, maximumPositionals: 1, positionalName: "the sync folder DIR")

    let directory: URL
    let watches: Bool
    let isNewDevice: Bool
    let forgetting: String?
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        directory = URL(fileURLWithPath: arguments[positional: 0])
        watches = arguments.has(Self.watch)
        isNewDevice = arguments.has(Self.newDevice)
        forgetting = arguments.value(Self.forget)
        printsJSON = arguments.has(Self.json)
    }

    func run(_ context: Context) throws {
        let report = try context.repository.sync(with: directory, newDevice: isNewDevice, forgetting: forgetting)
        try show(report, context, compact: watches)
        if watches { try keepSyncing(context) }
    }

    /// Keeps syncing through LikeKit's ``SyncSession`` (a sync within 2 s of a change on either
    /// side, every 2 s while changes wait, every 5 s anyway) until SIGINT or SIGTERM, printing
    /// each sync that did something. A failure that may pass (the folder's drive gone a moment)
    /// is one line on stderr and the watch goes on; a copied store stops it.
    private func keepSyncing(_ context: Context) throws {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGINT, SIGTERM] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        for number in [SIGINT, SIGTERM] {
            signal(number) { _ in
                var byte: UInt8 = 1
                _ = write(syncStopPipe.write, &byte, 1)
            }
        }
        if context.output.standardErrorIsTerminal {
            context.output.printError("Syncing \(context.repository.directory.path) with \(directory.path) as changes come. Ctrl-C to stop.")
        }
        // The session's outcomes, printed here, on the command's own thread.
        let outcomes = Locked<[Result<SyncReport, LikeRepositoryError>]>([])
        let session = context.repository.startSyncing(with: directory) { outcome in outcomes.withLock { $0.append(outcome) } }
        defer { session.stop() }
        var lastError = ""
        while !Self.stopRequested(within: 0.25) {
            for outcome in outcomes.withLock({ taken in
                defer { taken = [] }; return taken
            }) {
                switch outcome {
                case .success(let report):
                    lastError = ""
                    if report.published > 0 || report.merged > 0 || !report.pending.isEmpty { try show(report, context, compact: true) }
                case .failure(let error) where error.endsASyncSession:
                    throw CommandFailure(error)
                case .failure(let error):
                    let line = CommandFailure(error).message
                    if line != lastError { context.output.printError("likes: \(line) Still watching.") }
                    lastError = line
                }
            }
        }
    }

    /// Whether SIGINT or SIGTERM came, waiting at most `seconds` for one.
    private static func stopRequested(within seconds: Double) -> Bool {
        var poller = pollfd(fd: syncStopPipe.read, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, Int32(seconds * 1000)) > 0
    }

    private func show(_ report: SyncReport, _ context: Context, compact: Bool) throws {
        if printsJSON {
            let problems = { (list: [SyncReport.Problem]) in
                JSONValue.array(list.map { .object([("id", .string($0.id)), ("reason", .string($0.reason))]) })
            }
            context.output.printJSON(
                .object([
                    ("device", .string(report.device)), ("published", .int(report.published)), ("merged", .int(report.merged)),
                    ("released", .int(report.released)), ("compacted", .bool(report.compacted)), ("pending", problems(report.pending)),
                    ("skipped", problems(report.skipped)),
                    (
                        "devices",
                        .array(
                            report.devices.map {
                                .object([
                                    ("id", .string($0.id)), ("name", .string($0.name)), ("lastChange", .date($0.lastChange)),
                                    ("forgotten", .bool($0.forgotten)),
                                ])
                            })
                    ),
                ]), compact: compact)
        } else {
            let changes = { (count: Int) in "\(count) change\(count == 1 ? "" : "s")" }
            context.output.print(
                "Synced as device \(report.device): published \(changes(report.published)), merged \(changes(report.merged)); the folder knows \(report.devices.count) device\(report.devices.count == 1 ? "" : "s")."
            )
            for device in report.devices where device.forgotten {
                context.output.print("forgotten: \(device.id) (\(Format.oneLine(device.name))): the folder no longer waits for it")
            }
            for item in report.pending { context.output.print("pending: \(Format.oneLine(item.id)): \(item.reason)") }
        }
        if !report.skipped.isEmpty {
            let first = report.skipped[0]
            throw CommandFailure(
                "Skipped \(report.skipped.count) file\(report.skipped.count == 1 ? "" : "s") of a newer format (\(Format.oneLine(first.id)): \(first.reason)); update likes to merge them.",
                status: .failure)
        }
    }
}

/// The pipe the signal handler of `sync --watch` writes to, made before the handler is installed.
private let syncStopPipe: (read: Int32, write: Int32) = {
    var ends: [Int32] = [-1, -1]
    _ = pipe(&ends)
    return (ends[0], ends[1])
}()

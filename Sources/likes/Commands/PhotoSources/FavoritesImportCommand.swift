// `unsplash import-likes` and `flickr import-favorites`: what both print, and how they stop at a
// source's limit (exit 75, one line saying what is left and when to run again).

import LikeKit
import LikesSupport
import PhotoSources

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

enum FavoritesImportOutput {
    /// The progress line on a terminal (photos dealt with / in all, rate, time left); nothing
    /// elsewhere.
    static func progress(_ context: Context) -> (FavoritesImportProgress) -> Void {
        let line = Progress(total: 0, output: context.output)
        return { progress in
            line.update(done: progress.done, of: max(progress.total ?? progress.done, progress.done))
        }
    }

    /// The summary (or `--json`), then exit 75 with one line when the source's limit stopped it.
    static func finish(_ report: FavoritesImportReport, displayName: String, command: String, json: Bool, context: Context) throws {
        if context.output.standardErrorIsTerminal, report.liked.count + report.alreadyLiked + report.failed.count + report.new > 0 {
            System.write("\n", to: 2)
        }
        if json {
            var fields: [(String, JSONValue)] = [
                ("source", .string(report.source)), ("user", .string(report.user)), ("liked", .int(report.liked.count)),
                ("alreadyLiked", .int(report.alreadyLiked)),
                ("failed", .array(report.failed.map { .object([("id", .string($0.id)), ("reason", .string($0.reason))]) })),
                ("left", .int(report.left)), ("stoppedBy", .string(report.stoppedByRateLimit ? "rateLimit" : nil)),
            ]
            if report.dryRun { fields.append(("new", .int(report.new))) }
            context.output.printJSON(.object(fields))
        } else {
            print(report, displayName: displayName, output: context.output)
        }
        guard report.stoppedByRateLimit else {
            if !report.failed.isEmpty, !report.dryRun {
                throw CommandFailure(
                    "\(report.failed.count) photo\(report.failed.count == 1 ? "" : "s") could not be liked (named above); running the same command again tries them once the walk starts over.",
                    status: .failure)
            }
            return
        }
        let again = Format.localDate(Date().addingTimeInterval(3600)).dropFirst(11)
        throw CommandFailure(
            "\(displayName)'s hourly limit of requests is reached: \(report.left) photo\(report.left == 1 ? " is" : "s are") left; run `\(command)` again after \(again) to go on where it stopped.",
            status: .busy)
    }

    private static func print(_ report: FavoritesImportReport, displayName: String, output: Output) {
        let whose = "\(Format.oneLine(report.user))'s \(report.source == "flickr" ? "favorites" : "likes") on \(displayName)"
        if report.dryRun {
            output.print(
                "\(report.new) new photo\(report.new == 1 ? "" : "s") among \(whose), \(report.alreadyLiked) liked already\(report.left > 0 ? ", \(report.left) not looked at yet" : ""); nothing was stored."
            )
            return
        }
        output.print(
            "Liked \(report.liked.count) of \(whose): \(report.alreadyLiked) already had, \(report.failed.count) failed, \(report.left) left.")
        for failure in report.failed {
            output.print("  failed \(Format.oneLine(failure.id)): \(Format.oneLine(failure.reason))")
        }
        if report.owedRequestsLeft > 0 {
            output.print(
                "\(report.owedRequestsLeft) download count\(report.owedRequestsLeft == 1 ? " is" : "s are") owed to \(displayName); the next `likes unsplash` command makes \(report.owedRequestsLeft == 1 ? "it" : "them")."
            )
        }
    }
}

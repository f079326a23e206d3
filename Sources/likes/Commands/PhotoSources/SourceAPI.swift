// Asking a photo source's API through the `likes-fetch` helper, and its answer's status.

import LikeKit
import PhotoSources

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

enum SourceAPI {
    struct Answer {
        var status: Int
        var rateLimitRemaining: String?
        var body: Data
        var total: Int?
    }

    /// The key in `variable`; exit 78 naming it when it is missing.
    static func key(_ variable: String, environment: [String: String], source: String) throws -> String {
        guard let key = environment[variable], !key.trimmingSpace(newlines: true).isEmpty else {
            throw CommandFailure(
                "\(variable) is not set: export your \(source) API key in it (nothing was asked of \(source)).", status: .configuration)
        }
        return key
    }

    /// The value of `variable` in the environment, if it is set and not blank.
    static func setting(_ variable: String, environment: [String: String]) -> String? {
        environment[variable].flatMap { $0.trimmingSpace().isEmpty ? nil : $0 }
    }

    /// Requests sent and JPEGs downloaded through `likes-fetch`.
    static func client(environment: [String: String], source: String) -> SourceClient {
        SourceClient(
            send: { request in
                let answer = try send(request, environment: environment, source: source)
                return APIAnswer(status: answer.status, rateLimitRemaining: answer.rateLimitRemaining, body: answer.body, total: answer.total)
            },
            download: { url, what in try Download.jpeg(from: url, what: what, environment: environment) })
    }

    /// Sends `request`; any HTTP answer comes back, a failure to get one is one line (exit 1).
    static func send(_ request: APIRequest, environment: [String: String], source: String) throws -> Answer {
        let helper = Download.helper(environment: environment)
        guard FileManager.default.isExecutableFile(atPath: helper.path) else {
            throw CommandFailure(
                "Asking \(source) needs the likes-fetch helper beside likes (\(helper.path) is missing). Build it with `swift build --product likes-fetch`.",
                status: .failure)
        }
        var arguments = [request.url, String(Download.timeout(environment: environment)), "--api"]
        for header in request.headers { arguments += ["--header", header.name + ": " + header.value] }
        let result: (status: Int32, output: Data, error: Data)
        do {
            result = try System.run(helper.path, arguments)
        } catch {
            throw CommandFailure("Could not start \(helper.path): \(error).", status: .failure)
        }
        guard result.status == 0 else {
            let reason = String(decoding: result.error, as: UTF8.self).trimmingSpace(newlines: true)
            throw CommandFailure("Could not reach \(source): \(reason.isEmpty ? "the request failed" : reason).", status: .failure)
        }
        // `HTTP STATUS\n`, maybe `x-ratelimit-remaining: N\n`, an empty line, the body.
        let output = result.output
        guard let end = output.firstRange(of: Data("\n\n".utf8)) else {
            throw CommandFailure("likes-fetch gave no answer from \(source).", status: .failure)
        }
        let head = String(decoding: output[..<end.lowerBound], as: UTF8.self).split(separator: "\n")
        let status = head.first.flatMap { Int($0.dropFirst(5)) } ?? 0
        let remaining = head.dropFirst().first { $0.hasPrefix("x-ratelimit-remaining:") }.map { String($0.dropFirst(22)).trimmingSpace() }
        let total = head.dropFirst().first { $0.hasPrefix("x-total:") }.flatMap { Int(String($0.dropFirst(8)).trimmingSpace()) }
        return Answer(status: status, rateLimitRemaining: remaining, body: Data(output[end.upperBound...]), total: total)
    }
}

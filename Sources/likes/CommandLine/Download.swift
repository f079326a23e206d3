// Downloading a JPEG through the `likes-fetch` helper, which sits beside the `likes` binary.

import LikeKit

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

enum Download {
    /// The helper: `$LIKES_FETCH`, else `likes-fetch` in the directory of this executable.
    static func helper(environment: [String: String]) -> URL {
        if let path = environment["LIKES_FETCH"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let executable = URL(fileURLWithPath: System.executablePath())
        return executable.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("likes-fetch")
    }

    /// The seconds a download may wait for the server: `$LIKES_DOWNLOAD_TIMEOUT`, else 30.
    static func timeout(environment: [String: String]) -> Double {
        environment["LIKES_DOWNLOAD_TIMEOUT"].flatMap(Double.init).map { max(0.1, $0) } ?? 30
    }

    /// Downloads `url` and checks that it is a complete JPEG.
    ///
    /// - Throws: ``CommandFailure``: status 1 when the download failed (no answer, a non-2xx
    ///   answer, a body cut short), 65 when what arrived is not a complete JPEG.
    static func jpeg(from url: String, what: String, environment: [String: String]) throws -> Data {
        let helper = helper(environment: environment)
        guard FileManager.default.isExecutableFile(atPath: helper.path) else {
            throw CommandFailure(
                "Downloading needs the likes-fetch helper beside likes (\(helper.path) is missing). Build it with `swift build --product likes-fetch`.",
                status: .failure)
        }
        let result: (status: Int32, output: Data, error: Data)
        do {
            result = try System.run(helper.path, [url, String(timeout(environment: environment))])
        } catch {
            throw CommandFailure("Could not start \(helper.path): \(error).", status: .failure)
        }
        let body = result.output
        guard result.status == 0 else {
            let reason = String(decoding: result.error, as: UTF8.self).trimmingSpace(newlines: true)
            throw CommandFailure(
                "Could not download the \(what) \(url): \(reason.isEmpty ? "the download failed" : reason). Nothing was stored.", status: .failure)
        }
        do {
            _ = try LikeRepository.checkJPEG(body)
        } catch let error as LikeRepositoryError {
            guard case .notJPEG(_, let reason) = error else { throw CommandFailure(error) }
            throw CommandFailure("The \(what) at \(url) is not a usable JPEG: \(reason). Nothing was stored.", status: .badData)
        }
        return body
    }
}

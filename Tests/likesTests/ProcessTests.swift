// Several processes on one store, and processes killed with SIGKILL in the middle of a write.

import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct ProcessTests {
    let box = TemporaryFolder()

    /// Writes `count` distinct JPEG files and returns their paths by index.
    func images(_ count: Int, size: Int = 2048) -> [String] {
        (0..<count).map { box.file("in/\($0).jpg", madeUpJPEG(seed: $0, scanBytes: size)) }
    }

    @Test func fourProcessesLikingAtOnceLoseNothing() async throws {
        let files = images(40)
        try await withThrowingTaskGroup(of: Run.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    // Each worker likes its own ten ids and toggles the same shared id.
                    var script = ""
                    for index in 0..<10 {
                        let n = worker * 10 + index
                        script += "\(Binary.url.path) --store '\(box.store.path)' like w\(n) --image '\(files[n])' >/dev/null || exit 1\n"
                        script += "\(Binary.url.path) --store '\(box.store.path)' toggle shared --image '\(files[0])' >/dev/null || exit 2\n"
                    }
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/bin/sh")
                    process.arguments = ["-c", script]
                    try process.run()
                    process.waitUntilExit()
                    return Run(status: process.terminationStatus, stdout: "", stderr: "")
                }
            }
            for try await run in group { #expect(run.status == 0) }
        }
        let ids = Set(try box.run(["list", "--json"]).array().compactMap { $0["id"] as? String })
        #expect(ids.filter { $0.hasPrefix("w") }.count == 40)
        #expect(!ids.contains("shared"), "40 toggles of one id leave it unliked")
        for n in [0, 13, 27, 39] {
            let record = try box.run(["show", "w\(n)", "--json"]).object()
            let file = try #require((record["image"] as? [String: Any])?["file"] as? String)
            #expect(FileManager.default.contents(atPath: file) == madeUpJPEG(seed: n, scanBytes: 2048))
        }
        let verify = try box.run(["verify", "--json"]).object()
        #expect(verify["ok"] as? Bool == true && (verify["orphans"] as? [String])?.isEmpty == true)
    }

    /// Runs a stream of `likes like` commands in a new session, kills the whole session with
    /// SIGKILL after `delay`, and returns the ids whose like was acknowledged (exit status 0).
    func likeStream(ids: Range<Int>, files: [String], killAfter delay: Double) throws -> [Int] {
        var script = ""
        for n in ids {
            script += "\(Binary.url.path) --store '\(box.store.path)' like k\(n) --image '\(files[n])' >/dev/null && echo ack \(n) || exit 3\n"
        }
        let output = try runKilled(script, after: delay)
        return output.split(separator: "\n").compactMap { line in line.hasPrefix("ack ") ? Int(line.dropFirst(4)) : nil }
    }

    @Test(.ownLane) func everyAcknowledgedLikeSurvivesSIGKILLByteIdentical() throws {
        let files = images(400)
        var acknowledged: [Int] = []
        var next = 0
        var generator = SystemRandomNumberGenerator()
        var cutShort = 0
        for _ in 0..<6 {
            let acks = try likeStream(ids: next..<next + 60, files: files, killAfter: Double.random(in: 0.15...0.6, using: &generator))
            acknowledged += acks
            if acks.count < 60 { cutShort += 1 }
            next += 60
            // Every acknowledged like is there, with the very bytes liked.
            let records = try box.run(["list", "--json"]).array()
            let byID = Dictionary(uniqueKeysWithValues: records.map { ($0["id"] as? String ?? "", $0) })
            for n in acknowledged {
                let record = try #require(byID["k\(n)"], "acknowledged like k\(n) is missing")
                let file = try #require((record["image"] as? [String: Any])?["file"] as? String)
                #expect(FileManager.default.contents(atPath: file) == madeUpJPEG(seed: n, scanBytes: 2048), "k\(n) is not byte-identical")
            }
            let verify = try box.run(["verify"])
            #expect(verify.status == 0, "\(verify.stdout)")
        }
        #expect(acknowledged.count >= 6, "the streams were killed before anything was liked")
        #expect(cutShort > 0, "every stream had finished before its kill")
        #expect(try box.run(["purge"]).status == 0)
        let clean = try box.run(["verify", "--json"]).object()
        #expect(clean["ok"] as? Bool == true && (clean["orphans"] as? [String])?.isEmpty == true)
        // The store goes on working after all the kills.
        #expect(try box.run(["like", "after", "--image", files[399]]).status == 0)
    }
}

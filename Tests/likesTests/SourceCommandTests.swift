// `likes unsplash` and `likes flickr` against a stand-in for their APIs (Tests/Tools/source_server.py)
// that replays the real recorded answers of Tests/Fixtures and logs every request: each request's
// method, path, parameters and headers, the download-tracking request and its place in the order,
// the stored bytes and credit, and each failure's exit status and message with the store unchanged.

import Foundation
import TestSupport
import Testing

/// The stand-in server, running for one test.
final class SourceServer: Sendable {
    let process: Process
    let input: Pipe
    let log: URL
    let port: Int

    init(_ sandbox: TemporaryFolder) throws {
        log = sandbox.url.appendingPathComponent("requests.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            Samples.root.appendingPathComponent("Tests/Tools/source_server.py").path, Samples.root.appendingPathComponent("Tests/Fixtures").path,
            Samples.photos.path, log.path,
        ]
        let output = Pipe()
        input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        self.process = process
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        port = try #require(Int(line.trimmingCharacters(in: .whitespacesAndNewlines)), "the stand-in server did not start: \(line)")
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    var environment: [String: String] {
        [
            "UNSPLASH_ACCESS_KEY": "test-key", "LIKES_UNSPLASH_API": "http://127.0.0.1:\(port)/unsplash", "FLICKR_API_KEY": "flickr-key",
            "LIKES_FLICKR_API": "http://127.0.0.1:\(port)/flickr/rest",
        ]
    }

    struct Request {
        var path: String
        var query: [String: [String]]
        var headers: [String: String]
    }

    /// The requests so far, in order; the log is emptied.
    func requests() throws -> [Request] {
        let text = try String(contentsOf: log, encoding: .utf8)
        try Data().write(to: log)
        return try text.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["method"] as? String == "GET")
            return Request(
                path: object["path"] as? String ?? "", query: object["query"] as? [String: [String]] ?? [:],
                headers: object["headers"] as? [String: String] ?? [:])
        }
    }
}

@Suite(Needs.python3, .ownLane) struct SourceCommandTests {
    let sandbox = TemporaryFolder()

    func listing() throws -> String { try sandbox.run(["list", "--json"]).stdout }

    @Test func anUnsplashSearchAsksOnceWithTheKeyAndMarksWhatIsLiked() throws {
        let server = try SourceServer(sandbox)
        _ = try sandbox.run(["like", "oXV3bzR7jxI", "--image", Samples.photo("coffee.jpg").path])
        let run = try sandbox.run(
            ["unsplash", "search", "pencil & paper", "--order", "latest", "--color", "black_and_white", "--page", "2", "--per-page", "5"],
            environment: server.environment)
        #expect(run.status == 0, "\(run.stderr)")
        let requests = try server.requests()
        #expect(requests.count == 1, "one request, and no download tracking on a search")
        #expect(requests.first?.path == "/unsplash/search/photos")
        #expect(
            requests.first?.query == [
                "query": ["pencil & paper"], "order_by": ["latest"], "color": ["black_and_white"], "page": ["2"], "per_page": ["5"],
            ])
        #expect(requests.first?.headers["authorization"] == "Client-ID test-key")
        #expect(requests.first?.headers["accept-version"] == "v1")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.filter { $0.contains("♥") } == ["♥ oXV3bzR7jxI  person using pencil — Ben Mullins"])
        #expect(lines.filter { $0.contains("s9CC2SKySJM") }.count == 1)
        let json = try sandbox.run(["unsplash", "search", "pencil", "--json"], environment: server.environment).object()
        #expect(json["total"] as? Int == 509 && json["totalPages"] as? Int == 51 && json["page"] as? Int == 1)
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(Set(results.first.map { Array($0.keys) } ?? []) == ["id", "description", "photographer", "color", "liked"])
        #expect(results.filter { $0["liked"] as? Bool == true }.map { $0["id"] as? String } == ["oXV3bzR7jxI"])
    }

    @Test func anUnsplashLikeStoresThePhotoWithItsCreditAndThenTracksTheDownloadOnce() throws {
        let server = try SourceServer(sandbox)
        let run = try sandbox.run(["unsplash", "like", "vUGBY_MnSsg", "--album", "Lisbon", "--note", "the tiles"], environment: server.environment)
        #expect(run.status == 0, "\(run.stderr)")
        let paths = try server.requests().map(\.path)
        #expect(
            paths == [
                "/unsplash/photos/vUGBY_MnSsg", "/images/unsplash/photo-1612253344366-7d3279d85b2f", "/images/unsplash/profile-medium.jpg",
                "/unsplash/photos/vUGBY_MnSsg/download",
            ], "the photo, its JPEG, the photographer's picture, and last, once stored, the download location")
        let record = try #require(try sandbox.run(["list", "--json"]).array().first)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: (record["image"] as? [String: Any])?["file"] as? String ?? "")) == Samples.data("coffee.jpg"))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: (record["userImage"] as? [String: Any])?["file"] as? String ?? ""))
                == Samples.data("chelsea.jpg"))
        let photo = try #require(record["photo"] as? [String: Any])
        #expect(photo["photographer"] as? String == "Hao Wen" && photo["photographerUsername"] as? String == "oweni")
        #expect(photo["photographerURL"] as? String == "https://unsplash.com/@oweni")
        #expect(photo["sourceURL"] as? String == "https://unsplash.com/photos/vUGBY_MnSsg")
        #expect(record["note"] as? String == "the tiles" && record["albums"] as? [String] == ["Lisbon"])
    }

    @Test func aFailedUnsplashLikeStoresNothingAndTracksNothing() throws {
        let server = try SourceServer(sandbox)
        _ = try sandbox.run(["like", "kept", "--image", Samples.photo("rocket.jpg").path])
        let before = try listing()
        let missing = try sandbox.run(["unsplash", "like", "missing"], environment: server.environment)
        #expect(missing.status == 1)
        #expect(missing.stderr == "likes: Unsplash answered HTTP 404: it has no such photo (Couldn't find Photo). Nothing was stored.\n")
        let broken = try sandbox.run(["unsplash", "like", "brokenimage"], environment: server.environment)
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("missing.jpg: the server answered HTTP 404") && broken.stderr.hasSuffix("Nothing was stored.\n"))
        #expect(!(try server.requests()).contains { $0.path.hasSuffix("/download") }, "no download tracking for a like that failed")
        let limited = try sandbox.run(["unsplash", "search", "ratelimited"], environment: server.environment)
        #expect(limited.status == 1)
        #expect(
            limited.stderr == "likes: Unsplash answered HTTP 403: the hourly limit of requests for this key is reached; try again within the hour.\n")
        var refused = server.environment
        refused["UNSPLASH_ACCESS_KEY"] = "badkey"
        let badKey = try sandbox.run(["unsplash", "like", "vUGBY_MnSsg"], environment: refused)
        #expect(
            badKey.status == 1 && badKey.stderr.contains("Unsplash answered HTTP 401: it refused the access key")
                && badKey.stderr.contains("UNSPLASH_ACCESS_KEY"))
        #expect(try listing() == before, "the store is as it was")
        _ = try server.requests()
        var noKey = server.environment
        noKey["UNSPLASH_ACCESS_KEY"] = nil
        let unset = try sandbox.run(["unsplash", "search", "x"], environment: noKey)
        #expect(unset.status == 78)
        #expect(unset.stderr == "likes: UNSPLASH_ACCESS_KEY is not set: export your Unsplash API key in it (nothing was asked of Unsplash).\n")
        #expect(try server.requests().isEmpty)
    }

    @Test func aFlickrSearchAndLikeAskWhatFlickrDocuments() throws {
        let server = try SourceServer(sandbox)
        let search = try sandbox.run(
            ["flickr", "search", "warsy église", "--sort", "date-posted-desc", "--page", "1", "--per-page", "30", "--json"],
            environment: server.environment
        ).object()
        let request = try #require(try server.requests().first)
        #expect(request.path == "/flickr/rest")
        #expect(request.query["method"] == ["flickr.photos.search"] && request.query["api_key"] == ["flickr-key"])
        #expect(request.query["text"] == ["warsy église"] && request.query["sort"] == ["date-posted-desc"])
        #expect(request.query["page"] == ["1"] && request.query["per_page"] == ["30"])
        #expect(request.query["format"] == ["json"] && request.query["nojsoncallback"] == ["1"])
        #expect(request.query["extras"]?.first?.split(separator: ",").contains("owner_name") == true)
        #expect(search["total"] as? Int == 30 && search["totalPages"] as? Int == 1 && search["page"] as? Int == 1)
        let first = try #require((search["results"] as? [[String: Any]])?.first)
        #expect(first["id"] as? String == "49514337848" && first["photographer"] as? String == "markustrois" && first["liked"] as? Bool == false)

        let like = try sandbox.run(["flickr", "like", "8436466166", "--album", "Boston"], environment: server.environment)
        #expect(like.status == 0, "\(like.stderr)")
        let calls = try server.requests()
        #expect(
            calls.map { $0.query["method"]?.first ?? $0.path } == [
                "flickr.photos.getInfo", "flickr.photos.getSizes", "flickr.photos.licenses.getInfo",
                "/images/flickr/8056/8436466166_4c2e4233e5_k.jpg",
            ], "the image is the Large 2048 size's own address, never one made up")
        let record = try #require(try sandbox.run(["list", "--json"]).array().first)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: (record["image"] as? [String: Any])?["file"] as? String ?? "")) == Samples.data("rocket.jpg"))
        let photo = try #require(record["photo"] as? [String: Any])
        #expect(photo["photographer"] as? String == "Joi Ito" && photo["photographerUsername"] as? String == "Joi")
        #expect(photo["title"] as? String == "Skies over Boston" && photo["license"] as? String == "Attribution License")
        #expect(photo["sourceURL"] as? String == "https://www.flickr.com/photos/joi/8436466166/")
        #expect(photo["width"] as? Int == 2048 && photo["height"] as? Int == 1362)
    }

    @Test func flickrFailuresAreOneLineAndStoreNothing() throws {
        let server = try SourceServer(sandbox)
        let missing = try sandbox.run(["flickr", "like", "12345"], environment: server.environment)
        #expect(
            missing.status == 1 && missing.stderr.hasPrefix("likes: Flickr has no such photo") && missing.stderr.hasSuffix("Nothing was stored.\n"))
        var refused = server.environment
        refused["FLICKR_API_KEY"] = "badkey"
        let badKey = try sandbox.run(["flickr", "search", "x"], environment: refused)
        #expect(badKey.status == 1)
        #expect(badKey.stderr == "likes: Flickr refused the API key (Invalid API Key (Key has invalid format)); check FLICKR_API_KEY.\n")
        refused["FLICKR_API_KEY"] = nil
        let unset = try sandbox.run(["flickr", "like", "8436466166"], environment: refused)
        #expect(unset.status == 78 && unset.stderr.contains("FLICKR_API_KEY"))
        // Nothing stored: not even a store made.
        #expect(try sandbox.run(["list", "--json"]).status == 66)
    }
}

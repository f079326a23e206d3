// Downloads from a real HTTP server on 127.0.0.1: success, redirects, 404, a slow server, a body
// cut short, a PNG sent as image/jpeg; `like --url` and `import-unsplash` on real API responses.

import Foundation
import TestSupport
import Testing

/// The Python server in Tests/Tools, running for one test.
final class PhotoServer {
    let process = Process()
    let input = Pipe()
    let port: Int

    init() throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Samples.root.appendingPathComponent("Tests/Tools/photo_server.py").path, Samples.photos.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        port = try #require(Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

@Suite(Needs.python3, .ownLane) struct DownloadTests {
    let box = TemporaryFolder()

    @Test func likeByURLStoresTheDownloadedBytes() throws {
        let server = try PhotoServer()
        let run = try box.run(["like", "rocket", "--url", server.url("photos/rocket.jpg"), "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let file = try #require((try run.object()["image"] as? [String: Any])?["file"] as? String)
        #expect(FileManager.default.contents(atPath: file) == Samples.data("rocket.jpg"))
    }

    @Test(arguments: ["redirect/coffee.jpg", "redirect-twice/coffee.jpg"])
    func redirectsAreFollowed(path: String) throws {
        let server = try PhotoServer()
        let run = try box.run(["like", "coffee", "--url", server.url(path), "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let file = try #require((try run.object()["image"] as? [String: Any])?["file"] as? String)
        #expect(FileManager.default.contents(atPath: file) == Samples.data("coffee.jpg"))
    }

    @Test(arguments: [
        ("missing", 1, "the server answered HTTP 404"),
        ("error", 1, "the server answered HTTP 500"),
        ("cut/retina.jpg", 1, "cut short"),
        ("png", 65, "is not a usable JPEG: it is a PNG image, not a JPEG"),
        ("slow/chelsea.jpg", 1, "the server did not answer in time"),
    ])
    func failedDownloadsStoreNothingAndSaySo(path: String, status: Int32, message: String) throws {
        let server = try PhotoServer()
        let run = try box.run(["like", "x", "--url", server.url(path)], environment: ["LIKES_DOWNLOAD_TIMEOUT": "1"])
        #expect(run.status == status)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.hasSuffix("Nothing was stored.\n"))
        #expect(run.stderr.split(separator: "\n").count == 1)
        // The slow server answers whole after 4 s: "did not answer in time" is the timeout kept.
        let stored = FileManager.default.fileExists(atPath: box.store.path) ? try box.run(["list", "--json"]).array() : []
        #expect(stored.isEmpty)
    }

    @Test func unreachableServerIsAClearFailure() throws {
        let run = try box.run(["like", "x", "--url", "http://127.0.0.1:9/photo.jpg"], environment: ["LIKES_DOWNLOAD_TIMEOUT": "2"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("likes: Could not download the image http://127.0.0.1:9/photo.jpg: "))
    }

    @Test func toggleDownloadsOnlyToLike() throws {
        let server = try PhotoServer()
        #expect(try box.run(["toggle", "a", "--url", server.url("photos/rocket.jpg")]).stdout == "a is now liked.\n")
        // Unliking downloads nothing: even a URL that would fail does not matter.
        #expect(try box.run(["toggle", "a", "--url", server.url("missing")]).stdout == "a is now not liked.\n")
    }

    /// Writes an Unsplash API response whose image addresses point at the test server.
    func response(_ fixture: String, server: PhotoServer, images: [String]) throws -> (path: String, ids: [String]) {
        let data = try Data(contentsOf: Samples.fixtures.appendingPathComponent(fixture))
        var json = try JSONSerialization.jsonObject(with: data)
        var ids: [String] = []
        func rewrite(_ photos: [Any]) -> [Any] {
            photos.enumerated().map { index, item in
                guard var photo = item as? [String: Any] else { return item }
                ids.append(photo["id"] as? String ?? "")
                var urls = photo["urls"] as? [String: Any] ?? [:]
                urls["regular"] = server.url(images[index % images.count])
                photo["urls"] = urls
                if var user = photo["user"] as? [String: Any] {
                    user["profile_image"] = ["medium": server.url("photos/chelsea.jpg")]
                    photo["user"] = user
                }
                return photo
            }
        }
        if var search = json as? [String: Any], let results = search["results"] as? [Any] {
            search["results"] = rewrite(results)
            json = search
        } else if let list = json as? [Any] {
            json = rewrite(list)
        } else {
            json = rewrite([json])[0]
        }
        return (box.file(fixture, try JSONSerialization.data(withJSONObject: json)), ids)
    }

    @Test func importUnsplashSearchResponseLikesEveryPhotoAndReportsFailures() throws {
        let server = try PhotoServer()
        let (path, ids) = try response("search-photos.json", server: server, images: ["photos/rocket.jpg", "photos/coffee.jpg", "missing"])
        #expect(ids.count == 10)
        let run = try box.run(["import-unsplash", path, "--json"])
        #expect(run.status == 1)
        let summary = try run.object()
        let failed = try #require(summary["failed"] as? [[String: String]])
        let failedIDs = failed.map { $0["id"] ?? "" }
        #expect(failedIDs == [ids[2], ids[5], ids[8]])
        #expect(failed.allSatisfy { $0["reason"]?.contains("HTTP 404") == true })
        #expect(summary["liked"] as? [String] == ids.enumerated().filter { $0.offset % 3 != 2 }.map(\.element))

        let records = try box.run(["list", "--json"]).array()
        #expect(records.count == 7)
        #expect(Set(records.compactMap { $0["id"] as? String }).isDisjoint(with: failedIDs), "nothing stored for a failed photo")
        let first = try #require(records.first { $0["id"] as? String == ids[0] })
        #expect((first["userImage"] as? [String: Any])?["bytes"] as? Int == Samples.data("chelsea.jpg").count)
        #expect((first["photo"] as? [String: Any])?["sourceURL"] as? String == "https://unsplash.com/photos/\(ids[0])")

        // Again: liked photos are not downloaded again (the server would now fail them all).
        let (again, _) = try response("search-photos.json", server: server, images: ["missing"])
        let second = try box.run(["import-unsplash", again, "--album", "Search", "--json"]).object()
        #expect((second["updated"] as? [String])?.count == 7)
        #expect((second["failed"] as? [[String: String]])?.count == 3)
        // The photos updated went into the album; the failed ones did not.
        let album = try box.run(["list", "--album", "Search", "--json"]).array().compactMap { $0["id"] as? String }
        #expect(Set(album) == Set(ids).subtracting(failedIDs))
        #expect(try box.run(["verify"]).status == 0)
    }

    @Test(arguments: ["photo.json", "list-photos.json", "collection-photos-null-descriptions.json", "search-photos-2017-legacy.json"])
    func importUnsplashTakesEveryShapeOfResponse(fixture: String) throws {
        let server = try PhotoServer()
        let (path, ids) = try response(fixture, server: server, images: ["photos/astronaut.jpg"])
        let run = try box.run(["import-unsplash", path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.object()["liked"] as? [String] == ids)
        for record in try box.run(["list", "--json"]).array() {
            let photo = try #require(record["photo"] as? [String: Any])
            #expect(photo["photographer"] is String)
        }
    }

    @Test func importUnsplashRefusesWhatIsNotAnUnsplashResponse() throws {
        let notJSON = try box.run(["import-unsplash", box.file("a.json", Data("<html>".utf8))])
        #expect(notJSON.status == 65 && notJSON.stderr.contains("is not valid JSON"))
        let notPhotos = try box.run(["import-unsplash", box.file("b.json", Data("{\"total\": 3, \"results\": 7}".utf8))])
        #expect(notPhotos.status == 65 && notPhotos.stderr.contains("\"results\" is not an array"))
        let noID = try box.run(["import-unsplash", box.file("c.json", Data("[{\"urls\": {}}]".utf8))])
        #expect(noID.status == 65 && noID.stderr.contains("has no string \"id\""))
        #expect(try box.run(["import-unsplash", box.path("none.json")]).status == 66)
    }
}

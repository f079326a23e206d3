// `likes unsplash import-likes` and `likes flickr import-favorites` against the stand-in for both
// APIs (Tests/Tools/source_server.py), with its hourly limits, failing download counts and slow
// images on demand: the listing's order across runs, every page asked once, no request per
// Unsplash photo, each download count made exactly once (twice only for one in flight at a
// kill), a kill at any instant losing nothing, and each failure's exit status and line.

import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension SourceServer {
    /// Sets the stand-in's knobs (`POST /control`): budgets of requests, failures, delays.
    func control(_ settings: [String: String]) throws {
        let query = settings.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        let run = try TemporaryFolder.execute(
            ["-s", "-X", "POST", "http://127.0.0.1:\(port)/control?\(query)"], executable: URL(fileURLWithPath: "/usr/bin/curl"))
        #expect(run.status == 0, "the stand-in took no settings: \(run.stderr)")
    }

    /// The Unsplash ids of the stand-in's listing of `count` likes, in its order, by asking it.
    func unsplashListing(count: Int) throws -> [String] {
        var ids: [String] = []
        var page = 1
        while ids.count < count {
            let run = try TemporaryFolder.execute(
                ["-s", "http://127.0.0.1:\(port)/unsplash/users/alice/likes?page=\(page)&per_page=30"],
                executable: URL(fileURLWithPath: "/usr/bin/curl"))
            let photos = try #require(try run.json() as? [[String: Any]])
            if photos.isEmpty { break }
            ids += photos.compactMap { $0["id"] as? String }
            page += 1
        }
        return ids
    }
}

@Suite(Needs.python3, .ownLane) struct FavoritesImportTests {
    let sandbox = TemporaryFolder()

    func ids() throws -> [String] {
        try sandbox.run(["list", "--json"]).array().compactMap { $0["id"] as? String }
    }

    func owed() throws -> Int {
        let stats = try #require(try sandbox.run(["stats", "--json"]).json() as? [String: Any])
        return try #require(stats["owedTracking"] as? Int)
    }

    @Test func unsplashLikesComeHomeInTheListingsOrderAcrossRunsStoppedByTheLimit() throws {
        let server = try SourceServer(sandbox)
        let expected = try server.unsplashListing(count: 75)
        try #require(expected.count == 75)
        _ = try server.requests()
        // 20 requests an hour: one page and 19 download counts, then the limit.
        try server.control(["unsplash": "20"])
        let first = try sandbox.run(["unsplash", "import-likes", "alice", "--album", "From Unsplash"], environment: server.environment)
        #expect(first.status == 75, "\(first.stderr)")
        #expect(
            first.stderr.hasPrefix(
                "likes: Unsplash's hourly limit of requests is reached: 45 photos are left; run `likes unsplash import-likes 'alice'` again after ")
                && first.stderr.hasSuffix(" to go on where it stopped.\n"), "\(first.stderr)")
        #expect(first.stdout.hasPrefix("Liked 30 of alice's likes on Unsplash: 0 already had, 0 failed, 45 left.\n"), "\(first.stdout)")
        #expect(try ids() == Array(expected.prefix(30)), "the first page, in the listing's order")
        #expect(try owed() == 11, "the counts the limit kept back are owed, and said so")
        // The next hours: the owed counts first, then the pages after the one done.
        try server.control(["unsplash": "25"])
        let second = try sandbox.run(["unsplash", "import-likes", "alice", "--album", "From Unsplash"], environment: server.environment)
        #expect(second.status == 75, "\(second.stderr)")
        try server.control(["unsplash": ""])
        let third = try sandbox.run(["unsplash", "import-likes", "alice", "--album", "From Unsplash", "--json"], environment: server.environment)
        #expect(third.status == 0, "\(third.stderr)")
        let summary = try #require(try third.json() as? [String: Any])
        #expect(summary["source"] as? String == "unsplash" && summary["user"] as? String == "alice")
        #expect(summary["left"] as? Int == 0 && summary["stoppedBy"] is NSNull && (summary["failed"] as? [Any])?.isEmpty == true)
        #expect(try ids() == expected, "every photo once, newest first as Unsplash lists them, across three runs")
        #expect(try owed() == 0)

        let requests = try server.requests()
        let pages = requests.filter { $0.path == "/unsplash/users/alice/likes" }.compactMap { $0.query["page"]?.first }
        #expect(pages == ["1", "2", "3"], "each page asked once, in order")
        #expect(!requests.contains { $0.path.hasPrefix("/unsplash/photos/") && !$0.path.hasSuffix("/download") }, "no request per photo")
        let counts = Dictionary(grouping: requests.filter { $0.path.hasSuffix("/download") }, by: \.path).mapValues(\.count)
        #expect(counts.count == 75 && counts.values.allSatisfy { $0 == 1 }, "one download count per photo: \(counts.filter { $0.value != 1 })")
        #expect(requests.allSatisfy { !$0.path.hasPrefix("/unsplash/") || $0.headers["authorization"] == "Client-ID test-key" })
        let first3 = try sandbox.run(["list", "--json", "--limit", "1"]).array().first
        #expect((first3?["albums"] as? [String]) == ["From Unsplash"])
        let photo = try #require(first3?["photo"] as? [String: Any])
        #expect(photo["photographer"] != nil && (photo["sourceURL"] as? String)?.hasPrefix("https://unsplash.com/photos/") == true)
        #expect(try sandbox.run(["verify"]).status == 0)
    }

    @Test func downloadCountsThatFailArePaidByTheNextUnsplashCommandExactlyOnce() throws {
        let server = try SourceServer(sandbox)
        try server.control(["likes": "30", "fail_tracking": "4"])
        let run = try sandbox.run(["unsplash", "import-likes", "alice"], environment: server.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("4 download counts are owed to Unsplash"), "\(run.stdout)")
        #expect(try owed() == 4)
        let stats = try sandbox.run(["stats"])
        #expect(stats.stdout.contains("4 Unsplash download counts are owed; the next `likes unsplash` command makes them."))
        // A search pays them before it asks.
        let search = try sandbox.run(["unsplash", "search", "tram"], environment: server.environment)
        #expect(search.status == 0, "\(search.stderr)")
        #expect(try owed() == 0)
        let again = try sandbox.run(["unsplash", "search", "tram"], environment: server.environment)
        #expect(again.status == 0)
        let made = try server.requests().filter { $0.path.hasSuffix("/download") }
        let counts = Dictionary(grouping: made, by: \.path).mapValues(\.count)
        // The four that failed were asked twice (the failure, then the payment); every photo's
        // count was taken once.
        #expect(counts.count == 30 && counts.values.filter { $0 == 2 }.count == 4 && counts.values.allSatisfy { $0 <= 2 }, "\(counts)")
    }

    @Test func aKillAtAnyInstantLosesNothingAndTheRerunFinishes() throws {
        let server = try SourceServer(sandbox)
        try server.control(["likes": "60", "image_delay": "0.01"])
        var generator = SystemRandomNumberGenerator()
        let environment = server.environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        var kills = 0
        for _ in 0..<6 {
            let delay = Double.random(in: 0.05...2.0, using: &generator)
            _ = try runKilled("\(environment) \(Binary.url.path) --store '\(sandbox.store.path)' unsplash import-likes alice", after: delay)
            kills += 1
            // Between kills, every photo there is whole: the store checks out (a kill before the
            // first page was liked leaves no store at all: nothing was stored).
            let verify = try sandbox.run(["verify"])
            let stored = FileManager.default.fileExists(atPath: sandbox.store.path)
            #expect(stored ? verify.status == 0 : verify.status == 66, "after a kill at \(delay) s: \(verify.stdout)\(verify.stderr)")
        }
        try server.control(["image_delay": "0"])
        let last = try sandbox.run(["unsplash", "import-likes", "alice"], environment: server.environment)
        #expect(last.status == 0, "\(last.stderr)")
        let expected = try server.unsplashListing(count: 60)
        #expect(try ids() == expected, "every photo exactly once, in the listing's order")
        #expect(try owed() == 0)
        let counts = Dictionary(grouping: try server.requests().filter { $0.path.hasSuffix("/download") }, by: \.path).mapValues(\.count)
        #expect(counts.count == 60, "every stored photo's download counted")
        #expect(
            counts.values.allSatisfy { $0 <= 2 } && counts.values.filter { $0 == 2 }.count <= kills,
            "twice only for one in flight at a kill: \(counts)")
        #expect(try sandbox.run(["verify"]).status == 0)
    }

    @Test func flickrFavoritesByUserNameKeepWhenTheyWereStarred() throws {
        let server = try SourceServer(sandbox)
        try server.control(["likes": "40", "flickr": "30"])
        let first = try sandbox.run(["flickr", "import-favorites", "markustrois"], environment: server.environment)
        #expect(first.status == 75, "\(first.stderr)")
        #expect(first.stderr.hasPrefix("likes: Flickr's hourly limit of requests is reached: "), "\(first.stderr)")
        try server.control(["flickr": ""])
        let second = try sandbox.run(["flickr", "import-favorites", "markustrois", "--json"], environment: server.environment)
        #expect(second.status == 0, "\(second.stderr)")
        let records = try sandbox.run(["list", "--json"]).array()
        #expect(records.count == 40)
        // likedAt is date_faved: the recorded list starts at 1700000000 and goes down.
        #expect(records.first?["likedAt"] as? String == "2023-11-14T22:13:20.000Z", "\(records.first?["likedAt"] ?? "")")
        let requests = try server.requests()
        #expect(requests.first?.query["method"] == ["flickr.people.findByUsername"] && requests.first?.query["username"] == ["markustrois"])
        let lists = requests.filter { $0.query["method"] == ["flickr.favorites.getPublicList"] }
        #expect(lists.allSatisfy { $0.query["user_id"] == ["7478087@N06"] })
        let infos = requests.filter { $0.query["method"] == ["flickr.photos.getInfo"] }.compactMap { $0.query["photo_id"]?.first }
        #expect(Set(infos).count == 40 && infos.count <= 41, "each photo's information asked once (one more for the one the limit cut)")
        let photo = try #require(records.first?["photo"] as? [String: Any])
        #expect(photo["license"] != nil && photo["photographerUsername"] != nil, "stored as `likes flickr like` stores it")
    }

    @Test func aDryRunCountsTheNewWithListingRequestsAlone() throws {
        let server = try SourceServer(sandbox)
        try server.control(["likes": "45"])
        let expected = try server.unsplashListing(count: 45)
        _ = try sandbox.run(["like", expected[3], "--image", Samples.photo("rocket.jpg").path])
        _ = try server.requests()
        let run = try sandbox.run(["unsplash", "import-likes", "alice", "--dry-run"], environment: server.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "44 new photos among alice's likes on Unsplash, 1 liked already; nothing was stored.\n", "\(run.stdout)")
        #expect(try server.requests().map(\.path) == ["/unsplash/users/alice/likes", "/unsplash/users/alice/likes"])
        #expect(try ids() == [expected[3]])
        let json = try #require(
            try sandbox.run(["unsplash", "import-likes", "alice", "--dry-run", "--json"], environment: server.environment).json() as? [String: Any])
        #expect(json["new"] as? Int == 44 && json["liked"] as? Int == 0 && json["alreadyLiked"] as? Int == 1)
    }

    @Test func noKeyAnUnknownUserAndAnEmptyListSayWhatTheyAre() throws {
        let server = try SourceServer(sandbox)
        var environment = server.environment
        environment["UNSPLASH_ACCESS_KEY"] = nil
        environment["FLICKR_API_KEY"] = nil
        let noKey = try sandbox.run(["unsplash", "import-likes", "alice"], environment: environment)
        #expect(noKey.status == 78 && noKey.stderr.contains("UNSPLASH_ACCESS_KEY"), "\(noKey.stderr)")
        let noFlickrKey = try sandbox.run(["flickr", "import-favorites", "markustrois"], environment: environment)
        #expect(noFlickrKey.status == 78 && noFlickrKey.stderr.contains("FLICKR_API_KEY"))
        let unknown = try sandbox.run(["unsplash", "import-likes", "nobody"], environment: server.environment)
        #expect(unknown.status == 1 && unknown.stderr == "likes: Unsplash has no user \"nobody\". Nothing was stored.\n", "\(unknown.stderr)")
        let unknownFlickr = try sandbox.run(["flickr", "import-favorites", "nobody"], environment: server.environment)
        #expect(unknownFlickr.status == 1 && unknownFlickr.stderr.contains("Flickr has no user \"nobody\""), "\(unknownFlickr.stderr)")
        let empty = try sandbox.run(["unsplash", "import-likes", "empty"], environment: server.environment)
        #expect(empty.status == 0 && empty.stdout.hasPrefix("Liked 0 of empty's likes on Unsplash: 0 already had, 0 failed, 0 left."))
        let emptyFlickr = try sandbox.run(["flickr", "import-favorites", "10000000@N00", "--json"], environment: server.environment)
        #expect(emptyFlickr.status == 0)
        #expect((try emptyFlickr.json() as? [String: Any])?["liked"] as? Int == 0)
        let dryRun = try sandbox.run(["unsplash", "import-likes", "alice", "--dry-run"], environment: server.environment)
        #expect(dryRun.status == 0)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path), "none of them made a store: they liked nothing")
    }

    @Test(Needs.script) func progressIsDrawnOnATerminalOnly() throws {
        let server = try SourceServer(sandbox)
        try server.control(["likes": "35"])
        let environment = server.environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        let command = "\(environment) NO_COLOR=1 \(Binary.url.path) --store '\(sandbox.store.path)' unsplash import-likes alice"
        let onTerminal = try TemporaryFolder.execute(["-qec", command, "/dev/null"], executable: URL(fileURLWithPath: "/usr/bin/script"))
        #expect(onTerminal.status == 0, "\(onTerminal.stdout)")
        #expect(onTerminal.stdout.contains("30/35") && onTerminal.stdout.contains("35/35"), "\(onTerminal.stdout)")
        #expect(try sandbox.run(["unlike", try ids()[0]]).status == 0)
        let piped = try sandbox.run(["unsplash", "import-likes", "alice"], environment: server.environment)
        #expect(piped.status == 0 && !piped.stderr.contains("\r") && !piped.stdout.contains("\r"), "\(piped.stderr)")
    }
}

// LikeKit against SQLite in one app's process, on a store built as people build one.
//
//   likekit-vs-sqlite FOLDER IMAGE [REPEAT] [--only TEXT]
//
// FOLDER is one that `Benchmarks/userstore.py RELEASE WORK --build-only SIZE` leaves
// (WORK/user-SIZE-a, -b or -c): `store/`, the store, and `likes.db`, the same records in SQLite.
// The peer's copy, FOLDER/in-process/likes.db, gains the indexes an app on GRDB would give its
// queries (date and id; family, date and id). IMAGE is the JPEG the like row likes. Each warm row
// runs both sides REPEAT times (200 by default), alternating, and prints medians, their ratio,
// whether both found the same photos, and the peak memory each side added over 20 more runs.
// The cold rows open the store and the database afresh after evicting their files from the page
// cache, as an app's first screen after launch, the program itself already in memory; as root,
// once more after emptying the whole page cache. Each cold run is a process of its own (this
// program, with `--cold-one`), timed inside from the eviction's end: a process that read the
// store before keeps the journal mapped, and neither eviction takes a mapped page out. The like row ends with the new photos unliked.
// It exits with status 1 when a row's two sides found different photos. `--only TEXT` runs the
// rows whose names hold TEXT ("cold" and "like" name those sections), for a profile.

import Foundation
import LikeKit
import Observation

var arguments = CommandLine.arguments
var only: String?
if let flag = arguments.firstIndex(of: "--only"), flag + 1 < arguments.count {
    only = arguments[flag + 1]
    arguments.removeSubrange(flag...(flag + 1))
}
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: likekit-vs-sqlite FOLDER IMAGE [REPEAT] [--only TEXT]\n".utf8))
    exit(2)
}
/// Whether the row or section named `name` runs.
@MainActor func runs(_ name: String) -> Bool { only.map { name.contains($0) } ?? true }
let folder = URL(fileURLWithPath: arguments[1]).standardizedFileURL.path
let image = try Data(contentsOf: URL(fileURLWithPath: arguments[2]))
let repeats = arguments.count > 3 ? Int(arguments[3]) ?? 200 : 200
let coldRepeats = min(repeats, 7)
let storePath = folder + "/store"
let peerFolder = folder + "/in-process"
let peerPath = peerFolder + "/likes.db"

// The peer's database: the CLI benchmark's table, copied, with an app's indexes.
if !FileManager.default.fileExists(atPath: peerPath) {
    try FileManager.default.createDirectory(atPath: peerFolder + "/images", withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: folder + "/likes.db", toPath: peerPath)
    let setup = try SQLitePeer(path: peerPath)
    try await setup.run { peer in
        try peer.execute("CREATE INDEX IF NOT EXISTS likes_by_date_id ON likes (likedAt, id)")
        try peer.execute("CREATE INDEX IF NOT EXISTS likes_by_family ON likes (family, likedAt, id)")
        try peer.execute("CREATE INDEX IF NOT EXISTS likes_by_taken_id ON likes (takenAt, id)")
        try peer.execute("ANALYZE")
        try peer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}

let newest = "SELECT record FROM likes ORDER BY likedAt DESC, id DESC LIMIT 20"
let newestTaken = "SELECT record FROM likes ORDER BY takenAt DESC, id DESC LIMIT 20"
let byFamily = "SELECT record FROM likes WHERE family = ? ORDER BY likedAt DESC, id DESC LIMIT 20"
let bySearch = "SELECT record FROM likes WHERE record LIKE ? ORDER BY likedAt DESC, id DESC LIMIT 20"
let byAlbum =
    "SELECT record FROM likes JOIN members USING (id) WHERE album = ? ORDER BY likedAt DESC, likes.id DESC LIMIT 20"
let afterPlace =
    "SELECT record FROM likes WHERE likedAt < ?1 OR (likedAt = ?1 AND id < ?2) ORDER BY likedAt DESC, id DESC LIMIT 20"
let byID = "SELECT record FROM likes WHERE id = ?"
let isLiked = "SELECT 1 FROM likes WHERE id = ?"
let albumRows =
    "SELECT album, count(*), max(likedAt), (SELECT l2.record FROM likes l2 JOIN members m2 USING (id) WHERE m2.album = m.album ORDER BY l2.likedAt DESC LIMIT 1) FROM members m JOIN likes USING (id) GROUP BY album ORDER BY album"

let word = "lighthouse"
let album = "Album 7"

/// The newest 20 by date taken.
let takenQuery = LikeQuery(orderDate: .taken, limit: 20)

/// The cold rows: a name, LikeKit's query, the peer's, and its values; the colour family is the
/// one the setup found commonest.
func coldRows(family: String) throws -> [(String, LikeQuery, String, [String])] {
    [
        ("newest page", LikeQuery(limit: 20), newest, []),
        ("newest page by date taken", takenQuery, newestTaken, []),
        ("colour page", LikeQuery(limit: 20, color: family), byFamily, [family]),
        ("search page", LikeQuery(limit: 20, search: word), bySearch, ["%\(word)%"]),
        ("album page", LikeQuery(limit: 20, album: try AlbumName(album)), byAlbum, [album]),
    ]
}

// One cold run, in a process of its own: `--cold-one ours|peer ROW FAMILY data|all` evicts,
// opens and reads the row's first page, and prints the milliseconds and the ids found.
if let flag = arguments.firstIndex(of: "--cold-one"), flag + 4 < arguments.count {
    let (side, row, family, mode) = (arguments[flag + 1], Int(arguments[flag + 2]) ?? 0, arguments[flag + 3], arguments[flag + 4])
    let (_, query, sql, values) = try coldRows(family: family)[row]
    if mode == "all" {
        guard dropEverything() else { exit(3) }
    } else {
        evict([storePath, peerFolder])
    }
    /// In a function: top-level code would call the blocking overloads.
    @MainActor func firstPage() async throws -> [String] {
        if side == "ours" {
            return try await LikeRepository(directory: URL(fileURLWithPath: storePath)).list(query).records.map(\.id.rawValue)
        }
        let fresh = try SQLitePeer(path: peerPath)
        return try await fresh.run { try $0.records(sql, values) }.map(\.id.rawValue)
    }
    let start = now()
    let found = try await firstPage()
    print(String(format: "%.4f", milliseconds(now() - start)), found.joined(separator: " "))
    exit(0)
}

var repository = LikeRepository(directory: URL(fileURLWithPath: storePath))
var peer = try SQLitePeer(path: peerPath)

// What the rows ask: the commonest colour family, a word in 1 % of the photos, an album, the
// place halfway down, 200 ids of which 150 are liked, ids to read one at a time.
let setupFacts = try await peer.run { peer -> (family: String, count: Int, middle: [String?], liked: [String]) in
    let family = try peer.rows("SELECT family, count(*) FROM likes WHERE family IS NOT NULL GROUP BY family ORDER BY 2 DESC LIMIT 1")
    let count = try peer.rows("SELECT count(*) FROM likes")[0][0].flatMap { Int($0) } ?? 0
    let middle = try peer.rows("SELECT likedAt, id FROM likes ORDER BY likedAt DESC, id DESC LIMIT 1 OFFSET \(count / 2)")[0]
    let liked = try peer.rows("SELECT id FROM likes ORDER BY random() LIMIT 350").compactMap { $0[0] }
    return (family[0][0] ?? "blue", count, middle, liked)
}
let family = setupFacts.family
let middleRecord = try repository.record(for: PhotoID(setupFacts.middle[1] ?? ""))
guard let middleRecord else { fatalError("the store lacks the photo the database has halfway down") }
let cursor = LikeCursor(record: middleRecord)
let askedIDs = (Array(setupFacts.liked.prefix(150)) + (0..<50).map { "not-liked-\($0)" }).shuffled()
let askedPhotoIDs = try askedIDs.map { try PhotoID($0) }
let singles = Array(setupFacts.liked.suffix(200))
print("\(setupFacts.count) photos; colour family \(family); search \(word); \(album); cursor at position \(setupFacts.count / 2)")

/// One row: what each side returns, as ids, so that both are seen to find the same photos.
struct Row {
    var name: String
    var ours: @MainActor (Int) async throws -> [String]
    var peer: @MainActor (Int) async throws -> [String]
    /// How many different things the row asks for as `run` goes on: each is asked once on each
    /// side before the timing, so that warm means read before (a warm row of first reads would
    /// time the disk, and how recently another row left it cold).
    var distinct = 1
}

func ids(_ records: [LikeRecord]) -> [String] { records.map(\.id.rawValue) }

let rows: [Row] = [
    Row(
        name: "newest page (20)", ours: { _ in ids(try await repository.list(LikeQuery(limit: 20)).records) },
        peer: { _ in ids(try await peer.run { try $0.records(newest) }) }),
    Row(
        name: "newest page by date taken (20)", ours: { _ in ids(try await repository.list(takenQuery).records) },
        peer: { _ in ids(try await peer.run { try $0.records(newestTaken) }) }),
    Row(
        name: "colour page (\(family))", ours: { _ in ids(try await repository.list(LikeQuery(limit: 20, color: family)).records) },
        peer: { _ in ids(try await peer.run { try $0.records(byFamily, [family]) }) }),
    Row(
        name: "search page (\(word), 1 %)", ours: { _ in ids(try await repository.list(LikeQuery(limit: 20, search: word)).records) },
        peer: { _ in ids(try await peer.run { try $0.records(bySearch, ["%\(word)%"]) }) }),
    Row(
        name: "album page (\(album))",
        ours: { _ in ids(try await repository.list(LikeQuery(limit: 20, album: try AlbumName(album))).records) },
        peer: { _ in ids(try await peer.run { try $0.records(byAlbum, [album]) }) }),
    Row(
        name: "page after a cursor (position \(setupFacts.count / 2))",
        ours: { _ in ids(try await repository.list(LikeQuery(limit: 20, after: cursor)).records) },
        peer: { _ in
            let place = [setupFacts.middle[0] ?? "", setupFacts.middle[1] ?? ""]
            return ids(try await peer.run { try $0.records(afterPlace, place) })
        }),
    Row(
        name: "isLiked of 200 ids", ours: { _ in try await repository.likedIDs(among: askedPhotoIDs).map(\.rawValue).sorted() },
        peer: { _ in try await peer.run { try $0.exists(isLiked, each: askedIDs) }.sorted() }),
    Row(
        name: "one record by id", ours: { run in [try await repository.record(for: PhotoID(singles[run % singles.count]))?.id.rawValue ?? "-"] },
        peer: { run in ids(try await peer.run { try $0.records(byID, [singles[run % singles.count]]) }) }, distinct: singles.count),
    Row(
        name: "albums (with covers)",
        ours: { _ in try await repository.albums().map { "\($0.name.rawValue) \($0.count) \($0.cover?.id.rawValue ?? "-")" } },
        peer: { _ in
            try await peer.run { peer in
                try peer.rows(albumRows).map { row in
                    let cover = try row[3].map { try JSONDecoder().decode(LikeRecord.self, from: Data($0.utf8)).id.rawValue }
                    return "\(row[0] ?? "") \(row[1] ?? "") \(cover ?? "-")"
                }
            }
        }),
]

/// Results as BENCHMARKS.md shows them.
var results: [[String: String]] = []
/// Rows where the two sides found different photos: the program then exits with status 1.
var differing: [String] = []
@MainActor func report(_ name: String, _ ours: Double, _ theirs: Double, same: Bool?, memory: (Double, Double)? = nil) {
    let ratio = ours / theirs
    var line = String(format: "| %@ | %.3f ms | %.3f ms | %.2f× |", name, ours, theirs, ratio)
    line += same.map { $0 ? " same |" : " differ |" } ?? " – |"
    if let memory { line += String(format: " +%.1f / +%.1f MB |", memory.0, memory.1) } else { line += " |" }
    print(line)
    if same == false { differing.append(name) }
    results.append([
        "row": name, "likeKitMs": String(format: "%.4f", ours), "sqliteMs": String(format: "%.4f", theirs),
        "ratio": String(format: "%.3f", ratio), "same": same.map { $0 ? "yes" : "no" } ?? "-",
    ])
}

/// The peak resident memory `body` adds over 20 runs.
@MainActor func added(_ body: (Int) async throws -> [String]) async throws -> Double {
    resetPeak()
    let before = memory().resident
    for run in 0..<20 { _ = try await body(run) }
    return memory().peak - before
}

print("\n| warm, \(repeats) runs each, alternating | LikeKit | SQLite | ratio | photos | peak added (LikeKit / SQLite) |")
print("|---|---|---|---|---|---|")
for row in rows where runs(row.name) {
    let first = (try await row.ours(0), try await row.peer(0))
    for run in 1..<max(row.distinct, 1) { _ = (try await row.ours(run), try await row.peer(run)) }
    var times: ([Double], [Double]) = ([], [])
    for run in 0..<repeats {
        var start = now()
        _ = try await row.ours(run)
        times.0.append(milliseconds(now() - start))
        start = now()
        _ = try await row.peer(run)
        times.1.append(milliseconds(now() - start))
    }
    let memory = (try await added(row.ours), try await added(row.peer))
    report(row.name, median(times.0), median(times.1), same: first.0 == first.1, memory: memory)
}

// Cold: the store and the database opened afresh after their files left the page cache, each
// run in a process of its own.
/// One cold run of `side` in a new process of this program: its milliseconds and the ids found,
/// `nil` where it failed (as not root, for `all`).
@MainActor func coldOne(_ side: String, row: Int, mode: String) throws -> (Double, [String])? {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    child.arguments = [folder, arguments[2], "--cold-one", side, String(row), family, mode]
    let output = Pipe()
    child.standardOutput = output
    try child.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    child.waitUntilExit()
    let words = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    guard child.terminationStatus == 0, let first = words.first, let milliseconds = Double(first) else { return nil }
    return (milliseconds, Array(words.dropFirst()))
}

@MainActor func coldRuns(_ label: String, mode: String) throws {
    print("\n| \(label) (open + first page), \(coldRepeats) runs each, each a new process | LikeKit | SQLite | ratio | photos |")
    print("|---|---|---|---|---|")
    for (row, (name, _, _, _)) in try coldRows(family: family).enumerated() {
        var times: ([Double], [Double]) = ([], [])
        var same = true
        for _ in 0..<coldRepeats {
            guard let ours = try coldOne("ours", row: row, mode: mode), let theirs = try coldOne("peer", row: row, mode: mode) else {
                print("(\(label): a cold run failed)")
                return
            }
            times.0.append(ours.0)
            times.1.append(theirs.0)
            same = same && ours.1 == theirs.1
        }
        report("\(name), \(label)", median(times.0), median(times.1), same: same)
    }
}
if runs("data cold") { try coldRuns("data cold", mode: "data") }
if !runs("all cold") {
} else if getuid() == 0 {
    try coldRuns("all cold", mode: "all")
} else {
    print("(not root: no row with the whole page cache emptied)")
}

// A like, until a live query of the newest 20 shows it.
@MainActor func waitUntil(_ condition: @escaping @MainActor () -> Bool) async {
    while !condition() {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            withObservationTracking {
                _ = condition()
            } onChange: {
                continuation.resume()
            }
        }
    }
}
/// Likes `likeRuns` new photos on each side, each timed until the newest page shows it, then
/// unlikes them. In a function: top-level code would call the blocking overloads.
@MainActor func likeRow() async throws {
    let photos = LikedPhotos(repository, query: LikeQuery(limit: 20))
    await photos.load()
    var peerShown = try await peer.run { try $0.records(newest) }
    let template = try await peer.run { try $0.rows("SELECT record FROM likes ORDER BY likedAt DESC LIMIT 1")[0][0] ?? "{}" }
    let stamp = Int(Date().timeIntervalSince1970)
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let likeRuns = min(repeats, 100)
    var likeTimes: ([Double], [Double]) = ([], [])
    // The part of each until the like was durable: LikeKit's `like` returned, the peer's commit.
    var commitTimes: ([Double], [Double]) = ([], [])
    var made: [String] = []
    for run in 0..<likeRuns {
        let id = "bench-\(stamp)-\(run)"
        made.append(id)
        var start = now()
        try await repository.like(PhotoID(id), image: image)
        commitTimes.0.append(milliseconds(now() - start))
        await waitUntil { photos.records.first?.id.rawValue == id }
        likeTimes.0.append(milliseconds(now() - start))

        start = now()
        let likedAt = formatter.string(from: Date())
        var fields = try JSONSerialization.jsonObject(with: Data(template.utf8)) as? [String: Any] ?? [:]
        fields["id"] = id
        fields["likedAt"] = likedAt
        let record = String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
        try await peer.run { peer in
            try durableWrite(image, folder: peerFolder + "/images", name: id + ".jpg")
            try peer.execute("BEGIN IMMEDIATE")
            try peer.change("INSERT INTO likes (id, likedAt, family, record) VALUES (?, ?, NULL, ?)", [id, likedAt, record])
            try peer.execute("COMMIT")
        }
        commitTimes.1.append(milliseconds(now() - start))
        peerShown = try await peer.run { try $0.records(newest) }
        guard peerShown.first?.id.rawValue == id else { fatalError("the peer's page does not show its like") }
        likeTimes.1.append(milliseconds(now() - start))
    }
    print("\n| a durable like until a live query of the newest 20 shows it, \(likeRuns) runs each | LikeKit | SQLite | ratio | photos |")
    print("|---|---|---|---|---|")
    report("like → LikedPhotos", median(likeTimes.0), median(likeTimes.1), same: nil)
    report("of which until durable", median(commitTimes.0), median(commitTimes.1), same: nil)
    for id in made {
        try await repository.unlike(PhotoID(id))
        try await peer.run { peer in
            try peer.change("DELETE FROM likes WHERE id = ?", [id])
            unlink(peerFolder + "/images/" + id + ".jpg")
        }
    }
}
if runs("like") { try await likeRow() }

let output = try JSONSerialization.data(withJSONObject: results, options: [.prettyPrinted, .sortedKeys])
try output.write(to: URL(fileURLWithPath: peerFolder + "/results.json"))
print("\nresults in \(peerFolder)/results.json")
if !differing.isEmpty {
    FileHandle.standardError.write(Data("LikeKit and SQLite found different photos in: \(differing.joined(separator: "; "))\n".utf8))
    exit(1)
}

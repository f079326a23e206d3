// likes-bench: the in-process halves of the benchmarks in BENCHMARKS.md (Benchmarks/run.sh runs
// them all). Each measurement runs beside its peer in the same process and prints JSON.
//
//   likes-bench like-vs-floor DIR COUNT BYTES   durable likes against the raw durable write
//   likes-bench build STORE COUNT BYTES [RECORDS.jsonl]   a store of COUNT likes (relaxed)
//   likes-bench like-unlike STORE COUNT          durable like + unlike pairs on an existing store
//   likes-bench changes STORE COUNT [SEED]        COUNT notes and album additions (three to one) on the
//                                                store's photos, chosen at random, relaxed: the lines a
//                                                person writes after importing, without a process each
//   likes-bench responsiveness STORE             a ticker task while eight awaiting likes wait on a
//                                                lock another process holds for 1.5 s
//   likes-bench cancellation STORE               how soon cancelling an awaiting like ends its wait
//   likes-bench observers STORE COUNT            threads of the process before and with COUNT observers
//   likes-bench like-file STORE ID FILE          one like of a JPEG file through LikeKit's like(_:imageFile:),
//                                                relaxed, for a measure of the process's memory
//   likes-bench likeness FILE...                 every pair of JPEGs compared by their fingerprints (Likeness.swift)
//   likes-bench session-memory STORE FOLDER COUNT  a SyncSession making COUNT syncs of a store with
//                                                a folder (a note changed every 20th), its reports
//                                                and failures never read: resident size as it goes

import Foundation
import LikeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A structurally complete baseline JPEG of about `bytes` bytes whose scan depends on `seed`.
func madeUpJPEG(seed: Int, bytes: Int) -> Data {
    var data: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
    data += [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x0B, 0xB8, 0x0F, 0xA0, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x00, 0x03, 0x11, 0x00]
    data += [0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3F, 0x00]
    var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
    data.reserveCapacity(bytes)
    while data.count < bytes - 2 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        data.append(UInt8(truncatingIfNeeded: state >> 33) % 0xFF)
    }
    return Data(data + [0xFF, 0xD9])
}

func now() -> Double { Date().timeIntervalSinceReferenceDate }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

/// Why a benchmark could not run: the line it prints before exiting 1.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
}

/// The count an argument gives, or the usage error it is.
func number(_ index: Int) throws -> Int {
    guard index < CommandLine.arguments.count, let value = Int(CommandLine.arguments[index]) else {
        throw BenchmarkFailure(description: "argument \(index) must be a number; see the comment at the top of main.swift")
    }
    return value
}

func printJSON(_ object: [String: Any]) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

/// A colour that depends on `index` only, spread over every family: `#RRGGBB`.
func color(of index: Int) -> String {
    let value = UInt32(truncatingIfNeeded: index &* 2_654_435_761) >> 8
    let digits = String(value & 0xFF_FFFF, radix: 16, uppercase: true)
    return "#" + String(repeating: "0", count: 6 - digits.count) + digits
}

/// The raw floor: the same bytes written durably with no records at all.
func durableWrite(_ data: Data, directory: String, name: String) {
    let temporary = directory + "/." + name + ".tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    precondition(fd >= 0)
    _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    precondition(fsync(fd) == 0)
    close(fd)
    precondition(rename(temporary, directory + "/" + name) == 0)
    let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    precondition(fsync(directoryFD) == 0)
    close(directoryFD)
}

/// The threads of this process (Linux: the entries of /proc/self/task).
func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
}

// MARK: LikeKit in an app: what awaiting callers see while another process holds the lock

/// Figures to print, made where `[String: Any]` cannot go (it is not Sendable).
struct Figures: Sendable {
    var values: [(String, Double)] = []
    var json: [String: Any] { Dictionary(uniqueKeysWithValues: values.map { ($0.0, $0.1 as Any) }) }
}

/// Runs `body` on Swift's cooperative pool and waits for it on this (the main) thread.
func waitFor(_ body: @escaping @Sendable () async throws -> Figures) throws -> Figures {
    final class Box: @unchecked Sendable {  // written once by the task, read after the semaphore
        var result: Result<Figures, any Error> = .success(Figures())
    }
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            box.result = .success(try await body())
        } catch {
            box.result = .failure(error)
        }
        done.signal()
    }
    done.wait()
    return try box.result.get()
}

/// Another process (util-linux's `flock`) holding the store's exclusive lock for `seconds`;
/// returns once the lock is held.
func holdLock(of store: URL, seconds: Double) throws -> Process {
    let ready = store.path + ".held"
    unlink(ready)
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
    holder.arguments = ["--exclusive", store.appendingPathComponent("likes.lock").path, "sh", "-c", "touch \"$0\" && sleep \(seconds)", ready]
    try holder.run()
    while access(ready, F_OK) != 0 { usleep(1000) }
    return holder
}

/// Eight likes awaited at once while another process holds the lock for 1.5 s, and a task that
/// sleeps 10 ms at a time: its ticks show whether the waits hold threads of the pool.
func responsiveness(store: URL) async throws -> Figures {
    let repository = LikeRepository(directory: store, durability: .relaxed)
    try await repository.like(PhotoID("first"), image: madeUpJPEG(seed: 1, bytes: 20 * 1024))
    let holder = try holdLock(of: store, seconds: 1.5)
    let held = now()
    let ticker = Task { () -> [Double] in
        var ticks: [Double] = []
        while !Task.isCancelled {
            ticks.append(now())
            try? await Task.sleep(for: .milliseconds(10))
        }
        return ticks
    }
    let finished = try await withThrowingTaskGroup(of: Double.self) { group in
        for index in 0..<8 {
            group.addTask {
                try await repository.like(PhotoID("waiting\(index)"), image: madeUpJPEG(seed: 10 + index, bytes: 20 * 1024))
                return now()
            }
        }
        return try await group.reduce(into: [Double]()) { $0.append($1) }
    }
    ticker.cancel()
    let ticks = await ticker.value
    holder.waitUntilExit()
    let during = ticks.filter { $0 > held + 0.05 && $0 < held + 1.45 }
    let gaps = zip(during, during.dropFirst()).map { $1 - $0 }
    return Figures(values: [
        ("heldSeconds", 1.5), ("likes", Double(finished.count)), ("firstLikeAfterSeconds", (finished.min() ?? held) - held),
        ("ticksWhileHeld", Double(during.count)), ("medianGapMs", median(gaps) * 1000), ("longestGapMs", (gaps.max() ?? 0) * 1000),
    ])
}

/// An awaiting like cancelled 200 ms into its wait for a lock another process holds for 3 s.
func cancellation(store: URL) async throws -> Figures {
    let repository = LikeRepository(directory: store, durability: .relaxed)
    try await repository.like(PhotoID("first"), image: madeUpJPEG(seed: 1, bytes: 20 * 1024))
    let holder = try holdLock(of: store, seconds: 3)
    let like = Task { try await repository.like(PhotoID("cancelled"), image: madeUpJPEG(seed: 2, bytes: 20 * 1024)) }
    try? await Task.sleep(for: .milliseconds(200))
    let cancelled = now()
    like.cancel()
    let result = await like.result
    let stopped = now()
    let stillHeld = holder.isRunning
    holder.waitUntilExit()
    var threwCancellation = false
    if case .failure(let error) = result, error is CancellationError { threwCancellation = true }
    let liked = try await repository.isLiked(PhotoID("cancelled"))
    return Figures(values: [
        ("threwCancellationError", threwCancellation ? 1 : 0), ("stoppedAfterMs", (stopped - cancelled) * 1000),
        ("lockStillHeldWhenStopped", stillHeld ? 1 : 0), ("likedAfterwards", liked ? 1 : 0),
    ])
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: see the comment at the top of Sources/likes-bench/main.swift\n".utf8))
    exit(64)
}

/// `likes-bench like-vs-floor …` (see the comment at the top).
func benchLikeVsFloor(_ arguments: [String]) throws {
    let directory = arguments[2]
    let count = try number(3)
    let bytes = try number(4)
    let floorDirectory = directory + "/floor"
    try FileManager.default.createDirectory(atPath: floorDirectory, withIntermediateDirectories: true)
    let repository = LikeRepository(directory: URL(fileURLWithPath: directory + "/store"))
    try repository.like(try PhotoID("warm-up"), image: madeUpJPEG(seed: -1, bytes: bytes))
    var likes: [Double] = []
    var floors: [Double] = []
    for index in 0..<count {
        let image = madeUpJPEG(seed: index, bytes: bytes)
        // Interleaved, so that both see the same disk conditions.
        var start = now()
        durableWrite(image, directory: floorDirectory, name: "\(index).jpg")
        floors.append(now() - start)
        start = now()
        try repository.like(try PhotoID("photo-\(index)"), image: image)
        likes.append(now() - start)
    }
    try printJSON([
        "count": count, "bytes": bytes,
        "likeMedianMs": median(likes) * 1000, "floorMedianMs": median(floors) * 1000,
        "likeMeanMs": likes.reduce(0, +) / Double(count) * 1000, "floorMeanMs": floors.reduce(0, +) / Double(count) * 1000,
        "ratioMedian": median(likes) / median(floors),
    ])
}

/// `likes-bench build …` (see the comment at the top).
func benchBuild(_ arguments: [String]) throws {
    let store = URL(fileURLWithPath: arguments[2])
    let count = try number(3)
    let bytes = try number(4)
    var recordsOut: FileHandle?
    if arguments.count > 5 {
        _ = FileManager.default.createFile(atPath: arguments[5], contents: nil)
        recordsOut = FileHandle(forWritingAtPath: arguments[5])
    }
    let repository = LikeRepository(directory: store, durability: .relaxed)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let start = now()
    var buffer = Data()
    for index in 0..<count {
        let metadata = PhotoMetadata(
            description: "Photo number \(index) of the benchmark", photographer: "Photographer \(index % 97)",
            photographerUsername: "user\(index % 97)", color: color(of: index),
            sourceURL: "https://unsplash.com/photos/bench\(index)", width: 4000, height: 3000)
        // Every tenth photo is in one of 20 albums: 20 albums of count / 200 photos each.
        let albums = index % 10 == 0 ? [try AlbumName("Album \(index / 10 % 20)")] : []
        let change = try repository.like(
            try PhotoID("bench-\(index)"), image: madeUpJPEG(seed: index, bytes: bytes), photo: metadata, albums: albums)
        if recordsOut != nil, let record = change.record {
            buffer += try encoder.encode(record)
            buffer.append(0x0A)
            if buffer.count > 1 << 20, let recordsOut {
                recordsOut.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
    }
    recordsOut?.write(buffer)
    try printJSON(["count": count, "seconds": now() - start])
}

/// `likes-bench changes …` (see the comment at the top).
func benchChanges(_ arguments: [String]) throws {
    let repository = LikeRepository(directory: URL(fileURLWithPath: arguments[2]), durability: .relaxed)
    let count = try number(3)
    var state = UInt64(arguments.count > 4 ? try number(4) : 1)
    func random(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
    let ids = try repository.list(LikeQuery()).records.map(\.id)
    guard !ids.isEmpty else { return }
    let start = now()
    for index in 0..<count {
        let id = ids[random(ids.count)]
        if index % 4 == 3 {
            _ = try repository.addPhotos([id], toAlbum: try AlbumName("Album \(random(20))"))
        } else {
            _ = try repository.setNote("Note \(index): morning light sunset", for: id)
        }
    }
    try printJSON(["count": count, "seconds": now() - start])
}

/// `likes-bench like-unlike …` (see the comment at the top).
func benchLikeUnlike(_ arguments: [String]) throws {
    let repository = LikeRepository(directory: URL(fileURLWithPath: arguments[2]))
    let count = try number(3)
    let image = madeUpJPEG(seed: 7, bytes: 20 * 1024)
    var pairs: [Double] = []
    for index in 0..<count {
        let id = try PhotoID("churn-\(index)")
        let start = now()
        try repository.like(id, image: image)
        try repository.unlike(id)
        pairs.append(now() - start)
    }
    try printJSON(["count": count, "pairMedianMs": median(pairs) * 1000, "pairMeanMs": pairs.reduce(0, +) / Double(count) * 1000])
}

/// `likes-bench responsiveness …` (see the comment at the top).
func benchResponsiveness(_ arguments: [String]) throws {
    let store = URL(fileURLWithPath: arguments[2])
    try printJSON(try waitFor { try await responsiveness(store: store) }.json)
}

/// `likes-bench cancellation …` (see the comment at the top).
func benchCancellation(_ arguments: [String]) throws {
    let store = URL(fileURLWithPath: arguments[2])
    try printJSON(try waitFor { try await cancellation(store: store) }.json)
}

/// `likes-bench observers …` (see the comment at the top).
func benchObservers(_ arguments: [String]) throws {
    let repository = LikeRepository(directory: URL(fileURLWithPath: arguments[2]), durability: .relaxed)
    let count = try number(3)
    try repository.like(PhotoID("first"), image: madeUpJPEG(seed: 1, bytes: 20 * 1024))
    let before = threadCount()
    let heard = DispatchSemaphore(value: 0)
    let tokens = (0..<count).map { _ in repository.observe { _ in heard.signal() } }
    usleep(200_000)
    let subscribed = threadCount()
    try repository.like(PhotoID("second"), image: madeUpJPEG(seed: 2, bytes: 20 * 1024))
    for _ in 0..<count { heard.wait() }
    usleep(200_000)
    let afterDelivery = threadCount()
    withExtendedLifetime(tokens) {}
    try printJSON(["observers": count, "threadsBefore": before, "threadsSubscribed": subscribed, "threadsAfterOneChange": afterDelivery])
}

/// `likes-bench like-file …` (see the comment at the top).
func benchLikeFile(_ arguments: [String]) throws {
    let repository = LikeRepository(directory: URL(fileURLWithPath: arguments[2]), durability: .relaxed)
    let start = now()
    let change = try repository.like(PhotoID(arguments[3]), imageFile: URL(fileURLWithPath: arguments[4]))
    try printJSON(["bytes": change.record?.image.byteCount ?? 0, "seconds": now() - start])
}

/// The resident size of this process now, in kilobytes (VmRSS).
func residentKilobytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// `likes-bench session-memory …` (see the comment at the top): a session as `likes sync --watch`
/// runs one, synced again as soon as each sync ends instead of on its clock, so that a week of
/// syncs passes in minutes; nobody reads its streams.
func benchSessionMemory(_ arguments: [String]) throws {
    let repository = LikeRepository(directory: URL(fileURLWithPath: arguments[2]), durability: .relaxed)
    let folder = URL(fileURLWithPath: arguments[3])
    let count = try number(4)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for index in 0..<20 { try repository.like(PhotoID("photo-\(index)"), image: madeUpJPEG(seed: index, bytes: 20 * 1024)) }
    let synced = DispatchSemaphore(value: 0)
    let failed = DispatchSemaphore(value: 0)
    let session = repository.startSyncing(with: folder) { outcome in
        if case .failure = outcome { failed.signal() }
        synced.signal()
    }
    let start = now()
    var samples: [[String: Double]] = []
    for sync in 1...count {
        synced.wait()
        if sync % 20 == 0 { _ = try repository.setNote("note \(sync)", for: PhotoID("photo-\(sync % 20)")) }
        if sync == 100 || sync % 5_000 == 0 || sync == count {
            samples.append(["syncs": Double(sync), "residentMB": Double(residentKilobytes()) / 1024, "seconds": now() - start])
        }
        session.syncNow()
    }
    session.stop()
    var failures = 0
    while failed.wait(timeout: .now()) == .success { failures += 1 }
    try printJSON(["syncs": count, "failures": failures, "samples": samples])
}

/// The benchmark `arguments[1]` names, run.
func run(_ arguments: [String]) throws {
    switch arguments[1] {
    case "like-vs-floor": try benchLikeVsFloor(arguments)
    case "build": try benchBuild(arguments)
    case "like-unlike": try benchLikeUnlike(arguments)
    case "changes": try benchChanges(arguments)
    case "responsiveness": try benchResponsiveness(arguments)
    case "cancellation": try benchCancellation(arguments)
    case "observers": try benchObservers(arguments)
    case "like-file": try benchLikeFile(arguments)
    case "session-memory": try benchSessionMemory(arguments)
    case "likeness": try benchLikeness(arguments)
    default:
        FileHandle.standardError.write(Data("likes-bench: unknown benchmark \(arguments[1])\n".utf8))
        exit(64)
    }
}

do {
    try run(arguments)
} catch {
    FileHandle.standardError.write(Data("likes-bench: \(error)\n".utf8))
    exit(1)
}

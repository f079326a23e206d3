// What a like of a very large file through LikeKit's like(_:imageFile:) costs in memory, measured
// on a process of its own (likes-bench like-file; its peak resident size, from wait4), whatever
// the file holds: 299 MB of scan data, or 299 MB of marker segments before a small image, which a
// marker walk through a mapping read whole.

import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite(.ownLane) struct MemoryTests {
    let box = TemporaryFolder()

    /// Runs `likes-bench` with `arguments` and returns its exit status and peak resident size in
    /// bytes.
    func peakMemory(_ arguments: [String]) throws -> (status: Int32, bytes: Int) {
        let bench = Binary.sibling("likes-bench").path
        let argv = ([bench] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var files: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&files)
        defer { posix_spawn_file_actions_destroy(&files) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(
                &files, descriptor, descriptor == 2 ? box.path("stderr.txt") : "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC,
                0o600)
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, bench, &files, nil, argv, environ)
        try #require(spawned == 0, "posix_spawn failed: \(spawned)")
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            try #require(errno == EINTR, "wait4 failed: \(errno)")
        }
        // Linux gives ru_maxrss in kilobytes.
        return ((status >> 8) & 0xFF, Int(usage.ru_maxrss) * 1024)
    }

    /// A JPEG of `megabytes` MB: a small image's header, then either that much scan data before
    /// EOI (`segments` false), or that much in comment segments before the frame header.
    func largeJPEG(megabytes: Int, segments: Bool) throws -> String {
        let path = box.path(segments ? "segments.jpg" : "scan.jpg")
        let sample = madeUpJPEG(seed: 5)
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        if segments {
            // SOI, then COM segments of the largest length, then the rest of the small JPEG.
            try handle.write(contentsOf: sample.prefix(2))
            let payload = Data(repeating: 0x41, count: 65_533)
            let segment = Data([0xFF, 0xFE, 0xFF, 0xFF]) + payload
            for _ in 0..<(megabytes * (1 << 20) / segment.count) { try handle.write(contentsOf: segment) }
            try handle.write(contentsOf: sample.dropFirst(2))
        } else {
            try handle.write(contentsOf: sample.dropLast(2))
            let block = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) })
            for _ in 0..<megabytes { try handle.write(contentsOf: block) }
            try handle.write(contentsOf: Data([0xFF, 0xD9]))
        }
        try handle.close()
        return path
    }

    @Test(arguments: [false, true])
    func likingA299MBFileCostsAFewMegabytesWhateverItHolds(segments: Bool) throws {
        let small = box.file("small.jpg", madeUpJPEG(seed: 6))
        let baseline = try peakMemory(["like-file", box.store.path, "small", small])
        try #require(baseline.status == 0)
        let path = try largeJPEG(megabytes: 299, segments: segments)
        let large = try peakMemory(["like-file", box.store.path, "large", path])
        #expect(large.status == 0, "\(String(decoding: FileManager.default.contents(atPath: box.path("stderr.txt")) ?? Data(), as: UTF8.self))")
        let growth = large.bytes - baseline.bytes
        #expect(
            growth < 8 << 20,
            "liking a 299 MB file of \(segments ? "marker segments" : "scan data") took \(large.bytes >> 20) MB at its peak, \(growth >> 20) MB more than a small one"
        )
        // Whole, byte for byte.
        let record = try box.run(["show", "large", "--json"]).object()
        let stored = try #require((record["image"] as? [String: Any])?["file"] as? String)
        #expect(FileManager.default.contentsEqual(atPath: stored, andPath: path))
    }
}

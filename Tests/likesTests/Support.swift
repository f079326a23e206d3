// Runs the real `likes` binary against a temporary store and captures what it says.

import Foundation
import LikesSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The result of one run of the binary.
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String

    /// stdout decoded as JSON.
    func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed]) }
    func object() throws -> [String: Any] { try #require(try json() as? [String: Any], "stdout is not a JSON object: \(stdout)") }
    func array() throws -> [[String: Any]] { try #require(try json() as? [[String: Any]], "stdout is not a JSON array: \(stdout)") }
}

enum Binary {
    /// The `likes` executable built beside this test bundle.
    static let url: URL = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("likes"),
            Bundle.main.bundleURL.appendingPathComponent("likes"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("likes"),
            Samples.root.appendingPathComponent(".build/debug/likes"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    /// Another executable of the package, built beside `likes`.
    static func sibling(_ name: String) -> URL { url.deletingLastPathComponent().appendingPathComponent(name) }
}

enum Samples {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let photos = root.appendingPathComponent("Samples/photos", isDirectory: true)
    static let fixtures = root.appendingPathComponent("Tests/Fixtures/unsplash", isDirectory: true)
    static func photo(_ name: String) -> URL { photos.appendingPathComponent(name) }
    static func data(_ name: String) -> Data { try! Data(contentsOf: photo(name)) }
}

/// A way to run `likes` on the store of a test's folder.
extension TemporaryFolder {
    /// Runs `likes --store STORE arguments…` (unless `store` is false) and waits for it.
    func run(_ arguments: [String], store: Bool = true, environment: [String: String] = [:]) throws -> Run {
        try Self.execute((store ? ["--store", self.store.path] : []) + arguments, environment: environment)
    }

    /// Runs `executable` (the `likes` binary unless said otherwise) with `arguments` and waits for it.
    static func execute(_ arguments: [String], executable: URL = Binary.url, environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var base = ProcessInfo.processInfo.environment
        for key in ["LIKES_STORE", "LIKES_DURABILITY", "COLUMNS", "NO_COLOR"] { base[key] = nil }
        process.environment = base.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes while the process runs, so that neither fills up. A thread of its own,
        // not a Dispatch queue: tests block their threads, and a shared pool could starve.
        let outData = Locked(Data())
        let outDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            outData.withLock { $0 = out.fileHandleForReading.readDataToEndOfFile() }
            outDone.signal()
        }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        outDone.wait()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: outData.withLock { $0 }, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// A structurally complete baseline JPEG whose scan bytes depend on `seed`.
func madeUpJPEG(width: Int = 64, height: Int = 48, seed: Int = 0, scanBytes: Int = 256) -> Data {
    var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
    bytes += [0xFF, 0xC0, 0x00, 0x11, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 0x03]
    bytes += [0x01, 0x22, 0x00, 0x02, 0x11, 0x00, 0x03, 0x11, 0x00]
    bytes += [0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3F, 0x00]
    var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
    for _ in 0..<scanBytes {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes.append(UInt8(truncatingIfNeeded: state >> 33) % 0xFF)
    }
    return Data(bytes + [0xFF, 0xD9])
}

/// Runs a shell script in a process group of its own, SIGKILLs the whole group after `delay`
/// seconds (the shell and the `likes` it is running), and returns what the script printed.
///
/// Foundation starts every child as the leader of a new process group, so the group's id is the
/// shell's pid. (Not through setsid(1): a group leader makes it fork, and the kill would miss the
/// new session.)
func runKilled(_ script: String, after delay: Double) throws -> String {
    try runKilled(script) { elapsed in elapsed >= delay }
}

/// As ``runKilled(_:after:)``, killing the group once `due` says so (asked every millisecond
/// with the seconds since the start, until the script ends by itself): a kill part-way through a
/// piece of work waits for the work to be there, not for a time that a loaded machine may
/// stretch past its end.
func runKilled(_ script: String, when due: (Double) throws -> Bool) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", script]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let start = Date()
    while process.isRunning {
        if try due(Date().timeIntervalSince(start)) {
            kill(-process.processIdentifier, SIGKILL)
            kill(process.processIdentifier, SIGKILL)
            break
        }
        usleep(1000)
    }
    process.waitUntilExit()
    return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
}

/// The number of entries in the folder at `path` (0 where there is none).
func entryCount(_ path: String) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: path).count) ?? 0
}

/// What a test needs from the machine besides Swift: each test names all of it. Where it is
/// missing the test is skipped, and says why (`swift test 2>&1 | grep skipped` lists them); under
/// `CI=true`, where `.ci/run` installs everything, it runs, and a missing tool fails it.
enum Needs {
    static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Debian's python3 at /usr/bin/python3, with these modules.
    static func python(_ modules: String...) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return false }
        guard !modules.isEmpty else { return true }
        return
            (try? TemporaryFolder.execute(["-c", "import " + modules.joined(separator: ", ")], executable: URL(fileURLWithPath: "/usr/bin/python3")))?
            .status == 0
    }

    static func executable(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Python for the stand-in servers and checks in Tests/Tools.
    static let python3 = ConditionTrait.enabled(if: python() || inCI, "needs /usr/bin/python3 (apt-get install python3)")
    /// util-linux's script(1), which gives a command a terminal.
    static let script = ConditionTrait.enabled(if: executable("/usr/bin/script") || inCI, "needs script(1) (apt-get install bsdutils)")
}

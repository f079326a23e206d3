// What the codec's tests share: the bundled photos, libjpeg's command-line tools run as a
// reference, PPM reading and PSNR.

import Foundation
import JPEGCodec
import Testing

enum Reference {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let photos = ["rocket.jpg", "chelsea.jpg", "coffee.jpg", "astronaut.jpg", "hubble_deep_field.jpg", "retina.jpg"]

    static func photo(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent("Samples/photos/\(name)")))
    }

    /// A structurally complete baseline JPEG (SOI, APP0, DQT, SOF0, SOS, scan data, EOI) of the
    /// given frame size, whose scan bytes are made up (and hold no FF).
    static func madeUp(width: Int = 64, height: Int = 48) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        bytes += [0xFF, 0xDB, 0x00, 0x43, 0x00] + (0..<64).map { UInt8(1 + $0 % 50) }
        bytes += [0xFF, 0xC0, 0x00, 0x11, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 0x03]
        bytes += [0x01, 0x22, 0x00, 0x02, 0x11, 0x00, 0x03, 0x11, 0x00]
        bytes += [0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3F, 0x00]
        bytes += (0..<256).map { UInt8(($0 * 37 + 11) % 0xFF) }
        bytes += [0xFF, 0xD9]
        return bytes
    }

    static let pillowDirectory = root.appendingPathComponent("Tests/Fixtures/jpeg/pillow")

    /// Pillow's test JPEGs that are baseline or progressive, 8-bit, grayscale or YCbCr.
    static let pillowDecodable: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: pillowDirectory.path)) ?? []
        return names.filter { $0.hasSuffix(".jpg") && $0 != "pil_sample_cmyk.jpg" }.sorted()
    }()

    static func pillow(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: pillowDirectory.appendingPathComponent(name)))
    }

    /// A way libjpeg's tools write a photo.
    struct Variant: Sendable, CustomTestStringConvertible {
        let name: String
        /// The least PSNR against libjpeg's decode: 40 dB, lower where the chroma is subsampled
        /// one way only: libjpeg-turbo's reduced transforms are square, so it decodes such chroma
        /// at the luma's scale and upsamples it (or repeats its DC at 1/8), where ours decodes it
        /// to its own size with the DCT.
        var floor = 40.0
        /// cjpeg's options (from the decoded photo), or jpegtran's when `transcode`.
        let options: [String]
        var transcode = false
        init(name: String, options: [String], transcode: Bool = false, floor: Double = 40) {
            self.name = name
            self.options = options
            self.transcode = transcode
            self.floor = floor
        }
        var testDescription: String { name }
    }

    static let variants: [Variant] = [
        Variant(name: "baseline 4:2:0", options: ["-sample", "2x2"]),
        Variant(name: "baseline 4:2:2", options: ["-sample", "2x1"], floor: 33),
        Variant(name: "baseline 4:4:0", options: ["-sample", "1x2"], floor: 33),
        Variant(name: "baseline 4:4:4", options: ["-sample", "1x1"]),
        Variant(name: "baseline 4:1:1", options: ["-sample", "4x1"], floor: 28),
        Variant(name: "grayscale", options: ["-grayscale"]),
        Variant(name: "restart every MCU", options: ["-restart", "1B"]),
        Variant(name: "restart every row", options: ["-restart", "1", "-sample", "2x1"], floor: 33),
        Variant(name: "optimized Huffman tables", options: ["-optimize", "-quality", "95"]),
        Variant(name: "progressive 4:2:0", options: ["-progressive"]),
        Variant(name: "progressive 4:4:4 with restarts", options: ["-progressive", "-sample", "1x1", "-restart", "3B"]),
        Variant(name: "progressive grayscale", options: ["-progressive", "-grayscale"]),
        Variant(name: "progressive by jpegtran", options: ["-progressive"], transcode: true),
        Variant(name: "quality 5 (16-bit quantization tables)", options: ["-quality", "5"]),
    ]

    /// `photo` rewritten by libjpeg's tools as `variant` says.
    static func make(_ variant: Variant, from photo: [UInt8]) throws -> [UInt8] {
        if variant.transcode { return try run([try tool("jpegtran")] + variant.options, input: photo) }
        let pixels = try run([try tool("djpeg"), "-ppm"], input: photo)
        return try run([try tool("cjpeg")] + variant.options, input: pixels)
    }

    /// Whether the reference tools are here: libjpeg-turbo's djpeg, cjpeg and jpegtran, and
    /// Pillow. Tests that compare with them run when they are, and always under `CI=true`
    /// (where `.ci/run` installs them, and one missing fails).
    static var isRequired: Bool { hasTools || inCI }

    /// Whether the thumbnails' references are here: the tools and Debian's python3 with Pillow.
    static var thumbnailReferenceIsRequired: Bool { (hasTools && hasPillow) || inCI }

    private static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    private static var hasTools: Bool {
        ["djpeg", "cjpeg", "jpegtran"].allSatisfy { FileManager.default.isExecutableFile(atPath: "/usr/bin/\($0)") }
    }

    private static var hasPillow: Bool {
        var status: Int32 = 1
        _ = try? run(["/usr/bin/python3", "-c", "import PIL"], input: [], status: &status)
        return status == 0
    }

    /// The path of one of libjpeg-turbo's tools (Debian's libjpeg-turbo-progs), which the tests
    /// take as the reference decoder and encoder.
    static func tool(_ name: String) throws -> String {
        let path = ["/usr/bin/\(name)", "/usr/local/bin/\(name)"].first { FileManager.default.isExecutableFile(atPath: $0) }
        return try #require(path, "\(name) is missing: install Debian's libjpeg-turbo-progs (apt-get install libjpeg-turbo-progs)")
    }

    /// Debian's python3 with its python3-pil, the thumbnails' reference.
    static func pythonWithPillow() throws -> String {
        var status: Int32 = 0
        _ = try? run(["/usr/bin/python3", "-c", "import PIL"], input: [], status: &status)
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") && status == 0,
            "Pillow is missing: install Debian's python3-pil (apt-get install python3-pil)")
        return "/usr/bin/python3"
    }

    /// Runs `arguments` with `input` on stdin; returns stdout.
    static func run(_ arguments: [String], input: [UInt8]) throws -> [UInt8] {
        var status: Int32 = 0
        return try run(arguments, input: input, status: &status)
    }

    static func run(_ arguments: [String], input: [UInt8], status: inout Int32) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        // Input from a file, not a pipe: a tool that stops reading early (djpeg at EOI, before
        // trailing bytes) must not stop this process with SIGPIPE.
        let inputFile = FileManager.default.temporaryDirectory.appendingPathComponent("codec-input-\(UUID().uuidString)")
        try Data(input).write(to: inputFile)
        defer { try? FileManager.default.removeItem(at: inputFile) }
        let stdin = try FileHandle(forReadingFrom: inputFile)
        defer { try? stdin.close() }
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        status = process.terminationStatus
        return [UInt8](output)
    }

    /// libjpeg's decode of `jpeg` at `scale` as interleaved RGB, and whether it warned that the
    /// data is corrupt (djpeg's exit status 2).
    static func djpeg(_ jpeg: [UInt8], scale: JPEGScale) throws -> (width: Int, height: Int, rgb: [UInt8], corrupt: Bool) {
        let djpeg = try tool("djpeg")
        var status: Int32 = 0
        let ppm = try run([djpeg, "-scale", "\(scale.rawValue)/8", "-ppm"], input: jpeg, status: &status)
        let picture = try PPM.read(ppm)
        return (picture.width, picture.height, picture.rgb, status == 2)
    }
}

enum PPM {
    /// Reads a binary PPM (P6, 8-bit) or PGM (P5, expanded to RGB).
    static func read(_ bytes: [UInt8]) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        var fields: [Int] = []
        var index = 2
        var magic = String(decoding: bytes.prefix(2), as: UTF8.self)
        while fields.count < 3 {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
            var value = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            fields.append(value)
        }
        index += 1
        let (width, height) = (fields[0], fields[1])
        let data = Array(bytes[index...])
        if magic == "P5" {
            magic = "P6"
            return (width, height, data.flatMap { [$0, $0, $0] })
        }
        #expect(magic == "P6")
        return (width, height, data)
    }
}

/// Peak signal-to-noise ratio between two 8-bit pictures of one size, in dB (100 when equal).
func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count && !a.isEmpty)
    var sum = 0.0
    for index in a.indices {
        let difference = Double(a[index]) - Double(b[index])
        sum += difference * difference
    }
    guard sum > 0 else { return 100 }
    let mse = sum / Double(a.count)
    return 10 * log10(255 * 255 / mse)
}

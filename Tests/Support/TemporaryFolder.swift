// Shared by every test target: a folder of its own per test, under the system's temporary
// directory, removed when the test lets go of it.

import Foundation

/// A unique folder under the system's temporary directory, removed on deinit: the one such type
/// of every test target, each of which adds its helpers in an extension (a repository in it,
/// `likes` run on its store, a sync folder).
public final class TemporaryFolder: Sendable {  // `url` is all it holds, and never changes
    public let url: URL

    /// A folder named after the test (`label`, the calling function by default), made now.
    public convenience init(_ label: String = #function) {
        self.init(prefix: "likes-tests", label: label)
    }

    /// A folder named after `prefix` and the test (`label`), made now.
    public init(prefix: String, label: String) {
        let safe = label.filter { $0.isLetter || $0.isNumber }
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(prefix)-\(safe.prefix(40))-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            fatalError("the test's folder \(url.path) cannot be made: \(error)")
        }
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The store folder inside, not yet created.
    public var store: URL { url.appendingPathComponent("store", isDirectory: true) }

    /// The path of `name` inside.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `data` to a file inside (making its folders) and returns its path.
    @discardableResult
    public func file(_ name: String, _ data: Data) -> String {
        let target = url.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: target)
        } catch {
            fatalError("the test's file \(target.path) cannot be written: \(error)")
        }
        return target.path
    }

    /// Every regular file below the folder (or below `relative` in it), as relative paths, sorted.
    public func files(under relative: String = "") -> [String] {
        let base = relative.isEmpty ? url : url.appendingPathComponent(relative)
        guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
        var result: [String] = []
        while let path = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: base.appendingPathComponent(path).path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result.append(path)
            }
        }
        return result.sorted()
    }
}

/// The photos bundled in `Samples/photos`, for the tests of every target.
public enum SamplePhotos {
    /// The folder of the bundled photos.
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Samples/photos", isDirectory: true)

    /// The bytes of the bundled photo `name`; a missing one stops the test run, as it means a
    /// broken checkout.
    public static func data(_ name: String) -> Data {
        do {
            return try Data(contentsOf: directory.appendingPathComponent(name))
        } catch {
            fatalError("the sample photo \(name) cannot be read: \(error)")
        }
    }
}

/// Photos as phones and cameras leave them (`Tests/Fixtures/jpeg/camera`, made by
/// `Tests/Tools/make_camera_photos.py` from a real photo): each of the eight Exif orientations,
/// baseline and progressive, half with an sRGB profile, half with the camera's facts, and two
/// photographers' pictures turned in their own ways.
public enum CameraFixtures {
    /// The folder of the fixtures.
    public static let directory = SamplePhotos.directory
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures/jpeg/camera", isDirectory: true)

    /// The photos' file names without extension: `o1` … `o8`, then `o1-progressive` … `o8-progressive`.
    public static let names = [false, true].flatMap { progressive in (1...8).map { "o\($0)" + (progressive ? "-progressive" : "") } }

    /// The photographers' pictures: turned by orientation 6 and 3.
    public static let userImages = ["user-o6", "user-o3"]

    /// Two photos large enough to have renditions: 1200×800 as displayed, turned by orientation 6
    /// (baseline) and 7 (progressive).
    public static let large = ["o6-large", "o7-large-progressive"]

    /// The bytes of the fixture `name` (without extension); a missing one stops the test run.
    public static func data(_ name: String) -> Data {
        do {
            return try Data(contentsOf: directory.appendingPathComponent(name + ".jpg"))
        } catch {
            fatalError("the camera photo \(name).jpg cannot be read: \(error)")
        }
    }
}

/// Made-up JPEG files for tests that need many distinct photos quickly.
public enum MadeUpJPEG {
    /// A structurally complete baseline JPEG (SOI, APP0, DQT, SOF0, SOS, scan data, EOI) whose
    /// scan bytes depend on `seed`, so that every seed gives different bytes.
    public static func data(width: Int = 64, height: Int = 48, seed: Int = 0, scanBytes: Int = 256) -> Data {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        bytes += [0xFF, 0xDB, 0x00, 0x43, 0x00] + (0..<64).map { UInt8(1 + $0 % 50) }
        bytes += [0xFF, 0xC0, 0x00, 0x11, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 0x03]
        bytes += [0x01, 0x22, 0x00, 0x02, 0x11, 0x00, 0x03, 0x11, 0x00]
        bytes += [0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3F, 0x00]
        var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        for _ in 0..<scanBytes {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.append(UInt8(truncatingIfNeeded: state >> 33) % 0xFF)  // never FF inside the scan
        }
        bytes += [0xFF, 0xD9]
        return Data(bytes)
    }
}

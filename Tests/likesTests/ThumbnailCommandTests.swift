// End-to-end: thumbnails through the `likes` binary: `likes thumbnail` on any JPEG, and the
// thumbnail each like, import and repair makes in the store.

import Foundation
import JPEGCodec
import TestSupport
import Testing

@Suite(.ownLane) struct ThumbnailCommandTests {
    let box = TemporaryFolder()

    @Test func thumbnailWritesASmallBaselineJPEGOfAnyPhoto() throws {
        let output = box.url.appendingPathComponent("small.jpg")
        let run = try box.run(["thumbnail", Samples.photo("retina.jpg").path, "--output", output.path, "--json"], store: false)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.object()
        let bytes = [UInt8](try Data(contentsOf: output))
        #expect(report["file"] as? String == output.path && report["bytes"] as? Int == bytes.count)
        #expect(report["width"] as? Int == 512 && report["height"] as? Int == 512 && report["damage"] is NSNull)
        let decoded = try JPEGDecoder.decode(bytes)
        #expect(decoded.width == 512 && decoded.height == 512)
        // Baseline: the frame header is SOF0.
        #expect(bytes.indices.dropLast().contains { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })

        let sized = try box.run(["thumbnail", Samples.photo("rocket.jpg").path, "--output", output.path, "--size", "100"], store: false)
        #expect(sized.status == 0 && sized.stdout.hasPrefix("Wrote \(output.path): 100×67, "), "\(sized.stdout)\(sized.stderr)")
        #expect(!FileManager.default.fileExists(atPath: box.store.path), "the store is left alone")
    }

    /// `--size N` is the long side, exactly N pixels (never more than the photo's), whatever the
    /// photo's size and shape.
    @Test func theSizeIsTheLongSideInPixels() throws {
        var photos = ["retina", "rocket", "hubble_deep_field", "astronaut", "coffee", "chelsea"].map { Samples.photo("\($0).jpg").path }
        for (width, height) in [(640, 640), (427, 640), (300, 1200), (799, 533)] {
            photos.append(box.file("photo-\(width)x\(height).jpg", Data(JPEGEncoder.encode(gradient(width: width, height: height), quality: 80))))
        }
        for photo in photos {
            let (width, height) = try frameSize(photo)
            for side in [8, 100, 255, 320, 500, 512, 1024] {
                let output = box.path("out.jpg")
                let report = try box.run(["thumbnail", photo, "--output", output, "--size", "\(side)", "--json"], store: false).object()
                let long = min(side, max(width, height))
                let (w, h) = (report["width"] as? Int ?? 0, report["height"] as? Int ?? 0)
                #expect(max(w, h) == long, "\(width)×\(height) --size \(side) gave \(w)×\(h)")
                // The short side is the photo's shape at that length, rounded.
                let short = Double(min(width, height)) * Double(long) / Double(max(width, height))
                #expect(abs(Double(min(w, h)) - short) <= 1, "\(width)×\(height) --size \(side): \(w)×\(h) is not its shape")
            }
        }
    }

    /// The width and height in a JPEG's frame header.
    func frameSize(_ path: String) throws -> (Int, Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let frame = try #require(bytes.indices.dropLast(9).first { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC0 || bytes[$0 + 1] == 0xC2) })
        return (Int(bytes[frame + 7]) << 8 | Int(bytes[frame + 8]), Int(bytes[frame + 5]) << 8 | Int(bytes[frame + 6]))
    }

    /// A smooth picture of any size.
    func gradient(width: Int, height: Int) -> PlanarImage {
        let luma = (0..<(width * height)).map {
            UInt8(truncatingIfNeeded: ($0 % width) * 255 / max(1, width - 1) / 2 + ($0 / width) * 127 / max(1, height - 1))
        }
        return PlanarImage(
            width: width, height: height,
            planes: [luma, [UInt8](repeating: 100, count: width * height), [UInt8](repeating: 150, count: width * height)])
    }

    /// A JPEG damaged three ways libjpeg warns about: cut mid-scan, corrupt entropy-coded data,
    /// and a restart interval without its markers. A thumbnail of what could be read, a warning
    /// naming the damage, exit 2, as `djpeg` does; a like stores it and says so.
    @Test(arguments: ["cut", "corrupt", "restarts"])
    func aDamagedJPEGGivesAThumbnailOfWhatCouldBeReadAWarningAndExitTwo(_ damage: String) throws {
        let original = [UInt8](Samples.data("rocket.jpg"))
        let scan = try #require(original.indices.first { original[$0] == 0xFF && original[$0 + 1] == 0xDA })
        var bytes = original
        let expected: String
        switch damage {
        case "cut":
            // Its scan cut short, its end marker still there: a JPEG by its markers (a like
            // takes it), the image data missing below a line.
            bytes = Array(original.prefix(original.count * 6 / 10)) + [0xFF, 0xD9]
            expected = "its data ends before its last scan does (cut short)"
        case "corrupt":
            for index in stride(from: scan + 2000, to: scan + 2400, by: 7) where bytes[index] != 0xFF && bytes[index - 1] != 0xFF {
                bytes[index] = 0xA5
            }
            expected = "is damaged"
        default:
            bytes = Array(original[..<scan]) + [0xFF, 0xDD, 0x00, 0x04, 0x00, 0x02] + Array(original[scan...])
            expected = "a restart marker is missing or out of order"
        }
        let path = box.file("damaged-\(damage).jpg", Data(bytes))
        let output = box.path("out-\(damage).jpg")
        let run = try box.run(["thumbnail", path, "--output", output, "--json"], store: false)
        #expect(run.status == 2, "\(damage): \(run.status) \(run.stderr)")
        #expect(run.stderr.hasPrefix("likes: warning: \(path) is damaged: ") && run.stderr.contains(expected), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        let report = try run.object()
        #expect((report["damage"] as? String)?.isEmpty == false && report["width"] as? Int == 512)
        #expect((try? JPEGDecoder.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: output)))))?.width == 512, "the thumbnail is whole")
        // A like keeps the photo as it is and says it is damaged; import lists it.
        let like = try box.run(["like", "broken-\(damage)", "--image", path])
        #expect(like.status == 0 && like.stderr.contains("is a damaged JPEG") && like.stdout.hasPrefix("Liked broken-\(damage)"), "\(like.stderr)")
        let folder = box.path("folder-\(damage)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/imported-\(damage).jpg"))
        let imported = try box.run(["import", folder, "--json"]).object()
        #expect((imported["damaged"] as? [[String: String]])?.first?["id"] == "imported-\(damage)", "\(imported)")
        #expect(try box.run(["verify"]).status == 0, "a damaged JPEG is still the photo liked")
    }

    /// A file cut short with no end marker: no photo to like (a download cut short), but its
    /// thumbnail is what could be read, with the warning and exit 2.
    @Test func aFileCutShortWithoutItsEndStillGivesAThumbnail() throws {
        let path = box.file("cut.jpg", Samples.data("rocket.jpg").prefix(60_000))
        let run = try box.run(["thumbnail", path, "--output", box.path("cut-t.jpg")], store: false)
        #expect(run.status == 2 && run.stderr.contains("is damaged: its data ends before its last scan does (cut short)"), "\(run.stderr)")
        #expect(try box.run(["like", "cut", "--image", path]).status == 65)
    }

    /// Sound files give no warning and exit 0 (the bundled photos).
    @Test func soundPhotosGiveNoWarning() throws {
        for name in ["rocket", "retina", "hubble_deep_field", "astronaut", "coffee", "chelsea"] {
            let run = try box.run(["thumbnail", Samples.photo("\(name).jpg").path, "--output", box.path("\(name)-t.jpg")], store: false)
            #expect(run.status == 0 && run.stderr.isEmpty, "\(name): \(run.stderr)")
        }
    }

    @Test(arguments: [
        (["thumbnail", "/nowhere/x.jpg", "--output", "/tmp/x.jpg"], 66, "likes: The photo /nowhere/x.jpg does not exist. Check the path."),
        (["thumbnail", "{photo}"], 64, "likes: thumbnail needs --output OUT, the file to write. See `likes thumbnail --help`."),
        (
            ["thumbnail", "{photo}", "--output", "{out}", "--size", "4"], 64,
            "likes: --size takes a long side of 8 to 4096 pixels; 4 is not one. See `likes thumbnail --help`."
        ),
        (
            ["thumbnail", "{cmyk}", "--output", "{out}"], 65,
            "likes: {cmyk}: This kind of JPEG cannot be scaled: four colour components (CMYK or YCCK). Give a baseline or progressive JPEG."
        ),
        (
            ["thumbnail", "{text}", "--output", "{out}"], 65,
            "likes: {text}: Not a JPEG file: it does not start with FF D8. Give a baseline or progressive JPEG."
        ),
        (
            ["thumbnail", "{photo}", "--output", "/nowhere/out.jpg"], 1,
            "likes: The thumbnail cannot be written to /nowhere/out.jpg. Check that its folder exists and is writable."
        ),
    ])
    func failuresSayWhatWasWrongInOneLine(arguments: [String], status: Int32, message: String) throws {
        let text = box.url.appendingPathComponent("notes.txt")
        try Data("not a photo".utf8).write(to: text)
        let cmyk = Samples.fixtures.appendingPathComponent("../jpeg/pillow/pil_sample_cmyk.jpg").standardizedFileURL.path
        let output = box.url.appendingPathComponent("out.jpg").path
        let substitutions = ["{photo}": Samples.photo("rocket.jpg").path, "{cmyk}": cmyk, "{text}": text.path, "{out}": output]
        let run = try box.run(arguments.map { argument in substitutions[argument] ?? argument }, store: false)
        var expected = message
        for (placeholder, value) in substitutions { expected = expected.replacingOccurrences(of: placeholder, with: value) }
        #expect(run.status == status && run.stderr == expected + "\n", "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func likeAndImportMakeEachPhotosThumbnailAfterTheLike() throws {
        let like = try box.run(["like", "rocket", "--image", Samples.photo("rocket.jpg").path, "--json"])
        #expect(like.status == 0, "\(like.stderr)")
        let thumbnail = try #require(try like.object()["thumbnail"] as? [String: Any])
        #expect(thumbnail["width"] as? Int == 320 && thumbnail["height"] as? Int == 214)
        let file = try #require(thumbnail["file"] as? String)
        #expect(file.hasPrefix(box.store.path + "/thumbnails/"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)).count == thumbnail["bytes"] as? Int)

        let folder = box.url.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["chelsea.jpg", "coffee.jpg", "astronaut.jpg"] {
            try FileManager.default.copyItem(at: Samples.photo(name), to: folder.appendingPathComponent(name))
        }
        #expect(try box.run(["import", folder.path]).status == 0)
        let listed = try box.run(["list", "--json"]).array()
        #expect(listed.count == 4)
        for record in listed { #expect(record["thumbnail"] is [String: Any], "\(record["id"] ?? "")") }
        #expect(try box.run(["verify"]).status == 0)

        let unliked = try box.run(["unlike", "rocket"])
        #expect(unliked.status == 0 && !FileManager.default.fileExists(atPath: file))
    }
}

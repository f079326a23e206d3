// End-to-end: thumbnails through the `likes` binary: `likes thumbnail` on any JPEG, and the
// thumbnail each like, import and repair makes in the store.

import Foundation
import JPEGCodec
import Testing

@Suite struct ThumbnailCommandTests {
    let box = Sandbox()

    @Test func thumbnailWritesASmallBaselineJPEGOfAnyPhoto() throws {
        let output = box.url.appendingPathComponent("small.jpg")
        let run = try box.run(["thumbnail", Samples.photo("retina.jpg").path, "--output", output.path, "--json"], store: false)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.object()
        let bytes = [UInt8](try Data(contentsOf: output))
        #expect(report["file"] as? String == output.path && report["bytes"] as? Int == bytes.count)
        #expect(report["width"] as? Int == 353 && report["height"] as? Int == 353)
        let decoded = try JPEGDecoder.decode(bytes)
        #expect(decoded.width == 353 && decoded.height == 353)
        // Baseline: the frame header is SOF0.
        #expect(bytes.indices.dropLast().contains { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })

        let sized = try box.run(["thumbnail", Samples.photo("rocket.jpg").path, "--output", output.path, "--size", "100"], store: false)
        #expect(sized.status == 0 && sized.stdout.hasPrefix("Wrote \(output.path): 100×67, "), "\(sized.stdout)\(sized.stderr)")
        #expect(!FileManager.default.fileExists(atPath: box.store.path), "the store is left alone")
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

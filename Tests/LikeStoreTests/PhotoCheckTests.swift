// The store's check of an image, JPEGCodec's checked header read: its reasons reach the user
// naming which image they are about, and a file read through its window gives what its bytes give.

import Foundation
import JPEGCodec
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct PhotoCheckTests {
    @Test func reasonsNameTheImageTheyAreAbout() {
        #expect(throws: StoreError.notJPEG(image: .image, reason: "the data is empty")) { try PhotoCheck.header(of: Data()) }
        #expect(throws: StoreError.notJPEG(image: .userImage, reason: "it is a GIF image, not a JPEG")) {
            try PhotoCheck.header(of: Data("GIF89a..".utf8), kind: .userImage)
        }
    }

    /// A photo whose segments span many windows: a 64 KB window moved segment by segment must
    /// read what the bytes in memory read, the frame header far from the first window included.
    @Test(arguments: ["rocket.jpg", "retina.jpg", "hubble_deep_field.jpg"])
    func aFileReadThroughItsWindowGivesWhatItsBytesGive(name: String) throws {
        let folder = TemporaryFolder()
        let bytes = SamplePhotos.data(name)
        var padded = Data(bytes.prefix(2))
        // One comment segment of 65,533 bytes, then 200 of 1,004 bytes, then the photo's own.
        padded += Data([0xFF, 0xFE, 0xFF, 0xFF]) + Data(repeating: 0x41, count: 65_533)
        for _ in 0..<200 { padded += Data([0xFF, 0xFE, 0x03, 0xEE]) + Data(repeating: 0x42, count: 1_004) }
        padded += bytes.dropFirst(2)
        for (label, data) in [("whole", bytes), ("padded", padded)] {
            let url = folder.url.appendingPathComponent("\(label)-\(name)")
            try data.write(to: url)
            let descriptor = open(url.path, O_RDONLY)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            let fromFile = try PhotoCheck.header(ofFile: descriptor, size: data.count, path: url.path)
            #expect(fromFile == (try PhotoCheck.header(of: data)), "\(label)")
            // The same file, its last byte not counted: no EOI at the end.
            #expect(throws: StoreError.notJPEG(image: .image, reason: "it does not end with the EOI marker (FF D9), so it is probably cut short")) {
                try PhotoCheck.header(ofFile: descriptor, size: data.count - 1, path: url.path)
            }
        }
    }

    @Test func aFileThatShrankIsSaidToHaveChanged() throws {
        let folder = TemporaryFolder()
        let url = folder.url.appendingPathComponent("photo.jpg")
        let bytes = SamplePhotos.data("rocket.jpg")
        try bytes.write(to: url)
        let descriptor = open(url.path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(throws: StoreError.notJPEG(image: .image, reason: "the file changed while it was being read")) {
            try PhotoCheck.header(ofFile: descriptor, size: bytes.count + 100, path: url.path)
        }
    }

    @Test func aFileThatCannotBeReadIsAnInputOutputError() throws {
        let folder = TemporaryFolder()
        let descriptor = open(folder.url.path, O_RDONLY | O_DIRECTORY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(throws: StoreError.io(action: "read the image", path: folder.url.path, code: EISDIR)) {
            try PhotoCheck.header(ofFile: descriptor, size: 4096, path: folder.url.path)
        }
    }
}

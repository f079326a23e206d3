// libFuzzer harness: any bytes after an Exif signature are read without a trap, without reading
// outside them, and give an orientation of 1 to 8 and texts of at most 256 printable bytes; the
// same bytes as the APP1 segment of a small JPEG leave its size readable. Built by Fuzz/run.sh.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExif(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let tiff = Array(UnsafeBufferPointer(start: data, count: min(size, 65_000)))
    let facts = ExifFacts(app1: ExifFacts.signature + tiff)
    precondition((1...8).contains(facts.orientation))
    for text in [facts.camera.make, facts.camera.model, facts.camera.lens, facts.camera.exposureTime, facts.camera.takenAt] {
        if let text { precondition(!text.isEmpty && text.utf8.count <= 256 && text.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F }) }
    }
    if let iso = facts.camera.iso { precondition(iso > 0) }
    // In a file: SOI, the APP1 segment, a frame header, EOI.
    let payload = ExifFacts.signature + tiff
    var file: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    file += [0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x10, 0x00, 0x20, 0x01, 0x01, 0x11, 0x00, 0xFF, 0xD9]
    let header = file.withUnsafeBytes { try? JPEGHeader(checking: $0) }
    precondition(header?.width == 32 && header?.height == 16 && header?.exif == facts)
    precondition(file.withUnsafeBytes { JPEGMetadata(reading: $0) }.exif == facts)
    return 0
}

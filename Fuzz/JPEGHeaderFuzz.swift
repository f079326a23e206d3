// libFuzzer harness: the JPEG check and the lenient header read must refuse or accept any bytes
// without crashing; what the check accepts must really start with SOI, end with EOI and have a
// size, and the lenient read must find the same frame. Built by Fuzz/run.sh.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEGHeader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let read = try? JPEGHeader(reading: bytes)
    if let header = try? JPEGHeader(checking: bytes) {
        precondition(size >= 4 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[size - 2] == 0xFF && bytes[size - 1] == 0xD9)
        precondition(header.width > 0 && header.height > 0)
        precondition(read == header, "the lenient read found another frame than the check")
    }
    return 0
}

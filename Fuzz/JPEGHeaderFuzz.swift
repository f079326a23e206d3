// libFuzzer harness: the JPEG check must refuse or accept any bytes without crashing, and what it
// accepts must really start with SOI, end with EOI and have a size. Built by Fuzz/run.sh.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEGHeader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    if let header = try? JPEGHeader(parsing: bytes) {
        precondition(size >= 4 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[size - 2] == 0xFF && bytes[size - 1] == 0xD9)
        precondition(header.width > 0 && header.height > 0)
    }
    return 0
}

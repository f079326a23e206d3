// libFuzzer harness: the journal readers must take any bytes without crashing — the whole-file
// index, a single line, and the time-and-key reader of the newest-page walk — and a line that
// parses must encode back to itself. Built by Fuzz/run.sh.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJournal(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let index = JournalIndex(parsing: bytes)
    precondition(index.lineCount >= 0)
    var start = 0
    while start < bytes.count {
        let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
        let line = bytes[start..<end]
        if let parsed = JournalLine.parse(line) {
            precondition(Array(parsed.encoded.dropLast()) == Array(line) || parsed.operation == .unliked || parsed.operation == .purged)
            precondition(JournalLine.timeAndKey(line) != nil || parsed.operation == .purged || parsed.operation == .header)
        }
        _ = JournalLine.timeAndKey(line)
        _ = StorageKey.decode(String(decoding: line, as: UTF8.self))
        start = end + 1
    }
    return 0
}

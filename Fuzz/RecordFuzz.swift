// libFuzzer harness: the record reader must take any bytes without crashing, and whatever it
// takes must be what JSONDecoder makes of the same bytes. Built by Fuzz/run.sh.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecord(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    if let fast = RecordReader.record(in: bytes) {
        precondition(fast == (try? JSONDecoder().decode(StoredRecord.self, from: bytes)))
    }
    return 0
}

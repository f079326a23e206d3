// libFuzzer harness: the journal reader must take any bytes without crashing — read forward
// into an index, walked backward from the end, its end read for recovery, scanned as the catalog
// and jumped in as a cursor does — and a line that parses must encode back to itself. Built by
// Fuzz/run.sh.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJournal(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Every other line "committed", so that both answers of the last-line check are taken.
    let reader = JournalReader(source: bytes, isCommitted: { $0.at % 2 == 0 })
    let index = try! JournalIndex(reading: reader)
    precondition(index.lineCount >= 0)
    var forward: [JournalLine] = []
    let end = try! reader.forward { item in
        if let line = item.line { forward.append(line) }
        return true
    }
    precondition(end.end <= bytes.count && end.end + end.tornTailBytes <= bytes.count)
    var backward: [JournalLine] = []
    if try! reader.backward({ line in
        backward.append(line)
        return true
    }) == .header {
        // A whole journal reads the same both ways (the header aside).
        precondition(backward.reversed() == forward.filter { $0.operation != .header })
    }
    _ = try! reader.end()
    _ = try! reader.snapshotEnd()
    // The catalog: every photo met once, in the listing's order unless the scan says otherwise.
    var keys = Set<[UInt8]>()
    var places: [ListingKey] = []
    let scanned = try! CatalogScan.photos(in: reader) { photo in
        precondition(keys.insert(Array(photo.liked.key)).inserted)
        places.append(photo.listingKey)
        return true
    }
    if scanned == .complete { precondition(zip(places, places.dropFirst()).allSatisfy { $0 > $1 }) }
    let mapped = JournalReader(source: MappedJournalBytes(bytes: bytes), isCommitted: { $0.at % 2 == 0 })
    for place in places.prefix(3) + [ListingKey(likedAt: .min, key: "")] {
        for newestFirst in [true, false] {
            var previous: ListingKey?
            _ = try! mapped.likedLines(after: place, newestFirst: newestFirst) { line in
                let here = ListingKey(line)
                precondition(newestFirst ? here < place : place < here)
                if let previous { precondition(newestFirst ? here < previous : previous < here) }
                previous = here
                return true
            }
        }
    }
    var start = 0
    while start < bytes.count {
        let lineEnd = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
        let line = bytes[start..<lineEnd]
        if let parsed = JournalLine.parse(line) {
            precondition(Array(parsed.encoded.dropLast()) == Array(line))
        }
        _ = StorageKey.decode(String(decoding: line, as: UTF8.self))
        start = lineEnd + 1
    }
    return 0
}

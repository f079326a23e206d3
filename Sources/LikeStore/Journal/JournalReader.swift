// Owns reading likes.journal: splitting it into lines, forward from an offset or backward from
// the end; a torn last line; the rule that an `A` line takes back the line before it; and the
// check of whether the last line's change committed. Called only through Journal, by its four
// clients: the index (JournalIndex), a writer's recovery (Journal.recoverEnd), the newest-page
// walk (OpenStore.newestPage) and observers (JournalFollower).

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Bytes a journal is read from: an open file, or an array (for tests and the fuzzer).
package protocol JournalBytes {
    /// Which file: another file put in place under the journal's name has another identity.
    /// `nil` for bytes in memory.
    var identity: UInt64? { get }
    /// The length now; a file may grow between two reads.
    func currentSize() throws -> Int
    /// The bytes in `range`; fewer when the source ends sooner.
    func read(_ range: Range<Int>) throws -> [UInt8]
    /// Reads into `buffer` from `offset`; returns how many bytes, fewer when the source ends.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int
    /// All the bytes at once, where the source can lend them without a copy; `nil` otherwise.
    func withMappedBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) throws -> Result?
}

extension Array: JournalBytes where Element == UInt8 {
    package var identity: UInt64? { nil }
    package func currentSize() throws -> Int { count }
    package func read(_ range: Range<Int>) throws -> [UInt8] { Array(self[range.clamped(to: 0..<count)]) }
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int {
        let part = self[(offset..<(offset + buffer.count)).clamped(to: 0..<count)]
        part.withUnsafeBytes { buffer.copyMemory(from: $0) }
        return part.count
    }
    /// `nil`: tests and the fuzzer read arrays chunk by chunk, as files are read.
    package func withMappedBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) throws -> Result? { nil }
}

/// Bytes in memory lent whole, as a journal mapped under a lock is: for tests and the fuzzer,
/// which read plain arrays chunk by chunk.
package struct MappedJournalBytes: JournalBytes {
    let bytes: [UInt8]

    /// A journal of these bytes, as if read from a file.
    package init(bytes: [UInt8]) { self.bytes = bytes }
    package var identity: UInt64? { nil }
    package func currentSize() throws -> Int { bytes.count }
    package func read(_ range: Range<Int>) throws -> [UInt8] { try bytes.read(range) }
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int { try bytes.read(into: buffer, at: offset) }
    package func withMappedBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) throws -> Result? {
        try bytes.withUnsafeBufferPointer(body)
    }
}

/// Reads a journal's lines as they stand once settled.
///
/// Settled means: a line that an `A` line takes back is not handed on, and neither is the `A`
/// line; a last line (the last one ending in a newline) that describes a photo's change is
/// checked with `isCommitted`, and not handed on when its change did not take effect (its writer
/// died before the commit, and the next writer will append the `A` line). Bytes after the last
/// newline are a torn append, never handed on. The first line must be the header, and no other
/// line may be; a line breaking that rule counts as malformed.
package struct JournalReader {
    package let source: any JournalBytes
    /// Whether the change a last line describes took effect, judged by the record file.
    let isCommitted: (JournalLine) throws -> Bool

    /// A reader of `source`, asking `isCommitted` whether the change of a last line took effect.
    package init(source: any JournalBytes, isCommitted: @escaping (JournalLine) throws -> Bool) {
        self.source = source
        self.isCommitted = isCommitted
    }

    // MARK: Forward

    /// One line read forward: `line` is `nil` when it is malformed. `number` counts the lines
    /// from the offset read from, starting at 1; `start` and `end` are offsets in the file,
    /// `end` just after the newline.
    package struct Item {
        package var line: JournalLine?
        var number: Int
        var start: Int
        var end: Int
    }

    /// Where a forward read ended.
    package struct ForwardEnd {
        /// The offset after the last line dealt with: handed on, taken back or passed over. It
        /// stops before a last line whose change did not commit, and before a torn append.
        package var end: Int
        /// Every line read, malformed and taken back ones included.
        package var lineCount = 0
        /// Bytes after the last newline.
        package var tornTailBytes = 0
    }

    /// Reads the lines from `offset` (the start of a line) to the end, settled, handing each
    /// one (or each malformed one) to `body`, which returns false to stop.
    @discardableResult
    package func forward(from offset: Int = 0, _ body: (Item) throws -> Bool) throws -> ForwardEnd {
        var result = ForwardEnd(end: offset)
        // A change line waits here until the next line says whether an `A` line takes it back.
        var pending: Item?
        var stopped = false
        func handOn(_ item: Item) throws {
            result.end = item.end
            if try !body(item) { stopped = true }
        }
        result.tornTailBytes = try completeLines(from: offset) { bytes, start, end in
            result.lineCount += 1
            let line = JournalLine.parse(bytes).flatMap { ($0.operation == .header) == (start == 0) ? $0 : nil }
            let item = Item(line: line, number: result.lineCount, start: start, end: end)
            if let waiting = pending {
                pending = nil
                if let line, let changed = waiting.line, line.takesBack(changed) {
                    result.end = item.end  // it never happened
                    return true
                }
                try handOn(waiting)
                if stopped { return false }
            }
            if line?.operation == .aborted {
                result.end = item.end  // an `A` line with nothing to take back says nothing
            } else if line?.operation.changesPhoto == true {
                pending = item
            } else {
                try handOn(item)
            }
            return !stopped
        }
        if !stopped, let last = pending, let line = last.line, try isCommitted(line) {
            try handOn(last)
        }
        return result
    }

    /// How many bytes ``completeLines(from:_:)`` reads at a time: a walk through a journal of
    /// 100,000 photos holds a megabyte of it, not the whole file.
    package static let forwardPiece = 1 << 20

    /// Hands each complete line from `offset` (the start of a line) to the journal's length as it
    /// is now, without its newline, with the offsets of its start and of just after its newline,
    /// reading a piece at a time; `visit` returns false to stop. Returns the bytes after the
    /// last newline (a torn append), 0 when it stopped.
    private func completeLines(
        from offset: Int, _ visit: (UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) throws -> Bool
    ) throws -> Int {
        let size = try source.currentSize()
        var carried: [UInt8] = []
        var position = offset  // where the next piece starts in the file
        while position < size {
            let piece = try source.read(position..<min(size, position + Self.forwardPiece))
            guard !piece.isEmpty else { break }
            let bufferStart = position - carried.count  // the file offset of the buffer's first byte
            let buffer = carried.isEmpty ? piece : carried + piece
            position += piece.count
            var rest = 0
            let goOn = try buffer.withUnsafeBufferPointer { bytes in
                while let newline = bytes[rest...].firstIndex(of: 0x0A) {
                    let line = UnsafeBufferPointer(rebasing: bytes[rest..<newline])
                    let start = bufferStart + rest
                    rest = newline + 1
                    guard try visit(line, start, bufferStart + rest) else { return false }
                }
                return true
            }
            guard goOn else { return 0 }
            carried = Array(buffer[rest...])
        }
        return carried.count
    }

    /// The offset just after the header and the snapshot lines it announces: where the changes
    /// of a rebuilt journal begin (its snapshot describes the store, not changes).
    package func snapshotEnd() throws -> Int {
        var linesToSkip = 1
        var end = 0
        try forwardLines { bytes, lineEnd in
            if end == 0, let header = JournalLine.parse(bytes), header.operation == .header {
                linesToSkip += Int(header.bytes)
            }
            end = lineEnd
            linesToSkip -= 1
            return linesToSkip > 0
        }
        return end
    }

    /// The first line, read alone: the header of a sound journal.
    func firstLine() throws -> JournalLine? {
        let size = try source.currentSize()
        var length = 512
        while true {
            let bytes = try source.read(0..<min(size, length))
            if let newline = bytes.firstIndex(of: 0x0A) { return JournalLine.parse(bytes[..<newline]) }
            guard length < size else { return nil }
            length *= 8
        }
    }

    /// Every complete line from the start that parses, unsettled: lines an `A` line takes back are
    /// handed on too, and so is the `A` line. What the evidence of a damaged journal is read from.
    func forEachParsableLine(_ body: (JournalLine) throws -> Void) throws {
        try forwardLines { bytes, _ in
            if let line = JournalLine.parse(bytes) { try body(line) }
            return true
        }
    }

    /// Every complete line from the start, as bytes, unsettled; `visit` returns false to stop.
    private func forwardLines(_ visit: (UnsafeBufferPointer<UInt8>, _ end: Int) throws -> Bool) throws {
        _ = try completeLines(from: 0) { bytes, _, end in try visit(bytes, end) }
    }

    // MARK: Backward

    /// How a backward walk ended.
    package enum BackwardEnd: Equatable {
        /// It reached the header: every line was read.
        case header
        /// `body` asked to stop.
        case stopped
        /// It met a malformed line, or the start of the file without a header.
        case damaged
        /// It reached the floor it was given: every line from there on was read.
        case floor
    }

    /// Walks the lines from the end back to the header, newest first, settled as ``forward(from:_:)``
    /// settles them, handing each to `body`, which returns false to stop. Reads 64 KiB at a time:
    /// the cost is that of the lines walked, whatever the length of the journal.
    package func backward(_ body: (JournalLine) throws -> Bool) throws -> BackwardEnd {
        var malformed = false
        let end = try backwardViews { view in
            guard let line = JournalLine(view: view) else {
                malformed = true
                return false
            }
            return try body(line)
        }
        return malformed ? .damaged : end
    }

    /// Walks the lines back as ``backward(_:)`` does, handing each on as a view over the bytes
    /// read (valid during the call), so that a scan of the whole journal makes no string: how
    /// the catalog is read (see ``CatalogScan``).
    ///
    /// `checkingEveryField` false: lines are parsed as a scan needs them (see
    /// ``JournalLine/View/init(_:checkingEveryField:)``). `floor`: the walk ends (`floor`) at the
    /// line that ends there, unread, unless an `A` line after it may take it back (`damaged`).
    func backwardViews(checkingEveryField: Bool = true, floor: Int = 0, _ body: (JournalLine.View) throws -> Bool) throws -> BackwardEnd {
        var takingBack: (key: [UInt8], generation: [UInt8])?  // an `A` line met, which may take back the line before it
        var isLastLine = true
        return try backwardLines { bytes, start in
            if start < floor { return takingBack == nil ? .floor : .damaged }
            guard let view = JournalLine.View(bytes, checkingEveryField: checkingEveryField), (view.operation == .header) == (start == 0)
            else { return .damaged }
            let wasLastLine = isLastLine
            isLastLine = false
            if view.operation == .header { return .header }
            if let aborted = takingBack {
                takingBack = nil
                if view.operation.changesPhoto, view.key.elementsEqual(aborted.key), view.generation.elementsEqual(aborted.generation) {
                    return nil
                }
            }
            if view.operation == .aborted {
                takingBack = (Array(view.key), Array(view.generation))
                return nil
            }
            if wasLastLine, view.operation.changesPhoto {
                guard let line = JournalLine(view: view) else { return .damaged }
                if try !isCommitted(line) { return nil }
            }
            return try body(view) ? nil : .stopped
        }.end
    }

    // MARK: Jumping to a place in the listing

    /// Hands on the `L` lines that follow `place` in the listing's order, newest first or oldest
    /// first, as views, until `body` returns false; found by a binary search over the file, so
    /// the cost is the lines handed on, wherever the place is. Returns false, having stopped,
    /// where two `L` lines turn out to be out of order, and `nil` where the file is not mapped
    /// or not of the catalog's format (whose `L` lines are in the listing's order: a writer's clock
    /// ticks at least once per line, and a rewritten journal is sorted).
    ///
    /// The lines are not settled: a like taken back by an `A` line, or whose photo was unliked
    /// or liked again since, is handed on too. The caller confirms each by the photo's record,
    /// which has that line's `likedAt` only while that like is the photo's current one.
    package func likedLines(after place: ListingKey, newestFirst: Bool, _ body: (JournalLine.View) throws -> Bool) throws -> Bool? {
        try source.withMappedBytes { bytes -> Bool? in
            guard let headerEnd = Self.nextLineStart(in: bytes, from: 0),
                let header = JournalLine.View(UnsafeBufferPointer(rebasing: bytes[..<(headerEnd - 1)])), header.operation == .header,
                header.key.elementsEqual(JournalLine.formatName.utf8) || header.key.elementsEqual(JournalLine.formatWithoutTaken.utf8),
                let lastNewline = Self.lastNewline(in: bytes, before: bytes.count)
            else { return nil }
            let end = lastNewline + 1  // a torn append after it is no line
            let boundary = Self.firstLiked(atOrAfter: place, in: bytes, from: headerEnd, to: end)
            // Each line handed on must follow the place, and the one before it, strictly: where one
            // does not, the journal is out of order and the jump cannot be trusted.
            var previous = place
            func inOrder(_ view: JournalLine.View) -> Bool {
                let here = ListingKey(view)
                defer { previous = here }
                return newestFirst ? here < previous : previous < here
            }
            var start = boundary
            if newestFirst {
                while start > headerEnd {
                    let lineStart = Self.lastNewline(in: bytes, before: start - 1).map { $0 + 1 } ?? 0
                    defer { start = lineStart }
                    guard let view = JournalLine.View(UnsafeBufferPointer(rebasing: bytes[lineStart..<(start - 1)]), checkingEveryField: false),
                        view.operation == .liked
                    else { continue }
                    guard inOrder(view) else { return false }
                    if try !body(view) { return true }
                }
            } else {
                while start < end, let next = Self.nextLineStart(in: bytes, from: start) {
                    defer { start = next }
                    guard let view = JournalLine.View(UnsafeBufferPointer(rebasing: bytes[start..<(next - 1)]), checkingEveryField: false),
                        view.operation == .liked, ListingKey(view) != place
                    else { continue }
                    guard inOrder(view) else { return false }
                    if try !body(view) { return true }
                }
            }
            return true
        } ?? nil
    }

    /// The start of the first `L` line between `start` and `end` whose place is at or after
    /// `place`, or `end`: a binary search over bytes, each probe reading forward from a middle
    /// byte to the next `L` line.
    private static func firstLiked(atOrAfter place: ListingKey, in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        var low = start  // every `L` line before it is before `place`
        var high = end  // the boundary is at or before it
        while high - low > 4096 {
            let middle = low + (high - low) / 2
            // The line holding `middle` runs to `high`: the last stretch is read line by line.
            guard let probe = nextLineStart(in: bytes, from: middle - 1), probe < high else { break }
            guard let found = firstLikedLine(in: bytes, from: probe, to: high) else {
                // No `L` line starts in probe..<high, so probe serves as the boundary as well as
                // high does: both walks heed `L` lines only. (Not `middle`: a boundary inside a
                // line would cut that line in two, and the walk back would pass over it.)
                high = probe
                continue
            }
            if ListingKey(found.view) < place {
                low = found.end
            } else {
                high = found.start
            }
        }
        var line = low
        while let found = firstLikedLine(in: bytes, from: line, to: high) {
            if !(ListingKey(found.view) < place) { return found.start }
            line = found.end
        }
        return high
    }

    /// The first `L` line that starts in `start..<end`: its view, start and end (after its newline).
    private static func firstLikedLine(
        in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int
    ) -> (view: JournalLine.View, start: Int, end: Int)? {
        var line = start
        while line < end, let next = nextLineStart(in: bytes, from: line) {
            if bytes[line] == JournalLine.Operation.liked.rawValue,
                let view = JournalLine.View(UnsafeBufferPointer(rebasing: bytes[line..<(next - 1)]), checkingEveryField: false)
            {
                return (view, line, next)
            }
            line = next
        }
        return nil
    }

    /// The offset just after the first newline at or after `offset`; `nil` when there is none.
    private static func nextLineStart(in bytes: UnsafeBufferPointer<UInt8>, from offset: Int) -> Int? {
        guard offset < bytes.count, let base = bytes.baseAddress,
            let found = memchr(base + offset, 0x0A, bytes.count - offset)
        else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
    }

    /// The journal's end, for a writer about to append: its last complete line (`nil` when there
    /// is none or it is malformed), whether that line's change committed, and the torn bytes
    /// after it.
    package func end() throws -> (lastLine: JournalLine?, committed: Bool, tornTailBytes: Int) {
        var last: JournalLine?
        let walk = try backwardLines { bytes, start in
            last = JournalLine.parse(bytes).flatMap { ($0.operation == .header) == (start == 0) ? $0 : nil }
            return .stopped
        }
        guard let last else { return (nil, false, walk.tornTailBytes) }
        return (last, try !last.operation.changesPhoto || isCommitted(last), walk.tornTailBytes)
    }

    /// The journal's last two photo changes, newest first, leaving out each `A` line and the line
    /// it takes back: the changes a power cut may have left waiting for their rename (see
    /// `WriteSession`). Unjudged: `isCommitted` is not asked.
    func lastChanges() throws -> [JournalLine] {
        var changes: [JournalLine] = []
        var takenBack = 0  // `A` lines met whose line is further back
        _ = try backwardLines { bytes, start in
            guard let line = JournalLine.parse(bytes), line.operation != .header, start > 0 else { return .stopped }
            if line.operation == .aborted {
                takenBack += 1
            } else if line.operation.changesPhoto {
                if takenBack > 0 {
                    takenBack -= 1
                } else {
                    changes.append(line)
                }
            }
            return changes.count == 2 ? .stopped : nil
        }
        return changes
    }

    /// The first read back; each next one is twice as long, up to the largest, so that a walk
    /// that stops soon reads little and one through the whole journal makes few calls.
    private static let firstChunkSize = 64 * 1024
    /// The first read back where the bytes are copied, not mapped: a page. The walk every
    /// command makes for the last two changes stops within a few hundred bytes, and copying 64 KB
    /// into memory zeroed for it was a twentieth of a newest page's time.
    private static let firstCopiedChunkSize = 4 * 1024
    private static let largestChunkSize = 1024 * 1024
    private static let largestMappedChunkSize = 8 * 1024 * 1024

    /// Asks the system to read the pages of `range` of a mapped file now, in one go.
    private static func willNeed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        guard let base = bytes.baseAddress, !range.isEmpty else { return }
        let page = Int(getpagesize())
        let first = (Int(bitPattern: base) + range.lowerBound) / page * page
        let last = Int(bitPattern: base) + range.upperBound
        _ = madvise(UnsafeMutableRawPointer(bitPattern: first), last - first, MADV_WILLNEED)
    }

    /// Lets the whole pages of `range` of a mapped file go from the process's memory; touched
    /// again, they are read again (from the page cache).
    static func letGo(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        guard let base = bytes.baseAddress, !range.isEmpty else { return }
        let page = Int(getpagesize())
        let first = (Int(bitPattern: base) + range.lowerBound + page - 1) / page * page
        let last = (Int(bitPattern: base) + range.upperBound) / page * page
        guard last > first else { return }
        _ = madvise(UnsafeMutableRawPointer(bitPattern: first), last - first, MADV_DONTNEED)
    }

    /// Where the journal's lines end for a reader that goes on from there later: the end of its
    /// last whole line (never within the bytes a killed append left after it, which the next
    /// writer cuts and writes its own line over), or, when that line's change has not taken
    /// effect yet (its writer is between the line and the record file, which a reader of the
    /// records would not see changed yet), that line's start.
    package func settledEnd() throws -> Int {
        let size = try source.currentSize()
        var lastStart: Int?
        var uncommitted = false
        let walk = try backwardLines { bytes, start in
            lastStart = start
            if let line = JournalLine.parse(bytes), line.operation.changesPhoto { uncommitted = try !isCommitted(line) }
            return .stopped
        }
        let whole = size - walk.tornTailBytes
        return uncommitted ? min(lastStart ?? whole, whole) : whole
    }

    /// Whether `offset` is where a line begins (the file's start, or just after a newline).
    func beginsALine(at offset: Int) throws -> Bool {
        if offset == 0 { return true }
        return try source.read((offset - 1)..<offset) == [0x0A]
    }

    /// Every complete line from the end back, as bytes with its offset; `visit` returns how the
    /// walk ends, or `nil` to go on. Bytes after the last newline are left out and counted.
    private func backwardLines(
        _ visit: (UnsafeBufferPointer<UInt8>, _ start: Int) throws -> BackwardEnd?
    ) throws -> (end: BackwardEnd, tornTailBytes: Int) {
        var walk = BackwardWalk()
        // Mapped, the file is asked for chunk by chunk back from its end (the mapping reads no
        // more than the page touched, see ``OpenFile/withMappedBytes(_:)``): a walk that stops
        // soon reads little from a cold cache, one through the whole file reads it in large parts.
        //
        // The pages walked are let go as the walk goes on, a step of at most 1 MB at a time
        // (MADV_DONTNEED: a read-only mapping of a file the lock keeps unchanged, so a page asked
        // for again is read again from the cache), so that a walk through the whole journal does
        // not hold all of it: a command's peak memory would otherwise grow with the collection.
        let mapped = try source.withMappedBytes { bytes -> BackwardEnd in
            var end = bytes.count  // the lines before it are unvisited (with a carried line's end)
            var chunkStart = bytes.count
            var chunkSize = Self.firstChunkSize
            while chunkStart > 0 {
                let chunkEnd = chunkStart
                chunkStart = max(0, chunkStart - chunkSize)
                chunkSize = min(2 * chunkSize, Self.largestMappedChunkSize)
                Self.willNeed(bytes, chunkStart..<chunkEnd)
                var stepEnd = chunkEnd
                while stepEnd > chunkStart {
                    let start = max(chunkStart, stepEnd - Self.largestChunkSize)
                    let outcome = try walk.lines(in: UnsafeBufferPointer(rebasing: bytes[start..<end]), from: start, visit)
                    if let reached = outcome.end { return reached }
                    Self.letGo(bytes, (start + outcome.carry)..<end)
                    end = start + outcome.carry
                    stepEnd = start
                }
            }
            return .damaged
        }
        if let mapped { return (mapped, walk.tornTailBytes) }
        var end = try source.currentSize()
        var carried: [UInt8] = []  // the end of a line whose start is in the next chunk back
        var chunkSize = Self.firstCopiedChunkSize
        while end > 0 {
            let start = max(0, end - chunkSize)
            chunkSize = min(2 * chunkSize, Self.largestChunkSize)
            // The chunk and, after it, the start of the line carried from the chunk after it.
            let chunk = try [UInt8](unsafeUninitializedCapacity: end - start + carried.count) { buffer, count in
                count = try source.read(
                    into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[..<(end - start)])), at: start)
                guard count == end - start else { return }
                _ = UnsafeMutableBufferPointer(rebasing: buffer[count...]).initialize(from: carried)
                count += carried.count
            }
            guard chunk.count == end - start + carried.count else { return (.damaged, walk.tornTailBytes) }  // cut while read
            end = start
            let outcome = try chunk.withUnsafeBufferPointer { try walk.lines(in: $0, from: start, visit) }
            if let reached = outcome.end { return (reached, walk.tornTailBytes) }
            carried = Array(chunk[..<outcome.carry])
        }
        return (.damaged, walk.tornTailBytes)
    }

    /// Where a walk back through chunks stands: whether it has found the last newline yet, and
    /// the torn bytes after it.
    private struct BackwardWalk {
        var seekingLastNewline = true
        var tornTailBytes = 0

        /// Visits the complete lines of `buffer`, which starts at offset `start` in the journal,
        /// from its end back; returns how the walk ended, or where the part to carry into the next
        /// chunk back ends (the start of a line whose beginning is in that chunk).
        mutating func lines(
            in buffer: UnsafeBufferPointer<UInt8>, from start: Int, _ visit: (UnsafeBufferPointer<UInt8>, _ start: Int) throws -> BackwardEnd?
        ) rethrows -> (end: BackwardEnd?, carry: Int) {
            var lineEnd = buffer.count  // lines end before here; everything after was visited
            if seekingLastNewline {
                guard let newline = JournalReader.lastNewline(in: buffer, before: buffer.count) else {
                    if start == 0 {
                        tornTailBytes = buffer.count
                        return (.damaged, 0)
                    }
                    return (nil, buffer.count)
                }
                tornTailBytes = buffer.count - newline - 1
                lineEnd = newline + 1
                seekingLastNewline = false
            }
            while lineEnd > 0 {
                let newline = JournalReader.lastNewline(in: buffer, before: lineEnd - 1)
                if newline == nil, start > 0 { break }  // its start is in the next chunk back
                let lineStart = newline.map { $0 + 1 } ?? 0
                if let outcome = try visit(UnsafeBufferPointer(rebasing: buffer[lineStart..<(lineEnd - 1)]), start + lineStart) {
                    return (outcome, 0)
                }
                lineEnd = lineStart
            }
            return (start == 0 ? .damaged : nil, lineEnd)
        }
    }

    /// The index of the last newline before `end`, eight bytes at a time where it can.
    @inline(__always)
    fileprivate static func lastNewline(in buffer: UnsafeBufferPointer<UInt8>, before end: Int) -> Int? {
        guard let base = buffer.baseAddress else { return nil }
        var index = end
        while index >= 8 {
            let word = UnsafeRawPointer(base + index - 8).loadUnaligned(as: UInt64.self) ^ 0x0A0A_0A0A_0A0A_0A0A
            // A zero byte in `word` is a newline (the classic test for a zero byte in a word).
            if (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0 { break }
            index -= 8
        }
        while index > 0 {
            index -= 1
            if base[index] == 0x0A { return index }
        }
        return nil
    }
}

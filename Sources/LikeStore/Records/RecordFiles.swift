// Owns records/: reading and decoding record files, judging a journal line by its record file,
// and writing a record in place (temporary name, flushed, renamed). Called by OpenStore,
// WriteSession, Journal (through the commit check) and repair (RepairPlan).

import Dispatch
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The record files of a store, one per liked photo: the truth the journal indexes.
package struct RecordFiles {
    package static let directoryName = StoreLayout.recordsDirectory

    let directory: StoreDirectory

    /// The record files in `directory` (the store's `records` folder).
    package init(directory: StoreDirectory) { self.directory = directory }

    /// Every record file, decoded: the slow, sure path used where the index cannot be trusted.
    struct Decoded {
        var entries: [LiveEntry] = []
        var records: [StoredRecord] = []
        /// A sentence per damaged record file.
        var damage: [String] = []
        var damagedKeys: Set<String> = []
    }

    /// The record of the photo with `key`, or `nil` when it has none.
    ///
    /// - Throws: ``StoreError/damagedRecord(file:reason:)`` when the file is no record
    ///   of that photo (malformed, another photo's, a folder or FIFO in its place); `io`.
    func read(key: String) throws -> StoredRecord? {
        let name = StoreLayout.recordFileName(key)
        let data: [UInt8]
        do {
            guard let read = try directory.readBytes(name) else { return nil }
            data = read
        } catch StoreError.io(_, _, let code) where code == EISDIR || code == ELOOP {
            // A folder, a FIFO or a link where the record should be: damage, not an I/O failure.
            // (No read or write goes through a link; repair sets it aside, a new like replaces it.)
            throw StoreError.damagedRecord(
                file: directory.path(name), reason: code == ELOOP ? "it is a symbolic link, not a file of the store" : "it is not a regular file")
        }
        do {
            let stored = try StoredRecord.decode(data)
            guard stored.key == key else {
                throw StoreError.damagedRecord(
                    file: directory.path(name), reason: "it holds the record of \(MessageText.quoted(stored.id))")
            }
            return stored
        } catch let error as StoreError {
            throw error
        } catch {
            // A record a later version wrote names its format: it is not damage.
            if let format = Self.newerFormat(of: data) {
                throw StoreError.newerFormat(file: directory.path(name), format: "record format \(format)")
            }
            throw StoreError.damagedRecord(file: directory.path(name), reason: Self.describe(error))
        }
    }

    /// The format a record file names, when it is one a later version writes (above 1).
    static func newerFormat(of bytes: [UInt8]) -> Int? {
        struct Format: Decodable { var format: Int }
        guard let format = try? JSONDecoder().decode(Format.self, from: Data(bytes)).format, format > 1 else { return nil }
        return format
    }

    /// The records of `keys`, in their order, each as ``read(key:)`` gives it.
    ///
    /// A page's records lie scattered over the disk. Read one after the other from a cold cache,
    /// each waits for its own read (about half a millisecond each here); so when the second takes
    /// longer than a read from memory would, the rest are read by up to eight threads at once,
    /// whose reads the disk serves together. From memory they are read in turn. (The second, not
    /// the first: a process's first record also pays for the decoder's first use, about as long
    /// as a read from the disk, and starting eight threads for a page in memory costs more than
    /// reading it.)
    func read(keys: [String]) -> [RecordRead] {
        guard keys.count > 1 else { return keys.map { key in RecordRead { try read(key: key) } } }
        var results = [RecordRead { try read(key: keys[0]) }]
        let started = DispatchTime.now().uptimeNanoseconds
        results.append(RecordRead { try read(key: keys[1]) })
        let rest = keys.dropFirst(2)
        let fromDisk = DispatchTime.now().uptimeNanoseconds - started > 150_000
        guard fromDisk, rest.count >= 2 else {
            results += rest.map { key in RecordRead { try read(key: key) } }
            return results
        }
        let shared = Locked((next: rest.startIndex, results: [RecordRead?](repeating: nil, count: keys.count)))
        let done = DispatchSemaphore(value: 0)
        let workers = min(8, rest.count)
        let records = self
        for _ in 0..<workers {
            startThread(named: "LikeKit.read") {
                while true {
                    let index: Int? = shared.withLock { state in
                        guard state.next < keys.endIndex else { return nil }
                        defer { state.next += 1 }
                        return state.next
                    }
                    guard let index else { break }
                    let result = RecordRead { try records.read(key: keys[index]) }
                    shared.withLock { $0.results[index] = result }
                }
                done.signal()
            }
        }
        for _ in 0..<workers { done.wait() }
        let gathered = shared.withLock { $0.results }
        // Every index was read by a worker; one that was not is read here.
        return results + rest.indices.map { index in gathered[index] ?? RecordRead { try read(key: keys[index]) } }
    }

    /// Whether the photo with `key` has a record file (of any kind), without reading it.
    func exists(key: String) throws -> Bool {
        try directory.entry(StoreLayout.recordFileName(key)) != nil
    }

    /// Whether a record file of `key` is there, read and looked at for its format (not decoded):
    /// what a question about a photo answers from, refusing a record a later version wrote.
    ///
    /// - Throws: ``StoreError/newerFormat(file:format:)`` for such a record; `io`.
    func existsInKnownFormat(key: String) throws -> Bool {
        let name = StoreLayout.recordFileName(key)
        let bytes: [UInt8]
        do {
            guard let read = try directory.readBytes(name) else { return false }
            bytes = read
        } catch StoreError.io(_, _, let code) where code == EISDIR || code == ELOOP {
            return true  // damage where the record should be: a photo liked, as `exists` says
        }
        if let format = Self.statedFormat(in: bytes), format > 1 {
            throw StoreError.newerFormat(file: directory.path(name), format: "record format \(format)")
        }
        return true
    }

    /// The number a record file's bytes give as `"format"`, found without decoding the rest (the
    /// first `"format"` followed by a colon: inside a string a quote is escaped); `nil` where
    /// there is none.
    package static func statedFormat(in bytes: [UInt8]) -> Int? {
        let key = Array(#""format""#.utf8)
        guard bytes.count > key.count else { return nil }
        var start = 0
        while start + key.count <= bytes.count {
            guard bytes[start..<start + key.count].elementsEqual(key) else {
                start += 1
                continue
            }
            var index = start + key.count
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09 || bytes[index] == 0x0D { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                start += 1  // the word as a value (an album named so), not the member: look on
                continue
            }
            index += 1
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09 || bytes[index] == 0x0D { index += 1 }
            var value = 0
            var digits = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]), digits < 9 {
                value = value * 10 + Int(bytes[index] - 0x30)
                digits += 1
                index += 1
            }
            return digits > 0 ? value : nil
        }
        return nil
    }

    /// Whether any record file is present.
    func hasAny() throws -> Bool {
        try directory.names().contains { StoreLayout.key(ofRecordFile: $0) != nil }
    }

    /// Whether the change a journal line describes took effect, judged by the record file.
    func hasCommitted(_ line: JournalLine) throws -> Bool {
        let stored: StoredRecord?
        do {
            stored = try read(key: line.key)
        } catch StoreError.damagedRecord {
            return true  // damage is for verify to report, not a reason to drop the line
        }
        switch line.operation {
        case .liked, .updated: return stored?.generation == line.generation
        case .unliked: return stored?.generation != line.generation
        default: return true
        }
    }

    /// Decodes every record file.
    func decodeAll() throws -> Decoded {
        var decoded = Decoded()
        for name in try directory.names() {
            // A link or directory with a record's name is no record; purge removes it.
            guard let key = StoreLayout.key(ofRecordFile: name), try directory.entry(name)?.isRegularFile == true else { continue }
            do {
                guard let record = try read(key: key) else { continue }
                decoded.entries.append(record.liveEntry)
                decoded.records.append(record)
            } catch StoreError.damagedRecord(let file, let reason) {
                decoded.damage.append("The record file \(file) is damaged (\(reason)).")
                decoded.damagedKeys.insert(key)
            }
        }
        return decoded
    }

    /// Writes `record` under a temporary name (by its generation, or `token`); returns that
    /// name. `durable`: flushed.
    func writeTemporary(_ record: StoredRecord, token: String? = nil, encoded: Data? = nil, durable: Bool) throws -> String {
        let temporary = StoreLayout.temporaryRecordFileName(record.key, token ?? record.generation)
        try directory.createFile(temporary, data: encoded ?? record.encoded(), durable: durable)
        return temporary
    }

    /// Renames a temporary record into place: the commit of its change. `durable`: the rename is
    /// flushed fully before this returns.
    func commit(_ temporary: String, of record: StoredRecord, durable: Bool) throws {
        try directory.rename(temporary, to: StoreLayout.recordFileName(record.key))
        if durable { try directory.sync(commit: true) }
    }

    /// Writes `record` back as its photo's current record file, unchanged (its generation is the
    /// one the journal names): a temporary file of a fresh name, flushed, renamed into place.
    func replace(with record: StoredRecord, durable: Bool) throws {
        let temporary = StoreLayout.temporaryRecordFileName(record.key, Generation.make())
        try record.encoded().withUnsafeBytes {
            try directory.replaceFile(
                StoreLayout.recordFileName(record.key), bytes: $0, temporary: temporary, durable: durable, flushFolder: durable ? true : nil)
        }
    }

    /// Removes the photo's record file: the commit of an unlike.
    func remove(key: String) throws {
        try directory.remove(StoreLayout.recordFileName(key))
    }

    /// Why a record file did not decode, as the end of a sentence.
    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            return context.debugDescription.isEmpty ? "its JSON is malformed" : "its JSON is malformed: \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, _):
            return "it has no \(key.stringValue)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type"
        default:
            return "\(error)"
        }
    }
}

/// What reading one record of a page gave. Not `Result<StoredRecord?, any Error>`: a generic type
/// of the standard library costs a new process a search of the runtime's conformance tables the
/// first time it is used (about as long as decoding a record), and a page is read once a process.
enum RecordRead: Sendable {
    case read(StoredRecord?)
    case failed(any Error)

    init(_ body: () throws -> StoredRecord?) {
        do {
            self = .read(try body())
        } catch {
            self = .failed(error)
        }
    }

    /// The record, or the error reading it threw.
    func get() throws -> StoredRecord? {
        switch self {
        case .read(let record): return record
        case .failed(let error): throw error
        }
    }
}

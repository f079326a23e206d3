// Owns likes.recent: the records the latest changes committed, kept so that an observer in another
// process, reading a change after later ones replaced its record, still delivers the record that
// change committed. Written by WriteSession under the exclusive lock; read by JournalFollower.

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// The records the store's latest likes and updates committed, one line each, newest last:
///
/// ```
/// KEY GENERATION RECORD
/// ```
///
/// RECORD is the record file's bytes as written, escaped as a journal field. The file is appended
/// to before the change's journal line, under the store's lock, and never flushed: it serves
/// observers, which a power cut ends anyway, and a line lost or torn only leaves an observer the
/// record as it is now (its change then names every part as touched). Once it passes a megabyte
/// it becomes `likes.recent.1`, replacing the one before, and a new one is begun: an observer more
/// than about two megabytes of records behind reads the records as they are now.
struct RecentRecords {
    static let fileName = "likes.recent"
    static let previousFileName = "likes.recent.1"
    /// The length at which the file is set aside and a new one begun.
    static let rotationLength = 1 << 20

    let root: StoreDirectory

    /// Notes the record a change is about to commit; under the store's exclusive lock. A failure
    /// is passed over: the change does not depend on it.
    func append(_ record: StoredRecord, encoded: Data) {
        var line = Array(record.key.utf8) + [0x20] + Array(record.generation.utf8) + [0x20]
        PercentEscaping.journalField.escape(encoded, into: &line)
        line.append(0x0A)
        if let size = try? root.entry(Self.fileName)?.size, size > Self.rotationLength {
            try? root.rename(Self.fileName, to: Self.previousFileName)
        }
        _ = try? root.append(Self.fileName, bytes: line, durable: false)
    }

    /// Every record the two files hold, by key and generation (`KEY GENERATION`): read once per
    /// batch of changes an observer looks up. Lines that are torn or malformed are passed over.
    func load() -> [String: Data] {
        var records: [String: Data] = [:]
        for name in [Self.previousFileName, Self.fileName] {
            guard let data = try? root.read(name) else { continue }
            for line in data.split(separator: 0x0A) {
                let fields = line.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
                guard fields.count == 3, let bytes = Array(fields[2]).withUnsafeBufferPointer(PercentEscaping.journalField.unescape) else {
                    continue
                }
                records[String(decoding: fields[0], as: UTF8.self) + " " + String(decoding: fields[1], as: UTF8.self)] = Data(bytes)
            }
        }
        return records
    }
}

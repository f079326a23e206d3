// Owns what a store still owes its sync folder across a journal written anew: the unlikes it made
// that no sync has published yet. An unliked photo's record is gone, and its `U` line is the one
// trace of the unlike, so the one writer of a new journal (Journal.rewrite: compaction, a rebuilt
// index, repair, a restore's sorting, a sync's own) carries those lines into it, whoever calls it.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

package enum SyncOwed {
    /// Enough of `sync/state.json` to tell which unlikes a sync has looked past.
    private struct Looked: Decodable {
        var format: Int?
        var position: JournalPosition?
    }

    /// The `U` lines of this store's own unlikes (not those a sync merged) in the journal
    /// `reader` reads that no sync has looked past, settled, the newest of each photo, in the
    /// journal's order: those after where the last sync looked, when that is this journal; every
    /// one when the store never synced (its first sync publishes them: an unlike made before it
    /// ends a like another device made earlier), when it is another journal (this one written
    /// anew since, carrying the lines owed then) or the store's sync state cannot be read (it may
    /// be a later version's). A damaged journal gives those of its lines that read.
    static func unlikeLines(in reader: JournalReader, root: StoreDirectory) throws -> [JournalLine] {
        var from = 0
        if let folder = try? root.subdirectoryIfFolder(StoreLayout.syncDirectory),
            let data = try? folder.read(Store.stateFileName(Store.syncStateName)),
            let looked = try? JSONDecoder().decode(Looked.self, from: data), (looked.format ?? 1) <= SyncFormat.current,
            let position = looked.position, position.inode != nil, position.inode == reader.source.identity,
            let header = position.header, try reader.firstLine()?.generation == header, position.offset <= (try reader.source.currentSize()),
            try reader.beginsALine(at: position.offset)
        {
            from = position.offset
        }
        var lines: [JournalLine] = []
        var newest: [String: Int] = [:]
        try reader.forward(from: from) { item in
            if let line = item.line, line.operation == .unliked, line.id != nil, !Store.isBySync(line) {
                newest[line.key] = lines.count
                lines.append(line)
            }
            return true
        }
        // Of a photo, only its last unlike matters to a sync (it ends everything before it).
        return lines.indices.filter { newest[lines[$0].key] == $0 }.map { lines[$0] }
    }
}

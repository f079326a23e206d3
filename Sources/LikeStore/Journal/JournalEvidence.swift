// Owns what a store's journals say of each photo past any damage: the current journal's readable
// lines and those of every journal a repair set aside under damaged/. Read by the repair, by a
// writer that must write the journal anew, and by purge: the evidence that keeps a photo whose
// record was lost from ever looking like an orphan.

/// What the journals of a store still say about each photo.
///
/// A photo's images are accounted for when a line names their generation: as live (the photo's
/// newest readable line likes it with them), or as ended (a line names them and a later line
/// replaced, unliked or took back that change). An image of a photo without a record that no
/// line names is a leftover of a write that never committed only where the current journal
/// accounts for every write; in a journal that is damaged, cut or missing, it may be the only copy
/// of a photo whose lines were lost, and is kept.
struct JournalEvidence {
    /// What the current journal says.
    var current = Knowledge()
    /// What each journal set aside by a repair says, the oldest first.
    var setAside: [Knowledge] = []
    /// Whether the current journal is there and whole: no malformed line, not cut short, a header.
    var currentIsSound = false
    /// The damage of the current journal, as a sentence fragment, when it is there but damaged.
    var currentDamage: String?
    /// Whether there is a current journal at all.
    var currentExists = false

    /// What one journal's readable lines say.
    struct Knowledge {
        /// The photos liked by their newest readable line, every line counted as committed but
        /// those an `A` line takes back: a record lost with its line the last one is no reason to
        /// think its change never happened.
        var live: [String: LiveEntry] = [:]
        /// Every image generation a readable line names, by key, whatever became of it.
        var mentioned: [String: Set<String>] = [:]

        /// Whether a line names generation `generation` of the photo with `key` as ended:
        /// replaced, unliked or taken back (named, and not the photo's live image).
        func ends(_ key: String, _ generation: String) -> Bool {
            guard mentioned[key]?.contains(generation) == true else { return false }
            guard let entry = live[key] else { return true }
            return entry.imageGeneration != generation && entry.userImageGeneration != generation
        }
    }

    /// Reads the current journal of `root` and the journals set aside under `damaged/`.
    init(root: StoreDirectory) throws {
        let journal = Journal(root: root)
        if let entry = try root.entry(Journal.fileName), entry.isRegularFile {
            currentExists = true
            current = try Self.read(journal)
            let index = try journal.index(records: nil)
            currentDamage = index.damage
            currentIsSound = index.damage == nil
        }
        guard let damaged = try root.subdirectoryIfFolder(StoreLayout.damagedDirectory) else { return }
        for stamp in try damaged.names().sorted() {
            guard let shelf = try damaged.subdirectoryIfFolder(stamp), try shelf.entry(Journal.fileName)?.isRegularFile == true else { continue }
            setAside.append(try Self.read(Journal(root: shelf)))
        }
    }

    /// Every readable line of `journal`: the live photos past any damage, and each generation
    /// named.
    private static func read(_ journal: Journal) throws -> Knowledge {
        var knowledge = Knowledge()
        knowledge.live = try journal.index(records: nil, skippingDamage: true).live
        guard let reader = try journal.reader(records: nil) else { return knowledge }
        try reader.forEachParsableLine { line in
            guard line.operation.changesPhoto || line.operation == .aborted else { return }
            var generations = [line.generation, line.imageGeneration]
            if let user = line.userImageGeneration { generations.append(user) }
            knowledge.mentioned[line.key, default: []].formUnion(generations.filter { $0 != "-" })
        }
        return knowledge
    }

    /// The entry that likes the photo with `key` with the image of `generation`: the current
    /// journal's, else the newest set-aside journal's that the current journal does not
    /// contradict (by naming that image as ended).
    func liveEntry(_ key: String, imageGeneration generation: String) -> LiveEntry? {
        if let entry = current.live[key], entry.imageGeneration == generation { return entry }
        if current.ends(key, generation) { return nil }
        return setAside.reversed().lazy.compactMap { $0.live[key] }.first { $0.imageGeneration == generation }
    }

    /// Whether a line of the current journal names the image of `generation` as ended.
    func currentEnds(_ key: String, _ generation: String) -> Bool {
        current.ends(key, generation)
    }

    /// The image file names that a journal set aside still names as live, and that the current
    /// journal does not name as ended: images purge must keep.
    var namedBySetAsideJournals: Set<String> {
        var names: Set<String> = []
        for knowledge in setAside {
            for (key, entry) in knowledge.live {
                if !current.ends(key, entry.imageGeneration) {
                    names.insert(StoreLayout.imageFileName(key, entry.imageGeneration, user: false))
                }
                if let user = entry.userImageGeneration, !current.ends(key, user) {
                    names.insert(StoreLayout.imageFileName(key, user, user: true))
                }
            }
        }
        return names
    }
}

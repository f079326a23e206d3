// repair: any damaged store back to one that verifies, deleting nothing; RepairPlan decides, this
// applies it under the exclusive lock and then mends the thumbnails.

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension Store {
    /// Repairs the store, or with `dryRun` says what a repair would do (under the shared lock),
    /// deleting nothing: what cannot stay is set aside under `damaged/`, lost records are rebuilt
    /// from the best evidence, the journal is written anew where it must be, and missing or
    /// damaged thumbnails are made. `onRepair` is called before the lock is let go.
    ///
    /// `syncDamage`: what is wrong with the sync bookkeeping, which the caller reads (its format
    /// is the caller's); the whole `sync/` folder is then set aside, and the store's next sync
    /// makes it a new device.
    package func repair(dryRun: Bool, syncDamage: String? = nil, onRepair: () -> Void = {}) throws -> StoreRepairReport {
        guard let opened = try open() else { return StoreRepairReport(dryRun: dryRun) }
        var report: StoreRepairReport
        if dryRun {
            let lock = try opened.sharedLock()
            var plan = RepairPlan(root: opened.root, durable: durable, apply: false)
            try plan.run()
            if let syncDamage { try plan.setAsideSync(because: syncDamage) }
            report = plan.report
            try repairThumbnails(opened, stamp: plan.stamp, apply: false, into: &report)
            _ = consume lock
        } else {
            report = try withExclusiveLock { root, lock in
                var plan = RepairPlan(root: root, durable: durable, apply: true)
                try plan.run()
                if let syncDamage { try plan.setAsideSync(because: syncDamage) }
                // The journal anew from the records as they are now, before a session opens: a
                // session finding none would rescue again, from less evidence than the plan had.
                if try plan.journalNeedsRebuild || root.entry(Journal.fileName) == nil,
                    let records = try root.subdirectory(RecordFiles.directoryName).map(RecordFiles.init)
                {
                    try Journal(root: root, lockDescriptor: lock.descriptor).rewrite(
                        records.decodeAll().entries, records: records, durable: durable)
                }
                let session = try WriteSession(root: root, lockDescriptor: lock.descriptor, durable: durable)
                onRepair()
                var report = plan.report
                try repairThumbnails(session.openStore(lockTimeout: lockTimeout), stamp: plan.stamp, apply: true, into: &report)
                return report
            }
        }
        return report
    }

    /// After the records are sound: each live photo's thumbnail made where it is missing, and
    /// where it is damaged set aside under `damaged/STAMP/thumbnails/` and made anew.
    private func repairThumbnails(_ opened: OpenStore, stamp: String, apply: Bool, into report: inout StoreRepairReport) throws {
        guard let records = opened.records else { return }
        let thumbnails = try opened.thumbnails()
        let files = try opened.catalogFiles(locked: true)?.files ?? opened.index(locked: true).live.values.map(PhotoFiles.init)
        var shelf: StoreDirectory?
        for photo in files.sorted(by: { $0.key < $1.key }) {
            let state = try thumbnails.state(key: photo.key, generation: photo.imageGeneration)
            if case .whole = state { continue }
            guard let stored = try? records.read(key: photo.key), stored.image.generation == photo.imageGeneration else { continue }
            if case .damaged(let problem) = state, let directory = thumbnails.directory {
                let name = StoreLayout.thumbnailFileName(photo.key, photo.imageGeneration)
                report.setAside.append(
                    StoreRepairReport.SetAside(
                        id: stored.id, files: [ThumbnailFiles.directoryName + "/" + name],
                        reason: "the thumbnail of photo \(MessageText.quoted(stored.id)) \(problem), so it was made anew"))
                if apply { try shelve(name, from: directory, under: ThumbnailFiles.directoryName, opened, stamp: stamp, shelf: &shelf) }
            }
            if !apply {
                report.thumbnailsMade += 1
            } else if try makeThumbnail(of: stored, opened) != nil {
                report.thumbnailsMade += 1
            }
        }
        try repairRenditions(opened, live: files, stamp: stamp, apply: apply, into: &report)
    }

    /// Damaged renditions of live photos set aside under `damaged/STAMP/renditions/`: each is
    /// made anew when next needed.
    private func repairRenditions(_ opened: OpenStore, live: [PhotoFiles], stamp: String, apply: Bool, into report: inout StoreRepairReport) throws {
        guard let directory = try opened.root.subdirectoryIfFolder(RenditionFiles.directoryName) else { return }
        let generations = Dictionary(live.map { ($0.key, $0.imageGeneration) }, uniquingKeysWith: { first, _ in first })
        let files = RenditionFiles(directory: directory)
        var shelf: StoreDirectory?
        for name in try directory.names().sorted() {
            guard let parsed = RenditionFiles.parse(name), generations[parsed.key] == parsed.generation,
                case .damaged(let problem) = try files.read(name, generation: parsed.generation).state
            else { continue }
            // The id from the key, or for a hashed key from the record.
            let id = StorageKey.decode(parsed.key) ?? opened.records.flatMap { try? $0.read(key: parsed.key) }?.id ?? parsed.key
            report.setAside.append(
                StoreRepairReport.SetAside(
                    id: id, files: [RenditionFiles.directoryName + "/" + name],
                    reason: "the rendition of photo \(MessageText.quoted(id)) \(problem); it is made anew when needed"))
            if apply { try shelve(name, from: directory, under: RenditionFiles.directoryName, opened, stamp: stamp, shelf: &shelf) }
        }
    }

    /// Moves `name` from `directory` to `damaged/STAMP/FOLDER/`, made on first need and kept in
    /// `shelf` for the next.
    private func shelve(
        _ name: String, from directory: StoreDirectory, under folder: String, _ opened: OpenStore, stamp: String, shelf: inout StoreDirectory?
    ) throws {
        let target =
            try shelf
            ?? opened.root.subdirectoryCreatingIfNeeded(StoreLayout.damagedDirectory, durable: durable)
            .subdirectoryCreatingIfNeeded(stamp, durable: durable)
            .subdirectoryCreatingIfNeeded(folder, durable: durable)
        shelf = target
        try directory.move(name, to: target, as: name)
    }
}

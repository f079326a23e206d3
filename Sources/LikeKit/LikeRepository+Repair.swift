// repair: any damaged store back to one that verifies, deleting nothing.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension LikeRepository {
    /// Brings a damaged store back to a state ``verify()-axqj`` accepts, deleting nothing.
    ///
    /// What cannot stay is moved under `damaged/REPAIR/` in the store (`REPAIR` names the
    /// repair by its time), keeping its path inside the store: a record file that is cut, empty,
    /// garbled or not a regular file; a photo whose image is missing, cut short or changed (its
    /// record and every image of it); a user image that is damaged (the photo stays, without
    /// it); a journal that is garbled or cut short; folders, links and other entries where the
    /// store expects files. ``purge(dryRun:)-3p5qs`` and ``verify()-axqj`` leave `damaged/` alone.
    ///
    /// A photo whose record file was lost but whose image is whole and named by the journal is
    /// rebuilt: its id, like date, images and albums come back; its note and metadata, which
    /// only the record held, do not. Finally the journal is written anew from the records, and
    /// each photo's thumbnail is made where it is missing (a damaged one is set aside first).
    /// Orphan files are left for ``purge(dryRun:)-3p5qs``.
    ///
    /// ```swift
    /// let report = try repository.repair()
    /// for item in report.setAside { print(item.files, item.reason) }
    /// ```
    ///
    /// - Parameter dryRun: Report what would be done without changing anything (takes only a
    ///   shared lock, and works on a read-only store).
    /// - Returns: What was rebuilt and set aside, and whether the store verifies now.
    /// - Throws: ``LikeRepositoryError``: `storeBusy`, `io`.
    @discardableResult
    public func repair(dryRun: Bool = false) throws -> RepairReport {
        guard let opened = try store.open() else { return RepairReport(dryRun: dryRun, rebuilt: [], setAside: [], isOK: true) }
        var report: RepairReport
        if dryRun {
            let lock = try opened.sharedLock()
            var plan = RepairPlan(root: opened.root, durable: isDurable, apply: false)
            try plan.run()
            report = plan.report
            try repairThumbnails(opened, stamp: plan.stamp, apply: false, into: &report)
            _ = consume lock
        } else {
            report = try store.withExclusiveLock { root, lock in
                var plan = RepairPlan(root: root, durable: isDurable, apply: true)
                try plan.run()
                // The journal anew from the records as they are now, before a session opens: a
                // session finding none would rescue again, from less evidence than the plan had.
                if try plan.journalNeedsRebuild || root.entry(Journal.fileName) == nil,
                    let records = try root.subdirectory(RecordFiles.directoryName).map(RecordFiles.init)
                {
                    try Journal(root: root, lockDescriptor: lock.descriptor).rewrite(
                        records.decodeAll().entries, records: records, durable: isDurable)
                }
                let session = try WriteSession(root: root, lockDescriptor: lock.descriptor, durable: isDurable)
                observers.changed()
                var report = plan.report
                try repairThumbnails(session.openStore(lockTimeout: lockTimeout), stamp: plan.stamp, apply: true, into: &report)
                return report
            }
        }
        report.isOK = try verify().isOK
        return report
    }
}

extension LikeRepository {
    /// After the records are sound: each live photo's thumbnail made where it is missing, and
    /// where it is damaged set aside under `damaged/STAMP/thumbnails/` and made anew.
    fileprivate func repairThumbnails(_ opened: OpenStore, stamp: String, apply: Bool, into report: inout RepairReport) throws {
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
                    RepairReport.SetAside(
                        id: stored.id.rawValue, files: [ThumbnailFiles.directoryName + "/" + name],
                        reason: "the thumbnail of photo \(LikeRepositoryError.quoted(stored.id.rawValue)) \(problem), so it was made anew"))
                if apply {
                    if shelf == nil {
                        shelf = try opened.root.subdirectoryCreatingIfNeeded(StoreLayout.damagedDirectory, durable: isDurable)
                            .subdirectoryCreatingIfNeeded(stamp, durable: isDurable)
                            .subdirectoryCreatingIfNeeded(ThumbnailFiles.directoryName, durable: isDurable)
                    }
                    try directory.move(name, to: shelf!, as: name)
                }
            }
            if !apply {
                report.thumbnailsMade += 1
            } else if try makeThumbnail(of: stored, opened) != nil {
                report.thumbnailsMade += 1
            }
        }
    }
}

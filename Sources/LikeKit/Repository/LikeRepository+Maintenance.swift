// purge and rebuildIndex: what the store's maintenance does, in public types (the work is
// LikeStore's Store+Purge).

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension LikeRepository {
    /// Removes orphan files: files in the store that belong to no record, such as the leftovers
    /// of a write a crash interrupted. Also compacts the index when most of its lines describe
    /// changes since superseded.
    ///
    /// It trusts the index where it names exactly the record files present, and so stays close
    /// to the cost of listing the files. Where the index is damaged or disagrees with the record
    /// files, an image no record names may be the only copy of a photo whose record was lost:
    /// nothing is removed, and ``repair(dryRun:)-69flr`` rebuilds what can be rebuilt first. An
    /// image that a journal set aside by an earlier repair still names is never removed either.
    ///
    /// A damaged record file is not an orphan, and neither are the images of its photo: they stay
    /// for `verify` to report.
    ///
    /// - Parameter dryRun: Report what would be removed without removing anything (takes only a
    ///   shared lock, and works on a read-only store).
    /// - Returns: The orphan files and their total size.
    /// - Throws: ``LikeRepositoryError``: `storeNeedsRepair` when the index is damaged or
    ///   disagrees with the records; `storeBusy`, `io`.
    @discardableResult
    public func purge(dryRun: Bool = false) throws -> PurgeReport {
        let report = try translating { try store.purge(dryRun: dryRun) { change in _ = publishing(change) } }
        return PurgeReport(dryRun: report.dryRun, files: report.files, bytes: report.bytes)
    }

    /// Writes the index anew from the record files: the repair for an index that ``verify()-axqj``
    /// finds out of step with the records. Decodes every record, so it takes about as long as
    /// reading them all (seconds at 100,000), holding the store's lock.
    ///
    /// Damaged record files are left out of the index (``verify()-axqj`` goes on naming them).
    /// A photo whose record file is missing while the index still names its images is rebuilt
    /// first, from the index, so that its images never look orphaned. Observers go on from the
    /// new index, as after a compaction.
    ///
    /// - Returns: The number of records in the new index.
    /// - Throws: ``LikeRepositoryError``: `storeBusy`, `io`.
    @discardableResult
    public func rebuildIndex() throws -> Int {
        let count = try translating { try store.rebuildIndex() }
        observers.changed()
        return count
    }
}

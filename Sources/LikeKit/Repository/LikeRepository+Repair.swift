// repair: any damaged store back to one that verifies, deleting nothing (the work is LikeStore's
// Store+Repair), and whether it then verifies.

import LikeStore

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
        let syncDamage = try translating { try store.syncBookkeepingDamage() }
        let repaired = try translating { try store.repair(dryRun: dryRun, syncDamage: syncDamage) { observers.changed() } }
        var report = RepairReport(
            dryRun: repaired.dryRun, rebuilt: repaired.rebuilt.map(PhotoID.init(stored:)),
            setAside: repaired.setAside.map { RepairReport.SetAside(id: $0.id, files: $0.files, reason: $0.reason) }, isOK: false)
        report.thumbnailsMade = repaired.thumbnailsMade
        report.isOK = try verify().isOK
        return report
    }
}

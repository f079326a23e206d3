// verify: every invariant of the store proved, one record at a time (the work is LikeStore's
// Store+Verify).

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension LikeRepository {
    /// Checks every invariant of the store: each record decodes, each of its images exists, has
    /// the size and checksum it had when liked and is a valid JPEG, and the index (its catalog
    /// included) agrees with the records. Reads every image, so it takes time on a large store.
    ///
    /// Records are decoded and checked one at a time: what it keeps is a digest of what the
    /// index says of each photo and the generations of its images.
    ///
    /// Thumbnails and renditions are checked too. They are derived from the photos, so one found
    /// damaged (a power cut can leave one so) is made anew from its photo, as any reader of it
    /// would, and reported in ``VerificationReport/remade``, not as a problem.
    ///
    /// - Returns: The problems found (none when the store is sound), the orphan files, which are
    ///   harmless and removed by ``purge(dryRun:)-3p5qs``, and the derived files made anew.
    /// - Throws: ``LikeRepositoryError``: `storeBusy`, `io` when the store cannot be read at all.
    public func verify() throws -> VerificationReport {
        let found = try translating { try store.verify() }
        let sync = try translating { try store.syncBookkeepingDamage() }.map {
            ["the sync bookkeeping is damaged: \($0) (repair sets it aside; the next sync makes this store a new device)"]
        }
        return VerificationReport(problems: found.problems + (sync ?? []), orphans: found.orphans, remade: found.remade)
    }
}

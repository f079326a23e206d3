// Dates as LikeKit writes them, for apps and the command line: the store's own timestamp text.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// Dates as LikeKit writes them: ISO 8601 in UTC with milliseconds, `2026-11-22T01:23:45.123Z`.
///
/// Formatted by hand, without a formatter object, so that it is cheap enough for every line of
/// a long listing.
public enum LikeTimestamp {
    /// `date` as `2026-11-22T01:23:45.123Z`.
    public static func string(from date: Date) -> String { Timestamp.string(date) }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]`; `nil` for anything else.
    public static func date(from text: String) -> Date? { Timestamp.parse(text).map(Timestamp.date) }
}

// The collection by month: how many photos of a listing were liked (or taken) in each month, and where the
// listing's page for each month begins, from one read of the catalog. What a rail of years and
// months (the gallery's) needs to jump anywhere in a large collection, loading one page there.

import LikeStore

/// One month of a listing: see ``LikeRepository/months(_:utcOffset:)-5ris6``.
public struct LikeMonth: Sendable, Hashable {
    /// The year, as the calendar counts it (2026).
    public var year: Int
    /// The month, 1 (January) to 12.
    public var month: Int
    /// How many photos of the listing were liked in that month (taken, in a listing by date
    /// taken).
    public var count: Int
    /// Where the listing's page for this month begins: a ``LikeQuery`` with the same filters and
    /// this as its ``LikeQuery/after`` lists the month's newest photo first; `nil` for the
    /// listing's first month, which begins at the start.
    public var start: LikeCursor?
}

extension LikeRepository {
    /// The months in which the photos `query` lists were liked (or taken, where its
    /// ``LikeQuery/orderDate`` is ``LikeQuery/OrderDate/taken``), newest first, each with its
    /// count and where its page begins.
    ///
    /// Only the query's filters and order date are used (search, colour, album, since); its
    /// order, cursor, offset and limit are not. Months are reckoned at `utcOffset` seconds east of UTC (a page
    /// gives its own), so that a photo liked at 23:30 on the last of the month counts where the
    /// person saw it. Read from the catalog in one pass, no record decoded: a collection of
    /// 100,000 photos is counted in tens of milliseconds.
    ///
    /// ```swift
    /// for month in try repository.months(utcOffset: 3600) {
    ///     print(month.year, month.month, month.count)
    /// }
    /// let lastJune = try repository.months().first { $0.year == 2025 && $0.month == 6 }
    /// let page = try repository.list(LikeQuery(limit: 60, after: lastJune?.start))
    /// ```
    ///
    /// - Throws: ``LikeRepositoryError/invalidArgument(_:)`` for an unknown colour; `io`.
    public func months(_ query: LikeQuery = LikeQuery(), utcOffset: Int = 0) throws -> [LikeMonth] {
        let storeQuery = try query.storeQuery()
        let offset = Int64(utcOffset) * 1000
        let buckets = try translating { try store.timeline(storeQuery) { CalendarMonth.number(ofMilliseconds: $0 + offset) } }
        return buckets.map { bucket in
            LikeMonth(
                year: bucket.bucket.floorDivided(by: 12), month: bucket.bucket - bucket.bucket.floorDivided(by: 12) * 12 + 1, count: bucket.count,
                start: bucket.before.map { LikeCursor($0, orderDate: query.orderDate) })
        }
    }
}

/// Months counted from year 0 (`year × 12 + month − 1`) of the proleptic Gregorian calendar.
enum CalendarMonth {
    /// The month of a time in milliseconds since 1970 (already moved to the offset wanted).
    static func number(ofMilliseconds milliseconds: Int64) -> Int {
        let days = Int(milliseconds.floorDivided(by: 86_400_000))
        let (year, month) = yearAndMonth(ofDay: days)
        return year * 12 + month - 1
    }

    /// The year and month (1–12) of a day counted from 1970-01-01. Days are counted from
    /// 0000-03-01 instead, so that the leap day ends a year; a 400-year cycle has 146,097 days.
    static func yearAndMonth(ofDay day: Int) -> (year: Int, month: Int) {
        let fromMarch = day + 719_468  // days from 0000-03-01 to 1970-01-01
        let cycle = fromMarch.floorDivided(by: 146_097)
        let dayOfCycle = fromMarch - cycle * 146_097  // 0…146,096
        let yearOfCycle = (dayOfCycle - dayOfCycle / 1460 + dayOfCycle / 36_524 - dayOfCycle / 146_096) / 365
        let dayOfYear = dayOfCycle - (365 * yearOfCycle + yearOfCycle / 4 - yearOfCycle / 100)  // 0 = 1 March
        let monthFromMarch = (5 * dayOfYear + 2) / 153  // 0 = March … 11 = February
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfCycle + cycle * 400 + (month <= 2 ? 1 : 0), month)
    }
}

extension BinaryInteger {
    /// The quotient rounded towards minus infinity (`-1 / 12` is 0; this is −1).
    func floorDivided(by divisor: Self) -> Self {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

extension LikeRepository {
    /// The ids of every photo `query` lists (its filters; newest first; not its cursor, offset
    /// or limit), read from the catalog without decoding a record: what selecting a whole
    /// listing (the gallery's Select all) needs.
    package func listedIDs(_ query: LikeQuery) throws -> [PhotoID] {
        let storeQuery = try query.storeQuery()
        return try translating { try store.listedKeys(storeQuery) }.compactMap { key in
            StorageKey.decode(key).map { PhotoID(stored: $0) }
        }
    }
}

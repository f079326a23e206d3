// ISO 8601 timestamps with milliseconds, written and read without a formatter object.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// Milliseconds since 1970 in UTC: the precision of every date LikeKit stores.
package enum Timestamp {
    /// The nearest millisecond: a date made by ``date(_:)`` comes back as its milliseconds, which
    /// rounding down would not always give (`Date` keeps seconds since 2001 as a `Double`).
    package static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    package static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    package static func now() -> Int64 { milliseconds(Date()) }

    /// `2026-11-22T01:23:45.123Z`.
    package static func string(_ milliseconds: Int64) -> String {
        let ms = Int(((milliseconds % 1000) + 1000) % 1000)
        let seconds = (milliseconds - Int64(ms)) / 1000
        var days = Int(seconds / 86_400)
        var secondOfDay = Int(seconds % 86_400)
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        if (0...9999).contains(year) {
            // Written digit by digit into the string's own storage: every record printed has one.
            return String(unsafeUninitializedCapacity: 24) { text in
                func put(_ value: Int, digits: Int, at offset: Int, then separator: Unicode.Scalar) {
                    var rest = value
                    for index in (offset..<offset + digits).reversed() {
                        text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                        rest /= 10
                    }
                    text[offset + digits] = UInt8(ascii: separator)
                }
                put(year, digits: 4, at: 0, then: "-")
                put(month, digits: 2, at: 5, then: "-")
                put(day, digits: 2, at: 8, then: "T")
                put(secondOfDay / 3600, digits: 2, at: 11, then: ":")
                put(secondOfDay / 60 % 60, digits: 2, at: 14, then: ":")
                put(secondOfDay % 60, digits: 2, at: 17, then: ".")
                put(ms, digits: 3, at: 20, then: "Z")
                return 24
            }
        }
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(ms, 3))Z"
    }

    package static func string(_ date: Date) -> String { string(milliseconds(date)) }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]`, the forms LikeKit and Unsplash write.
    package static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= b.count else { return nil }
            var value = 0
            for i in start..<start + count {
                guard (48...57).contains(b[i]) else { return nil }
                value = value * 10 + Int(b[i] - 48)
            }
            return value
        }
        guard b.count >= 19, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 32, b[13] == 58, b[16] == 58,
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var millis = 0
        if index < b.count, b[index] == 46 {
            index += 1
            var digits = 0
            while index < b.count, (48...57).contains(b[index]) {
                if digits < 3 { millis = millis * 10 + Int(b[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { millis *= 10 } }
        }
        var offsetSeconds = 0
        if index < b.count, b[index] == 90 {
            index += 1
        } else if index < b.count, b[index] == 43 || b[index] == 45 {
            let sign = b[index] == 43 ? 1 : -1
            guard let hours = number(index + 1, 2) else { return nil }
            var minutesIndex = index + 3
            if minutesIndex < b.count, b[minutesIndex] == 58 { minutesIndex += 1 }
            guard let minutes = number(minutesIndex, 2) else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
            index = minutesIndex + 2
        } else {
            return nil
        }
        guard index == b.count else { return nil }
        let days = days(fromCivil: year, month, day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        return seconds * 1000 + Int64(millis)
    }

    // Howard Hinnant's days-from-civil algorithms, for the proleptic Gregorian calendar.
    private static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

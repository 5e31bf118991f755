import Foundation

/// A day on the calendar with no time of day or zone: a due date, a date of birth.
public struct CalendarDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Only real days: 31 April or 29 February 2027 are not dates.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...CalendarDate.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Reads `YYYY-MM-DD`, as JSON and the database carry it: exactly ten ASCII bytes, digits with a
    /// hyphen after the year and the month. Read byte by byte, since pages read hundreds of days at once.
    public init?(iso text: String) {
        var text = text
        let parsed: (Int, Int, Int)? = text.withUTF8 { bytes in
            guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
            func number(_ range: Range<Int>) -> Int? {
                var value = 0
                for index in range {
                    let digit = bytes[index] &- UInt8(ascii: "0")
                    guard digit < 10 else { return nil }
                    value = value * 10 + Int(digit)
                }
                return value
            }
            guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
            return (year, month, day)
        }
        guard let parsed else { return nil }
        self.init(year: parsed.0, month: parsed.1, day: parsed.2)
    }

    /// The UTC day `date` falls on.
    public init(_ date: Date) {
        let parts = Self.utc.dateComponents([.year, .month, .day], from: date)
        year = parts.year ?? 1970
        month = parts.month ?? 1
        day = parts.day ?? 1
    }

    public var iso: String { "\(Self.padded(year, to: 4))-\(Self.padded(month, to: 2))-\(Self.padded(day, to: 2))" }
    public var description: String { iso }

    /// "25 April 2027", as the portal shows dates.
    public var displayed: String { "\(day) \(Self.monthNames[month - 1]) \(year)" }

    /// `YYYY-MM`, the month this day falls in.
    public var monthKey: String { "\(Self.padded(year, to: 4))-\(Self.padded(month, to: 2))" }

    /// `value` with leading zeros up to `width` digits, as `%0Nd` would write it (charts write hundreds
    /// of dates per page, and a format string is parsed again on every call).
    private static func padded(_ value: Int, to width: Int) -> String {
        let digits = String(value)
        return digits.utf8.count >= width ? digits : String(repeating: "0", count: width - digits.utf8.count) + digits
    }

    /// The same day `count` months later (or earlier), moved back to the month's last day if needed.
    public func adding(months count: Int) -> CalendarDate {
        let index = year * 12 + (month - 1) + count
        let newYear = index / 12, newMonth = index % 12 + 1
        return CalendarDate(year: newYear, month: newMonth, day: min(day, Self.daysIn(month: newMonth, year: newYear)))!
    }

    /// The same day `years` later (earlier when negative); 29 February becomes 28 February outside leap years.
    public func adding(years: Int) -> CalendarDate {
        adding(months: years * 12)
    }

    /// The day after this one.
    public var nextDay: CalendarDate {
        if day < Self.daysIn(month: month, year: year) { return CalendarDate(year: year, month: month, day: day + 1)! }
        return month == 12 ? CalendarDate(year: year + 1, month: 1, day: 1)! : CalendarDate(year: year, month: month + 1, day: 1)!
    }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    public static let monthNames = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December"
    ]

    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}

extension CalendarDate {
    /// Days since 1 January 1970, as prescriptions and logs store days (Howard Hinnant's days_from_civil).
    package var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The day `dayNumber` days after 1 January 1970.
    package init(dayNumber: Int) {
        let (year, month, day) = Self.civil(dayNumber: dayNumber)
        self.init(year: year, month: month, day: day)!
    }

    /// The proleptic Gregorian year, month and day of a day number, for any year (Howard Hinnant's
    /// civil_from_days).
    package static func civil(dayNumber: Int) -> (year: Int, month: Int, day: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    package func adding(days: Int) -> CalendarDate { CalendarDate(dayNumber: dayNumber + days) }

    /// Monday is 0, Sunday 6.
    package var weekdayFromMonday: Int { ((dayNumber % 7) + 7 + 3) % 7 }

    /// "20 Nov 2026".
    package var short: String { "\(day) \(CalendarDate.monthNames[month - 1].prefix(3)) \(year)" }

    /// "Fri 20 Nov".
    package var weekdayAndDay: String {
        "\(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][weekdayFromMonday]) \(day) \(CalendarDate.monthNames[month - 1].prefix(3))"
    }

    package var firstOfMonth: CalendarDate { CalendarDate(year: year, month: month, day: 1)! }
    package var lastOfMonth: CalendarDate { CalendarDate(year: year, month: month, day: CalendarDate.daysIn(month: month, year: year))! }
}

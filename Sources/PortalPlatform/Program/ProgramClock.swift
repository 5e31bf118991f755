import Foundation

/// Days, times of day and months in the program's time zone: where a reminder's 8 o'clock, a day's
/// midnight and a month's first moment fall, daylight saving included.
package struct ProgramClock: Sendable {
    package let timeZone: TimeZone

    package init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    /// Seconds since 1970 of the wall clock at `instant`, as if the wall clock were UTC.
    private func wallSeconds(_ instant: Date) -> Int64 {
        Int64(instant.timeIntervalSince1970.rounded(.down)) + Int64(timeZone.secondsFromGMT(for: instant))
    }

    /// The local date `instant` falls on.
    package func date(of instant: Date) -> CalendarDate {
        Self.dateAndMinute(wall: wallSeconds(instant)).date
    }

    /// Minutes since local midnight, on the wall clock.
    package func minuteOfDay(of instant: Date) -> Int {
        Self.dateAndMinute(wall: wallSeconds(instant)).minute
    }

    /// The date and the minute of the day a wall clock shows, from `wallSeconds` (the time zone asked once).
    private static func dateAndMinute(wall: Int64) -> (date: CalendarDate, minute: Int) {
        let day = wall >= 0 ? wall / 86_400 : (wall - 86_399) / 86_400
        return (CalendarDate(dayNumber: Int(day)), Int((wall - day * 86_400) / 60))
    }

    /// The instant the wall clock shows `minute` on `date`. A time that happens twice (1:30 on the
    /// autumn change) is its first occurrence; a time the clocks skip (2:30 on the spring change) is
    /// the instant the clock would have shown it without the change, which it shows as 3:30.
    package func instant(on date: CalendarDate, atMinute minute: Int) -> Date {
        let wall = TimeInterval(date.dayNumber) * 86_400 + TimeInterval(minute * 60)
        let before = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - 86_400))
        let after = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall + 86_400))
        let candidates = Set([before, after])
            .map { Date(timeIntervalSince1970: wall - TimeInterval($0)) }
            .filter { TimeInterval(timeZone.secondsFromGMT(for: $0)) == wall - $0.timeIntervalSince1970 }
        return candidates.min() ?? Date(timeIntervalSince1970: wall - TimeInterval(before))
    }

    /// Local midnight at the start of `date`.
    package func instant(startOf date: CalendarDate) -> Date { instant(on: date, atMinute: 0) }

    /// "24 Nov 2026, 19:00 EST".
    package func dateTime(_ instant: Date) -> String {
        let (date, minute) = Self.dateAndMinute(wall: wallSeconds(instant))
        let zone =
            ProgramTimeZone.choices.first { $0.id == timeZone.identifier }
            .map { timeZone.isDaylightSavingTime(for: instant) ? $0.daylight : $0.standard }
            ?? timeZone.abbreviation(for: instant) ?? timeZone.identifier
        func twoDigits(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
        // Not `String(format:)`: a list formats dozens of these per page, and it cost more than the rest.
        return "\(date.day) \(Self.monthAbbreviations[date.month - 1]) \(date.year), \(twoDigits(minute / 60)):\(twoDigits(minute % 60)) \(zone)"
    }

    /// "19:00": the time of day alone, for something that happened today.
    package func time(_ instant: Date) -> String {
        let minute = minuteOfDay(of: instant)
        return "\(minute / 600)\(minute / 60 % 10):\(minute % 60 / 10)\(minute % 10)"
    }

    private static let monthAbbreviations = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}

extension ProgramSettings {
    package var clock: ProgramClock { ProgramClock(timeZone: timeZone) }
}

import Foundation
import PortalPlatform

/// One entry in a member's own calendar: an appointment, a medication's times, or anything else.
/// Days and times are wall-clock ones in the program's time zone, so "8:00 every day" stays 8:00
/// across daylight-saving changes.
struct CalendarEvent: Sendable, Equatable, Identifiable {
    enum Kind: String, Sendable, CaseIterable {
        case medication, appointment, other
    }

    enum Repeats: String, Sendable, CaseIterable {
        case never, daily, weekly
    }

    var id: Int64
    var memberID: Int64
    var kind: Kind
    var title: String
    var note: String?
    var startsOn: CalendarDate
    /// Minutes after midnight, ascending; several only for a daily repeat.
    var times: [Int]
    var repeats: Repeats
    /// The last day a repeat happens on; nil for ever.
    var endsOn: CalendarDate?
    var createdAt: Date
    var updatedAt: Date
    var nextOccurrenceAt: Date?

    /// Every occurrence from `from` up to (not including) `until`, in order.
    func occurrences(from: Date, until: Date, clock: ProgramClock, limit: Int = 500) -> [Date] {
        guard from < until else { return [] }
        var found: [Date] = []
        var day = max(startsOn, clock.date(of: from).adding(days: -1))
        if repeats == .weekly {
            // Onto the weekday of its first day.
            let offset = ((day.dayNumber - startsOn.dayNumber) % 7 + 7) % 7
            if offset != 0 { day = day.adding(days: 7 - offset) }
        }
        let step = repeats == .weekly ? 7 : 1
        while found.count < limit {
            if let endsOn, day > endsOn { break }
            if repeats == .never, day != startsOn { break }
            for minute in times {
                let instant = clock.instant(on: day, atMinute: minute)
                if instant >= until { return found }
                if instant >= from { found.append(instant) }
            }
            if clock.instant(startOf: day) >= until { break }
            day = day.adding(days: step)
        }
        return found
    }

    /// The first occurrence strictly after `instant`, if any.
    func occurrence(after instant: Date, clock: ProgramClock) -> Date? {
        // Far enough ahead for a weekly repeat's next week, whatever daylight saving does.
        occurrences(from: instant.addingTimeInterval(0.001), until: instant.addingTimeInterval(9 * 86_400), clock: clock, limit: 1).first
    }
}

/// What a member sends for an event, already checked.
struct CalendarEventDraft: Sendable, Equatable {
    var kind: CalendarEvent.Kind
    var title: String
    var note: String?
    var startsOn: CalendarDate
    var times: [Int]
    var repeats: CalendarEvent.Repeats
    var endsOn: CalendarDate?
}

enum CalendarRules {
    static let titleMaximumLength = 100
    static let noteMaximumLength = 500
    static let maximumTimesADay = 6
    static let maximumEvents = 200

    /// The draft, or a message per field in the API's words.
    static func draft(
        kind: String?,
        title: String?,
        note: String?,
        date: String?,
        times: [String]?,
        repeats: String?,
        until: String?
    ) -> Result<CalendarEventDraft, APIError> {
        var problems: [String: String] = [:]
        let kind = CalendarEvent.Kind(rawValue: kind ?? "")
        if kind == nil { problems["kind"] = "Use one of medication, appointment, other" }
        let title = (title ?? "").trimmed
        if title.isEmpty || title.count > titleMaximumLength { problems["title"] = "Give a title of 1 to \(titleMaximumLength) characters" }
        let note = note?.trimmed
        if let note, note.count > noteMaximumLength { problems["note"] = "A note can be up to \(noteMaximumLength) characters" }
        let startsOn = date.flatMap(CalendarDate.init(iso:))
        if startsOn == nil { problems["date"] = "Give the day as YYYY-MM-DD, like 2027-03-14" }
        let repeats = CalendarEvent.Repeats(rawValue: repeats ?? CalendarEvent.Repeats.never.rawValue)
        if repeats == nil { problems["repeats"] = "Use one of never, daily, weekly" }
        let parsed = (times ?? []).map(TimeOfDay.init(text:))
        let minutes = Array(Set(parsed.compactMap { $0?.minutes })).sorted()
        if parsed.isEmpty || parsed.contains(nil) {
            problems["times"] = "Give at least one time of day as HH:MM, like 08:00"
        } else if repeats == .daily, minutes.count > maximumTimesADay {
            problems["times"] = "A daily event can have up to \(maximumTimesADay) times a day"
        } else if repeats != .daily, minutes.count != 1 {
            problems["times"] = "Give one time; only a daily event can have several"
        }
        var endsOn: CalendarDate?
        if let until, !until.isEmpty {
            endsOn = CalendarDate(iso: until)
            if endsOn == nil {
                problems["until"] = "Give the last day as YYYY-MM-DD"
            } else if repeats == .never {
                problems["until"] = "Only a repeating event has a last day"
            } else if let startsOn, let endsOn, endsOn < startsOn {
                problems["until"] = "The last day must be on or after the first"
            }
        }
        guard let kind, let startsOn, let repeats, problems.isEmpty else { return .failure(APIError.validation(problems)) }
        return .success(
            CalendarEventDraft(
                kind: kind,
                title: title,
                note: note?.isEmpty == true ? nil : note,
                startsOn: startsOn,
                times: minutes,
                repeats: repeats,
                endsOn: endsOn
            )
        )
    }
}

/// The days one calendar request lists occurrences for: from `from` to `to`, both included.
struct CalendarSpan: Sendable, Equatable {
    /// The longest span of days one request lists occurrences for.
    static let maximumDays = 62

    let from: CalendarDate
    let to: CalendarDate

    /// The span asked for (days as YYYY-MM-DD, the next 7 days by default), or its problems by parameter.
    static func asked(from fromText: String?, to toText: String?, today: CalendarDate) -> (CalendarSpan?, problems: [String: String]) {
        var problems: [String: String] = [:]
        func day(_ name: String, _ text: String?, default value: CalendarDate) -> CalendarDate {
            guard let text else { return value }
            guard let date = CalendarDate(iso: text) else {
                problems[name] = "Give the day as YYYY-MM-DD"
                return value
            }
            return date
        }
        let from = day("from", fromText, default: today)
        let to = day("to", toText, default: from.adding(days: 6))
        if problems.isEmpty, to < from || to.dayNumber - from.dayNumber >= maximumDays {
            problems["to"] = "Give a last day on or after the first, at most \(maximumDays) days on"
        }
        return (problems.isEmpty ? CalendarSpan(from: from, to: to) : nil, problems)
    }
}

import Foundation
import PortalPlatform

extension TemplateName {
    static let appCalendar = TemplateName("app/calendar/week")
    static let appCalendarEntry = TemplateName("app/calendar/entry")
    static let appCalendarDelete = TemplateName("app/calendar/delete")

    static let appCalendarTemplates: [TemplateName] = [.appCalendar, .appCalendarEntry, .appCalendarDelete]
}

extension CalendarEvent.Kind {
    /// How the member's pages name the kind.
    var title: String {
        switch self {
        case .medication: "Medicine"
        case .appointment: "Appointment"
        case .other: "Something else"
        }
    }
}

extension CalendarEvent.Repeats {
    var title: String {
        switch self {
        case .never: "Once"
        case .daily: "Every day"
        case .weekly: "Every week"
        }
    }
}

/// A week of her calendar, day by day, each entry at its times.
struct CalendarWeekPage: Page {
    static let template = TemplateName.appCalendar
    static let days = 7

    struct Entry: Encodable, Sendable {
        let time: String
        let title: String
        let kindTitle: String
        let path: String
    }

    struct Day: Encodable, Sendable {
        let heading: String
        let isToday: Bool
        let entries: [Entry]
    }

    let layout: Layout
    let notice: String?
    let rangeText: String
    let days: [Day]
    let isEmpty: Bool
    let previousPath: String
    let nextPath: String
    let todayPath: String?
    let newPath = SiteURL.appCalendarNew.path

    init(
        layout: Layout,
        from: CalendarDate,
        today: CalendarDate,
        occurrences: [(event: CalendarEvent, at: Date)],
        clock: ProgramClock,
        notice: String?
    ) {
        self.layout = layout
        self.notice = notice
        let last = from.adding(days: Self.days - 1)
        rangeText = "\(from.weekdayAndDay) to \(last.weekdayAndDay)"
        let byDay = Dictionary(grouping: occurrences) { clock.date(of: $0.at) }
        days = (0..<Self.days).map { offset in
            let day = from.adding(days: offset)
            return Day(
                heading: day == today ? "Today, \(day.weekdayAndDay)" : day.weekdayAndDay,
                isToday: day == today,
                entries: (byDay[day] ?? []).map { occurrence in
                    Entry(
                        time: TimeOfDay(minutes: clock.minuteOfDay(of: occurrence.at)).text,
                        title: occurrence.event.title,
                        kindTitle: occurrence.event.kind.title,
                        path: SiteURL.appCalendarEvent(occurrence.event.id).path
                    )
                }
            )
        }
        isEmpty = occurrences.isEmpty
        previousPath = "\(SiteURL.appCalendar.path)?from=\(from.adding(days: -Self.days).iso)"
        nextPath = "\(SiteURL.appCalendar.path)?from=\(from.adding(days: Self.days).iso)"
        todayPath = from == today ? nil : SiteURL.appCalendar.path
    }
}

/// Adding or changing an entry: what it is, its title and note, its day and times, how often, until when.
struct CalendarEntryPage: Page {
    static let template = TemplateName.appCalendarEntry

    /// The form as typed.
    struct Typed: Sendable {
        var kind: String
        var title: String
        var note: String
        var date: DateInputValue
        var times: String
        var repeats: String
        var until: DateInputValue

        init(kind: String, title: String, note: String, date: DateInputValue, times: String, repeats: String, until: DateInputValue) {
            self.kind = kind
            self.title = title
            self.note = note
            self.date = date
            self.times = times
            self.repeats = repeats
            self.until = until
        }

        init(_ event: CalendarEvent) {
            func value(_ date: CalendarDate?) -> DateInputValue {
                DateInputValue(day: date.map { "\($0.day)" }, month: date.map { "\($0.month)" }, year: date.map { "\($0.year)" })
            }
            self.init(
                kind: event.kind.rawValue,
                title: event.title,
                note: event.note ?? "",
                date: value(event.startsOn),
                times: event.times.map { TimeOfDay(minutes: $0).text }.joined(separator: ", "),
                repeats: event.repeats.rawValue,
                until: value(event.endsOn)
            )
        }
    }

    /// What is wrong, by field; the two dates' as date-input problems.
    struct Problems: Error, Sendable {
        var fields: [String: String] = [:]
        var date: DateInputProblem?
        var until: DateInputProblem?

        var isEmpty: Bool { fields.isEmpty && date == nil && until == nil }
    }

    let layout: Layout
    let heading: String
    let errors: [FormErrors.Item]
    let kinds: [AppChoice]
    let kindError: String?
    let titleFields: [FormField]
    let note: String
    let noteError: String?
    let date: DateInputField
    let timeFields: [FormField]
    let repeats: [AppChoice]
    let repeatsError: String?
    let until: DateInputField
    let action: String
    let deletePath: String?
    let cancelPath = SiteURL.appCalendar.path
    let submitTitle: String

    init(layout: Layout, eventID: Int64?, typed: Typed, problems: Problems = Problems()) {
        self.layout = layout
        heading = eventID == nil ? "Add to your calendar" : "Change an entry"
        var errors = FormErrors()
        if let problem = problems.fields["kind"] { errors.add("kind", problem) }
        if let problem = problems.fields["title"] { errors.add("title", problem) }
        if let problem = problems.fields["note"] { errors.add("note", problem) }
        if let problem = problems.date { errors.add(DateInputField.errorAnchor("date", problem), problem.message) }
        if let problem = problems.fields["times"] { errors.add("times", problem) }
        if let problem = problems.fields["repeats"] { errors.add("repeats", problem) }
        if let problem = problems.until { errors.add(DateInputField.errorAnchor("until", problem), problem.message) }
        self.errors = errors.items
        kinds = CalendarEvent.Kind.allCases.enumerated().map { index, kind in
            AppChoice(
                id: index == 0 ? "kind" : "kind-\(kind.rawValue)",
                value: kind.rawValue,
                title: kind.title,
                picturePath: nil,
                isSelected: typed.kind == kind.rawValue
            )
        }
        kindError = problems.fields["kind"]
        var titleFields = [FormField("title", label: "Title", value: typed.title, hint: "Like “Midwife appointment” or “Morning dose”.", width: 30)]
        errors.apply(to: &titleFields)
        self.titleFields = titleFields
        note = typed.note
        noteError = problems.fields["note"]
        date = DateInputField(
            "date",
            legend: "Date",
            hint: "The first day, if it repeats. For example, 14 3 2027",
            value: typed.date,
            problem: problems.date
        )
        var timeFields = [
            FormField(
                "times",
                label: "Time",
                value: typed.times,
                hint: "On the 24-hour clock, like 08:00. Something every day can have several: 08:00, 20:00",
                width: 20
            )
        ]
        errors.apply(to: &timeFields)
        self.timeFields = timeFields
        repeats = CalendarEvent.Repeats.allCases.enumerated().map { index, repeats in
            AppChoice(
                id: index == 0 ? "repeats" : "repeats-\(repeats.rawValue)",
                value: repeats.rawValue,
                title: repeats.title,
                picturePath: nil,
                isSelected: typed.repeats == repeats.rawValue
            )
        }
        repeatsError = problems.fields["repeats"]
        until = DateInputField(
            "until",
            legend: "Last day (optional)",
            hint: "Only for something that repeats. Leave it empty to keep repeating.",
            value: typed.until,
            problem: problems.until
        )
        action = eventID.map { SiteURL.appCalendarEvent($0).path } ?? SiteURL.appCalendarNew.path
        deletePath = eventID.map { SiteURL.appCalendarEventDelete($0).path }
        submitTitle = eventID == nil ? "Save entry" : "Save changes"
    }
}

/// Deleting an entry, confirmed: its reminders stop.
struct CalendarDeletePage: Page {
    static let template = TemplateName.appCalendarDelete
    let layout: Layout
    let title: String
    let repeatsText: String
    let action: String
    let cancelPath: String

    init(layout: Layout, event: CalendarEvent) {
        self.layout = layout
        title = event.title
        repeatsText = event.repeats == .never ? "Its reminder stops." : "Every time it repeats is deleted, and its reminders stop."
        action = SiteURL.appCalendarEventDelete(event.id).path
        cancelPath = SiteURL.appCalendarEvent(event.id).path
    }
}

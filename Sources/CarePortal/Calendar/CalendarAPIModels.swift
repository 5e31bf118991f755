import Foundation
import Hummingbird
import PortalPlatform

/// The member app's calendar: her appointments, medication times and other events, with reminders
/// ahead by her preference. Another member's event answers 404, as one that does not exist.
enum CalendarAPI {
    struct Event: Encodable, Sendable {
        let id: Int64
        let kind: String
        let title: String
        let note: String?
        let date: String
        let times: [String]
        let repeats: String
        let until: String?
        let nextOccurrenceAt: Date?
        let createdAt: Date
        let updatedAt: Date

        init(_ event: CalendarEvent) {
            id = event.id
            kind = event.kind.rawValue
            title = event.title
            note = event.note
            date = event.startsOn.iso
            times = event.times.map { TimeOfDay(minutes: $0).text }
            repeats = event.repeats.rawValue
            until = event.endsOn?.iso
            nextOccurrenceAt = event.nextOccurrenceAt
            createdAt = event.createdAt
            updatedAt = event.updatedAt
        }
    }

    struct Occurrence: Encodable, Sendable {
        let eventId: Int64
        let title: String
        let kind: String
        let at: Date
        /// `YYYY-MM-DD` and `HH:MM` on the program's clock.
        let date: String
        let time: String
    }

    struct Calendar: Encodable, Sendable {
        let events: [Event]
        let from: String
        let to: String
        let timeZone: String
        let occurrences: [Occurrence]
    }

    struct NewEvent: Decodable, Sendable {
        var kind: String?
        var title: String?
        var note: String?
        var date: String?
        var times: [String]?
        var repeats: String?
        var until: String?
    }
}

extension CalendarAPI.Calendar {
    /// Her events, and their occurrences in `span` day by day on the program's clock.
    init(events: [CalendarEvent], span: CalendarSpan, clock: ProgramClock) {
        let (start, end) = (clock.instant(startOf: span.from), clock.instant(startOf: span.to.adding(days: 1)))
        let occurrences = MemberCalendar.occurrences(of: events, from: start, until: end, clock: clock)
            .map { event, at in
                CalendarAPI.Occurrence(
                    eventId: event.id,
                    title: event.title,
                    kind: event.kind.rawValue,
                    at: at,
                    date: clock.date(of: at).iso,
                    time: TimeOfDay(minutes: clock.minuteOfDay(of: at)).text
                )
            }
        self.init(
            events: events.map(CalendarAPI.Event.init),
            from: span.from.iso,
            to: span.to.iso,
            timeZone: clock.timeZone.identifier,
            occurrences: occurrences
        )
    }
}

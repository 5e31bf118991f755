import Foundation
import Hummingbird
import PortalPlatform

struct CalendarAPIController {
    /// The longest span of days one request lists occurrences for.
    static let maximumSpanDays = 62
    let portal: Portal
    let calendar: MemberCalendar

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.apiCalendarEvents.pattern, access: .member, list)
        routes.post(SiteURL.apiCalendarEvents.pattern, access: .member, add)
        routes.get(SiteURL.pattern(SiteURL.apiCalendarEvent), access: .member, show)
        routes.put(SiteURL.pattern(SiteURL.apiCalendarEvent), access: .member, change)
        routes.delete(SiteURL.pattern(SiteURL.apiCalendarEvent), access: .member, delete)
    }

    private func memberID(_ context: PortalContext) throws -> Int64 { try context.requireMember().accountID }

    /// `GET /api/v1/calendar/events?from=&to=`: her events, and their occurrences day by day (the next 7 days by default).
    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try memberID(context)
        let clock = portal.programSettings.current.clock
        let today = clock.date(of: portal.now)
        var problems: [String: String] = [:]
        func day(_ name: String, default value: CalendarDate) -> CalendarDate {
            guard let text = request.query(name) else { return value }
            guard let date = CalendarDate(iso: text) else {
                problems[name] = "Give the day as YYYY-MM-DD"
                return value
            }
            return date
        }
        let from = day("from", default: today)
        let to = day("to", default: from.adding(days: 6))
        if problems.isEmpty, to < from || to.dayNumber - from.dayNumber >= Self.maximumSpanDays {
            problems["to"] = "Give a last day on or after the first, at most \(Self.maximumSpanDays) days on"
        }
        guard problems.isEmpty else {
            throw APIError.invalidQuery(problems)
        }
        let events = try await portal.database.read { db in try await calendar.repository.events(memberID: memberID, on: db) }
        let (start, end) = (clock.instant(startOf: from), clock.instant(startOf: to.adding(days: 1)))
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
        return .json(
            CalendarAPI.Calendar(
                events: events.map(CalendarAPI.Event.init),
                from: from.iso,
                to: to.iso,
                timeZone: clock.timeZone.identifier,
                occurrences: occurrences
            )
        )
    }

    private func draft(_ request: Request) async throws -> CalendarEventDraft {
        let body = try await request.json(CalendarAPI.NewEvent.self)
        return try CalendarRules.draft(
            kind: body.kind,
            title: body.title,
            note: body.note,
            date: body.date,
            times: body.times,
            repeats: body.repeats,
            until: body.until
        ).get()
    }

    @Sendable func add(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try memberID(context)
        let event = try await calendar.add(try await draft(request), for: memberID)
        return .json(CalendarAPI.Event(event), status: .created)
    }

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try memberID(context)
        let id = try context.parameters.apiRecordID()
        guard let event = try await portal.database.read({ db in try await calendar.repository.find(id: id, memberID: memberID, on: db) }) else {
            throw APIError.notFound
        }
        return .json(CalendarAPI.Event(event))
    }

    @Sendable func change(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try memberID(context)
        let id = try context.parameters.apiRecordID()
        let draft = try await draft(request)
        return .json(CalendarAPI.Event(try await calendar.change(id, to: draft, for: memberID)))
    }

    @Sendable func delete(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try memberID(context)
        try await calendar.delete(try context.parameters.apiRecordID(), for: memberID)
        return .noContent
    }
}

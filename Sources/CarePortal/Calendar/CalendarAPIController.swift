import Foundation
import Hummingbird
import PortalPlatform

struct CalendarAPIController {
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
        let (span, problems) = CalendarSpan.asked(from: request.query("from"), to: request.query("to"), today: today)
        guard let span else {
            throw APIError.invalidQuery(problems)
        }
        let events = try await portal.database.read { db in try await calendar.repository.events(memberID: memberID, on: db) }
        return .json(CalendarAPI.Calendar(events: events, span: span, clock: clock))
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

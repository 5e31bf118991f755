import Foundation
import Hummingbird
import PortalPlatform

/// The member's calendar in the web app (`/app/member/calendar`): a week at a time, and her entries
/// added, changed and deleted through `MemberCalendar`, as the member API does, with the same reminders.
struct CalendarAppController {
    let portal: Portal
    let calendar: MemberCalendar

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.appCalendar.pattern, access: .memberPages, week)
        routes.get(SiteURL.appCalendarNew.pattern, access: .memberPages, newEntry)
        routes.post(SiteURL.appCalendarNew.pattern, access: .memberPages, add)
        routes.get(SiteURL.pattern(SiteURL.appCalendarEvent), access: .memberPages, entry)
        routes.post(SiteURL.pattern(SiteURL.appCalendarEvent), access: .memberPages, change)
        routes.get(SiteURL.pattern(SiteURL.appCalendarEventDelete), access: .memberPages, confirmDelete)
        routes.post(SiteURL.pattern(SiteURL.appCalendarEventDelete), access: .memberPages, delete)
    }

    private func memberID(_ context: PortalContext) throws -> Int64 {
        guard let holder = context.appAccount, holder.kind == .member else { throw HTTPError(.notFound) }
        return holder.accountID
    }

    private func layout(_ title: String, _ context: PortalContext) -> Layout {
        portal.appLayout(title, context: context, navigation: .member, currentPath: SiteURL.appCalendar.path)
    }

    private var clock: ProgramClock { portal.programSettings.current.clock }

    @Sendable func week(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try memberID(context)
        let clock = self.clock
        let today = clock.date(of: portal.now)
        let from = request.query("from").flatMap(CalendarDate.init(iso:)) ?? today
        let events = try await portal.database.read { db in try await calendar.repository.events(memberID: memberID, on: db) }
        let occurrences = MemberCalendar.occurrences(
            of: events,
            from: clock.instant(startOf: from),
            until: clock.instant(startOf: from.adding(days: CalendarWeekPage.days)),
            clock: clock
        )
        let notice: String? =
            switch request.query("notice") {
            case "added": "Your entry is saved. We remind you before it, as you chose under Notifications."
            case "changed": "Your entry is changed."
            case "deleted": "Your entry is deleted."
            default: nil
            }
        return portal.pages.response(
            CalendarWeekPage(
                layout: layout("Calendar", context),
                from: from,
                today: today,
                occurrences: occurrences,
                clock: clock,
                notice: notice
            )
        )
    }

    private struct EntryForm: Decodable {
        var kind: String?
        var title: String?
        var note: String?
        var date_day: String?
        var date_month: String?
        var date_year: String?
        var times: String?
        var repeats: String?
        var until_day: String?
        var until_month: String?
        var until_year: String?

        var date: DateInputValue { DateInputValue(day: date_day, month: date_month, year: date_year) }
        var until: DateInputValue { DateInputValue(day: until_day, month: until_month, year: until_year) }
    }

    /// The entry as typed, checked with the API's rules (`CalendarRules.draft`), or the form again with
    /// every problem beside its field.
    private func draft(_ form: EntryForm) -> Result<CalendarEventDraft, CalendarEntryPage.Problems> {
        var problems = CalendarEntryPage.Problems()
        var dateISO = ""
        switch form.date.date(named: "Date", missing: "Enter the date") {
        case .success(let date): dateISO = date.iso
        case .failure(let problem): problems.date = problem
        }
        var untilISO: String?
        let untilTyped = DateInputValue.Part.allCases.contains { !form.until[$0].isEmpty }
        if untilTyped {
            switch form.until.date(named: "Last day", missing: "Enter the last day") {
            case .success(let date): untilISO = date.iso
            case .failure(let problem): problems.until = problem
            }
        }
        if form.kind.flatMap(CalendarEvent.Kind.init(rawValue:)) == nil { problems.fields["kind"] = "Choose what this entry is" }
        if form.repeats.flatMap(CalendarEvent.Repeats.init(rawValue:)) == nil { problems.fields["repeats"] = "Choose how often it happens" }
        let times = (form.times ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        switch CalendarRules.draft(
            kind: form.kind,
            title: form.title,
            note: form.note,
            date: dateISO.isEmpty ? nil : dateISO,
            times: times,
            repeats: form.repeats,
            until: untilISO
        ) {
        case .success(let draft) where problems.isEmpty:
            return .success(draft)
        case .success:
            return .failure(problems)
        case .failure(let error):
            for (field, problem) in error.fields
            where problems.fields[field] == nil && !(field == "date" && problems.date != nil) && !(field == "until" && problems.until != nil) {
                if field == "date" || field == "until" {
                    let refused = DateInputProblem(message: problem, parts: DateInputValue.Part.allCases)
                    if field == "date" { problems.date = refused } else { problems.until = refused }
                } else {
                    problems.fields[field] = problem
                }
            }
            return .failure(problems)
        }
    }

    private func typed(_ form: EntryForm) -> CalendarEntryPage.Typed {
        CalendarEntryPage.Typed(
            kind: form.kind ?? "",
            title: form.title ?? "",
            note: form.note ?? "",
            date: form.date,
            times: form.times ?? "",
            repeats: form.repeats ?? "",
            until: form.until
        )
    }

    @Sendable func newEntry(request: Request, context: PortalContext) async throws -> Response {
        _ = try memberID(context)
        let today = clock.date(of: portal.now)
        let typed = CalendarEntryPage.Typed(
            kind: "",
            title: "",
            note: "",
            date: DateInputValue(day: "\(today.day)", month: "\(today.month)", year: "\(today.year)"),
            times: "",
            repeats: CalendarEvent.Repeats.never.rawValue,
            until: DateInputValue(day: nil, month: nil, year: nil)
        )
        return portal.pages.response(CalendarEntryPage(layout: layout("Add to your calendar", context), eventID: nil, typed: typed))
    }

    @Sendable func add(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try memberID(context)
        let form = try await request.form(EntryForm.self, context: context)
        switch draft(form) {
        case .success(let draft):
            do {
                let event = try await calendar.add(draft, for: memberID)
                return seeOther("\(SiteURL.appCalendar.path)?from=\(event.startsOn.iso)&notice=added")
            } catch let error as APIError where error.status == .conflict {
                var problems = CalendarEntryPage.Problems()
                problems.fields["title"] = error.message
                return portal.pages.response(
                    CalendarEntryPage(
                        layout: layout("Add to your calendar", context),
                        eventID: nil,
                        typed: typed(form),
                        problems: problems
                    ),
                    status: .conflict
                )
            }
        case .failure(let problems):
            return portal.pages.response(
                CalendarEntryPage(
                    layout: layout("Add to your calendar", context),
                    eventID: nil,
                    typed: typed(form),
                    problems: problems
                ),
                status: .unprocessableContent
            )
        }
    }

    private func event(_ context: PortalContext) async throws -> CalendarEvent {
        let memberID = try memberID(context)
        let id = try context.parameters.recordID()
        guard let event = try await portal.database.read({ db in try await calendar.repository.find(id: id, memberID: memberID, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return event
    }

    @Sendable func entry(request: Request, context: PortalContext) async throws -> Response {
        let event = try await event(context)
        return portal.pages.response(
            CalendarEntryPage(layout: layout(event.title, context), eventID: event.id, typed: CalendarEntryPage.Typed(event))
        )
    }

    @Sendable func change(request: Request, context: PortalContext) async throws -> Response {
        let event = try await event(context)
        let form = try await request.form(EntryForm.self, context: context)
        switch draft(form) {
        case .success(let draft):
            do {
                let changed = try await calendar.change(event.id, to: draft, for: event.memberID)
                return seeOther("\(SiteURL.appCalendar.path)?from=\(changed.startsOn.iso)&notice=changed")
            } catch let error as APIError where error.status == .notFound {
                throw HTTPError(.notFound)
            }
        case .failure(let problems):
            return portal.pages.response(
                CalendarEntryPage(
                    layout: layout(event.title, context),
                    eventID: event.id,
                    typed: typed(form),
                    problems: problems
                ),
                status: .unprocessableContent
            )
        }
    }

    @Sendable func confirmDelete(request: Request, context: PortalContext) async throws -> Response {
        let event = try await event(context)
        return portal.pages.response(CalendarDeletePage(layout: layout("Delete an entry", context), event: event))
    }

    @Sendable func delete(request: Request, context: PortalContext) async throws -> Response {
        let event = try await event(context)
        do {
            try await calendar.delete(event.id, for: event.memberID)
        } catch let error as APIError where error.status == .notFound {
            throw HTTPError(.notFound)
        }
        return seeOther("\(SiteURL.appCalendar.path)?notice=deleted")
    }
}

import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// The study's daily to-dos. A change takes effect tomorrow on the program's clock: an item already
/// asked keeps its past days, a new wording becomes a new item from tomorrow, and an end date can be
/// today at the earliest.
struct StudyTodosController {
    let portal: Portal
    let studies = StudyRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.studyTodos.pattern, access: .studyStaff, list)
        routes.get(SiteURL.newStudyTodo.pattern, access: .studyStaff, showNew)
        routes.post(SiteURL.newStudyTodo.pattern, access: .studyStaff, create)
        routes.get(SiteURL.pattern(SiteURL.studyTodo), access: .studyStaff, edit)
        routes.post(SiteURL.pattern(SiteURL.studyTodo), access: .studyStaff, save)
    }

    private var today: CalendarDate { portal.programSettings.current.clock.date(of: portal.now) }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let schedule = try await portal.database.read { db in try await studies.schedule(on: db) }
        let today = self.today
        func row(_ item: StudyTodoItem) -> StudyTodosPage.Row {
            let state =
                item.startsOn > today ? "Starts \(item.startsOn.displayed)" : (item.endsOn.map { $0 < today } ?? false) ? "Ended" : "Asked today"
            return .init(title: item.title, period: item.period, state: state, path: SiteURL.studyTodo(item.id).path)
        }
        let current = schedule.items.filter { !($0.endsOn.map { $0 < today } ?? false) }
        let ended = schedule.items.filter { $0.endsOn.map { $0 < today } ?? false }
        return portal.pages.response(
            StudyTodosPage(
                layout: portal.layout("Daily to-dos", context: context, current: .studyTodos),
                current: current.map(row),
                ended: ended.map(row),
                today: today.displayed,
                newPath: SiteURL.newStudyTodo.path
            )
        )
    }

    struct ItemForm: Decodable, Sendable {
        var title = ""
        var startsOn = DateInputValue(day: nil, month: nil, year: nil)
        var endsOn = DateInputValue(day: nil, month: nil, year: nil)

        enum CodingKeys: String, CodingKey {
            case title
            case startDay = "starts_on_day", startMonth = "starts_on_month", startYear = "starts_on_year"
            case endDay = "ends_on_day", endMonth = "ends_on_month", endYear = "ends_on_year"
        }

        init(item: StudyTodoItem?, tomorrow: CalendarDate) {
            title = item?.title ?? ""
            let start = item?.startsOn ?? tomorrow
            startsOn = DateInputValue(day: String(start.day), month: String(start.month), year: String(start.year))
            if let end = item?.endsOn { endsOn = DateInputValue(day: String(end.day), month: String(end.month), year: String(end.year)) }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func text(_ key: CodingKeys) throws -> String { (try container.decodeIfPresent(String.self, forKey: key) ?? "").trimmed }
            title = try text(.title)
            startsOn = DateInputValue(day: try text(.startDay), month: try text(.startMonth), year: try text(.startYear))
            endsOn = DateInputValue(day: try text(.endDay), month: try text(.endMonth), year: try text(.endYear))
        }

        var hasEnd: Bool { !(endsOn.day.isEmpty && endsOn.month.isEmpty && endsOn.year.isEmpty) }
    }

    /// What was typed, checked: the title, the start (when it may still change) and the end.
    private struct Checked {
        var errors = FormErrors()
        var startProblem: DateInputProblem?
        var endProblem: DateInputProblem?
        var start: CalendarDate?
        var end: CalendarDate?
    }

    private func check(_ form: ItemForm, startEditable: Bool, existingStart: CalendarDate?, today: CalendarDate) -> Checked {
        var checked = Checked()
        if let problem = FieldRules.requiredTextProblem(form.title, name: "what she should do each day", maximumLength: StudyRules.titleMaximumLength)
        {
            checked.errors.add("title", problem)
        }
        if startEditable {
            switch form.startsOn.date(named: "Start date", missing: "Enter the day the to-do starts") {
            case .success(let date) where date <= today:
                let problem = DateInputProblem(message: "Start date must be tomorrow or later: changes apply from the next day", parts: [.day])
                checked.startProblem = problem
                checked.errors.add(DateInputField.errorAnchor("starts_on", problem), problem.message)
            case .success(let date): checked.start = date
            case .failure(let problem):
                checked.startProblem = problem
                checked.errors.add(DateInputField.errorAnchor("starts_on", problem), problem.message)
            }
        } else {
            checked.start = existingStart
        }
        if form.hasEnd {
            switch form.endsOn.date(named: "End date", missing: "Enter the last day the to-do is asked") {
            case .success(let date) where date < today:
                let problem = DateInputProblem(message: "End date must be today or later: past days stay as they were", parts: [.day])
                checked.endProblem = problem
                checked.errors.add(DateInputField.errorAnchor("ends_on", problem), problem.message)
            case .success(let date) where checked.start.map { date < $0 } ?? false:
                let problem = DateInputProblem(message: "End date must be the same as or after the start date", parts: [.day])
                checked.endProblem = problem
                checked.errors.add(DateInputField.errorAnchor("ends_on", problem), problem.message)
            case .success(let date): checked.end = date
            case .failure(let problem):
                checked.endProblem = problem
                checked.errors.add(DateInputField.errorAnchor("ends_on", problem), problem.message)
            }
        }
        return checked
    }

    @Sendable func showNew(request: Request, context: PortalContext) async throws -> Response {
        let today = self.today
        return portal.pages.response(
            page(ItemForm(item: nil, tomorrow: today.nextDay), item: nil, checked: Checked(), today: today, context: context)
        )
    }

    @Sendable func create(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(ItemForm.self, context: context)
        let today = self.today
        let checked = check(form, startEditable: true, existingStart: nil, today: today)
        guard checked.errors.isEmpty, let start = checked.start else {
            return portal.pages.response(page(form, item: nil, checked: checked, today: today, context: context), status: .unprocessableContent)
        }
        let origin = portal.origin(of: request, context: context)
        let now = portal.now
        try await portal.database.transaction { db in
            let id = try await studies.addItem(title: form.title, startsOn: start, endsOn: checked.end, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .studyTodoChanged,
                    recordType: "study_todo",
                    recordID: "\(id)",
                    origin: origin,
                    detail: "added, from \(start.iso)"
                ),
                on: db
            )
        }
        try await portal.flash(Flash(.success, "“\(form.title)” will be asked from \(start.displayed)."), context: context)
        return seeOther(.studyTodos)
    }

    private func item(_ context: PortalContext) async throws -> StudyTodoItem {
        let id = try context.parameters.recordID()
        guard let item = try await portal.database.read({ db in try await studies.item(id: id, on: db) }) else { throw HTTPError(.notFound) }
        return item
    }

    @Sendable func edit(request: Request, context: PortalContext) async throws -> Response {
        let item = try await item(context)
        let today = self.today
        return portal.pages.response(
            page(ItemForm(item: item, tomorrow: today.nextDay), item: item, checked: Checked(), today: today, context: context)
        )
    }

    @Sendable func save(request: Request, context: PortalContext) async throws -> Response {
        let item = try await item(context)
        let form = try await request.form(ItemForm.self, context: context)
        let today = self.today
        var checked = check(form, startEditable: item.startsOn > today, existingStart: item.startsOn, today: today)
        if let end = item.endsOn, end < today { checked.errors.add("title", "This to-do has ended: add a new one instead") }
        guard checked.errors.isEmpty, let start = checked.start else {
            return portal.pages.response(page(form, item: item, checked: checked, today: today, context: context), status: .unprocessableContent)
        }
        let change = StudyTodoChange(item: item, title: form.title, startsOn: start, endsOn: checked.end, today: today)
        let origin = portal.origin(of: request, context: context)
        let now = portal.now
        let saved = try await portal.database.transaction { db in
            let saved = try await change.save(now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .studyTodoChanged,
                    recordType: "study_todo",
                    recordID: "\(item.id)",
                    origin: origin,
                    detail: saved.detail
                ),
                on: db
            )
            return saved
        }
        try await portal.flash(Flash(.success, saved.message), context: context)
        return seeOther(.studyTodos)
    }

    private func page(_ form: ItemForm, item: StudyTodoItem?, checked: Checked, today: CalendarDate, context: PortalContext) -> StudyTodoPage {
        var fields = [
            FormField(
                "title",
                label: "What she should do each day",
                value: form.title,
                hint: "Shown in her app's to-do list, like Taken daily folate",
                width: 30
            )
        ]
        checked.errors.apply(to: &fields)
        let startEditable = item.map { $0.startsOn > today } ?? true
        return StudyTodoPage(
            layout: portal.layout(item == nil ? "Add a daily to-do" : "Change a daily to-do", context: context, current: .studyTodos),
            errors: checked.errors.items,
            heading: item == nil ? "Add a daily to-do" : "Change a daily to-do",
            title: fields[0],
            startsOn: startEditable
                ? DateInputField(
                    "starts_on",
                    legend: "First day it is asked",
                    hint: "Tomorrow at the earliest, for example \(today.nextDay.day) \(today.nextDay.month) \(today.nextDay.year)",
                    value: form.startsOn,
                    problem: checked.startProblem
                )
                : nil,
            startedText: startEditable ? nil : item?.period,
            endsOn: DateInputField(
                "ends_on",
                legend: "Last day it is asked (optional)",
                hint: "Leave empty to keep asking it. Today at the earliest.",
                value: form.endsOn,
                problem: checked.endProblem
            ),
            rewordNote: startEditable ? nil : "A new wording is asked from tomorrow, \(today.nextDay.displayed); the days before keep the old one.",
            action: item.map { SiteURL.studyTodo($0.id).path } ?? SiteURL.newStudyTodo.path,
            backPath: SiteURL.studyTodos.path
        )
    }
}

/// A to-do's new wording and days, checked. Past days keep the wording they were asked in.
struct StudyTodoChange: Sendable {
    let item: StudyTodoItem
    let title: String
    let startsOn: CalendarDate
    let endsOn: CalendarDate?
    let today: CalendarDate

    /// A new wording of a to-do already asked: this item ends today, its new wording starts tomorrow.
    var rewords: Bool { item.startsOn <= today && title != item.title }

    /// Saves it; what the audit log and the flash say of it.
    func save(now: Date, on db: any SQLDatabase) async throws -> (detail: String, message: String) {
        let studies = StudyRepository()
        guard rewords else {
            try await studies.updateItem(id: item.id, title: title, startsOn: startsOn, endsOn: endsOn, now: now, on: db)
            return ("days \(startsOn.iso) to \(endsOn?.iso ?? "open")", "“\(title)” saved.")
        }
        try await studies.updateItem(id: item.id, title: item.title, startsOn: item.startsOn, endsOn: today, now: now, on: db)
        let next = try await studies.addItem(
            title: title,
            startsOn: today.nextDay,
            endsOn: endsOn,
            position: item.position,
            replacesID: item.id,
            now: now,
            on: db
        )
        return (
            "reworded from \(today.nextDay.iso) as item \(next)",
            "From \(today.nextDay.displayed) participants will be asked “\(title)”. Past days keep “\(item.title)”."
        )
    }
}

import Foundation
import Hummingbird
import PortalPlatform

/// Administrators write broadcasts to every member or chosen cohorts, now or at a set time, check them
/// before they go, see how many members each reached and read, and cancel one that has not gone.
struct BroadcastsController {
    static let access = Access.administrators
    let portal: Portal
    let broadcasts: Broadcasts

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.broadcasts.pattern, access: Self.access, list)
        routes.get(SiteURL.newBroadcast.pattern, access: Self.access, new)
        routes.post(SiteURL.newBroadcast.pattern, access: Self.access, submit)
        routes.get(SiteURL.pattern(SiteURL.broadcast), access: Self.access, show)
        routes.get(SiteURL.pattern(SiteURL.broadcastCancel), access: Self.access, confirmCancel)
        routes.post(SiteURL.pattern(SiteURL.broadcastCancel), access: Self.access, cancel)
    }

    private var clock: ProgramClock { portal.programSettings.current.clock }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let pageRequest = try request.pageRequest()
        let (page, cohorts, reach) = try await portal.database.read { db in
            let page = try await broadcasts.repository.list(page: pageRequest, on: db)
            let sent = page.items.filter { $0.status == .sent }.map(\.id)
            let reach = try await portal.notifications.reach(ofType: NotificationSubject.broadcastType, ids: sent, on: db)
            return (page, try await MemberRepository().cohorts(on: db), reach)
        }
        // A row shows how many read only a sent broadcast; one nobody read yet has no entry in `reach`.
        let rows = BroadcastRow.html(page.items.map { BroadcastRow($0, cohorts: cohorts, read: reach[$0.id]?.read ?? 0, clock: clock) })
        return portal.pages.response(
            BroadcastsPage(
                layout: portal.layout("Notifications", context: context, current: .broadcasts),
                rows: rows.html,
                hasRows: !rows.isEmpty,
                pagination: portal.pages.html(
                    PaginationView(page, address: ListAddress(path: SiteURL.broadcasts.path, parameters: []), noun: "broadcasts")
                )
            )
        )
    }

    @Sendable func new(request: Request, context: PortalContext) async throws -> Response {
        try await formPage(BroadcastForm(), errors: FormErrors(), context: context)
    }

    /// One form, three buttons: check it (the default), change it, or send it after checking.
    @Sendable func submit(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(BroadcastForm.self, context: context)
        let now = portal.now
        let (new, errors) = form.validated(now: now, clock: clock, cohortIDs: try await cohorts().map(\.id))
        guard let new, errors.isEmpty, form.step != "change" else {
            return try await formPage(
                form,
                errors: form.step == "change" ? FormErrors() : errors,
                context: context,
                status: form.step == "change" ? .ok : .unprocessableContent
            )
        }
        guard form.step == "send" else { return try await checkPage(form, new, context: context) }
        let staff = try context.requireStaff()
        let id = try await broadcasts.create(new, by: staff, actor: context.auditActor, origin: portal.origin(of: request, context: context))
        try await portal.flash(Flash(.success, new.sendAt.map { _ in "Broadcast scheduled." } ?? "Broadcast sent."), context: context)
        return seeOther(.broadcast(id))
    }

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let (broadcast, reach, cohorts) = try await portal.database.read { db in
            (
                try await broadcasts.repository.find(id: id, on: db), try await portal.notifications.reach(of: .broadcast(id), on: db),
                try await MemberRepository().cohorts(on: db)
            )
        }
        guard let broadcast else { throw HTTPError(.notFound) }
        return portal.pages.response(
            BroadcastPage(
                layout: portal.layout(broadcast.title, context: context, current: .broadcasts),
                row: BroadcastRow(broadcast, cohorts: cohorts, read: reach.read, clock: clock),
                body: broadcast.body,
                createdBy: broadcast.createdByName,
                created: clock.dateTime(broadcast.createdAt),
                cancelled: broadcast.cancelledAt.map(clock.dateTime),
                cancelPath: broadcast.status == .scheduled ? SiteURL.broadcastCancel(id).path : nil
            )
        )
    }

    @Sendable func confirmCancel(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let broadcast = try await portal.database.read({ db in try await broadcasts.repository.find(id: id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        guard broadcast.status == .scheduled else { return seeOther(.broadcast(id)) }
        return portal.pages.response(
            CancelBroadcastPage(
                layout: portal.layout("Cancel this broadcast", context: context, current: .broadcasts),
                title: broadcast.title,
                sendAt: clock.dateTime(broadcast.sendAt),
                action: SiteURL.broadcastCancel(id).path,
                backPath: SiteURL.broadcast(id).path
            )
        )
    }

    @Sendable func cancel(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard try await portal.database.read({ db in try await broadcasts.repository.find(id: id, on: db) }) != nil else {
            throw HTTPError(.notFound)
        }
        let cancelled = try await broadcasts.cancel(id: id, actor: context.auditActor, origin: portal.origin(of: request, context: context))
        try await portal.flash(
            cancelled
                ? Flash(.success, "Broadcast cancelled. No member will get it.")
                : Flash(.warning, "This broadcast could not be cancelled: it has already gone or was cancelled before."),
            context: context
        )
        return seeOther(.broadcast(id))
    }

    private func cohorts() async throws -> [Cohort] {
        try await portal.database.read { db in try await MemberRepository().cohorts(on: db) }
    }

    private func formPage(
        _ form: BroadcastForm,
        errors: FormErrors,
        context: PortalContext,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let cohorts = try await cohorts()
        return portal.pages.response(
            BroadcastFormPage(
                form,
                errors: errors,
                cohorts: cohorts,
                timeZone: clock.timeZone,
                layout: portal.layout("Write a broadcast", context: context, current: .broadcasts)
            ),
            status: status
        )
    }

    private func checkPage(_ form: BroadcastForm, _ new: NewBroadcast, context: PortalContext) async throws -> Response {
        let (cohorts, reach) = try await portal.database.read { db in
            (
                try await MemberRepository().cohorts(on: db),
                try await MemberNotifications(notifications: portal.notifications).countMembers(of: new.cohortIDs, wanting: .broadcast, on: db)
            )
        }
        return portal.pages.response(
            CheckBroadcastPage(
                layout: portal.layout("Check your broadcast", context: context, current: .broadcasts),
                title: new.title,
                body: new.body,
                hidden: [
                    ("title", form.title), ("body", form.body), ("audience", form.audience), ("when", form.when),
                    ("send_on_day", form.sendDay), ("send_on_month", form.sendMonth), ("send_on_year", form.sendYear), ("send_time", form.sendTime)
                ].map { CheckBroadcastPage.Hidden(name: $0.0, value: $0.1) }
                    + form.cohorts.map { CheckBroadcastPage.Hidden(name: "cohorts[]", value: $0) },
                audience: BroadcastRow.audience(new.cohortIDs, cohorts: cohorts),
                when: new.sendAt.map(clock.dateTime) ?? "Now",
                reach: BroadcastRow.members(reach),
                sendLabel: new.sendAt == nil ? "Send broadcast" : "Schedule broadcast",
                action: SiteURL.newBroadcast.path
            )
        )
    }
}

/// The broadcast form as typed; every value is kept when it is shown again.
struct BroadcastForm: Decodable, Sendable {
    var title = ""
    var body = ""
    /// `everyone` or `cohorts`.
    var audience = ""
    var cohorts: [String] = []
    /// `now` or `later`.
    var when = ""
    var sendDay = ""
    var sendMonth = ""
    var sendYear = ""
    var sendTime = ""
    /// Which button: `check` (also when absent), `change` or `send`.
    var step = "check"

    enum CodingKeys: String, CodingKey {
        case title, body, audience, cohorts, when, step
        case sendDay = "send_on_day", sendMonth = "send_on_month", sendYear = "send_on_year", sendTime = "send_time"
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = (try container.decodeIfPresent(String.self, forKey: .title) ?? "").trimmed
        body = (try container.decodeIfPresent(String.self, forKey: .body) ?? "").trimmed
        audience = try container.decodeIfPresent(String.self, forKey: .audience) ?? ""
        cohorts = try container.decodeIfPresent([String].self, forKey: .cohorts) ?? []
        when = try container.decodeIfPresent(String.self, forKey: .when) ?? ""
        sendDay = try container.decodeIfPresent(String.self, forKey: .sendDay) ?? ""
        sendMonth = try container.decodeIfPresent(String.self, forKey: .sendMonth) ?? ""
        sendYear = try container.decodeIfPresent(String.self, forKey: .sendYear) ?? ""
        sendTime = (try container.decodeIfPresent(String.self, forKey: .sendTime) ?? "").trimmed
        step = try container.decodeIfPresent(String.self, forKey: .step) ?? "check"
    }

    var dateValue: DateInputValue { DateInputValue(day: sendDay, month: sendMonth, year: sendYear) }

    func validated(now: Date, clock: ProgramClock, cohortIDs known: [Int64]) -> (NewBroadcast?, FormErrors) {
        var errors = FormErrors()
        if let problem = FieldRules.requiredTextProblem(title, name: "a title", maximumLength: Broadcasts.titleMaximumLength) {
            errors.add("title", problem)
        }
        if let problem = FieldRules.requiredTextProblem(body, name: "the message", maximumLength: Broadcasts.bodyMaximumLength) {
            errors.add("body", problem)
        }
        var cohortIDs: [Int64]?
        switch audience {
        case "everyone": cohortIDs = nil
        case "cohorts":
            let chosen = cohorts.compactMap(Int64.init).filter(known.contains)
            if chosen.isEmpty { errors.add("cohorts", "Choose at least one cohort") }
            cohortIDs = chosen.sorted()
        default: errors.add("audience", "Choose who gets the broadcast")
        }
        var sendAt: Date?
        switch when {
        case "now": sendAt = nil
        case "later":
            switch dateValue.date(named: "The date", missing: "Enter the date to send it") {
            case .failure(let problem): errors.add(DateInputField.errorAnchor("send_on", problem), problem.message)
            case .success(let day):
                if let time = TimeOfDay(text: sendTime) {
                    let instant = clock.instant(on: day, atMinute: time.minutes)
                    if instant <= now {
                        errors.add("send_time", "Choose a time in the future, or send it now")
                    } else if instant.timeIntervalSince(now) > Broadcasts.furthestAhead {
                        errors.add("send_on_day", "Choose a date within a year")
                    } else {
                        sendAt = instant
                    }
                } else {
                    errors.add(
                        "send_time",
                        sendTime.isEmpty ? "Enter the time to send it" : "Enter the time on the 24-hour clock, like 09:30 or 18:00"
                    )
                }
            }
        default: errors.add("when", "Choose when to send it")
        }
        guard errors.isEmpty else { return (nil, errors) }
        return (NewBroadcast(title: title, body: body, cohortIDs: cohortIDs, sendAt: sendAt), errors)
    }
}

struct BroadcastRow: Sendable, Encodable {
    let path: String
    let title: String
    let audience: String
    let when: String
    let statusTitle: String
    let statusTone: TableRows.TagTone
    let statusTag: String
    /// "12 members", "1 member".
    let recipients: String?
    let read: String?

    init(_ broadcast: Broadcast, cohorts: [Cohort], read: Int?, clock: ProgramClock) {
        path = SiteURL.broadcast(broadcast.id).path
        title = broadcast.title
        audience = Self.audience(broadcast.cohortIDs, cohorts: cohorts)
        when = clock.dateTime(broadcast.sentAt ?? broadcast.sendAt)
        statusTitle = broadcast.status.title
        statusTone =
            switch broadcast.status {
            case .scheduled: .blue
            case .sent: .green
            case .cancelled: .grey
            }
        statusTag = statusTone.tagClass
        recipients = broadcast.recipientCount.map(Self.members)
        self.read = broadcast.status == .sent ? read.map(Self.members) : nil
    }

    static func members(_ count: Int) -> String { count == 1 ? "1 member" : "\(count) members" }

    /// The broadcasts list's rows (`TableRows`): the title linking to the broadcast, who it is for, when it was
    /// or will be sent, its status, and how many members it reached and read it ("–" where not yet known).
    static func html(_ rows: [BroadcastRow]) -> TableRows {
        TableRows(rows) { row, cells in
            cells.link(row.title, to: row.path)
            cells.text(row.audience)
            cells.text(row.when)
            cells.tag(row.statusTitle, tone: row.statusTone)
            cells.number(row.recipients ?? "–")
            cells.number(row.read ?? "–")
        }
    }

    static func audience(_ cohortIDs: [Int64]?, cohorts: [Cohort]) -> String {
        guard let cohortIDs else { return "Every member" }
        let names = cohortIDs.map { id in cohorts.first { $0.id == id }?.name ?? "A cohort no longer here" }
        return names.joined(separator: ", ")
    }
}

struct BroadcastsPage: Page {
    static let template = TemplateName.broadcasts
    let layout: Layout
    /// The rendered rows (`BroadcastRow.html`).
    let rows: RenderedHTML
    let hasRows: Bool
    let pagination: RenderedHTML
    let newPath = SiteURL.newBroadcast.path
}

struct BroadcastPage: Page {
    static let template = TemplateName.broadcast
    let layout: Layout
    let row: BroadcastRow
    let body: String
    let createdBy: String
    let created: String
    let cancelled: String?
    let cancelPath: String?
    let listPath = SiteURL.broadcasts.path
}

struct CancelBroadcastPage: Page {
    static let template = TemplateName.cancelBroadcast
    let layout: Layout
    let title: String
    let sendAt: String
    let action: String
    let backPath: String
}

struct BroadcastFormPage: Page {
    struct Choice: Sendable, Encodable {
        let value: String
        let title: String
        let isSelected: Bool
    }

    static let template = TemplateName.newBroadcast
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let body: String
    let bodyError: String?
    let audienceError: String?
    let everyone: Bool
    let chosenCohorts: Bool
    let cohorts: [Choice]
    let cohortsError: String?
    let whenError: String?
    let now: Bool
    let later: Bool
    let sendOn: DateInputField
    let sendTime: FormField
    let maximumBody = Broadcasts.bodyMaximumLength
    let timeZone: String
    let action = SiteURL.newBroadcast.path
    let listPath = SiteURL.broadcasts.path

    init(_ form: BroadcastForm, errors: FormErrors, cohorts: [Cohort], timeZone: TimeZone, layout: Layout) {
        self.layout = layout
        self.errors = errors.items
        func error(_ field: String) -> String? { errors.items.first { $0.field == field }?.message }
        var fields = [
            FormField(
                "title",
                label: "Title",
                value: form.title,
                hint: "Up to \(Broadcasts.titleMaximumLength) characters. Shown in the member's feed.",
                width: 30
            )
        ]
        errors.apply(to: &fields)
        self.fields = fields
        body = form.body
        bodyError = error("body")
        audienceError = error("audience")
        everyone = form.audience == "everyone"
        chosenCohorts = form.audience == "cohorts"
        self.cohorts = cohorts.map { Choice(value: String($0.id), title: $0.name, isSelected: form.cohorts.contains(String($0.id))) }
        cohortsError = error("cohorts")
        whenError = error("when")
        now = form.when == "now"
        later = form.when == "later"
        let dateProblem = errors.items.first { $0.field.hasPrefix("send_on_") }.map { item in
            DateInputProblem(message: item.message, parts: [DateInputValue.Part(rawValue: String(item.field.dropFirst("send_on_".count))) ?? .day])
        }
        sendOn = DateInputField("send_on", legend: "Date", hint: "For example, 27 3 2027", value: form.dateValue, problem: dateProblem)
        var time = FormField("send_time", label: "Time", value: form.sendTime, hint: "On the 24-hour clock, like 09:30 or 18:00", width: 10)
        time.error = error("send_time")
        sendTime = time
        self.timeZone = ProgramTimeZone.title(of: timeZone.identifier)
    }
}

struct CheckBroadcastPage: Page {
    struct Hidden: Sendable, Encodable {
        let name: String
        let value: String
    }

    static let template = TemplateName.checkBroadcast
    let layout: Layout
    let title: String
    let body: String
    /// The form's values, sent again with "Send" or "Change".
    let hidden: [Hidden]
    let audience: String
    let when: String
    /// "12 members", "1 member".
    let reach: String
    let sendLabel: String
    let action: String
}

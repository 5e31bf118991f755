import Foundation
import Hummingbird
import PortalPlatform

extension TemplateName {
    static let appNotifications = TemplateName("app/notifications/feed")
    static let appNotificationChoices = TemplateName("app/notifications/choices")
}

extension NotificationAccounts {
    /// The kinds an account of this kind may choose about: its own, from the programs that run.
    func kinds(_ portal: Portal) -> [NotificationKind] {
        let settings = portal.programSettings.current
        return portal.contributions.notificationKinds
            .filter { settings.runs($0.program) && $0.kind.role == kind.role }
            .map(\.kind)
    }

    /// Saves what she changed (the kinds named in `overrides`, and for members the reminder lead and the
    /// check-in time); what she leaves out stays as it was. Shared by the API and the web app's page.
    func saveChoices(
        overrides: [String: Bool],
        reminderLeadMinutes: Int?,
        checkInMinute: Int?,
        of recipient: AppAccountRef,
        portal: Portal
    ) async throws -> NotificationChoices {
        let known = kinds(portal)
        return try await portal.database.transaction { db in
            var choices = try await portal.notifications.choices(of: recipient, on: db)
            for (kind, on) in overrides { choices.overrides[kind] = on }
            if choosesReminders, let lead = reminderLeadMinutes { choices.reminderLeadMinutes = lead }
            if choosesReminders, let minutes = checkInMinute { choices.checkInMinute = minutes }
            try await portal.notifications.save(choices, kinds: known, of: recipient, on: db)
            return choices
        }
    }
}

/// The web app's notifications for one kind of account: her feed, newest first, with "mark all as
/// read", and her choices of what to be told. Each part of the app that has a feed adds these with its
/// own addresses and navigation.
struct AppNotificationPages: Sendable {
    let portal: Portal
    let accounts: NotificationAccounts
    let feed: SiteURL
    let readAll: SiteURL
    let choices: SiteURL
    let navigation: AppNavigation
    /// Where an entry about something leads in her part of the app, if anywhere.
    let link: @Sendable (NotificationSubject) -> String?

    static let pageSize = 20

    func addRoutes(to routes: inout PortalRoutes) {
        let access = Access.appPage(accounts.kind)
        routes.get(feed.pattern, access: access, showFeed)
        routes.post(readAll.pattern, access: access, markAllRead)
        routes.get(choices.pattern, access: access, showChoices)
        routes.post(choices.pattern, access: access, saveChoices)
    }

    private func me(_ context: PortalContext) throws -> AppAccountRef {
        guard let holder = context.appAccount, holder.kind == accounts.kind else { throw HTTPError(.notFound) }
        return AppAccountRef(role: accounts.kind.role, accountID: holder.accountID)
    }

    private func layout(_ title: String, _ context: PortalContext) -> Layout {
        portal.appLayout(title, context: context, navigation: navigation, currentPath: feed.path)
    }

    @Sendable func showFeed(request: Request, context: PortalContext) async throws -> Response {
        let recipient = try me(context)
        let number = request.pageNumber
        let (page, unread) = try await portal.database.read { db in
            try await portal.notifications.feed(of: recipient, page: PageRequest(number: number, size: Self.pageSize), on: db)
        }
        let clock = portal.programSettings.current.clock
        return portal.pages.response(
            AppNotificationsPage(
                layout: layout("Notifications", context),
                entries: page.items.map { stored in
                    AppNotificationsPage.Entry(
                        message: stored.message,
                        body: stored.body,
                        time: clock.dateTime(stored.createdAt),
                        isUnread: stored.readAt == nil,
                        link: stored.subject.flatMap(link)
                    )
                },
                unreadCount: unread,
                newestID: page.request.number == 1 ? page.items.first?.id : nil,
                readAllAction: readAll.path,
                choicesPath: choices.path,
                marked: request.query("marked") != nil,
                pagination: portal.pages.html(PaginationView(page, address: ListAddress(path: feed.path, parameters: []), noun: "notifications"))
            )
        )
    }

    private struct ReadAllForm: Decodable {
        var up_to_id: Int64?
    }

    /// Everything up to the newest entry she saw is read; anything that came after stays unread.
    @Sendable func markAllRead(request: Request, context: PortalContext) async throws -> Response {
        let recipient = try me(context)
        let form = try await request.form(ReadAllForm.self, context: context)
        _ = try await portal.database.transaction { db in
            try await portal.notifications.markAllRead(of: recipient, upToID: form.up_to_id, on: db)
        }
        return seeOther("\(feed.path)?marked=1")
    }

    private func choicesPage(
        _ context: PortalContext,
        choices: NotificationChoices,
        errors: FormErrors = FormErrors(),
        checkInText: String? = nil,
        saved: Bool = false
    ) -> AppNotificationChoicesPage {
        let reminders = accounts.choosesReminders
        return AppNotificationChoicesPage(
            layout: layout("Notification choices", context),
            errors: errors.items,
            action: self.choices.path,
            feedPath: feed.path,
            kinds: accounts.kinds(portal).map { .init(id: $0.id, title: $0.title, isOn: choices.wants($0)) },
            choosesReminders: reminders,
            leads: reminders
                ? NotificationChoices.reminderLeadChoices.map {
                    .init(minutes: $0, title: Self.leadTitle($0), isSelected: $0 == choices.reminderLeadMinutes)
                } : [],
            checkInTime: checkInText ?? TimeOfDay(minutes: choices.checkInMinute).text,
            checkInError: errors["check_in_time"],
            saved: saved
        )
    }

    static func leadTitle(_ minutes: Int) -> String {
        switch minutes {
        case 1_440: "A day before"
        case let hours where hours % 60 == 0: hours == 60 ? "An hour before" : "\(hours / 60) hours before"
        default: "\(minutes) minutes before"
        }
    }

    @Sendable func showChoices(request: Request, context: PortalContext) async throws -> Response {
        let recipient = try me(context)
        let choices = try await portal.database.read { db in try await portal.notifications.choices(of: recipient, on: db) }
        return portal.pages.response(choicesPage(context, choices: choices, saved: request.query("saved") != nil))
    }

    /// The form sends every kind's box (a box left empty is a kind switched off).
    @Sendable func saveChoices(request: Request, context: PortalContext) async throws -> Response {
        let recipient = try me(context)
        let form = try await request.form([String: String].self, context: context)
        let kinds = accounts.kinds(portal)
        var overrides: [String: Bool] = [:]
        for kind in kinds { overrides[kind.id] = form["kind-\(kind.id)"] == "on" }
        var errors = FormErrors()
        var lead: Int?, checkIn: Int?
        let checkInText = (form["check_in_time"] ?? "").trimmed
        if accounts.choosesReminders {
            lead = form["reminder_lead_minutes"].flatMap(Int.init).flatMap { NotificationChoices.reminderLeadChoices.contains($0) ? $0 : nil }
            if lead == nil { errors.add("reminder_lead_minutes", "Choose how long before an event to be reminded") }
            checkIn = TimeOfDay(text: checkInText)?.minutes
            if checkIn == nil { errors.add("check_in_time", "Enter a time of day like 19:00") }
        }
        guard errors.isEmpty else {
            var choices = try await portal.database.read { db in try await portal.notifications.choices(of: recipient, on: db) }
            for (kind, on) in overrides { choices.overrides[kind] = on }
            if let lead { choices.reminderLeadMinutes = lead }
            return portal.pages.response(
                choicesPage(context, choices: choices, errors: errors, checkInText: checkInText),
                status: .unprocessableContent
            )
        }
        _ = try await accounts.saveChoices(overrides: overrides, reminderLeadMinutes: lead, checkInMinute: checkIn, of: recipient, portal: portal)
        return seeOther("\(choices.path)?saved=1")
    }
}

/// Her notifications, newest first.
struct AppNotificationsPage: Page {
    static let template = TemplateName.appNotifications

    /// What a home page says of her unread notifications: nothing when there are none.
    static func unreadText(_ count: Int) -> String? {
        switch count {
        case 0: nil
        case 1: "1 new notification"
        default: "\(count) new notifications"
        }
    }

    struct Entry: Encodable, Sendable {
        let message: String
        let body: String?
        let time: String
        let isUnread: Bool
        let link: String?
    }

    let layout: Layout
    let entries: [Entry]
    let unreadCount: Int
    /// The newest entry shown, which "mark all as read" marks up to; only on the first page.
    let newestID: Int64?
    let readAllAction: String
    let choicesPath: String
    let marked: Bool
    let pagination: RenderedHTML
}

/// What she wants to be told.
struct AppNotificationChoicesPage: Page {
    static let template = TemplateName.appNotificationChoices

    struct Kind: Encodable, Sendable {
        let id: String
        let title: String
        let isOn: Bool
    }

    struct Lead: Encodable, Sendable {
        let minutes: Int
        let title: String
        let isSelected: Bool
    }

    let layout: Layout
    let errors: [FormErrors.Item]
    let action: String
    let feedPath: String
    let kinds: [Kind]
    let choosesReminders: Bool
    let leads: [Lead]
    let checkInTime: String
    let checkInError: String?
    let saved: Bool
}

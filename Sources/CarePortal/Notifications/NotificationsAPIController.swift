import Foundation
import Hummingbird
import PortalPlatform

struct NotificationsAPIController {
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.apiNotifications.pattern, access: .member, feed)
        routes.get(SiteURL.apiNotificationsUnreadCount.pattern, access: .member, unreadCount)
        AppNotificationsAPIController(portal: portal, accounts: .members).addRoutes(to: &routes)
    }

    private var notifications: Notifications { portal.notifications }

    private func me(_ context: PortalContext) throws -> AppAccountRef {
        .member(try context.requireMember().accountID)
    }

    /// `GET /api/v1/notifications`: her feed, newest first, with her unread count.
    @Sendable func feed(request: Request, context: PortalContext) async throws -> Response {
        let recipient = try me(context)
        let pageRequest = try request.apiPage()
        let subjects = portal.contributions.notificationSubjects
        let (page, unread, titles) = try await portal.database.read { db in
            let (page, unread) = try await notifications.feed(of: recipient, page: pageRequest, on: db)
            var titles: [String: [Int64: String]] = [:]
            for (type, entries) in Dictionary(grouping: page.items.compactMap(\.subject), by: \.type) {
                guard let subject = subjects[type] else { continue }
                titles[type] = try await subject.titles(Array(Set(entries.compactMap(\.id))), db)
            }
            return (page, unread, titles)
        }
        return .json(
            APIPage(
                NotificationsAPI.List(notifications: page.items.map { entry(for: $0, titles: titles) }, unreadCount: unread),
                APIPagePosition(page)
            )
        )
    }

    private func entry(for stored: StoredNotification, titles: [String: [Int64: String]]) -> NotificationsAPI.Entry {
        let title = stored.subject.flatMap { subject in subject.id.flatMap { titles[subject.type]?[$0] } }
        let isThread = stored.subject?.type == NotificationSubject.threadType
        return NotificationsAPI.Entry(
            id: stored.id,
            kind: stored.kind,
            message: stored.message,
            body: stored.body,
            reason: stored.reason,
            subject: stored.subject.map { NotificationsAPI.Subject(type: $0.type, id: $0.id, title: title) },
            threadId: isThread ? stored.subject?.id : nil,
            threadTitle: isThread ? (title ?? Moderation.placeholder) : nil,
            replyId: isThread ? stored.detailID : nil,
            createdAt: stored.createdAt,
            read: stored.readAt != nil,
            readAt: stored.readAt
        )
    }

    /// `GET /api/v1/notifications/unread-count`: for the app's badge.
    @Sendable func unreadCount(request: Request, context: PortalContext) async throws -> Response {
        let recipient = try me(context)
        let count = try await portal.database.read { db in try await notifications.unreadCount(of: recipient, on: db) }
        return .json(NotificationsAPI.UnreadCount(unreadCount: count))
    }
}

/// Which app accounts a set of feed-reading, notification-choice and push-token routes serves: members' at
/// `/api/v1/notifications/…` and `/api/v1/push-tokens`, pharmacy customers' under `/api/v1/pharmacy/`, care
/// receivers' and caregivers' under theirs. One implementation, so every kind of app account marks her feed
/// read, chooses its kinds and registers its phones alike.
struct NotificationAccounts: Sendable {
    let kind: AppAccountKind
    let access: Access
    let preferences: SiteURL
    let pushTokens: SiteURL
    /// `DELETE …/push-tokens/{token}`.
    let pushToken: @Sendable (String) -> SiteURL
    /// `POST …/notifications/{id}/read` and `POST …/notifications/read-all`.
    let read: @Sendable (Int64) -> SiteURL
    let readAll: SiteURL
    /// Members also choose how far ahead calendar reminders come and when the check-in reminder does.
    let choosesReminders: Bool

    static let members = NotificationAccounts(
        kind: .member,
        access: .member,
        preferences: .apiNotificationPreferences,
        pushTokens: .apiPushTokens,
        pushToken: SiteURL.apiPushToken,
        read: SiteURL.apiNotificationRead,
        readAll: .apiNotificationsReadAll,
        choosesReminders: true
    )
}

/// An app account's feed marked read, her choices about it (each kind on or off) and the phones her pushes go to.
struct AppNotificationsAPIController {
    let portal: Portal
    let accounts: NotificationAccounts

    static let tokenMaximumLength = 4_096

    func addRoutes(to routes: inout PortalRoutes) {
        routes.post(SiteURL.pattern(accounts.read), access: accounts.access, markRead)
        routes.post(accounts.readAll.pattern, access: accounts.access, markAllRead)
        routes.get(accounts.preferences.pattern, access: accounts.access, preferences)
        routes.put(accounts.preferences.pattern, access: accounts.access, savePreferences)
        routes.post(accounts.pushTokens.pattern, access: accounts.access, registerPushToken)
        routes.delete(SiteURL.pattern(accounts.pushToken), access: accounts.access, unregisterPushToken)
    }

    private var notifications: Notifications { portal.notifications }

    private func me(_ context: PortalContext) throws -> AppAccountRef {
        guard let holder = context.appAccount, holder.kind == accounts.kind else { throw APIError.unauthorized }
        return AppAccountRef(role: accounts.kind.role, accountID: holder.accountID)
    }

    private var kinds: [NotificationKind] { accounts.kinds(portal) }

    /// `POST …/notifications/{id}/read`: one entry of her own feed read; 404 for anyone else's.
    @Sendable func markRead(request: Request, context: PortalContext) async throws -> Response {
        let recipient = try me(context)
        let id = try context.parameters.apiRecordID()
        let found = try await portal.database.transaction { db in try await notifications.markRead(id: id, of: recipient, on: db) }
        guard found else { throw APIError.notFound }
        return .noContent
    }

    /// `POST …/notifications/read-all`: every entry up to `up_to_id` (the newest the app showed) read.
    @Sendable func markAllRead(request: Request, context: PortalContext) async throws -> Response {
        let recipient = try me(context)
        let body = try await request.json(NotificationsAPI.ReadAll.self)
        if let upTo = body.upToId, upTo < 1 { throw APIError.validation(["up_to_id": "Give the id of the newest entry the app showed"]) }
        let (marked, unread) = try await portal.database.transaction { db in
            let marked = try await notifications.markAllRead(of: recipient, upToID: body.upToId, on: db)
            return (marked, try await notifications.unreadCount(of: recipient, on: db))
        }
        return .json(NotificationsAPI.Marked(marked: marked, unreadCount: unread))
    }

    @Sendable func preferences(request: Request, context: PortalContext) async throws -> Response {
        let recipient = try me(context)
        let choices = try await portal.database.read { db in try await notifications.choices(of: recipient, on: db) }
        return .json(view(of: choices))
    }

    private func view(of choices: NotificationChoices) -> NotificationsAPI.Preferences {
        let reminders = accounts.choosesReminders
        return NotificationsAPI.Preferences(
            kinds: kinds.map { NotificationsAPI.KindChoice(kind: $0.id, title: $0.title, on: choices.wants($0)) },
            reminderLeadMinutes: reminders ? choices.reminderLeadMinutes : nil,
            reminderLeadChoices: reminders ? NotificationChoices.reminderLeadChoices : nil,
            checkInTime: reminders ? TimeOfDay(minutes: choices.checkInMinute).text : nil,
            timeZone: reminders ? portal.programSettings.current.timeZoneID : nil
        )
    }

    /// `PUT /api/v1/notifications/preferences` (members): what she sends changes; what she leaves out stays.
    @Sendable func savePreferences(request: Request, context: PortalContext) async throws -> Response {
        let recipient = try me(context)
        let body = try await request.json(NotificationsAPI.NewPreferences.self)
        let known = kinds
        var problems: [String: String] = [:]
        for (index, choice) in (body.kinds ?? []).enumerated() {
            if choice.kind.flatMap({ id in known.first { $0.id == id } }) == nil {
                problems["kinds.\(index).kind"] = "Use one of \(known.map(\.id).joined(separator: ", "))"
            } else if choice.on == nil {
                problems["kinds.\(index).on"] = "Say true to get these notifications or false not to"
            }
        }
        // A pharmacy customer has no reminders: what she might send about them is not hers to set.
        let reminderLead = accounts.choosesReminders ? body.reminderLeadMinutes : nil
        let checkInTime = accounts.choosesReminders ? body.checkInTime : nil
        if let lead = reminderLead, !NotificationChoices.reminderLeadChoices.contains(lead) {
            problems["reminder_lead_minutes"] =
                "Choose one of \(NotificationChoices.reminderLeadChoices.map(String.init).joined(separator: ", ")) minutes"
        }
        let checkIn = checkInTime.map(TimeOfDay.init(text:))
        if checkIn == .some(nil) { problems["check_in_time"] = "Give a time of day as HH:MM, like 19:00" }
        guard problems.isEmpty else { throw APIError.validation(problems) }
        var overrides: [String: Bool] = [:]
        for choice in body.kinds ?? [] { if let kind = choice.kind, let on = choice.on { overrides[kind] = on } }
        let saved = try await accounts.saveChoices(
            overrides: overrides,
            reminderLeadMinutes: reminderLead,
            checkInMinute: checkIn??.minutes,
            of: recipient,
            portal: portal
        )
        return .json(view(of: saved))
    }

    /// `POST /api/v1/push-tokens` (members): her phone's token from Apple's or Google's service.
    @Sendable func registerPushToken(request: Request, context: PortalContext) async throws -> Response {
        let recipient = try me(context)
        let body = try await request.json(NotificationsAPI.NewPushToken.self)
        let token = (body.token ?? "").trimmed
        var problems: [String: String] = [:]
        if let problem = Self.tokenProblem(token) { problems["token"] = problem }
        let platform = PushDevice.Platform(rawValue: body.platform ?? "")
        if platform == nil { problems["platform"] = "Use ios or android" }
        guard let platform, problems.isEmpty else { throw APIError.validation(problems) }
        try await portal.database.transaction { db in
            try await notifications.register(PushDevice(token: token, platform: platform), for: recipient, on: db)
        }
        return .json(NotificationsAPI.PushToken(token: token, platform: platform.rawValue), status: .created)
    }

    /// `DELETE /api/v1/push-tokens/{token}` (members): at sign-out, or when she switches pushes off on the phone.
    @Sendable func unregisterPushToken(request: Request, context: PortalContext) async throws -> Response {
        let recipient = try me(context)
        guard let token = context.parameters.get("token"), Self.tokenProblem(token) == nil else { throw APIError.notFound }
        let found = try await portal.database.transaction { db in try await notifications.unregister(token: token, for: recipient, on: db) }
        guard found else { throw APIError.notFound }
        return .noContent
    }

    /// Apple's and Google's tokens are letters, digits and a few marks; nothing else is stored.
    static func tokenProblem(_ token: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_:.")
        if token.isEmpty { return "Give the phone's push token" }
        if token.count > tokenMaximumLength || !token.allSatisfy(allowed.contains) {
            return "A push token is up to \(tokenMaximumLength) letters, digits, and - _ : ."
        }
        return nil
    }
}

/// A time of day, `HH:MM` on the 24-hour clock.
struct TimeOfDay: Sendable, Equatable {
    let minutes: Int

    init(minutes: Int) {
        self.minutes = minutes
    }

    init?(text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        minutes = hour * 60 + minute
    }

    var text: String { String(format: "%02d:%02d", minutes / 60, minutes % 60) }
}

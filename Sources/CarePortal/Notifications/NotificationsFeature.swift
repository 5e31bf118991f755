import Foundation
import PortalPlatform
import SQLKit

/// One notification feed for every member, written by every feature in the transaction of what it
/// tells; members' choices about it and their phones' push tokens; administrators' broadcasts; the daily
/// check-in reminder; and the pushes that tell phones something new is waiting.
struct NotificationsFeature: PortalFeature {
    static let program: Program? = .perinatalCommunity
    static let navigation = [
        NavigationItem(title: "Notifications", path: SiteURL.broadcasts.path, access: BroadcastsController.access, group: .community)
    ]
    static let auditActions: [AuditAction] = [.broadcastSent, .broadcastScheduled, .broadcastCancelled]
    static let templates: [TemplateName] = [.broadcasts, .broadcast, .newBroadcast, .checkBroadcast, .cancelBroadcast]
    static let notificationKinds: [NotificationKind] = [.broadcast, .checkInReminder]
    /// Scheduled work is looked for this often, so it is in feeds well within 30 seconds of its time.
    static let scheduleInterval: Duration = .seconds(10)
    /// Pushes are handed to the gateway this often.
    static let pushInterval: Duration = .seconds(5)

    let portal: Portal
    let broadcasts: Broadcasts
    let checkIns: CheckInReminders
    let pushes: PushDelivery

    init(portal: Portal) {
        self.portal = portal
        broadcasts = Broadcasts(portal: portal)
        checkIns = CheckInReminders(portal: portal)
        pushes = PushDelivery(
            database: portal.database,
            notifications: portal.notifications,
            sender: portal.dependencies.pushSender ?? LoggingPushSender(logger: portal.logger),
            logger: portal.logger
        )
    }

    func addRoutes(to routes: inout PortalRoutes) {
        BroadcastsController(portal: portal, broadcasts: broadcasts).addRoutes(to: &routes)
        NotificationsAPIController(portal: portal).addRoutes(to: &routes)
    }

    var jobs: [BackgroundJob] {
        let (broadcasts, checkIns, pushes, portal) = (self.broadcasts, self.checkIns, self.pushes, self.portal)
        // Every kind of app account's pushes (a pharmacy customer's too) go out whichever programs run.
        var pushing = BackgroundJob("Pushes", every: Self.pushInterval) {
            try await pushes.deliverDue(programName: portal.programSettings.current.programName)
        }
        pushing.servesEveryProgram = true
        return [
            BackgroundJob("Scheduled broadcasts", every: Self.scheduleInterval) { try await broadcasts.sendDue() },
            BackgroundJob("Check-in reminders", every: Self.scheduleInterval) { try await checkIns.writeDue() },
            pushing
        ]
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        try await demo.seedNotifications(on: db)
    }

    static func homeCards(for staff: StaffAccount, portal: Portal) async throws -> [HomeCard] {
        guard staff.role == .administrator else { return [] }
        return [
            HomeCard(
                title: "Notifications",
                path: SiteURL.broadcasts.path,
                body: "Send news to every member or chosen cohorts, now or at a set time."
            )
        ]
    }
}

/// Reminds each member once a day, at the time she chose, to share how she feels — unless she already has.
struct CheckInReminders: Sendable {
    /// A reminder whose time passed longer ago than this (the servers were down) is not written late.
    static let lateness = 60
    let portal: Portal

    @discardableResult
    func writeDue() async throws -> Int {
        let now = portal.now
        let clock = portal.programSettings.current.clock
        let today = clock.date(of: now), minute = clock.minuteOfDay(of: now)
        let startOfDay = clock.instant(startOf: today)
        let written = try await portal.database.transaction { db in
            try await MemberNotifications(notifications: portal.notifications).notifyCheckInDue(
                minute: minute,
                lateness: Self.lateness,
                moodsSince: startOfDay,
                NewNotification(
                    kind: .checkInReminder,
                    message: "How are you feeling today? Share your mood with your cohort.",
                    subject: NotificationSubject("mood", id: nil),
                    onceKey: "check_in:\(today.iso)"
                ),
                on: db
            )
        }
        if written > 0 { await portal.announceNotifications(to: .everyMember) }
        return written
    }
}

extension TemplateName {
    static let broadcasts = TemplateName("notifications/broadcasts")
    static let broadcast = TemplateName("notifications/broadcast")
    static let newBroadcast = TemplateName("notifications/new")
    static let checkBroadcast = TemplateName("notifications/check")
    static let cancelBroadcast = TemplateName("notifications/cancel")
}

extension AuditAction {
    static let broadcastSent = AuditAction("broadcast_sent", title: "Broadcast sent")
    static let broadcastScheduled = AuditAction("broadcast_scheduled", title: "Broadcast scheduled")
    static let broadcastCancelled = AuditAction("broadcast_cancelled", title: "Broadcast cancelled")
}

import Foundation
import PortalPlatform
import SQLKit

/// Memory care (seed 003, Want2Remember): people with memory problems keep their memories, contacts,
/// reminders and secrets; the caregivers they choose see and add only what each link grants. Staff run
/// the program without ever reading a memory.
struct MemoryCareFeature: PortalFeature {
    static let program: Program? = .memoryCare
    static let navigation = [
        NavigationItem(title: "Care receivers", path: CareURL.accounts(.careReceiver).path, access: .careStaff, group: .memoryCare),
        NavigationItem(title: "Caregivers", path: CareURL.accounts(.caregiver).path, access: .careStaff, group: .memoryCare),
        NavigationItem(title: "Memory-care feedback", path: CareURL.feedback.path, access: .careStaff, group: .memoryCare),
        NavigationItem(title: "Support details", path: CareURL.settings.path, access: .careStaff, group: .memoryCare)
    ]
    static let auditActions: [AuditAction] = [
        .careAccountRegistered, .careAccountConfirmed, .carePINSet, .careUnlocked, .careInvitationMade, .careLinkGranted, .careLinkChanged,
        .careLinkRevoked, .carePasswordReset, .careFeedbackHandled, .careAccountViewed, .careAccountDisabled, .careAccountEnabled,
        .careAccountDeleted, .careSettingsChanged
    ]
    static let templates: [TemplateName] =
        [.careAccounts, .careAccount, .careDelete, .careRevoke, .careSettings, .careConfirmEmail, .feedbackInbox]
        + TemplateName.appCareTemplates
    static let appParts = [
        AppPart(
            kind: .careReceiver,
            title: "People keeping their memories",
            summary: "Your memories, appointments and to-dos with reminders, your contacts, secrets behind your PIN, and who you share with.",
            demoIdentifier: "eleanor.demo@example.invalid"
        ),
        AppPart(
            kind: .caregiver,
            title: "Caregivers",
            summary: "The reminders, appointments and memories the people you help share with you, and adding their appointments.",
            demoIdentifier: "ruth.demo@example.invalid"
        )
    ]
    static let appAccounts: [AppAccountKind] = [.careReceiver, .caregiver]
    static let notificationKinds: [NotificationKind] = [.careReminder, .careStillOpen]
    static let sealedColumns = [
        SealedColumn(table: "care_keys", key: "account_id", column: "sealed_key", purpose: MemoryCare.keyPurpose)
    ]

    let portal: Portal

    init(portal: Portal) {
        self.portal = portal
    }

    /// Reminders falling due, and confirmation and password links a day past their time (they open nothing by then).
    var jobs: [BackgroundJob] {
        let portal = self.portal
        return [
            BackgroundJob("Memory-care reminders", every: NotificationsFeature.scheduleInterval) {
                try await CareReminders(portal: portal).sendDue()
            },
            BackgroundJob("Memory-care confirmation and password links", every: BackgroundJob.housekeepingInterval) {
                try await portal.database.write { db in
                    try await CareRepository().deleteConfirmations(expiredBefore: portal.now.addingTimeInterval(-86_400), on: db)
                    try await CareRepository.resetLinks.deleteExpired(before: portal.now.addingTimeInterval(-86_400), on: db)
                }
            }
        ]
    }

    func addRoutes(to routes: inout PortalRoutes) {
        CareAPIController(portal: portal).addRoutes(to: &routes)
        CaregiverAPIController(portal: portal).addRoutes(to: &routes)
        CareStaffController(portal: portal).addRoutes(to: &routes)
        CareAppController(portal: portal).addRoutes(to: &routes)
        CaregiverAppController(portal: portal).addRoutes(to: &routes)
        MemoryCare(portal: portal).passwordReset.addRoutes(to: &routes)
        FeedbackInboxController(portal: portal, inbox: .memoryCare).addRoutes(to: &routes)
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        try await demo.seedMemoryCare(on: db)
    }
}

extension Program {
    static let memoryCare = Program(
        id: "memory_care",
        title: "Memory care",
        summary: "People with memory problems keep their memories and reminders; caregivers help only as far as each person consents."
    )
}

extension NavigationGroup {
    static let memoryCare = NavigationGroup("Memory care", order: 60)
}

extension AuditAction {
    static let careAccountRegistered = AuditAction("care_account_registered", title: "Memory-care account registered")
    static let careFeedbackHandled = AuditAction("care_feedback_handled", title: "Memory-care feedback marked handled")
    static let carePasswordReset = AuditAction("care_password_reset", title: "Memory-care account's forgotten password")
    static let careAccountConfirmed = AuditAction("care_account_confirmed", title: "Memory-care account's email confirmed")
    static let carePINSet = AuditAction("care_pin_set", title: "Care receiver made or reset her PIN")
    static let careUnlocked = AuditAction("care_unlocked", title: "Care receiver opened her secured memories with her PIN")
    static let careInvitationMade = AuditAction("care_invitation_made", title: "Care receiver made an invitation code")
    static let careLinkGranted = AuditAction("care_link_granted", title: "Caregiver linked with an invitation code")
    static let careLinkChanged = AuditAction("care_link_changed", title: "Care receiver changed what a link shares")
    static let careLinkRevoked = AuditAction("care_link_revoked", title: "Memory-care link ended")
    static let careAccountViewed = AuditAction("care_account_viewed", title: "Memory-care account opened by staff")
    static let careAccountDisabled = AuditAction("care_account_disabled", title: "Memory-care account disabled")
    static let careAccountEnabled = AuditAction("care_account_enabled", title: "Memory-care account re-enabled")
    static let careAccountDeleted = AuditAction("care_account_deleted", title: "Memory-care account deleted")
    static let careSettingsChanged = AuditAction("care_settings_changed", title: "Memory-care support details changed")
}

extension MemoryCare {
    /// Feedback or a bug report (`kind`, feedback when nil) from a care receiver or caregiver, kept in
    /// memory care's inbox under her account.
    func sendFeedback(_ typed: String, kind: String?, from holder: AppAccountHolder) async throws -> FeedbackMessage.Received {
        let message = typed.trimmed
        var problems: [String: String] = [:]
        if let problem = FeedbackRules.problem(message) { problems["message"] = problem }
        if let problem = FeedbackRules.kindProblem(kind) { problems["kind"] = problem }
        guard problems.isEmpty else { throw APIError.validation(problems) }
        let now = portal.now
        let id = try await portal.database.write { db in
            try await FeedbackInbox.memoryCare.repository.add(
                FeedbackMessage.Kind(rawValue: kind ?? "") ?? .feedback,
                body: message,
                from: AppAccountRef(role: holder.kind.role, accountID: holder.accountID),
                now: now,
                on: db
            )
        }
        return FeedbackMessage.Received(id: id, submittedAt: now)
    }
}

extension FeedbackInbox {
    /// Memory care's feedback inbox: what care receivers and caregivers send from their apps, each message
    /// under the sender's name and kind, linked to the account's page (counts and links, never her memories).
    static let memoryCare = FeedbackInbox(
        program: .memoryCare,
        access: .careStaff,
        page: .care(.feedback),
        handled: { .care(.feedbackHandled($0)) },
        sender: "care receiver or caregiver",
        auditAction: .careFeedbackHandled,
        authors: { authors, db in
            let ids = authors.filter { CareAccountKind(rawValue: $0.role) != nil }.map(\.accountID)
            var named: [AppAccountRef: FeedbackInbox.Author] = [:]
            for account in try await CareRepository().accounts(ids: ids, on: db) {
                named[AppAccountRef(role: account.kind.rawValue, accountID: account.id)] = FeedbackInbox.Author(
                    name: "\(account.name), \(account.kind.noun)",
                    path: CareURL.account(account.kind, account.id).path
                )
            }
            return named
        }
    )
}

import Foundation
import PortalPlatform

/// One account in a staff list.
struct CareAccountRow: Sendable, Encodable {
    let name: String
    let path: String
    let email: String
    let statusTitle: String
    let statusTag: String
    let lastActive: String

    init(_ account: CareAccount, clock: ProgramClock) {
        (name, email) = (account.name, account.email)
        path = SiteURL.care(.account(account.kind, account.id)).path
        (statusTitle, statusTag) = CareAccountRow.status(account.status)
        lastActive = account.lastActiveAt.map(clock.dateTime) ?? "Not yet"
    }

    static func status(_ status: CareAccount.Status) -> (String, String) {
        switch status {
        case .unconfirmed: ("Email not confirmed", "tag--grey")
        case .active: ("Active", "tag--green")
        case .disabled: ("Disabled", "tag--red")
        }
    }
}

/// Care receivers or caregivers, by name, with search and a status filter.
struct CareAccountsPage: Page {
    static let template = TemplateName.careAccounts
    let layout: Layout
    let heading: String
    let noun: String
    let action: String
    let search: String
    let statusOptions: [FilterOption]
    let rows: [CareAccountRow]
    let hasRows: Bool
    let isFiltered: Bool
    /// The rendered `PaginationView`.
    let pagination: RenderedHTML
}

/// One link on an account's page: who, what it grants, since when, and its history.
struct CareLinkView: Sendable, Encodable {
    struct Event: Sendable, Encodable {
        let when: String
        let what: String
    }

    let otherName: String
    let otherPath: String
    let grants: String
    let since: String
    let isActive: Bool
    /// "Ended …"; nil while the link is in force.
    let revokedText: String?
    let revokePath: String
    let history: [Event]

    init(_ link: CareLink, events: [CareLinkEvent], viewedFrom kind: CareAccountKind, clock: ProgramClock) {
        otherName = kind == .careReceiver ? link.caregiverName : link.receiverName
        otherPath = SiteURL.care(kind == .careReceiver ? .account(.caregiver, link.caregiverID) : .account(.careReceiver, link.receiverID)).path
        grants = CareLinkView.describe(link.grant)
        since = clock.dateTime(link.createdAt)
        isActive = link.isActive
        revokedText = link.revokedAt.map { "Ended \(clock.dateTime($0))" }
        revokePath = SiteURL.care(.linkRevoke(link.id)).path
        history = events.map { event in
            let by =
                switch event.actor.role {
                case AppAccountKind.careReceiver.role: "by the care receiver"
                case AppAccountKind.caregiver.role: "by the caregiver"
                default: "by staff"
                }
            let what =
                switch event.kind {
                case .granted: "Granted \(by): \(CareLinkView.describe(event.grant))"
                case .changed: "Changed \(by): \(CareLinkView.describe(event.grant))"
                case .revoked: "Ended \(by)"
                }
            return Event(when: clock.dateTime(event.at), what: what)
        }
    }

    /// "Reminders and appointments; memories in Family and Health".
    static func describe(_ grant: CareGrant) -> String {
        grant.sortedScopes.map { scope in
            switch scope {
            case .reminders: "reminders and appointments"
            case .plans: "adding and changing plans"
            case .memories: "memories in \(grant.sortedCategories.map(\.title).joined(separator: ", "))"
            case .location: "location"
            }
        }.joined(separator: "; ").capitalizedFirst
    }
}

extension String {
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

/// One account for staff: its facts, counts only (never a memory, contact or location), its links and their history.
struct CareAccountPage: Page {
    static let template = TemplateName.careAccount
    let layout: Layout
    let kindTitle: String
    let name: String
    let statusTitle: String
    let statusTag: String
    let listPath: String
    let listTitle: String
    /// The rendered `SummaryRows` of its facts.
    let facts: RenderedHTML
    let links: [CareLinkView]
    let hasLinks: Bool
    let disablePath: String?
    let enablePath: String?
    let deletePath: String
}

/// "Delete …'s account?" before anything is deleted.
struct CareDeletePage: Page {
    static let template = TemplateName.careDelete
    let layout: Layout
    let name: String
    let kindNoun: String
    let consequences: String
    let action: String
    let accountPath: String
}

/// "End the link between … and …?" before a link is revoked.
struct CareRevokePage: Page {
    static let template = TemplateName.careRevoke
    let layout: Layout
    let receiverName: String
    let caregiverName: String
    let grants: String
    let action: String
    let backPath: String
}

/// The program's support phone and email, shown in the apps.
struct CareSettingsPage: Page {
    static let template = TemplateName.careSettings
    let layout: Layout
    let errors: [FormErrors.Item]
    let phoneField: FormField
    let emailField: FormField
    let action = SiteURL.care(.settings).path
}

/// The page an emailed confirmation link opens: one button, so a mail scanner following the link confirms nothing.
struct CareConfirmEmailPage: Page {
    static let template = TemplateName.careConfirmEmail
    let layout: Layout
    let token: String
    let isUsable: Bool
    let isDone: Bool
    let action = SiteURL.care(.confirm).path
}

extension TemplateName {
    static let careAccounts = TemplateName("care/accounts")
    static let careAccount = TemplateName("care/account")
    static let careDelete = TemplateName("care/delete")
    static let careRevoke = TemplateName("care/revoke")
    static let careSettings = TemplateName("care/settings")
    static let careConfirmEmail = TemplateName("care/confirm-email")
}

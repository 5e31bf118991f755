import Hummingbird
import PortalPlatform

/// Every page and API address of the memory-care program, as one area of `SiteURL` (`.care(…)`):
/// routes are registered from these and links built from them.
enum CareURL: Sendable, Equatable {
    // The page an emailed confirmation link opens.
    case confirm
    case resetPassword

    // Staff pages.
    case accounts(CareAccountKind)
    case account(CareAccountKind, Int64)
    case accountDisable(CareAccountKind, Int64)
    case accountEnable(CareAccountKind, Int64)
    case accountDelete(CareAccountKind, Int64)
    case linkRevoke(Int64)
    case settings
    case feedback
    case feedbackHandled(Int64)

    // Both apps.
    case apiRegistrations(CareAccountKind)
    /// Sign-in and sign-out, registered by the platform for each kind (`AppAccountKind.sessionsPath`).
    case apiSessions(CareAccountKind)
    case apiCurrentSession(CareAccountKind)
    case apiConfirmations
    case apiPasswordResets(CareAccountKind)
    case apiPasswordResetCompletion(CareAccountKind)
    case apiMe(CareAccountKind)
    case apiPassword(CareAccountKind)
    case apiNotifications(CareAccountKind)
    case apiNotificationRead(CareAccountKind, Int64)
    case apiNotificationsReadAll(CareAccountKind)
    case apiNotificationPreferences(CareAccountKind)
    case apiPushTokens(CareAccountKind)
    case apiPushToken(CareAccountKind, String)
    case apiFeedback(CareAccountKind)

    // The care receiver's app.
    case apiPIN
    case apiUnlock
    case apiMemories
    case apiMemory(Int64)
    case apiMemoryFiles(Int64)
    case apiMemoryFile(Int64, Int64)
    case apiChanges
    case apiExport
    case apiImport
    case apiContacts
    case apiContact(Int64)
    case apiContactPhoto(Int64)
    case apiInvitations
    case apiInvitation(Int64)
    case apiLinks
    case apiLink(Int64)
    case apiAccessLog
    case apiLocation

    // The caregiver's app: `link` is his link to one care receiver.
    case apiCaregiverLinks
    case apiCaregiverLink(Int64)
    case apiCaregiverReminders(link: Int64)
    case apiCaregiverMemories(link: Int64)
    case apiCaregiverMemory(link: Int64, Int64)
    case apiCaregiverMemoryFiles(link: Int64, Int64)
    case apiCaregiverMemoryFile(link: Int64, Int64, Int64)
    case apiCaregiverPlans(link: Int64)
    case apiCaregiverPlan(link: Int64, Int64)
    case apiCaregiverLocation(link: Int64)

    // The web app's pages for both kinds (`/app/care`, `/app/caregiver`).
    case appRegister(CareAccountKind)
    case appForgottenPassword(CareAccountKind)
    case appNotifications(CareAccountKind)
    case appNotificationsReadAll(CareAccountKind)
    case appNotificationChoices(CareAccountKind)
    case appFeedback(CareAccountKind)
    case appPassword(CareAccountKind)

    // The care receiver's pages: her memories are her home.
    case appMemories
    case appMemoryNew
    case appMemory(Int64)
    case appMemoryEdit(Int64)
    case appMemoryStatus(Int64)
    case appMemoryDelete(Int64)
    case appMemoryFiles(Int64)
    case appMemoryFile(Int64, Int64)
    case appMemoryFileRemove(Int64, Int64)
    case appUnlock
    case appLock
    case appPIN
    case appContacts
    case appContactNew
    case appContact(Int64)
    case appContactEdit(Int64)
    case appContactDelete(Int64)
    case appContactPhoto(Int64)
    case appContactPhotoRemove(Int64)
    case appSharing
    case appInvite
    case appInvitationWithdraw(Int64)
    case appLink(Int64)
    case appLinkEnd(Int64)
    case appAccessLog

    // The caregiver's pages: the people he helps are his home; `person` is his link to one of them.
    case appPeople
    case appCode
    case appPerson(Int64)
    case appPersonMemory(person: Int64, Int64)
    /// A memory named in his notifications, which carry no link: it leads to the memory's page through his link to her.
    case appCaregiverMemory(Int64)
    case appPersonMemoryFile(person: Int64, Int64, Int64)
    case appPersonPlanNew(Int64)
    case appPersonLeave(Int64)

    private static func staffRoot(_ kind: CareAccountKind) -> String { kind == .careReceiver ? "/care/receivers" : "/care/caregivers" }
    private static let receiver = AppAccountKind.careReceiver.apiPrefix
    private static let receiverPages = AppAccountKind.careReceiver.pagesPath
    private static let caregiverPages = AppAccountKind.caregiver.pagesPath
    private static let caregiver = AppAccountKind.caregiver.apiPrefix

    /// The address, written once for the link and the router's pattern.
    var route: RoutePath {
        switch self {
        case .confirm: "/care/confirm"
        case .resetPassword: "/care/reset-password"
        case .accounts(let kind): "\(Self.staffRoot(kind))"
        case .account(let kind, let id): "\(Self.staffRoot(kind))/\(id)"
        case .accountDisable(let kind, let id): "\(Self.staffRoot(kind))/\(id)/disable"
        case .accountEnable(let kind, let id): "\(Self.staffRoot(kind))/\(id)/enable"
        case .accountDelete(let kind, let id): "\(Self.staffRoot(kind))/\(id)/delete"
        case .linkRevoke(let id): "/care/links/\(id)/revoke"
        case .settings: "/care/settings"
        case .feedback: "/care/feedback"
        case .feedbackHandled(let id): "/care/feedback/\(id)/handled"
        case .apiRegistrations(let kind): "\(kind.appAccount.apiPrefix)/registrations"
        case .apiSessions(let kind): "\(kind.appAccount.sessionsPath)"
        case .apiCurrentSession(let kind): "\(kind.appAccount.currentSessionPath)"
        case .apiConfirmations: "\(Self.receiver)/confirmations"
        case .apiPasswordResets(let kind): "\(kind.appAccount.apiPrefix)/password-resets"
        case .apiPasswordResetCompletion(let kind): "\(kind.appAccount.apiPrefix)/password-resets/complete"
        case .apiMe(let kind): "\(kind.appAccount.apiPrefix)/me"
        case .apiPassword(let kind): "\(kind.appAccount.apiPrefix)/me/password"
        case .apiNotifications(let kind): "\(kind.appAccount.apiPrefix)/notifications"
        case .apiNotificationRead(let kind, let id): "\(kind.appAccount.apiPrefix)/notifications/\(id)/read"
        case .apiNotificationsReadAll(let kind): "\(kind.appAccount.apiPrefix)/notifications/read-all"
        case .apiNotificationPreferences(let kind): "\(kind.appAccount.apiPrefix)/notifications/preferences"
        case .apiPushTokens(let kind): "\(kind.appAccount.apiPrefix)/push-tokens"
        case .apiPushToken(let kind, let token): "\(kind.appAccount.apiPrefix)/push-tokens/\(token, as: "token")"
        case .apiFeedback(let kind): "\(kind.appAccount.apiPrefix)/feedback"
        case .apiPIN: "\(Self.receiver)/pin"
        case .apiUnlock: "\(Self.receiver)/unlock"
        case .apiMemories: "\(Self.receiver)/memories"
        case .apiMemory(let id): "\(Self.receiver)/memories/\(id)"
        case .apiMemoryFiles(let id): "\(Self.receiver)/memories/\(id)/files"
        case .apiMemoryFile(let id, let file): "\(Self.receiver)/memories/\(id)/files/\(file, as: "record")"
        case .apiChanges: "\(Self.receiver)/changes"
        case .apiExport: "\(Self.receiver)/export"
        case .apiImport: "\(Self.receiver)/import"
        case .apiContacts: "\(Self.receiver)/contacts"
        case .apiContact(let id): "\(Self.receiver)/contacts/\(id)"
        case .apiContactPhoto(let id): "\(Self.receiver)/contacts/\(id)/photo"
        case .apiInvitations: "\(Self.receiver)/invitations"
        case .apiInvitation(let id): "\(Self.receiver)/invitations/\(id)"
        case .apiLinks: "\(Self.receiver)/links"
        case .apiLink(let id): "\(Self.receiver)/links/\(id)"
        case .apiAccessLog: "\(Self.receiver)/access-log"
        case .apiLocation: "\(Self.receiver)/location"
        case .apiCaregiverLinks: "\(Self.caregiver)/links"
        case .apiCaregiverLink(let id): "\(Self.caregiver)/links/\(id)"
        case .apiCaregiverReminders(let link): "\(Self.caregiver)/links/\(link)/reminders"
        case .apiCaregiverMemories(let link): "\(Self.caregiver)/links/\(link)/memories"
        case .apiCaregiverMemory(let link, let id): "\(Self.caregiver)/links/\(link)/memories/\(id, as: "record")"
        case .apiCaregiverMemoryFiles(let link, let id): "\(Self.caregiver)/links/\(link)/memories/\(id, as: "record")/files"
        case .apiCaregiverMemoryFile(let link, let id, let file):
            "\(Self.caregiver)/links/\(link)/memories/\(id, as: "record")/files/\(file, as: "file")"
        case .apiCaregiverPlans(let link): "\(Self.caregiver)/links/\(link)/plans"
        case .apiCaregiverPlan(let link, let id): "\(Self.caregiver)/links/\(link)/plans/\(id, as: "record")"
        case .apiCaregiverLocation(let link): "\(Self.caregiver)/links/\(link)/location"
        case .appRegister(let kind): "\(kind.appAccount.pagesPath)/register"
        case .appForgottenPassword(let kind): "\(kind.appAccount.pagesPath)/forgotten-password"
        case .appNotifications(let kind): "\(kind.appAccount.pagesPath)/notifications"
        case .appNotificationsReadAll(let kind): "\(kind.appAccount.pagesPath)/notifications/read-all"
        case .appNotificationChoices(let kind): "\(kind.appAccount.pagesPath)/notifications/choices"
        case .appFeedback(let kind): "\(kind.appAccount.pagesPath)/feedback"
        case .appPassword(let kind): "\(kind.appAccount.pagesPath)/password"
        case .appMemories: "\(Self.receiverPages)"
        case .appMemoryNew: "\(Self.receiverPages)/memories/new"
        case .appMemory(let id): "\(Self.receiverPages)/memories/\(id)"
        case .appMemoryEdit(let id): "\(Self.receiverPages)/memories/\(id)/edit"
        case .appMemoryStatus(let id): "\(Self.receiverPages)/memories/\(id)/status"
        case .appMemoryDelete(let id): "\(Self.receiverPages)/memories/\(id)/delete"
        case .appMemoryFiles(let id): "\(Self.receiverPages)/memories/\(id)/files"
        case .appMemoryFile(let id, let file): "\(Self.receiverPages)/memories/\(id)/files/\(file, as: "record")"
        case .appMemoryFileRemove(let id, let file): "\(Self.receiverPages)/memories/\(id)/files/\(file, as: "record")/remove"
        case .appUnlock: "\(Self.receiverPages)/unlock"
        case .appLock: "\(Self.receiverPages)/lock"
        case .appPIN: "\(Self.receiverPages)/pin"
        case .appContacts: "\(Self.receiverPages)/contacts"
        case .appContactNew: "\(Self.receiverPages)/contacts/new"
        case .appContact(let id): "\(Self.receiverPages)/contacts/\(id)"
        case .appContactEdit(let id): "\(Self.receiverPages)/contacts/\(id)/edit"
        case .appContactDelete(let id): "\(Self.receiverPages)/contacts/\(id)/delete"
        case .appContactPhoto(let id): "\(Self.receiverPages)/contacts/\(id)/photo"
        case .appContactPhotoRemove(let id): "\(Self.receiverPages)/contacts/\(id)/photo/remove"
        case .appSharing: "\(Self.receiverPages)/sharing"
        case .appInvite: "\(Self.receiverPages)/sharing/invite"
        case .appInvitationWithdraw(let id): "\(Self.receiverPages)/sharing/invitations/\(id)/withdraw"
        case .appLink(let id): "\(Self.receiverPages)/sharing/links/\(id)"
        case .appLinkEnd(let id): "\(Self.receiverPages)/sharing/links/\(id)/end"
        case .appAccessLog: "\(Self.receiverPages)/access-log"
        case .appPeople: "\(Self.caregiverPages)"
        case .appCode: "\(Self.caregiverPages)/code"
        case .appPerson(let link): "\(Self.caregiverPages)/people/\(link)"
        case .appPersonMemory(let link, let id): "\(Self.caregiverPages)/people/\(link)/memories/\(id, as: "record")"
        case .appCaregiverMemory(let id): "\(Self.caregiverPages)/memories/\(id)"
        case .appPersonMemoryFile(let link, let id, let file):
            "\(Self.caregiverPages)/people/\(link)/memories/\(id, as: "record")/files/\(file, as: "file")"
        case .appPersonPlanNew(let link): "\(Self.caregiverPages)/people/\(link)/plans/new"
        case .appPersonLeave(let link): "\(Self.caregiverPages)/people/\(link)/leave"
        }
    }

    var path: String { route.path }

    var pattern: RouterPath { route.routerPath }

    /// The router pattern of an address with one record number: `:id`.
    static func pattern(_ url: (Int64) -> CareURL) -> RouterPath {
        url(0).pattern
    }

    /// The router pattern of an address with a link's number and a record's: `:id` and `:record`.
    static func pattern(_ url: (Int64, Int64) -> CareURL) -> RouterPath {
        url(0, 0).pattern
    }

    /// The router pattern of an address with three numbers (a link's, a memory's, a file's): `:id`, `:record`, `:file`.
    static func pattern(_ url: (Int64, Int64, Int64) -> CareURL) -> RouterPath {
        url(0, 0, 0).pattern
    }
}

extension Parameters {
    /// The `:record` of a route with two record numbers; a malformed one is simply not found.
    func secondRecordID() throws -> Int64 {
        guard let value = get("record"), let id = Int64(value), id > 0 else { throw HTTPError(.notFound) }
        return id
    }

    /// The `:file` of a route with three numbers.
    func fileID() throws -> Int64 {
        guard let value = get("file"), let id = Int64(value), id > 0 else { throw HTTPError(.notFound) }
        return id
    }
}

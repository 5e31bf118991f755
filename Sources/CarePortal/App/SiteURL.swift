import Hummingbird

/// Every page and action of the portal: routes are registered from these and links are built
/// from them, so the two cannot drift apart.
enum SiteURL: Sendable, Equatable {
    case home
    case health
    case setup
    case signIn
    case signOut
    case changePassword
    case registerPhysician
    case registrationReceived
    case staff
    case staffAccount(Int64)
    case staffDisable(Int64)
    case staffEnable(Int64)
    case staffApprove(Int64)
    case auditLog
    case auditLogExport
    case outbox
    case outboxMessage(Int64)
    case outboxRetry(Int64)
    case signUpCodes
    case newSignUpCode
    case signUpCodeRevoke(Int64)
    case members
    case member(Int64)
    case memberDisable(Int64)
    case memberEnable(Int64)
    case memberDelete(Int64)
    case cohorts
    case programSettings

    // The member app's JSON API.
    case apiOpenAPI
    case apiProgram
    case apiRegistrations
    case apiSessions
    case apiCurrentSession
    case apiAccountRecovery
    case apiMe
    case apiMyPassword
    case apiMemberProfile(Int64)
    case apiStaffProfile(Int64)
    case medicalProfessionals
    case inviteMedicalProfessional
    case invitationResend(Int64)
    case invitationRevoke(Int64)
    case invitation
    case desk
    case deskThread(Int64)
    case deskThreadReplies(Int64)
    case deskThreadClearAccepted(Int64)
    case deskThreadModerate(Int64)
    case deskThreadRestore(Int64)
    case deskThreadKeep(Int64)
    case deskThreadReveal(Int64)
    case deskReplyAccept(Int64)
    case deskReplyEdit(Int64)
    case deskReplyModerate(Int64)
    case deskReplyRestore(Int64)
    case deskReplyKeep(Int64)
    case deskFlags
    case deskModerationLog
    case deskModerationLogExport
    case deskEmailSettings
    case apiThreads
    case apiThread(Int64)
    case apiThreadReplies(Int64)
    case apiThreadFlags(Int64)
    case apiReplyFlags(Int64)
    case apiNotifications

    /// The address to link to.
    var path: String {
        switch self {
        case .home: "/"
        case .health: "/health"
        case .setup: "/setup"
        case .signIn: "/sign-in"
        case .signOut: "/sign-out"
        case .changePassword: "/account/password"
        case .registerPhysician: "/register"
        case .registrationReceived: "/register/received"
        case .staff: "/staff"
        case .staffAccount(let id): "/staff/\(id)"
        case .staffDisable(let id): "/staff/\(id)/disable"
        case .staffEnable(let id): "/staff/\(id)/enable"
        case .staffApprove(let id): "/staff/\(id)/approve"
        case .auditLog: "/audit"
        case .auditLogExport: "/audit/export.csv"
        case .outbox: "/outbox"
        case .outboxMessage(let id): "/outbox/\(id)"
        case .outboxRetry(let id): "/outbox/\(id)/retry"
        case .signUpCodes: "/sign-up-codes"
        case .newSignUpCode: "/sign-up-codes/new"
        case .signUpCodeRevoke(let id): "/sign-up-codes/\(id)/revoke"
        case .members: "/members"
        case .member(let id): "/members/\(id)"
        case .memberDisable(let id): "/members/\(id)/disable"
        case .memberEnable(let id): "/members/\(id)/enable"
        case .memberDelete(let id): "/members/\(id)/delete"
        case .cohorts: "/cohorts"
        case .programSettings: "/program-settings"
        case .apiOpenAPI: "/api/v1/openapi.json"
        case .apiProgram: "/api/v1/program"
        case .apiRegistrations: "/api/v1/registrations"
        case .apiSessions: "/api/v1/sessions"
        case .apiCurrentSession: "/api/v1/sessions/current"
        case .apiAccountRecovery: "/api/v1/account-recovery"
        case .apiMe: "/api/v1/me"
        case .apiMyPassword: "/api/v1/me/password"
        case .apiMemberProfile(let id): "/api/v1/members/\(id)"
        case .apiStaffProfile(let id): "/api/v1/staff/\(id)"
        case .medicalProfessionals: "/medical-professionals"
        case .inviteMedicalProfessional: "/medical-professionals/invite"
        case .invitationResend(let id): "/medical-professionals/invitations/\(id)/resend"
        case .invitationRevoke(let id): "/medical-professionals/invitations/\(id)/revoke"
        case .invitation: "/invitation"
        case .desk: "/desk"
        case .deskThread(let id): "/desk/threads/\(id)"
        case .deskThreadReplies(let id): "/desk/threads/\(id)/replies"
        case .deskThreadClearAccepted(let id): "/desk/threads/\(id)/accepted-answer/clear"
        case .deskThreadModerate(let id): "/desk/threads/\(id)/moderate"
        case .deskThreadRestore(let id): "/desk/threads/\(id)/restore"
        case .deskThreadKeep(let id): "/desk/threads/\(id)/keep"
        case .deskThreadReveal(let id): "/desk/threads/\(id)/reveal-author"
        case .deskReplyAccept(let id): "/desk/replies/\(id)/accept"
        case .deskReplyEdit(let id): "/desk/replies/\(id)/edit"
        case .deskReplyModerate(let id): "/desk/replies/\(id)/moderate"
        case .deskReplyRestore(let id): "/desk/replies/\(id)/restore"
        case .deskReplyKeep(let id): "/desk/replies/\(id)/keep"
        case .deskFlags: "/desk/flags"
        case .deskModerationLog: "/desk/moderation-log"
        case .deskModerationLogExport: "/desk/moderation-log/export.csv"
        case .deskEmailSettings: "/desk/email-settings"
        case .apiThreads: "/api/v1/threads"
        case .apiThread(let id): "/api/v1/threads/\(id)"
        case .apiThreadReplies(let id): "/api/v1/threads/\(id)/replies"
        case .apiThreadFlags(let id): "/api/v1/threads/\(id)/flags"
        case .apiReplyFlags(let id): "/api/v1/replies/\(id)/flags"
        case .apiNotifications: "/api/v1/notifications"
        }
    }

    /// The router pattern, with `:id` where the path holds a record number.
    static func pattern(_ url: (Int64) -> SiteURL) -> RouterPath {
        RouterPath(url(0).path.replacingOccurrences(of: "/0", with: "/:id"))
    }

    var pattern: RouterPath { RouterPath(path) }

    /// Where someone in this role starts: medical professionals work only on the information desk.
    static func landing(for role: StaffRole) -> SiteURL {
        role == .medicalProfessional ? .desk : .home
    }
}

extension Parameters {
    /// The `:id` of the route as a record number; a malformed one is simply not found.
    func recordID() throws -> Int64 {
        guard let value = get("id"), let id = Int64(value), id > 0 else { throw HTTPError(.notFound) }
        return id
    }
}

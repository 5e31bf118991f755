import Foundation
import PortalPlatform

/// Staff sign-in and sign-out, the first administrator's setup, and changing one's own password.
struct SignInFeature: PortalFeature {
    static let program: Program? = nil
    static let auditActions: [AuditAction] = [.firstAdministratorCreated, .passwordChanged, .passwordResetRequested, .passwordReset]
    static let templates: [TemplateName] = [
        .setup, .signIn, .changePassword, .forgottenPassword, .passwordResetSent, .resetPassword, .resetLinkUnusable
    ]
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        SignInController(portal: portal).addRoutes(to: &routes)
        PasswordResetController(portal: portal).addRoutes(to: &routes)
    }

    var jobs: [BackgroundJob] {
        let portal = portal
        return [
            BackgroundJob("Expired password reset links", every: BackgroundJob.housekeepingInterval) {
                let now = portal.now
                try await portal.database.write { db in try await PasswordResetRepository().deleteExpired(now: now, on: db) }
            }
        ]
    }
}

extension TemplateName {
    static let setup = TemplateName("sign-in/setup")
    static let signIn = TemplateName("sign-in/sign-in")
    static let changePassword = TemplateName("sign-in/change-password")
    static let forgottenPassword = TemplateName("sign-in/forgotten-password")
    static let passwordResetSent = TemplateName("sign-in/password-reset-sent")
    static let resetPassword = TemplateName("sign-in/reset-password")
    static let resetLinkUnusable = TemplateName("sign-in/reset-link-unusable")
}

extension AuditAction {
    static let firstAdministratorCreated = AuditAction("first_administrator_created", title: "First administrator created")
    static let passwordChanged = AuditAction("password_changed", title: "Password changed")
    static let passwordResetRequested = AuditAction("password_reset_requested", title: "Password reset link asked for")
    static let passwordResetSent = AuditAction("password_reset_sent", title: "Password reset link sent by an administrator")
    static let passwordReset = AuditAction("password_reset", title: "Password set with a reset link")
}

import Foundation
import PortalPlatform

/// Staff sign-in and sign-out, the first administrator's setup, and changing one's own password.
struct SignInFeature: PortalFeature {
    static let program: Program? = nil
    static let auditActions: [AuditAction] = [.firstAdministratorCreated, .passwordChanged]
    static let templates: [TemplateName] = [.setup, .signIn, .changePassword]
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        SignInController(portal: portal).addRoutes(to: &routes)
    }
}

extension TemplateName {
    static let setup = TemplateName("sign-in/setup")
    static let signIn = TemplateName("sign-in/sign-in")
    static let changePassword = TemplateName("sign-in/change-password")
}

extension AuditAction {
    static let firstAdministratorCreated = AuditAction("first_administrator_created", title: "First administrator created")
    static let passwordChanged = AuditAction("password_changed", title: "Password changed")
}

import Foundation
import PortalPlatform

/// The audit log: who signed in, and who read or changed what, filtered and exported.
struct AuditFeature: PortalFeature {
    static let program: Program? = nil
    static let navigation = [
        NavigationItem(title: "Audit log", path: SiteURL.auditLog.path, access: AuditController.access, group: .settings)
    ]
    static let auditActions: [AuditAction] = [.auditLogExported]
    static let templates: [TemplateName] = [.auditLog]
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        AuditController(portal: portal).addRoutes(to: &routes)
    }

    static func homeCards(for staff: StaffAccount, portal: Portal) async throws -> [HomeCard] {
        guard staff.role == .administrator else { return [] }
        return [HomeCard(title: "Audit log", path: SiteURL.auditLog.path, body: "See who signed in, and who read or changed what.")]
    }
}

extension TemplateName {
    static let auditLog = TemplateName("audit/log")
}

extension AuditAction {
    static let auditLogExported = AuditAction("audit_log_exported", title: "Audit log exported")
}

import Foundation
import PortalPlatform
import SQLKit

/// Medical professionals: the administrators' list and their invitation form. The invitation flow
/// itself (any role, accepting, resending, revoking) is registered by `StaffFeature`, so it works
/// whichever programs run.
struct MedicalProfessionalsFeature: PortalFeature {
    static let program: Program? = .perinatalCommunity
    static let navigation = [
        NavigationItem(
            title: "Medical professionals",
            path: SiteURL.medicalProfessionals.path,
            access: MedicalProfessionalsController.access,
            group: .people
        )
    ]
    static let auditActions: [AuditAction] = [.invitationSent, .invitationResent, .invitationRevoked, .invitationAccepted]
    static let templates: [TemplateName] = [.medicalProfessionals, .inviteMedicalProfessional, .acceptInvitation, .invitationUnusable]
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        MedicalProfessionalsController(portal: portal).addRoutes(to: &routes)
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        try await demo.seedMedicalProfessionals(on: db)
    }
}

extension TemplateName {
    static let medicalProfessionals = TemplateName("medical-professionals/list")
    static let inviteMedicalProfessional = TemplateName("medical-professionals/invite")
    static let acceptInvitation = TemplateName("medical-professionals/accept")
    static let invitationUnusable = TemplateName("medical-professionals/invitation-unusable")
}

extension AuditAction {
    static let invitationSent = AuditAction("invitation_sent", title: "Medical professional invited")
    static let invitationResent = AuditAction("invitation_resent", title: "Invitation sent again")
    static let invitationRevoked = AuditAction("invitation_revoked", title: "Invitation revoked")
    static let invitationAccepted = AuditAction("invitation_accepted", title: "Invitation accepted")
}

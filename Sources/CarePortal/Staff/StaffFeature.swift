import Foundation
import PortalPlatform
import SQLKit

/// Staff accounts: the administrators' list and account pages, and physicians' self-registration with approval.
struct StaffFeature: PortalFeature {
    static let program: Program? = nil
    static let navigation = [
        NavigationItem(title: "Staff accounts", path: SiteURL.staff.path, access: StaffController.access, group: .people)
    ]
    static let auditActions: [AuditAction] = [
        .accountCreated, .accountDisabled, .accountEnabled, .physicianRegistered, .physicianApproved, .physicianRejected,
        .accountDeleted, .physicianPracticeChanged
    ]
    static let templates: [TemplateName] = [
        .registerPhysician, .registrationReceived, .staffList, .staffAccount, .deleteStaffAccount, .physicianPractice
    ]
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        PhysicianRegistrationController(portal: portal).addRoutes(to: &routes)
        StaffController(portal: portal).addRoutes(to: &routes)
        MedicalProfessionalsController(portal: portal).addStaffInvitationRoutes(to: &routes)
        InvitationController(portal: portal).addRoutes(to: &routes)
        PhysicianPracticeController(portal: portal).addRoutes(to: &routes)
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        try await demo.seedStaffInvitations(on: db)
    }

    static func homeCards(for staff: StaffAccount, portal: Portal) async throws -> [HomeCard] {
        if staff.role == .physician {
            return [
                HomeCard(
                    title: "Your practice",
                    path: SiteURL.accountPractice.path,
                    body: "Where your practice is and its phone number, as your patients see them in their app."
                )
            ]
        }
        guard staff.role == .administrator else { return [] }
        let waiting = try await portal.database.read { db in try await StaffAccountRepository().awaitingApprovalCount(on: db) }
        return [
            HomeCard(
                title: "Staff accounts",
                path: SiteURL.staff.path,
                body: "Find staff accounts, invite staff, and disable or re-enable them.",
                figures: [
                    HomeFigure(
                        label: "Physicians waiting for approval",
                        value: waiting,
                        path: ListAddress(path: SiteURL.staff.path, parameters: [("status", AccountStatus.awaitingApproval.rawValue)]).string,
                        needsAttention: waiting > 0
                    )
                ]
            )
        ]
    }
}

extension TemplateName {
    static let registerPhysician = TemplateName("staff/register")
    static let registrationReceived = TemplateName("staff/registration-received")
    static let staffList = TemplateName("staff/list")
    static let staffAccount = TemplateName("staff/account")
    static let deleteStaffAccount = TemplateName("staff/delete")
}

extension AuditAction {
    static let accountCreated = AuditAction("account_created", title: "Account created")
    static let accountDisabled = AuditAction("account_disabled", title: "Account disabled")
    static let accountEnabled = AuditAction("account_enabled", title: "Account re-enabled")
    static let physicianRegistered = AuditAction("physician_registered", title: "Physician registered")
    static let physicianApproved = AuditAction("physician_approved", title: "Physician approved")
    static let physicianRejected = AuditAction("physician_rejected", title: "Physician registration declined")
    static let accountDeleted = AuditAction("account_deleted", title: "Account deleted")
}

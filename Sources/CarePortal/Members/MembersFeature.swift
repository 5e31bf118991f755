import Foundation
import PortalPlatform
import SQLKit

/// Members and their app: sign-up codes, registration and sign-in, profiles, cohorts, and the
/// administrators' Members and Cohorts pages.
struct MembersFeature: PortalFeature {
    static let program: Program? = .perinatalCommunity
    static let navigation = [
        NavigationItem(title: "Members", path: SiteURL.members.path, access: MembersController.access, group: .people),
        NavigationItem(title: "Cohorts", path: SiteURL.cohorts.path, access: MembersController.access, group: .people),
        NavigationItem(title: "Sign-up codes", path: SiteURL.signUpCodes.path, access: SignUpCodesController.access, group: .people)
    ]
    static let auditActions: [AuditAction] = [
        .signUpCodeCreated, .signUpCodeRevoked, .memberRegistered, .memberRecovered, .memberProfileChanged, .memberViewed, .memberDisabled,
        .memberEnabled, .memberDeleted
    ]
    static let templates: [TemplateName] =
        [.signUpCodes, .newSignUpCode, .signUpCodeCreated, .members, .member, .deleteMember, .cohorts]
        + TemplateName.appMemberTemplates
    static let appAccounts: [AppAccountKind] = [.member]
    static let appParts = [
        AppPart(
            kind: .member,
            title: "Members of the community",
            summary: "This week of your pregnancy, the information desk, and your notifications.",
            demoIdentifier: "Steady_Dove1"
        )
    ]
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        SignUpCodesController(portal: portal).addRoutes(to: &routes)
        MemberAPIController(portal: portal).addRoutes(to: &routes)
        MembersController(portal: portal).addRoutes(to: &routes)
        MemberAppController(portal: portal).addRoutes(to: &routes)
    }

    static func homeCards(for staff: StaffAccount, portal: Portal) async throws -> [HomeCard] {
        guard staff.role == .administrator else { return [] }
        return [
            HomeCard(title: "Members", path: SiteURL.members.path, body: "Find a member, open her record, disable her account or delete her data."),
            HomeCard(title: "Sign-up codes", path: SiteURL.signUpCodes.path, body: "Make a code to read to a woman who is joining.")
        ]
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        guard let administrator = demo.account(.administrator) else { return }
        try await demo.seedMembers(createdBy: administrator.id, on: db)
    }
}

extension TemplateName {
    static let signUpCodes = TemplateName("members/codes")
    static let newSignUpCode = TemplateName("members/new-code")
    static let signUpCodeCreated = TemplateName("members/code-created")
    static let members = TemplateName("members/list")
    static let member = TemplateName("members/member")
    static let deleteMember = TemplateName("members/delete")
    static let cohorts = TemplateName("members/cohorts")
}

extension AuditAction {
    static let signUpCodeCreated = AuditAction("sign_up_code_created", title: "Sign-up code created")
    static let signUpCodeRevoked = AuditAction("sign_up_code_revoked", title: "Sign-up code revoked")
    static let memberRegistered = AuditAction("member_registered", title: "Member registered")
    static let memberRecovered = AuditAction("member_recovered", title: "Member account recovery")
    static let memberProfileChanged = AuditAction("member_profile_changed", title: "Member profile changed")
    static let memberViewed = AuditAction("member_viewed", title: "Member record viewed")
    static let memberDisabled = AuditAction("member_disabled", title: "Member disabled")
    static let memberEnabled = AuditAction("member_enabled", title: "Member re-enabled")
    static let memberDeleted = AuditAction("member_deleted", title: "Member data deleted")
}

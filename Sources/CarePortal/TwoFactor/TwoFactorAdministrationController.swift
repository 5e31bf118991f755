import Foundation
import Hummingbird
import PortalPlatform

/// Administrators require a second factor for chosen roles, and reset a member of staff's second factor.
struct TwoFactorAdministrationController {
    static let access = Access.administrators
    let portal: Portal
    let accounts = StaffAccountRepository()
    let factors = SecondFactorRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.twoFactorPolicy.pattern, access: Self.access, showPolicy)
        routes.post(SiteURL.twoFactorPolicy.pattern, access: Self.access, savePolicy)
        routes.post(SiteURL.pattern(SiteURL.staffResetSecondFactor), access: Self.access, reset)
    }

    private static let policyTitle = "Two-factor sign-in for staff"

    @Sendable func showPolicy(request: Request, context: PortalContext) async throws -> Response {
        let required = try await portal.database.read { db in try await factors.requiredRoles(on: db) }
        return portal.pages.response(
            SecondFactorPolicyPage(
                layout: portal.layout(Self.policyTitle, context: context, current: .staff),
                roles: StaffRole.allCases.map { role in
                    SecondFactorPolicyPage.RoleChoice(
                        id: "role-\(role.rawValue)",
                        value: role.rawValue,
                        title: role.title,
                        isChecked: required.contains(role)
                    )
                }
            )
        )
    }

    private struct PolicyForm: Decodable {
        var roles: [String]?
    }

    @Sendable func savePolicy(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(PolicyForm.self, context: context)
        let roles = Set((form.roles ?? []).compactMap(StaffRole.init(rawValue:)))
        let origin = portal.origin(of: request, context: context)
        try await portal.database.transaction { db in
            try await factors.setRequiredRoles(roles, now: portal.now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .secondFactorPolicyChanged,
                    recordType: "second_factor_policy",
                    recordID: nil,
                    origin: origin,
                    detail: roles.isEmpty ? "required for no role" : "required for " + roles.map(\.rawValue).sorted().joined(separator: ", ")
                ),
                on: db
            )
        }
        try await portal.flash(
            Flash(
                .success,
                roles.isEmpty
                    ? "Two-factor sign-in is required for no role. Anyone can still turn it on for their own account."
                    : "Two-factor sign-in is required for \(StaffRole.allCases.filter(roles.contains).map { $0.title.lowercased() + "s" }.joined(separator: ", ")). Those without it set it up at their next sign-in."
            ),
            context: context
        )
        return seeOther(.twoFactorPolicy)
    }

    @Sendable func reset(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        let message = try await portal.database.transaction { db in
            guard let account = try await accounts.find(id: id, on: db) else { throw HTTPError(.notFound) }
            guard try await factors.find(accountID: id, on: db) != nil else {
                return Flash(.warning, "\(account.username) has no second factor to reset.")
            }
            try await factors.remove(accountID: id, on: db)
            try await factors.endChallenges(accountID: id, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .secondFactorReset,
                    recordType: "staff_account",
                    recordID: "\(id)",
                    origin: origin
                ),
                on: db
            )
            return Flash(
                .success,
                "\(account.username)’s second factor has been reset. They sign in with their password, and set up a new one if their role requires it."
            )
        }
        try await portal.flash(message, context: context)
        return seeOther(.staffAccount(id))
    }
}

import Foundation
import PortalPlatform

/// Two-factor sign-in for staff (TOTP, RFC 6238): set up from one's account with a QR code drawn on
/// the server, asked for after the password, required for chosen roles, reset by an administrator.
struct TwoFactorFeature: PortalFeature {
    static let program: Program? = nil
    static let auditActions: [AuditAction] = [.secondFactorTurnedOn, .secondFactorTurnedOff, .secondFactorReset, .secondFactorPolicyChanged]
    static let templates: [TemplateName] = [.signInCode, .setUpSecondFactor, .recoveryCodes, .twoFactor, .secondFactorPolicy]
    static let sealedColumns = [SecondFactorSealer.sealedColumn]
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        TwoFactorController(portal: portal).addRoutes(to: &routes)
        TwoFactorAdministrationController(portal: portal).addRoutes(to: &routes)
    }

    static func homeCards(for staff: StaffAccount, portal: Portal) async throws -> [HomeCard] {
        var cards = [
            HomeCard(
                title: "Two-factor sign-in",
                path: SiteURL.twoFactor.path,
                body: "Ask for a code from your phone as well as your password when you sign in."
            )
        ]
        if staff.role == .administrator {
            cards.append(
                HomeCard(
                    title: "Two-factor sign-in for staff",
                    path: SiteURL.twoFactorPolicy.path,
                    body: "Choose the roles that must use two-factor sign-in."
                )
            )
        }
        return cards
    }

    var jobs: [BackgroundJob] {
        let portal = portal
        return [
            BackgroundJob("Expired two-factor sign-in steps", every: BackgroundJob.housekeepingInterval) {
                let now = portal.now
                try await portal.database.write { db in try await SecondFactorRepository().deleteExpiredChallenges(now: now, on: db) }
            }
        ]
    }
}

extension TemplateName {
    static let signInCode = TemplateName("two-factor/code")
    static let setUpSecondFactor = TemplateName("two-factor/set-up")
    static let recoveryCodes = TemplateName("two-factor/recovery-codes")
    static let twoFactor = TemplateName("two-factor/account")
    static let secondFactorPolicy = TemplateName("two-factor/policy")
}

extension AuditAction {
    static let secondFactorTurnedOn = AuditAction("second_factor_turned_on", title: "Two-factor sign-in turned on")
    static let secondFactorTurnedOff = AuditAction("second_factor_turned_off", title: "Two-factor sign-in turned off")
    static let secondFactorReset = AuditAction("second_factor_reset", title: "Second factor reset by an administrator")
    static let secondFactorPolicyChanged = AuditAction("second_factor_policy_changed", title: "Roles requiring two-factor sign-in changed")
}

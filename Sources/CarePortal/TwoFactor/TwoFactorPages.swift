import Foundation
import PortalPlatform

/// What a page shows of a second factor being set up.
struct SecondFactorSetUp: Sendable, Encodable {
    /// Drawn by `QRCodeDrawing` from the authenticator address; holds no text anyone typed but the escaped title.
    let qrCode: RenderedHTML
    let typedKey: String
    let username: String
    let issuer: String
}

struct SignInCodePage: Page {
    static let template = TemplateName.signInCode
    let layout: Layout
    let errors: [FormErrors.Item]
    let field: FormField
    let action = SiteURL.signInCode.path
    let signInPath = SiteURL.signIn.path

    static func field() -> FormField {
        FormField(
            "code",
            label: "Code",
            hint: "The 6 digits your authenticator app shows now. Lost your phone? Enter one of your recovery codes instead.",
            autocomplete: "one-time-code",
            width: 10
        )
    }
}

struct SetUpSecondFactorPage: Page {
    static let template = TemplateName.setUpSecondFactor
    let layout: Layout
    let errors: [FormErrors.Item]
    let setup: SecondFactorSetUp
    let field: FormField
    let action: String
    /// Her role requires a second factor (at sign-in: she cannot go on without one).
    let isRequired: Bool

    static func field() -> FormField {
        FormField(
            "code",
            label: "Code from the app",
            hint: "After adding the account, enter the 6 digits the app shows.",
            autocomplete: "one-time-code",
            width: 10
        )
    }
}

struct RecoveryCodesPage: Page {
    static let template = TemplateName.recoveryCodes
    let layout: Layout
    let codes: [String]
    let continuePath: String
}

struct TwoFactorPage: Page {
    static let template = TemplateName.twoFactor
    let layout: Layout
    let errors: [FormErrors.Item]
    let isOn: Bool
    let since: String?
    let recoveryCodesLeft: Int
    let isRequired: Bool
    let turnOffFields: [FormField]
    let setUpPath = SiteURL.twoFactorSetUp.path
    let turnOffPath = SiteURL.twoFactorTurnOff.path

    static var turnOffFields: [FormField] {
        [
            FormField("password", label: "Your password", type: "password", autocomplete: "current-password", width: 20),
            FormField("code", label: "Code from your authenticator app, or a recovery code", autocomplete: "one-time-code", width: 10)
        ]
    }
}

/// Administrators choose the roles whose members must use a second factor.
struct SecondFactorPolicyPage: Page {
    struct RoleChoice: Sendable, Encodable {
        let id: String
        let value: String
        let title: String
        let isChecked: Bool
    }

    static let template = TemplateName.secondFactorPolicy
    let layout: Layout
    let roles: [RoleChoice]
    let action = SiteURL.twoFactorPolicy.path
    let staffListPath = SiteURL.staff.path
}

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

extension SignInCodePage {
    /// The form again, with `message` beside the code.
    init(layout: Layout, message: String) {
        var errors = FormErrors()
        errors.add("code", message)
        var field = Self.field()
        field.error = message
        self.init(layout: layout, errors: errors.items, field: field)
    }
}

extension TwoFactorPage {
    /// Her second factor, on, with the turning-off form showing what is wrong beside each field.
    init(layout: Layout, turningOff factor: StoredSecondFactor, recoveryCodesLeft: Int, isRequired: Bool, clock: ProgramClock, errors: FormErrors) {
        var fields = Self.turnOffFields
        errors.apply(to: &fields)
        self.init(
            layout: layout,
            errors: errors.items,
            isOn: true,
            since: factor.confirmedAt.map(clock.dateTime),
            recoveryCodesLeft: recoveryCodesLeft,
            isRequired: isRequired,
            turnOffFields: fields
        )
    }
}

/// The form that turns two-factor sign-in off: her password and a code.
struct TurnOffSecondFactorForm: Decodable, Sendable {
    var password: String?
    var code: String?

    var typedPassword: String { password ?? "" }
    var typedCode: String { (code ?? "").trimmed }

    /// What is wrong, by field. A role that requires a second factor cannot turn it off, and a paused
    /// throttle answers before the password is looked at.
    func problems(role: StaffRole, isRequired: Bool, isPaused: Bool, passwordIsRight: Bool) -> FormErrors {
        var errors = FormErrors()
        if isRequired {
            errors.add(
                "password",
                "Two-factor sign-in is required for \(role.title.lowercased())s, so it cannot be turned off. An administrator can reset it if you lost your phone."
            )
        } else if isPaused {
            errors.add("password", SignInController.paused)
        } else {
            if typedPassword.isEmpty {
                errors.add("password", "Enter your password")
            } else if !passwordIsRight {
                errors.add("password", "Your password is not right")
            }
            if typedCode.isEmpty { errors.add("code", "Enter a code from your authenticator app, or a recovery code") }
        }
        return errors
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

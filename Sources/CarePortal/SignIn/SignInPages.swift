import PortalPlatform

/// The first-run page that creates the first administrator.
struct SetupPage: Page {
    static let template = TemplateName.setup
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let action = SiteURL.setup.path

    static func fields(username: String = "", email: String = "") -> [FormField] {
        [
            FormField(
                "username",
                label: "Username",
                value: username,
                hint: "Up to 21 letters, numbers, full stops, hyphens or underscores. You sign in with it.",
                autocomplete: "username",
                width: 20
            ),
            FormField(
                "email",
                label: "Email address",
                value: email,
                hint: "For messages about the portal, such as new registrations.",
                type: "email",
                autocomplete: "email"
            ),
            FormField(
                "password",
                label: "Password",
                hint: "At least 8 characters. A few random words make a strong password.",
                type: "password",
                autocomplete: "new-password"
            ),
            FormField("password_confirmation", label: "Confirm password", type: "password", autocomplete: "new-password")
        ]
    }
}

struct SignInPage: Page {
    static let template = TemplateName.signIn
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let next: String?
    let action = SiteURL.signIn.path
    let registerPath = SiteURL.registerPhysician.path
    let forgottenPasswordPath = SiteURL.forgottenPassword.path

    static func fields(username: String = "") -> [FormField] {
        [
            FormField("username", label: "Username", value: username, autocomplete: "username", width: 20),
            FormField("password", label: "Password", type: "password", autocomplete: "current-password", width: 20)
        ]
    }
}

struct ChangePasswordPage: Page {
    static let template = TemplateName.changePassword
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let action = SiteURL.changePassword.path
    let twoFactorPath = SiteURL.twoFactor.path

    static var fields: [FormField] {
        [
            FormField("current_password", label: "Current password", type: "password", autocomplete: "current-password", width: 20),
            FormField(
                "new_password",
                label: "New password",
                hint: "At least 8 characters. A few random words make a strong password.",
                type: "password",
                autocomplete: "new-password",
                width: 20
            ),
            FormField("new_password_confirmation", label: "Confirm new password", type: "password", autocomplete: "new-password", width: 20)
        ]
    }
}

extension SetupPage {
    /// The form again, with what was typed and what is wrong beside each field.
    init(layout: Layout, form: SetupForm, errors: FormErrors) {
        var fields = Self.fields(username: form.typedUsername, email: form.typedEmail)
        errors.apply(to: &fields)
        self.init(layout: layout, errors: errors.items, fields: fields)
    }
}

extension SignInPage {
    /// The form again, with the username typed and what is wrong beside each field.
    init(layout: Layout, form: SignInForm, errors: FormErrors) {
        var fields = Self.fields(username: form.typedUsername)
        errors.apply(to: &fields)
        self.init(layout: layout, errors: errors.items, fields: fields, next: form.next)
    }
}

extension ChangePasswordPage {
    /// The form again, empty, with what is wrong beside each field.
    init(layout: Layout, errors: FormErrors) {
        var fields = Self.fields
        errors.apply(to: &fields)
        self.init(layout: layout, errors: errors.items, fields: fields)
    }
}

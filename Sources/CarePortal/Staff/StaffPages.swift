import Foundation
import PortalPlatform

/// A physician's self-registration form (seed 002, section 3.13).
struct RegisterPhysicianPage: Page {
    static let template = TemplateName.registerPhysician
    let layout: Layout
    let errors: [FormErrors.Item]
    let accountFields: [FormField]
    let personFields: [FormField]
    let action = SiteURL.registerPhysician.path
    let signInPath = SiteURL.signIn.path

    static func fields(_ values: [String: String] = [:]) -> (account: [FormField], person: [FormField]) {
        (
            account: [
                FormField(
                    "username",
                    label: "Username",
                    value: values["username"] ?? "",
                    hint: "Up to 21 letters, numbers, full stops, hyphens or underscores.",
                    autocomplete: "username",
                    width: 20
                ),
                FormField("email", label: "Email address", value: values["email"] ?? "", type: "email", autocomplete: "email"),
                FormField(
                    "password",
                    label: "Password",
                    hint: "At least 8 characters. A few random words make a strong password.",
                    type: "password",
                    autocomplete: "new-password",
                    width: 20
                ),
                FormField("password_confirmation", label: "Confirm password", type: "password", autocomplete: "new-password", width: 20)
            ],
            person: [
                FormField("first_name", label: "First name", value: values["first_name"] ?? "", autocomplete: "given-name", width: 20),
                FormField(
                    "middle_name",
                    label: "Middle name (optional)",
                    value: values["middle_name"] ?? "",
                    autocomplete: "additional-name",
                    width: 20
                ),
                FormField("last_name", label: "Last name", value: values["last_name"] ?? "", autocomplete: "family-name", width: 20),
                PhysicianPractice.locationField(values["practice_location"] ?? ""),
                PhysicianPractice.phoneField(values["practice_phone"] ?? ""),
                FormField(
                    "medical_id_number",
                    label: "Medical identification number",
                    value: values["medical_id_number"] ?? "",
                    hint: "For example, your National Provider Identifier (NPI).",
                    width: 20
                )
            ]
        )
    }
}

extension RegisterPhysicianPage {
    /// The form again, with what was typed (but the passwords) and what is wrong beside each field.
    init(layout: Layout, values: [String: String], errors: FormErrors) {
        var fields = Self.fields(values)
        errors.apply(to: &fields.account)
        errors.apply(to: &fields.person)
        self.init(layout: layout, errors: errors.items, accountFields: fields.account, personFields: fields.person)
    }
}

struct RegistrationReceivedPage: Page {
    static let template = TemplateName.registrationReceived
    let layout: Layout
    let signInPath = SiteURL.signIn.path
}

/// The staff list's rows (`TableRows`): a username linking to her account, her role, her status, when the
/// account was made and her email address.
enum StaffRows {
    static func html(_ accounts: [StaffAccount], clock: ProgramClock) -> TableRows {
        TableRows(accounts) { account, cells in
            cells.link(account.username, to: SiteURL.staffAccount(account.id).path)
            cells.text(account.role.title)
            cells.tag(account.status.title, tone: account.status.tagTone)
            cells.text(clock.dateTime(account.createdAt))
            cells.text(account.email ?? "—")
        }
    }
}

extension AccountStatus {
    var tagTone: TableRows.TagTone {
        switch self {
        case .active: .green
        case .disabled: .grey
        case .awaitingApproval: .yellow
        }
    }

    var tagClass: String { tagTone.tagClass }
}

/// Confirms deleting a staff account by having the administrator type its username.
struct DeleteStaffAccountPage: Page {
    static let template = TemplateName.deleteStaffAccount
    let layout: Layout
    let errors: [FormErrors.Item]
    let username: String
    let formerTitle: String
    let field: FormField
    let accountPath: String
    let action: String

    init(account: StaffAccount, layout: Layout, errors: [FormErrors.Item], field: FormField) {
        self.layout = layout
        self.errors = errors
        username = account.username
        formerTitle = account.role.formerTitle
        self.field = field
        accountPath = SiteURL.staffAccount(account.id).path
        action = SiteURL.staffDelete(account.id).path
    }

    static func field(_ value: String = "") -> FormField {
        FormField("username", label: "Type the username to confirm", value: value, autocomplete: "off", width: 20)
    }

    /// The form again, with what was typed and why it does not confirm.
    init(account: StaffAccount, layout: Layout, typed: String, message: String) {
        var errors = FormErrors()
        errors.add("username", message)
        var field = Self.field(typed)
        field.error = message
        self.init(account: account, layout: layout, errors: errors.items, field: field)
    }
}

/// The username an administrator types to confirm deleting an account.
struct DeleteStaffAccountForm: Decodable, Sendable {
    var username: String?

    var typedUsername: String { username?.trimmed ?? "" }

    /// Nil when the typed username is the account's, in any case.
    func problem(confirming account: StaffAccount) -> String? {
        if typedUsername.isEmpty { return "Type the username \(account.username) to confirm" }
        guard usernameKey(typedUsername) == usernameKey(account.username) else {
            return "The username you typed is not \(account.username). Type it exactly to confirm"
        }
        return nil
    }
}

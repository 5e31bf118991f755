import Foundation
import PortalPlatform

/// The administrators' list of medical professionals' accounts (`TableRows`): her username linking to her
/// account, her name (from her profile) and her account's status.
enum MedicalProfessionalRows {
    static func html(_ accounts: [NamedAccount]) -> TableRows {
        TableRows(accounts) { named, cells in
            let account = named.account
            cells.link(account.username, to: SiteURL.staffAccount(account.id).path)
            cells.text(named.name ?? "Not recorded")
            cells.tag(account.status.title, tone: account.status.tagTone)
        }
    }
}

/// The invitations that were neither accepted nor revoked (`TableRows`): her name, her role (on the staff
/// accounts page, which invites every role) or when it was last sent (on the medical professionals' page, which
/// invites one), her email address, when it expires, whether it is still waiting, and buttons to send it again or
/// revoke it.
enum InvitationRows {
    static func html(_ invitations: [StaffInvitation], showingRoles: Bool, now: Date, clock: ProgramClock, csrfToken: String) -> TableRows {
        TableRows(invitations) { invitation, cells in
            let status = invitation.status(at: now)
            cells.text(invitation.fullName)
            if showingRoles { cells.text(invitation.role.title) }
            cells.text(invitation.email)
            if !showingRoles { cells.text(clock.dateTime(invitation.lastSentAt)) }
            cells.text(clock.dateTime(invitation.expiresAt))
            cells.tag(status.title, tone: status == .waiting ? .blue : .grey)
            cells.cell { content in
                content.buttonGroup { buttons in
                    let hidden = " the invitation to \(invitation.fullName)"
                    buttons.postButton("Resend", hidden: hidden, to: SiteURL.invitationResend(invitation.id).path, csrfToken: csrfToken)
                    buttons.postButton(
                        "Revoke",
                        hidden: hidden,
                        to: SiteURL.invitationRevoke(invitation.id).path,
                        csrfToken: csrfToken,
                        style: .warning
                    )
                }
            }
        }
    }
}

struct MedicalProfessionalsPage: Page {
    static let template = TemplateName.medicalProfessionals
    let layout: Layout
    /// The rendered rows of the open invitations (`InvitationRows`).
    let invitations: RenderedHTML
    let hasInvitations: Bool
    /// The rendered rows of the accounts (`MedicalProfessionalRows`).
    let professionals: RenderedHTML
    let hasProfessionals: Bool
    /// The rendered `PaginationView`.
    let pagination: RenderedHTML
    let lifetimeDays = StaffInvitation.lifetimeDays
    let invitePath = SiteURL.inviteMedicalProfessional.path
}

struct InviteMedicalProfessionalPage: Page {
    struct RoleChoice: Sendable, Encodable {
        /// The first radio takes the group's name as its id, so the error summary can link to it.
        let id: String
        let value: String
        let title: String
        let isChecked: Bool
    }

    static let template = TemplateName.inviteMedicalProfessional
    let layout: Layout
    let errors: [FormErrors.Item]
    let title: String
    /// Empty on the medical professionals' own form, which invites only them.
    let roleChoices: [RoleChoice]
    let roleError: String?
    let nameFields: [FormField]
    let dateOfBirth: DateInputField
    let emailFields: [FormField]
    let lifetimeDays = StaffInvitation.lifetimeDays
    let action: String
    let listPath: String
    let listTitle: String

    static func nameFields(_ values: [String: String] = [:]) -> [FormField] {
        [
            FormField("first_name", label: "First name", value: values["first_name"] ?? "", width: 20),
            FormField("last_name", label: "Last name", value: values["last_name"] ?? "", width: 20)
        ]
    }

    static func dateOfBirth(
        _ value: DateInputValue = DateInputValue(day: nil, month: nil, year: nil),
        problem: DateInputProblem? = nil,
        choosingRole: Bool = false
    ) -> DateInputField {
        DateInputField(
            "date_of_birth",
            legend: choosingRole ? "Date of birth (medical professionals only)" : "Date of birth",
            hint: choosingRole
                ? "Kept in a medical professional’s profile; not asked of other roles. For example, 27 3 1980" : "For example, 27 3 1980",
            value: value,
            problem: problem
        )
    }

    static func emailFields(_ values: [String: String] = [:]) -> [FormField] {
        [FormField("email", label: "Email address", value: values["email"] ?? "", hint: "The invitation is sent here.", type: "email")]
    }
}

/// One picture of the avatar radio group.
struct AvatarChoice: Sendable, Encodable {
    /// The first radio takes the group's name as its id, so the error summary can link to it.
    let id: String
    let value: String
    let name: String
    let path: String
    let isChecked: Bool
}

/// The avatar radio group as the template shows it.
struct AvatarField: Sendable, Encodable {
    let name = "avatar"
    let legend = "Avatar"
    let hint = "Members see it beside your answers. Each picture carries a medical mark, so members know a medical professional is answering."
    let choices: [AvatarChoice]
    let error: String?
    let hasError: Bool
    let describedBy: String

    init(selected: String, error: String?) {
        choices = Avatar.medicalSet.enumerated().map { index, avatar in
            AvatarChoice(
                id: index == 0 ? "avatar" : "avatar-\(index + 1)",
                value: avatar.id,
                name: avatar.name,
                path: avatar.path,
                isChecked: avatar.id == selected
            )
        }
        self.error = error
        hasError = error != nil
        describedBy = error == nil ? "avatar-hint" : "avatar-hint avatar-error"
    }
}

struct AcceptInvitationPage: Page {
    static let template = TemplateName.acceptInvitation
    let layout: Layout
    let errors: [FormErrors.Item]
    let roleTitle: String
    let roleLower: String
    let roleArticle: String
    /// Only a medical professional chooses an avatar and bio (members see them).
    let asksForProfile: Bool
    let firstName: String
    let email: String
    let expires: String
    let token: String
    let accountFields: [FormField]
    let avatar: AvatarField?
    let bio: FormField?
    /// Set when this browser is signed in to another account, which accepting signs out of.
    let signedInAs: String?
    let action = SiteURL.invitation.path

    static func accountFields(username: String = "") -> [FormField] {
        [
            FormField(
                "username",
                label: "Username",
                value: username,
                hint: "Members see it instead of your name. Up to 21 letters, numbers, full stops, hyphens or underscores.",
                autocomplete: "username",
                width: 20
            ),
            FormField(
                "password",
                label: "Password",
                hint: "At least 8 characters. A few random words make a strong password.",
                type: "password",
                autocomplete: "new-password",
                width: 20
            ),
            FormField("password_confirmation", label: "Confirm password", type: "password", autocomplete: "new-password", width: 20)
        ]
    }

    static func bio(_ value: String = "") -> FormField {
        FormField(
            "bio",
            label: "Bio (optional)",
            value: value,
            hint:
                "A few words members see with your answers, such as what you specialise in. Up to \(StaffProfile.bioMaximumLength) characters of plain text."
        )
    }
}

/// Shown for every link that cannot be used, without saying why: unknown, expired, used or revoked.
struct InvitationUnusablePage: Page {
    static let template = TemplateName.invitationUnusable
    let layout: Layout
    let signInPath = SiteURL.signIn.path
}

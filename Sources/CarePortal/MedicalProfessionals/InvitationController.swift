import Foundation
import Hummingbird
import PortalPlatform

/// A member of staff opens the link in the invitation email, sets up the account and is signed in.
/// A medical professional also chooses the avatar and bio members see.
struct InvitationController {
    static let access = Access.everyone
    /// Where a medical professional lands after accepting: the information desk.
    static let landingPage = SiteURL.landing(for: .medicalProfessional)

    let portal: Portal
    let accounts = StaffAccountRepository()
    let profiles = StaffProfileRepository()
    let invitations = StaffInvitationRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.invitation.pattern, access: Self.access, show)
        routes.post(SiteURL.invitation.pattern, access: Self.access, accept)
    }

    private static let title = "Set up your account"

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        let token = request.query("token") ?? ""
        guard let invitation = try await usableInvitation(token: token) else { return unusable(context: context) }
        return try await portal.withFormSession(context: context) { context in
            portal.pages.response(
                page(
                    invitation,
                    token: token,
                    context: context,
                    errors: FormErrors(),
                    accountFields: AcceptInvitationPage.accountFields(),
                    avatar: AvatarField(selected: "", error: nil),
                    bio: AcceptInvitationPage.bio()
                )
            )
        }
    }

    /// A link that was never valid, has expired, was used or was revoked.
    private struct InvitationNoLongerUsable: Error {}

    @Sendable func accept(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(AcceptInvitationForm.self, context: context)
        let token = form.token ?? ""
        guard let invitation = try await usableInvitation(token: token) else { return unusable(context: context) }
        func refuse(_ errors: FormErrors) -> Response {
            var accountFields = AcceptInvitationPage.accountFields(username: form.typedUsername)
            var bioField = AcceptInvitationPage.bio(form.typedBio)
            errors.apply(to: &accountFields)
            bioField.error = errors["bio"]
            let avatar = AvatarField(selected: form.avatarID, error: errors["avatar"])
            return portal.pages.response(
                page(invitation, token: token, context: context, errors: errors, accountFields: accountFields, avatar: avatar, bio: bioField),
                status: .unprocessableContent
            )
        }
        let errors = form.problems(policy: portal.passwordPolicy, role: invitation.role)
        let avatar = Avatar.medical(form.avatarID)
        guard errors.isEmpty, invitation.role != .medicalProfessional || avatar != nil else { return refuse(errors) }
        let hash = try await portal.passwords.hash(form.typedPassword)
        let origin = portal.origin(of: request, context: context)
        let session: ActiveSession
        let secondStep: SiteURL?
        do {
            (session, secondStep) = try await createAccount(form, token: token, avatar: avatar, passwordHash: hash, origin: origin, context: context)
        } catch is UsernameTaken {
            var errors = FormErrors()
            errors.add("username", "That username is already taken. Choose another one")
            return refuse(errors)
        } catch is InvitationNoLongerUsable {
            return unusable(context: context)
        }
        var response = seeOther(secondStep ?? .landing(for: invitation.role))
        response.setCookie(portal.sessions.cookie(for: session))
        return response
    }

    /// Accepts the invitation with a new account (and a medical professional's profile), and signs her
    /// in, or starts the second step her role asks for (returned with the session).
    private func createAccount(
        _ form: AcceptInvitationForm,
        token: String,
        avatar: Avatar?,
        passwordHash: String,
        origin: AuditOrigin,
        context: PortalContext
    ) async throws -> (ActiveSession, SiteURL?) {
        let twoFactor = TwoFactorController(portal: portal)
        return try await portal.database.transaction { db in
            // Claimed first, under its conditions, so a second submission of the link finds nothing to accept.
            guard let invitation = try await invitations.accept(token: token, now: portal.now, on: db) else {
                throw InvitationNoLongerUsable()
            }
            let account = try await accounts.create(
                username: form.typedUsername,
                email: invitation.email,
                role: invitation.role,
                status: .active,
                passwordHash: passwordHash,
                now: portal.now,
                on: db
            )
            try await invitations.recordAccount(account.id, invitationID: invitation.id, on: db)
            if invitation.role == .medicalProfessional, let avatar, let dateOfBirth = invitation.dateOfBirth {
                try await profiles.create(
                    StaffProfile(
                        firstName: invitation.firstName,
                        lastName: invitation.lastName,
                        dateOfBirth: dateOfBirth,
                        avatar: avatar,
                        bio: form.typedBio
                    ),
                    accountID: account.id,
                    on: db
                )
            }
            try await portal.audit.record(
                AuditEvent(
                    actor: AuditActor(accountID: account.id, role: account.role.rawValue, name: account.username),
                    action: .invitationAccepted,
                    recordType: "staff_invitation",
                    recordID: "\(invitation.id)",
                    origin: origin,
                    detail: "staff account \(account.id)"
                ),
                on: db
            )
            // A role that must use a second factor sets it up before its first signed-in page, as at sign-in.
            if let step = try await twoFactor.secondStep(for: account, on: db) {
                let pending = try await portal.sessions.rotate(context.session, toAccount: nil, on: db)
                return (pending, try await twoFactor.start(step, for: account, session: pending, next: nil, on: db))
            }
            return (
                try await portal.sessions.rotate(
                    context.session,
                    toAccount: account.id,
                    flash: Flash(.success, "Your account is ready. You are signed in as \(account.username)."),
                    on: db
                ), nil
            )
        }
    }

    private func usableInvitation(token: String) async throws -> StaffInvitation? {
        // A token is 43 characters; anything much longer is not worth hashing.
        guard !token.isEmpty, token.count <= 100 else { return nil }
        let now = portal.now
        return try await portal.database.read { db in try await invitations.findUsable(token: token, now: now, on: db) }
    }

    private func page(
        _ invitation: StaffInvitation,
        token: String,
        context: PortalContext,
        errors: FormErrors,
        accountFields: [FormField],
        avatar: AvatarField,
        bio: FormField
    ) -> AcceptInvitationPage {
        let asksForProfile = invitation.role == .medicalProfessional
        let roleLower = invitation.role.title.lowercased()
        return AcceptInvitationPage(
            layout: portal.layout(Self.title, context: context),
            errors: errors.items,
            roleTitle: invitation.role.title + "s",
            roleLower: roleLower,
            roleArticle: "aeiou".contains(roleLower.prefix(1)) ? "an" : "a",
            asksForProfile: asksForProfile,
            firstName: invitation.firstName,
            email: invitation.email,
            expires: portal.programSettings.current.clock.dateTime(invitation.expiresAt),
            token: token,
            accountFields: accountFields,
            avatar: asksForProfile ? avatar : nil,
            bio: asksForProfile ? bio : nil,
            signedInAs: context.staff?.username
        )
    }

    private func unusable(context: PortalContext) -> Response {
        portal.pages.response(
            InvitationUnusablePage(layout: portal.layout("This invitation link cannot be used", context: context)),
            status: .notFound
        )
    }
}

/// What an invited member of staff sends to set up the account.
struct AcceptInvitationForm: Decodable, Sendable {
    var token: String?
    var username: String?
    var password: String?
    var password_confirmation: String?
    var avatar: String?
    var bio: String?

    var typedUsername: String { username?.trimmed ?? "" }
    var typedPassword: String { password ?? "" }
    var avatarID: String { avatar ?? "" }
    /// Browsers send line breaks as CR LF; stored as LF so the length counts what the person sees.
    var typedBio: String { (bio ?? "").replacingOccurrences(of: "\r\n", with: "\n").trimmed }

    /// What is wrong, by field; a medical professional (`role`) also chooses an avatar and may write a bio.
    func problems(policy: PasswordPolicy, role: StaffRole) -> FormErrors {
        var errors = FormErrors()
        if let problem = FieldRules.usernameProblem(typedUsername) { errors.add("username", problem) }
        if let problem = policy.problem(with: typedPassword, username: typedUsername) { errors.add("password", problem) }
        if errors["password"] == nil, typedPassword != password_confirmation {
            errors.add("password_confirmation", "The passwords do not match")
        }
        if role == .medicalProfessional {
            if Avatar.medical(avatarID) == nil { errors.add("avatar", "Select an avatar") }
            if typedBio.count > StaffProfile.bioMaximumLength {
                errors.add("bio", "Bio must be \(StaffProfile.bioMaximumLength) characters or fewer")
            }
        }
        return errors
    }
}

import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// Forgotten passwords: a member of staff asks for a link by email, and sets a new password with it.
struct PasswordResetController {
    let portal: Portal
    let accounts = StaffAccountRepository()
    let resets = PasswordResetRepository()
    let throttle = SignInThrottle()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.forgottenPassword.pattern, access: .everyone, showRequest)
        routes.post(SiteURL.forgottenPassword.pattern, access: .everyone, request)
        routes.get(SiteURL.resetPassword.pattern, access: .everyone, showReset)
        routes.post(SiteURL.resetPassword.pattern, access: .everyone, reset)
    }

    private static let requestTitle = "Reset your password"
    private static let resetTitle = "Choose a new password"

    @Sendable func showRequest(request: Request, context: PortalContext) async throws -> Response {
        try await portal.withFormSession(context: context) { context in
            portal.pages.response(
                ForgottenPasswordPage(
                    layout: portal.layout(Self.requestTitle, context: context),
                    errors: [],
                    fields: ForgottenPasswordPage.fields()
                )
            )
        }
    }

    private struct RequestForm: Decodable {
        var email: String?
    }

    /// Answers the same whether or not an account has the address, so the page tells no one who has an account.
    @Sendable func request(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(RequestForm.self, context: context)
        let email = form.email?.trimmed ?? ""
        if let problem = FieldRules.emailProblem(email) {
            return portal.pages.response(
                ForgottenPasswordPage(layout: portal.layout(Self.requestTitle, context: context), email: email, problem: problem),
                status: .unprocessableContent
            )
        }
        let origin = portal.origin(of: request, context: context)
        guard try await sendLinks(to: email, origin: origin) else {
            return portal.pages.response(
                ForgottenPasswordPage(
                    layout: portal.layout(Self.requestTitle, context: context),
                    email: email,
                    problem: "Too many requests from this network. Wait 15 minutes, then try again."
                ),
                status: .tooManyRequests
            )
        }
        return portal.pages.response(
            PasswordResetSentPage(
                layout: portal.layout("Check your email", context: context),
                email: email,
                minutes: Int(PasswordReset.lifetime / 60)
            )
        )
    }

    /// Sends a link to every active account with the address, as far as the throttle lets it; false
    /// when requests from the client's address are paused.
    private func sendLinks(to email: String, origin: AuditOrigin) async throws -> Bool {
        let now = portal.now
        let addressKeys = origin.address.map { [PasswordReset.throttleKey(address: $0)] } ?? []
        let emailKey = PasswordReset.throttleKey(email: email)
        return try await portal.database.transaction { db in
            // Every request counts, sent or not: the limits are on asking.
            guard try await throttle.admit(addressKeys, now: now, on: db) else { return false }
            let emailAdmitted = try await throttle.admit([emailKey], now: now, on: db)
            let found = try await accounts.activeAccounts(email: email, on: db)
            var sent: [Int64] = []
            for account in found {
                guard emailAdmitted, try await throttle.admit([PasswordReset.throttleKey(accountID: account.id)], now: now, on: db) else { continue }
                try await send(to: account, email: account.email ?? email, byAdministrator: false, now: now, on: db)
                sent.append(account.id)
            }
            try await portal.audit.record(
                AuditEvent(
                    actor: AuditActor(accountID: found.first?.id, role: found.first?.role.rawValue, name: nil),
                    action: .passwordResetRequested,
                    recordType: "staff_account",
                    recordID: found.first.map { "\($0.id)" },
                    outcome: sent.isEmpty ? .failure : .success,
                    origin: origin,
                    detail: found.isEmpty ? "no active account has the address" : (sent.isEmpty ? "not sent: too many requests" : nil)
                ),
                on: db
            )
            return true
        }
    }

    /// Makes a link for `account` and puts its email in the outbox, in the caller's transaction.
    func send(to account: StaffAccount, email: String, byAdministrator: Bool, now: Date, on db: any SQLDatabase) async throws {
        let token = SecretToken(randomBytes: portal.dependencies.randomBytes)
        let reset = try await resets.create(accountID: account.id, token: token, now: now, on: db)
        try await portal.outbox.enqueue(
            .passwordReset(
                to: account,
                email: email,
                token: token,
                expires: reset.expiresAt,
                byAdministrator: byAdministrator,
                settings: portal.settings,
                clock: portal.programSettings.current.clock
            ),
            on: db
        )
    }

    @Sendable func showReset(request: Request, context: PortalContext) async throws -> Response {
        let token = request.query("token") ?? ""
        guard let (_, account) = try await usableReset(token: token) else { return unusable(context: context) }
        return try await portal.withFormSession(context: context) { context in
            portal.pages.response(
                ResetPasswordPage(
                    layout: portal.layout(Self.resetTitle, context: context),
                    errors: [],
                    username: account.username,
                    token: token,
                    fields: ResetPasswordPage.fields
                )
            )
        }
    }

    private struct ResetForm: Decodable {
        var token: String?
        var new_password: String?
        var new_password_confirmation: String?

        /// What is wrong with the new password, by field.
        func problems(policy: PasswordPolicy, username: String) -> FormErrors {
            let new = new_password ?? ""
            var errors = FormErrors()
            if let problem = policy.problem(with: new, username: username) {
                errors.add("new_password", problem.replacingOccurrences(of: "Enter a password", with: "Enter a new password"))
            }
            if errors["new_password"] == nil, new != new_password_confirmation {
                errors.add("new_password_confirmation", "The new passwords do not match")
            }
            return errors
        }
    }

    /// A link that was never valid, has expired or was used.
    private struct ResetNoLongerUsable: Error {}

    @Sendable func reset(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(ResetForm.self, context: context)
        let token = form.token ?? ""
        guard let (_, account) = try await usableReset(token: token) else { return unusable(context: context) }
        let errors = form.problems(policy: portal.passwordPolicy, username: account.username)
        guard errors.isEmpty else {
            return portal.pages.response(
                ResetPasswordPage(layout: portal.layout(Self.resetTitle, context: context), username: account.username, token: token, errors: errors),
                status: .unprocessableContent
            )
        }
        let hash = try await portal.passwords.hash(form.new_password ?? "")
        let origin = portal.origin(of: request, context: context)
        guard let session = try await setPassword(hash, token: token, origin: origin, context: context) else {
            return unusable(context: context)
        }
        var response = seeOther(.signIn)
        response.setCookie(portal.sessions.cookie(for: session))
        return response
    }

    /// Uses the link to set the password, signs its account out everywhere, and returns this browser's
    /// new session (signed out); nil when the link can no longer be used.
    private func setPassword(_ hash: String, token: String, origin: AuditOrigin, context: PortalContext) async throws -> ActiveSession? {
        let now = portal.now
        do {
            return try await portal.database.transaction { db in
                // Claimed first, under its conditions, so a second submission of the link finds nothing to use.
                guard let reset = try await resets.use(token: token, now: now, on: db),
                    let account = try await accounts.find(id: reset.accountID, on: db)
                else { throw ResetNoLongerUsable() }
                try await accounts.setPasswordHash(hash, accountID: account.id, now: now, on: db)
                try await resets.retireAll(accountID: account.id, now: now, on: db)
                try await portal.sessions.endAll(accountID: account.id, on: db)
                try await throttle.clear(.account(account.username), on: db)
                try await portal.audit.record(
                    AuditEvent(
                        actor: AuditActor(accountID: account.id, role: account.role.rawValue, name: account.username),
                        action: .passwordReset,
                        recordType: "staff_account",
                        recordID: "\(account.id)",
                        origin: origin
                    ),
                    on: db
                )
                // Not signed in here: a second factor, if she has one, is still asked for at sign-in.
                return try await portal.sessions.rotate(
                    context.session,
                    toAccount: nil,
                    flash: Flash(.success, "Your password has been changed and you have been signed out everywhere. Sign in with your new password."),
                    on: db
                )
            }
        } catch is ResetNoLongerUsable {
            return nil
        }
    }

    private func usableReset(token: String) async throws -> (PasswordReset, StaffAccount)? {
        // A token is 43 characters; anything much longer is not worth hashing.
        guard !token.isEmpty, token.count <= 100 else { return nil }
        let now = portal.now
        return try await portal.database.read { db in
            guard let reset = try await resets.findUsable(token: token, now: now, on: db),
                let account = try await accounts.find(id: reset.accountID, on: db), account.status == .active
            else { return nil }
            return (reset, account)
        }
    }

    private func unusable(context: PortalContext) -> Response {
        portal.pages.response(
            ResetLinkUnusablePage(layout: portal.layout("This link cannot be used", context: context)),
            status: .notFound
        )
    }
}

struct ForgottenPasswordPage: Page {
    static let template = TemplateName.forgottenPassword
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let action = SiteURL.forgottenPassword.path
    let signInPath = SiteURL.signIn.path

    static func fields(email: String = "") -> [FormField] {
        [
            FormField(
                "email",
                label: "Email address",
                value: email,
                hint: "The address your account was set up with.",
                type: "email",
                autocomplete: "email"
            )
        ]
    }
}

extension ForgottenPasswordPage {
    /// The form again, with the address typed and what is wrong with it.
    init(layout: Layout, email: String, problem: String) {
        var errors = FormErrors()
        errors.add("email", problem)
        var fields = Self.fields(email: email)
        errors.apply(to: &fields)
        self.init(layout: layout, errors: errors.items, fields: fields)
    }
}

struct PasswordResetSentPage: Page {
    static let template = TemplateName.passwordResetSent
    let layout: Layout
    let email: String
    let minutes: Int
    let signInPath = SiteURL.signIn.path
}

struct ResetPasswordPage: Page {
    static let template = TemplateName.resetPassword
    let layout: Layout
    let errors: [FormErrors.Item]
    let username: String
    let token: String
    let fields: [FormField]
    let action = SiteURL.resetPassword.path

    static var fields: [FormField] {
        [
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

extension ResetPasswordPage {
    /// The form again, empty, with what is wrong beside each field.
    init(layout: Layout, username: String, token: String, errors: FormErrors) {
        var fields = Self.fields
        errors.apply(to: &fields)
        self.init(layout: layout, errors: errors.items, username: username, token: token, fields: fields)
    }
}

/// Shown for every reset link that cannot be used, without saying why: unknown, expired or used.
struct ResetLinkUnusablePage: Page {
    static let template = TemplateName.resetLinkUnusable
    let layout: Layout
    let forgottenPasswordPath = SiteURL.forgottenPassword.path
}

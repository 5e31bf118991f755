import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// First-run setup, sign-in, sign-out and changing one's password.
struct SignInController {
    let portal: Portal
    let accounts = StaffAccountRepository()
    let throttle = SignInThrottle()

    static let wrongCredentials = "The username or password is not right"
    static let paused = "Too many attempts to sign in. Wait 15 minutes, then try again. If you have forgotten your password, ask for a reset link."

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.setup.pattern, access: .everyone, showSetup)
        routes.post(SiteURL.setup.pattern, access: .everyone, setUp)
        routes.get(SiteURL.signIn.pattern, access: .everyone, showSignIn)
        routes.post(SiteURL.signIn.pattern, access: .everyone, signIn)
        routes.post(SiteURL.signOut.pattern, access: .anyStaff, signOut)
        routes.get(SiteURL.changePassword.pattern, access: .anyStaff, showChangePassword)
        routes.post(SiteURL.changePassword.pattern, access: .anyStaff, changePassword)
    }

    // MARK: First-run setup

    @Sendable func showSetup(request: Request, context: PortalContext) async throws -> Response {
        guard try await !hasAdministrator() else { throw HTTPError(.notFound) }
        return try await portal.withFormSession(context: context) { context in
            portal.pages.response(
                SetupPage(
                    layout: portal.layout("Create the first administrator account", context: context),
                    errors: [],
                    fields: SetupPage.fields()
                )
            )
        }
    }

    private struct SetupForm: Decodable {
        var username: String?
        var email: String?
        var password: String?
        var password_confirmation: String?
    }

    @Sendable func setUp(request: Request, context: PortalContext) async throws -> Response {
        guard try await !hasAdministrator() else { throw HTTPError(.notFound) }
        let form = try await request.form(SetupForm.self, context: context)
        let username = form.username?.trimmed ?? ""
        let email = form.email?.trimmed ?? ""
        let password = form.password ?? ""
        var errors = FormErrors()
        if let problem = FieldRules.usernameProblem(username) { errors.add("username", problem) }
        if let problem = FieldRules.emailProblem(email) { errors.add("email", problem) }
        if let problem = portal.passwordPolicy.problem(with: password, username: username) { errors.add("password", problem) }
        if errors["password"] == nil, password != form.password_confirmation {
            errors.add("password_confirmation", "The passwords do not match")
        }
        func page(_ errors: FormErrors) -> Response {
            var fields = SetupPage.fields(username: username, email: email)
            errors.apply(to: &fields)
            return portal.pages.response(
                SetupPage(layout: portal.layout("Create the first administrator account", context: context), errors: errors.items, fields: fields),
                status: .unprocessableContent
            )
        }
        guard errors.isEmpty else { return page(errors) }

        let hash = try await portal.passwords.hash(password)
        let origin = portal.origin(of: request, context: context)
        let outcome: (StaffAccount, ActiveSession)? = try await portal.database.transaction { db in
            try await portal.database.serializeSetup(on: db)
            guard try await !accounts.hasAdministrator(on: db) else { return nil }
            let account = try await accounts.create(
                username: username,
                email: email,
                role: .administrator,
                status: .active,
                passwordHash: hash,
                now: portal.now,
                on: db
            )
            try await portal.audit.record(
                AuditEvent(
                    actor: AuditActor(accountID: account.id, role: account.role.rawValue, name: account.username),
                    action: .firstAdministratorCreated,
                    recordType: "staff_account",
                    recordID: "\(account.id)",
                    origin: origin
                ),
                on: db
            )
            let session = try await portal.sessions.rotate(
                context.session,
                toAccount: account.id,
                flash: Flash(.success, "Your administrator account is ready. You are signed in."),
                on: db
            )
            return (account, session)
        }
        guard let (_, session) = outcome else { throw HTTPError(.notFound) }
        var response = seeOther(.home)
        response.setCookie(portal.sessions.cookie(for: session))
        return response
    }

    private func hasAdministrator() async throws -> Bool {
        try await portal.database.read { db in try await accounts.hasAdministrator(on: db) }
    }

    // MARK: Sign in and out

    @Sendable func showSignIn(request: Request, context: PortalContext) async throws -> Response {
        if context.staff != nil { return seeOther(ReturnPath.decide(request.query("next"), otherwise: SiteURL.home.path)) }
        return try await portal.withFormSession(context: context) { context in
            portal.pages.response(
                SignInPage(
                    layout: portal.layout("Sign in", context: context),
                    errors: [],
                    fields: SignInPage.fields(),
                    next: request.query("next")
                )
            )
        }
    }

    private struct SignInForm: Decodable {
        var username: String?
        var password: String?
        var next: String?
    }

    @Sendable func signIn(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(SignInForm.self, context: context)
        let username = form.username?.trimmed ?? ""
        let password = form.password ?? ""
        let origin = portal.origin(of: request, context: context)
        var errors = FormErrors()
        if username.isEmpty { errors.add("username", "Enter your username") }
        if password.isEmpty { errors.add("password", "Enter your password") }
        func page(_ errors: FormErrors) -> Response {
            var fields = SignInPage.fields(username: username)
            errors.apply(to: &fields)
            return portal.pages.response(
                SignInPage(layout: portal.layout("Sign in", context: context), errors: errors.items, fields: fields, next: form.next),
                status: .unprocessableContent
            )
        }
        guard errors.isEmpty else { return page(errors) }

        let keys: [SignInThrottle.Key] = [.account(username)] + (origin.address.map { [.address($0)] } ?? [])
        let now = portal.now
        /// Refuses with `message`; a reserved try stays a failure when `countsAsFailure`, and is let go otherwise.
        func refuse(
            _ message: String,
            detail: String,
            account: StaffAccount? = nil,
            attempt: SignInThrottle.Attempt?,
            countsAsFailure: Bool
        ) async throws -> Response {
            try await portal.database.transaction { db in
                if let attempt {
                    try await countsAsFailure ? throttle.fail(attempt, on: db) : throttle.release(attempt, on: db)
                }
                try await portal.audit.record(
                    AuditEvent(
                        actor: AuditActor(accountID: account?.id, role: account?.role.rawValue, name: String(username.prefix(40))),
                        action: .signIn,
                        recordType: "staff_account",
                        recordID: account.map { "\($0.id)" },
                        outcome: .failure,
                        origin: origin,
                        detail: detail
                    ),
                    on: db
                )
            }
            var errors = FormErrors()
            errors.add("username", message)
            return page(errors)
        }

        guard let attempt = try await throttle.reserve(keys, now: now, in: portal.database) else {
            return try await refuse(Self.paused, detail: "paused after repeated failures", attempt: nil, countsAsFailure: false)
        }
        let credentials = try await portal.database.read { db in try await accounts.credentials(username: username, on: db) }
        guard let credentials else {
            try await portal.passwords.verifyAgainstNothing(password)
            return try await refuse(Self.wrongCredentials, detail: "unknown username", attempt: attempt, countsAsFailure: true)
        }
        guard try await portal.passwords.verify(password, against: credentials.passwordHash) else {
            return try await refuse(
                Self.wrongCredentials,
                detail: "wrong password",
                account: credentials.account,
                attempt: attempt,
                countsAsFailure: true
            )
        }
        let account = credentials.account
        switch account.status {
        case .active:
            break
        case .disabled:
            return try await refuse(
                "This account has been disabled. If you think this is a mistake, ask an administrator.",
                detail: "account disabled",
                account: account,
                attempt: attempt,
                countsAsFailure: false
            )
        case .awaitingApproval:
            return try await refuse(
                "Your registration is waiting for an administrator to approve it. You will get an email when it is approved.",
                detail: "awaiting approval",
                account: account,
                attempt: attempt,
                countsAsFailure: false
            )
        }

        let twoFactor = TwoFactorController(portal: portal)
        let (session, secondStep): (ActiveSession, SiteURL?) = try await portal.database.transaction { db in
            try await throttle.release(attempt, on: db)
            // With a second factor, the password's failures are cleared only once the code is right too.
            if let step = try await twoFactor.secondStep(for: account, on: db) {
                let pending = try await portal.sessions.rotate(context.session, toAccount: nil, on: db)
                return (pending, try await twoFactor.start(step, for: account, session: pending, next: form.next, on: db))
            }
            try await throttle.clear(.account(username), on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: AuditActor(accountID: account.id, role: account.role.rawValue, name: account.username),
                    action: .signIn,
                    recordType: "staff_account",
                    recordID: "\(account.id)",
                    origin: origin
                ),
                on: db
            )
            return (try await portal.sessions.rotate(context.session, toAccount: account.id, on: db), nil)
        }
        var response = seeOther(secondStep?.path ?? ReturnPath.decide(form.next, otherwise: SiteURL.landing(for: account.role).path))
        response.setCookie(portal.sessions.cookie(for: session))
        return response
    }

    @Sendable func signOut(request: Request, context: PortalContext) async throws -> Response {
        let origin = portal.origin(of: request, context: context)
        let session = try await portal.database.transaction { db in
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .signOut,
                    recordType: "staff_account",
                    recordID: context.staff.map { "\($0.id)" },
                    origin: origin
                ),
                on: db
            )
            return try await portal.sessions.rotate(context.session, toAccount: nil, flash: Flash(.success, "You have signed out."), on: db)
        }
        var response = seeOther(.signIn)
        response.setCookie(portal.sessions.cookie(for: session))
        return response
    }

    // MARK: Change password

    @Sendable func showChangePassword(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(
            ChangePasswordPage(
                layout: portal.layout("Change your password", context: context),
                errors: [],
                fields: ChangePasswordPage.fields
            )
        )
    }

    private struct ChangePasswordForm: Decodable {
        var current_password: String?
        var new_password: String?
        var new_password_confirmation: String?
    }

    @Sendable func changePassword(request: Request, context: PortalContext) async throws -> Response {
        guard let staff = context.staff else { throw AccessDenied() }
        let form = try await request.form(ChangePasswordForm.self, context: context)
        let current = form.current_password ?? ""
        let new = form.new_password ?? ""
        var errors = FormErrors()
        if current.isEmpty {
            errors.add("current_password", "Enter your current password")
        } else if let hash = try await portal.database.read({ db in try await accounts.passwordHash(accountID: staff.id, on: db) }),
            try await !portal.passwords.verify(current, against: hash)
        {
            errors.add("current_password", "Your current password is not right")
        }
        if let problem = portal.passwordPolicy.problem(with: new, username: staff.username) {
            errors.add("new_password", problem.replacingOccurrences(of: "Enter a password", with: "Enter a new password"))
        } else if new == current {
            errors.add("new_password", "The new password must be different from the current one")
        }
        if errors["new_password"] == nil, new != form.new_password_confirmation {
            errors.add("new_password_confirmation", "The new passwords do not match")
        }
        guard errors.isEmpty else {
            var fields = ChangePasswordPage.fields
            errors.apply(to: &fields)
            return portal.pages.response(
                ChangePasswordPage(layout: portal.layout("Change your password", context: context), errors: errors.items, fields: fields),
                status: .unprocessableContent
            )
        }
        let hash = try await portal.passwords.hash(new)
        let origin = portal.origin(of: request, context: context)
        let session = try await portal.database.transaction { db in
            try await accounts.setPasswordHash(hash, accountID: staff.id, now: portal.now, on: db)
            try await portal.sessions.endAll(accountID: staff.id, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .passwordChanged,
                    recordType: "staff_account",
                    recordID: "\(staff.id)",
                    origin: origin
                ),
                on: db
            )
            return try await portal.sessions.start(
                accountID: staff.id,
                flash: Flash(.success, "Your password has been changed. Any other place you were signed in has been signed out."),
                on: db
            )
        }
        var response = seeOther(.landing(for: staff.role))
        response.setCookie(portal.sessions.cookie(for: session))
        return response
    }
}

extension Database {
    /// Makes concurrent first-run setups take turns (SQLite transactions already do).
    func serializeSetup(on db: any SQLDatabase) async throws {
        if engine == .postgres { try await db.raw("SELECT pg_advisory_xact_lock(7261002)").run() }
    }
}

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

    @Sendable func setUp(request: Request, context: PortalContext) async throws -> Response {
        guard try await !hasAdministrator() else { throw HTTPError(.notFound) }
        let form = try await request.form(SetupForm.self, context: context)
        let errors = form.problems(policy: portal.passwordPolicy)
        guard errors.isEmpty else {
            return portal.pages.response(
                SetupPage(layout: portal.layout("Create the first administrator account", context: context), form: form, errors: errors),
                status: .unprocessableContent
            )
        }
        let hash = try await portal.passwords.hash(form.typedPassword)
        let origin = portal.origin(of: request, context: context)
        guard let session = try await createFirstAdministrator(form, passwordHash: hash, origin: origin, context: context) else {
            throw HTTPError(.notFound)
        }
        var response = seeOther(.home)
        response.setCookie(portal.sessions.cookie(for: session))
        return response
    }

    /// Makes the administrator and signs her in; nil when another setup made one first.
    private func createFirstAdministrator(
        _ form: SetupForm,
        passwordHash: String,
        origin: AuditOrigin,
        context: PortalContext
    ) async throws -> ActiveSession? {
        try await portal.database.transaction { db in
            try await portal.database.serializeSetup(on: db)
            guard try await !accounts.hasAdministrator(on: db) else { return nil }
            let account = try await accounts.create(
                username: form.typedUsername,
                email: form.typedEmail,
                role: .administrator,
                status: .active,
                passwordHash: passwordHash,
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
            return try await portal.sessions.rotate(
                context.session,
                toAccount: account.id,
                flash: Flash(.success, "Your administrator account is ready. You are signed in."),
                on: db
            )
        }
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

    @Sendable func signIn(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(SignInForm.self, context: context)
        let errors = form.problems()
        guard errors.isEmpty else { return signInPage(form, errors: errors, context: context) }
        let origin = portal.origin(of: request, context: context)
        let keys: [SignInThrottle.Key] = [.account(form.typedUsername)] + (origin.address.map { [.address($0)] } ?? [])
        guard let attempt = try await throttle.reserve(keys, now: portal.now, in: portal.database) else {
            return try await refuse(form, .paused, attempt: nil, origin: origin, context: context)
        }
        let account: StaffAccount
        switch try await checkCredentials(form) {
        case .failure(let refusal): return try await refuse(form, refusal, attempt: attempt, origin: origin, context: context)
        case .success(let found): account = found
        }
        let (session, secondStep) = try await startSession(account, form: form, attempt: attempt, origin: origin, context: context)
        var response = seeOther(secondStep?.path ?? ReturnPath.decide(form.next, otherwise: SiteURL.landing(for: account.role).path))
        response.setCookie(portal.sessions.cookie(for: session))
        return response
    }

    private func signInPage(_ form: SignInForm, errors: FormErrors, context: PortalContext) -> Response {
        portal.pages.response(
            SignInPage(layout: portal.layout("Sign in", context: context), form: form, errors: errors),
            status: .unprocessableContent
        )
    }

    /// The account the username and password open, or why they open none.
    private func checkCredentials(_ form: SignInForm) async throws -> Result<StaffAccount, SignInRefusal> {
        let credentials = try await portal.database.read { db in try await accounts.credentials(username: form.typedUsername, on: db) }
        guard let credentials else {
            try await portal.passwords.verifyAgainstNothing(form.typedPassword)
            return .failure(.unknownUsername)
        }
        guard try await portal.passwords.verify(form.typedPassword, against: credentials.passwordHash) else {
            return .failure(.wrongPassword(credentials.account))
        }
        if let refusal = SignInRefusal.status(of: credentials.account) { return .failure(refusal) }
        return .success(credentials.account)
    }

    /// Settles the reserved try as the refusal says, logs the refusal, and shows it beside the username.
    private func refuse(
        _ form: SignInForm,
        _ refusal: SignInRefusal,
        attempt: SignInThrottle.Attempt?,
        origin: AuditOrigin,
        context: PortalContext
    ) async throws -> Response {
        try await portal.database.transaction { db in
            if let attempt {
                try await refusal.countsAsFailure ? throttle.fail(attempt, on: db) : throttle.release(attempt, on: db)
            }
            try await portal.audit.record(
                AuditEvent(
                    actor: AuditActor(
                        accountID: refusal.account?.id,
                        role: refusal.account?.role.rawValue,
                        name: String(form.typedUsername.prefix(40))
                    ),
                    action: .signIn,
                    recordType: "staff_account",
                    recordID: refusal.account.map { "\($0.id)" },
                    outcome: .failure,
                    origin: origin,
                    detail: refusal.detail
                ),
                on: db
            )
        }
        var errors = FormErrors()
        errors.add("username", refusal.message)
        return signInPage(form, errors: errors, context: context)
    }

    /// Signs her in, or starts the second step her account asks for (returned with the session).
    private func startSession(
        _ account: StaffAccount,
        form: SignInForm,
        attempt: SignInThrottle.Attempt,
        origin: AuditOrigin,
        context: PortalContext
    ) async throws -> (ActiveSession, SiteURL?) {
        let twoFactor = TwoFactorController(portal: portal)
        return try await portal.database.transaction { db in
            try await throttle.release(attempt, on: db)
            // With a second factor, the password's failures are cleared only once the code is right too.
            if let step = try await twoFactor.secondStep(for: account, on: db) {
                let pending = try await portal.sessions.rotate(context.session, toAccount: nil, on: db)
                return (pending, try await twoFactor.start(step, for: account, session: pending, next: form.next, on: db))
            }
            try await throttle.clear(.account(form.typedUsername), on: db)
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

    @Sendable func changePassword(request: Request, context: PortalContext) async throws -> Response {
        guard let staff = context.staff else { throw AccessDenied() }
        let form = try await request.form(ChangePasswordForm.self, context: context)
        let currentIsWrong = try await isWrongPassword(form.typedCurrent, accountID: staff.id)
        let errors = form.problems(currentIsWrong: currentIsWrong, policy: portal.passwordPolicy, username: staff.username)
        guard errors.isEmpty else {
            return portal.pages.response(
                ChangePasswordPage(layout: portal.layout("Change your password", context: context), errors: errors),
                status: .unprocessableContent
            )
        }
        let hash = try await portal.passwords.hash(form.typedNew)
        let origin = portal.origin(of: request, context: context)
        let session = try await setPasswordHash(hash, of: staff, origin: origin, context: context)
        var response = seeOther(.landing(for: staff.role))
        response.setCookie(portal.sessions.cookie(for: session))
        return response
    }

    /// Whether `typed` is not the account's password; an empty one is left to the form's own check.
    private func isWrongPassword(_ typed: String, accountID: Int64) async throws -> Bool {
        guard !typed.isEmpty,
            let hash = try await portal.database.read({ db in try await accounts.passwordHash(accountID: accountID, on: db) })
        else { return false }
        return try await !portal.passwords.verify(typed, against: hash)
    }

    /// Sets the new password, signs her out everywhere else, and returns this browser's new session.
    private func setPasswordHash(_ hash: String, of staff: StaffAccount, origin: AuditOrigin, context: PortalContext) async throws -> ActiveSession {
        try await portal.database.transaction { db in
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
    }
}

extension Database {
    /// Makes concurrent first-run setups take turns (SQLite transactions already do).
    func serializeSetup(on db: any SQLDatabase) async throws {
        if engine == .postgres { try await db.raw("SELECT pg_advisory_xact_lock(7261002)").run() }
    }
}

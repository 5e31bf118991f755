import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// Two-factor sign-in: setting it up and turning it off from one's account, and giving a code (or
/// setting one up when one's role requires it) after the password at sign-in.
struct TwoFactorController {
    let portal: Portal
    let accounts = StaffAccountRepository()
    let factors = SecondFactorRepository()
    let throttle = SignInThrottle()

    var sealer: SecondFactorSealer { SecondFactorSealer(sealer: portal.sealer) }

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.signInCode.pattern, access: .everyone, showCode)
        routes.post(SiteURL.signInCode.pattern, access: .everyone, checkCode)
        routes.get(SiteURL.signInSecondFactorSetup.pattern, access: .everyone, showSignInSetUp)
        routes.post(SiteURL.signInSecondFactorSetup.pattern, access: .everyone, confirmSignInSetUp)
        routes.get(SiteURL.twoFactor.pattern, access: .anyStaff, show)
        routes.post(SiteURL.twoFactorSetUp.pattern, access: .anyStaff, setUp)
        routes.post(SiteURL.twoFactorConfirm.pattern, access: .anyStaff, confirm)
        routes.post(SiteURL.twoFactorTurnOff.pattern, access: .anyStaff, turnOff)
    }

    private static let codeTitle = "Enter the code from your authenticator app"
    private static let setUpTitle = "Set up two-factor sign-in"
    private static let accountTitle = "Two-factor sign-in"
    static let wrongCode = "The code is not right, or was already used. Enter the code your app shows now"
    static let noCode = "Enter the 6-digit code from your authenticator app"

    // MARK: At sign-in, after the password

    /// A challenge of this browser's session, and its account, if both are still in force.
    private func challenge(_ context: PortalContext) async throws -> (SecondFactorChallenge, StaffAccount)? {
        guard let session = context.session else { return nil }
        let now = portal.now
        return try await portal.database.read { db in
            guard let challenge = try await factors.challenge(sessionHash: session.idHash, now: now, on: db),
                let account = try await accounts.find(id: challenge.accountID, on: db), account.status == .active
            else { return nil }
            return (challenge, account)
        }
    }

    @Sendable func showCode(request: Request, context: PortalContext) async throws -> Response {
        guard try await challenge(context) != nil else { return seeOther(.signIn) }
        return portal.pages.response(
            SignInCodePage(
                layout: portal.layout(Self.codeTitle, context: context),
                errors: [],
                field: SignInCodePage.field()
            )
        )
    }

    private struct CodeForm: Decodable {
        var code: String?
    }

    @Sendable func checkCode(request: Request, context: PortalContext) async throws -> Response {
        guard let (challenge, account) = try await challenge(context), let session = context.session else { return seeOther(.signIn) }
        let form = try await request.form(CodeForm.self, context: context)
        let typed = (form.code ?? "").trimmed
        func page(_ message: String, status: HTTPResponse.Status = .unprocessableContent) -> Response {
            portal.pages.response(SignInCodePage(layout: portal.layout(Self.codeTitle, context: context), message: message), status: status)
        }
        if typed.isEmpty { return page(Self.noCode) }
        let origin = portal.origin(of: request, context: context)
        let keys: [SignInThrottle.Key] = [.account(account.username)] + (origin.address.map { [.address($0)] } ?? [])
        let flash: Flash?
        switch try await check(typed, account: account, keys: keys, origin: origin) {
        case .paused:
            try await recordSignIn(account, outcome: .failure, detail: "paused after repeated failures", origin: origin)
            return page(SignInController.paused, status: .tooManyRequests)
        case .wrong: return page(Self.wrongCode)
        case .code: flash = nil
        case .recovery(let left):
            flash = Flash(
                .warning,
                "You signed in with a recovery code. \(left) unused recovery code\(left == 1 ? " is" : "s are") left: set up two-factor sign-in again on a new phone if you lost yours."
            )
        }
        let detail = flash == nil ? "with a second-factor code" : "with a recovery code"
        let newSession = try await portal.database.transaction { db in
            try await completeSignIn(account, session: session, origin: origin, detail: detail, flash: flash, on: db)
        }
        var response = seeOther(ReturnPath.decide(challenge.next, otherwise: SiteURL.landing(for: account.role).path))
        response.setCookie(portal.sessions.cookie(for: newSession))
        return response
    }

    /// What a code typed at sign-in turned out to be.
    private enum CodeCheck: Sendable { case code, recovery(left: Int), wrong, paused }

    /// Uses the code (from the app or a recovery code) if it is right, counting the try against the
    /// throttle; a wrong one is logged.
    private func check(_ typed: String, account: StaffAccount, keys: [SignInThrottle.Key], origin: AuditOrigin) async throws -> CodeCheck {
        let now = portal.now
        let secret = try await openSecret(accountID: account.id)
        return try await portal.database.transaction { db in
            guard let attempt = try await throttle.reserve(keys, now: now, on: db) else { return .paused }
            if let factor = try await factors.find(accountID: account.id, on: db), factor.isConfirmed, let secret {
                if SecondFactor.looksLikeCode(typed) {
                    if let step = SecondFactor(secret: secret).matchingStep(typed, now: now, after: factor.lastStep),
                        try await factors.use(step: step, accountID: account.id, now: now, on: db)
                    {
                        try await throttle.release(attempt, on: db)
                        return .code
                    }
                } else if try await factors.useRecoveryCode(typed, accountID: account.id, now: now, on: db) {
                    try await throttle.release(attempt, on: db)
                    return .recovery(left: try await factors.unusedRecoveryCodeCount(accountID: account.id, on: db))
                }
            }
            try await throttle.fail(attempt, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: AuditActor(accountID: account.id, role: account.role.rawValue, name: account.username),
                    action: .signIn,
                    recordType: "staff_account",
                    recordID: "\(account.id)",
                    outcome: .failure,
                    origin: origin,
                    detail: "wrong second-factor code"
                ),
                on: db
            )
            return .wrong
        }
    }

    /// Ends the challenge and signs the account in on `session`, in the caller's transaction.
    private func completeSignIn(
        _ account: StaffAccount,
        session: ActiveSession,
        origin: AuditOrigin,
        detail: String,
        flash: Flash?,
        on db: any SQLDatabase
    ) async throws -> ActiveSession {
        try await factors.endChallenge(sessionHash: session.idHash, on: db)
        try await throttle.clear(.account(account.username), on: db)
        try await portal.audit.record(
            AuditEvent(
                actor: AuditActor(accountID: account.id, role: account.role.rawValue, name: account.username),
                action: .signIn,
                recordType: "staff_account",
                recordID: "\(account.id)",
                origin: origin,
                detail: detail
            ),
            on: db
        )
        return try await portal.sessions.rotate(session, toAccount: account.id, flash: flash, on: db)
    }

    @Sendable func showSignInSetUp(request: Request, context: PortalContext) async throws -> Response {
        guard let (_, account) = try await challenge(context) else { return seeOther(.signIn) }
        guard let setup = try await pendingSetUp(account) else { return seeOther(.signIn) }
        return portal.pages.response(
            SetUpSecondFactorPage(
                layout: portal.layout(Self.setUpTitle, context: context),
                errors: [],
                setup: setup,
                field: SetUpSecondFactorPage.field(),
                action: SiteURL.signInSecondFactorSetup.path,
                isRequired: true
            )
        )
    }

    @Sendable func confirmSignInSetUp(request: Request, context: PortalContext) async throws -> Response {
        guard let (challenge, account) = try await challenge(context), let session = context.session else { return seeOther(.signIn) }
        let form = try await request.form(CodeForm.self, context: context)
        let origin = portal.origin(of: request, context: context)
        let keys: [SignInThrottle.Key] = [.account(account.username)] + (origin.address.map { [.address($0)] } ?? [])
        let result = try await confirmSetUp(account, typed: form.code ?? "", keys: keys, origin: origin) { db in
            try await completeSignIn(account, session: session, origin: origin, detail: "after setting up a second factor", flash: nil, on: db)
        }
        switch result {
        case .refused(let message, let status):
            guard let setup = try await pendingSetUp(account) else { return seeOther(.signIn) }
            return refusedSetUp(
                message,
                status: status,
                setup: setup,
                context: context,
                action: SiteURL.signInSecondFactorSetup.path,
                isRequired: true
            )
        case .confirmed(let codes, let newSession):
            var context = context
            context.session = newSession
            context.staff = account
            var response = portal.pages.response(
                RecoveryCodesPage(
                    layout: portal.layout("Save your recovery codes", context: context),
                    codes: codes,
                    continuePath: ReturnPath.decide(challenge.next, otherwise: SiteURL.landing(for: account.role).path)
                )
            )
            if let newSession { response.setCookie(portal.sessions.cookie(for: newSession)) }
            return response
        }
    }

    // MARK: From one's own account

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        guard let staff = context.staff else { throw AccessDenied() }
        let (factor, left, required) = try await portal.database.read { db in
            (
                try await factors.find(accountID: staff.id, on: db),
                try await factors.unusedRecoveryCodeCount(accountID: staff.id, on: db),
                try await factors.isRequired(for: staff.role, on: db)
            )
        }
        if let factor, !factor.isConfirmed, let setup = try await pendingSetUp(staff) {
            return portal.pages.response(
                SetUpSecondFactorPage(
                    layout: portal.layout(Self.setUpTitle, context: context),
                    errors: [],
                    setup: setup,
                    field: SetUpSecondFactorPage.field(),
                    action: SiteURL.twoFactorConfirm.path,
                    isRequired: required
                )
            )
        }
        return portal.pages.response(
            TwoFactorPage(
                layout: portal.layout(Self.accountTitle, context: context),
                errors: [],
                isOn: factor?.isConfirmed == true,
                since: factor?.confirmedAt.map(portal.programSettings.current.clock.dateTime),
                recoveryCodesLeft: left,
                isRequired: required,
                turnOffFields: TwoFactorPage.turnOffFields
            )
        )
    }

    @Sendable func setUp(request: Request, context: PortalContext) async throws -> Response {
        guard let staff = context.staff else { throw AccessDenied() }
        let existing = try await portal.database.read { db in try await factors.find(accountID: staff.id, on: db) }
        if existing?.isConfirmed != true { try await beginSetUp(staff) }
        return seeOther(.twoFactor)
    }

    @Sendable func confirm(request: Request, context: PortalContext) async throws -> Response {
        guard let staff = context.staff else { throw AccessDenied() }
        let form = try await request.form(CodeForm.self, context: context)
        let origin = portal.origin(of: request, context: context)
        let keys: [SignInThrottle.Key] = [.account(staff.username)] + (origin.address.map { [.address($0)] } ?? [])
        let result = try await confirmSetUp(staff, typed: form.code ?? "", keys: keys, origin: origin) { _ in nil }
        let required = try await portal.database.read { db in try await factors.isRequired(for: staff.role, on: db) }
        switch result {
        case .refused(let message, let status):
            guard let setup = try await pendingSetUp(staff) else { return seeOther(.twoFactor) }
            return refusedSetUp(message, status: status, setup: setup, context: context, action: SiteURL.twoFactorConfirm.path, isRequired: required)
        case .confirmed(let codes, _):
            return portal.pages.response(
                RecoveryCodesPage(
                    layout: portal.layout("Save your recovery codes", context: context),
                    codes: codes,
                    continuePath: SiteURL.twoFactor.path
                )
            )
        }
    }

    @Sendable func turnOff(request: Request, context: PortalContext) async throws -> Response {
        guard let staff = context.staff else { throw AccessDenied() }
        let form = try await request.form(TurnOffSecondFactorForm.self, context: context)
        let origin = portal.origin(of: request, context: context)
        let keys: [SignInThrottle.Key] = [.account(staff.username)] + (origin.address.map { [.address($0)] } ?? [])
        let now = portal.now
        let (factor, required, hash) = try await secondFactorAndPassword(of: staff)
        guard let factor, factor.isConfirmed else { return seeOther(.twoFactor) }
        // A wrong password or code counts against the sign-in throttle, as at sign-in.
        let attempt = required ? nil : try await throttle.reserve(keys, now: now, in: portal.database)
        var passwordIsRight = false
        if attempt != nil, !form.typedPassword.isEmpty {
            passwordIsRight = try await portal.passwords.verify(form.typedPassword, againstStored: hash)
        }
        var errors = form.problems(role: staff.role, isRequired: required, isPaused: attempt == nil, passwordIsRight: passwordIsRight)
        if errors.isEmpty, let attempt {
            if try await removeFactor(of: staff, code: form.typedCode, attempt: attempt, now: now, origin: origin, context: context) {
                try await portal.flash(Flash(.success, "Two-factor sign-in is off. You sign in with your password alone."), context: context)
                return seeOther(.twoFactor)
            }
            errors.add("code", Self.wrongCode)
        }
        if let attempt {
            try await portal.database.transaction { db in try await throttle.fail(attempt, on: db) }
        }
        let left = try await portal.database.read { db in try await factors.unusedRecoveryCodeCount(accountID: staff.id, on: db) }
        return portal.pages.response(
            TwoFactorPage(
                layout: portal.layout(Self.accountTitle, context: context),
                turningOff: factor,
                recoveryCodesLeft: left,
                isRequired: required,
                clock: portal.programSettings.current.clock,
                errors: errors
            ),
            status: .unprocessableContent
        )
    }

    /// Her second factor, whether her role requires one, and her password's hash.
    private func secondFactorAndPassword(of staff: StaffAccount) async throws -> (StoredSecondFactor?, Bool, String?) {
        try await portal.database.read { db in
            (
                try await factors.find(accountID: staff.id, on: db),
                try await factors.isRequired(for: staff.role, on: db),
                try await accounts.passwordHash(accountID: staff.id, on: db)
            )
        }
    }

    /// Removes her second factor if `typed` is a right code from the app or a recovery code, letting
    /// the throttle's try go; false when it is not.
    private func removeFactor(
        of staff: StaffAccount,
        code typed: String,
        attempt: SignInThrottle.Attempt,
        now: Date,
        origin: AuditOrigin,
        context: PortalContext
    ) async throws -> Bool {
        let secret = try await openSecret(accountID: staff.id)
        return try await portal.database.transaction { db in
            guard let secret, let factor = try await factors.find(accountID: staff.id, on: db) else { return false }
            var valid = false
            if SecondFactor.looksLikeCode(typed) {
                if let step = SecondFactor(secret: secret).matchingStep(typed, now: now, after: factor.lastStep) {
                    valid = try await factors.use(step: step, accountID: staff.id, now: now, on: db)
                }
            } else {
                valid = try await factors.useRecoveryCode(typed, accountID: staff.id, now: now, on: db)
            }
            guard valid else { return false }
            try await throttle.release(attempt, on: db)
            try await factors.remove(accountID: staff.id, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .secondFactorTurnedOff,
                    recordType: "staff_account",
                    recordID: "\(staff.id)",
                    origin: origin
                ),
                on: db
            )
            return true
        }
    }

    // MARK: Setting up, shared by both ways in

    /// A new secret, sealed, waiting for its first code.
    func beginSetUp(_ account: StaffAccount, on db: (any SQLDatabase)? = nil) async throws {
        let factor = SecondFactor.generate(randomBytes: portal.dependencies.randomBytes)
        let sealed = try sealer.seal(factor.secret)
        let now = portal.now
        if let db {
            try await factors.begin(accountID: account.id, sealedSecret: sealed, now: now, on: db)
        } else {
            try await portal.database.write { db in try await factors.begin(accountID: account.id, sealedSecret: sealed, now: now, on: db) }
        }
    }

    /// The QR code and typed key of the factor being set up.
    private func pendingSetUp(_ account: StaffAccount) async throws -> SecondFactorSetUp? {
        let factor = try await portal.database.read { db in try await factors.find(accountID: account.id, on: db) }
        guard let factor, !factor.isConfirmed else { return nil }
        let secondFactor = SecondFactor(secret: try sealer.open(factor.sealedSecret))
        let url = secondFactor.authenticatorURL(username: account.username, issuer: portal.settings.programName)
        return SecondFactorSetUp(
            qrCode: RenderedHTML(writtenWithEscapedText: QRCodeDrawing(url)?.svg(title: "QR code for your authenticator app") ?? ""),
            typedKey: secondFactor.typedKey,
            username: account.username,
            issuer: portal.settings.programName
        )
    }

    private func openSecret(accountID: Int64) async throws -> String? {
        let factor = try await portal.database.read { db in try await factors.find(accountID: accountID, on: db) }
        return try factor.map { try sealer.open($0.sealedSecret) }
    }

    private enum SetUpResult {
        case refused(String, HTTPResponse.Status)
        case confirmed([String], ActiveSession?)
    }

    /// Confirms the factor being set up with its first code, makes ten recovery codes, and runs `then`
    /// in the same transaction.
    private func confirmSetUp(
        _ account: StaffAccount,
        typed: String,
        keys: [SignInThrottle.Key],
        origin: AuditOrigin,
        then: @Sendable @escaping (any SQLDatabase) async throws -> ActiveSession?
    ) async throws -> SetUpResult {
        let typed = typed.trimmed
        guard !typed.isEmpty else { return .refused(Self.noCode, .unprocessableContent) }
        let now = portal.now
        guard let secret = try await openSecret(accountID: account.id) else { return .refused(Self.wrongCode, .unprocessableContent) }
        let codes = RecoveryCodes.generate(randomBytes: portal.dependencies.randomBytes)
        enum Confirmation: Sendable { case paused, wrong, confirmed(ActiveSession?) }
        let outcome: Confirmation = try await portal.database.transaction { db in
            guard let attempt = try await throttle.reserve(keys, now: now, on: db) else { return .paused }
            guard let factor = try await factors.find(accountID: account.id, on: db), !factor.isConfirmed,
                let step = SecondFactor(secret: secret).matchingStep(typed, now: now, after: factor.lastStep),
                try await factors.use(step: step, accountID: account.id, now: now, on: db)
            else {
                try await throttle.fail(attempt, on: db)
                return .wrong
            }
            try await throttle.release(attempt, on: db)
            try await factors.replaceRecoveryCodes(codes, accountID: account.id, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: AuditActor(accountID: account.id, role: account.role.rawValue, name: account.username),
                    action: .secondFactorTurnedOn,
                    recordType: "staff_account",
                    recordID: "\(account.id)",
                    origin: origin
                ),
                on: db
            )
            return .confirmed(try await then(db))
        }
        switch outcome {
        case .paused: return .refused(SignInController.paused, .tooManyRequests)
        case .wrong: return .refused(Self.wrongCode, .unprocessableContent)
        case .confirmed(let session): return .confirmed(codes, session)
        }
    }

    private func refusedSetUp(
        _ message: String,
        status: HTTPResponse.Status,
        setup: SecondFactorSetUp,
        context: PortalContext,
        action: String,
        isRequired: Bool
    ) -> Response {
        var errors = FormErrors()
        errors.add("code", message)
        var field = SetUpSecondFactorPage.field()
        field.error = message
        return portal.pages.response(
            SetUpSecondFactorPage(
                layout: portal.layout(Self.setUpTitle, context: context),
                errors: errors.items,
                setup: setup,
                field: field,
                action: action,
                isRequired: isRequired
            ),
            status: status
        )
    }

    private func recordSignIn(_ account: StaffAccount, outcome: AuditOutcome, detail: String, origin: AuditOrigin) async throws {
        try await portal.database.write { db in
            try await portal.audit.record(
                AuditEvent(
                    actor: AuditActor(accountID: account.id, role: account.role.rawValue, name: account.username),
                    action: .signIn,
                    recordType: "staff_account",
                    recordID: "\(account.id)",
                    outcome: outcome,
                    origin: origin,
                    detail: detail
                ),
                on: db
            )
        }
    }
}

extension TwoFactorController {
    /// The second step sign-in asks for once the password is right.
    enum SecondStep: Sendable {
        /// A code from the app (or a recovery code).
        case code
        /// Her role requires a second factor she has not set up yet.
        case setUp
    }

    /// Nil when the password alone signs her in.
    func secondStep(for account: StaffAccount, on db: any SQLDatabase) async throws -> SecondStep? {
        if try await factors.find(accountID: account.id, on: db)?.isConfirmed == true { return .code }
        return try await factors.isRequired(for: account.role, on: db) ? .setUp : nil
    }

    /// Starts the second step on `session` (not signed in), and returns the page that asks for it.
    func start(_ step: SecondStep, for account: StaffAccount, session: ActiveSession, next: String?, on db: any SQLDatabase) async throws -> SiteURL {
        try await factors.createChallenge(sessionHash: session.idHash, accountID: account.id, next: next, now: portal.now, on: db)
        switch step {
        case .code:
            return .signInCode
        case .setUp:
            try await beginSetUp(account, on: db)
            return .signInSecondFactorSetup
        }
    }
}

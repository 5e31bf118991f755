import Foundation
import Hummingbird
import SQLKit

/// One kind of account the apps sign in with — members, patients, and later study participants and
/// pharmacy customers. Each kind keeps its accounts and its tokens in tables of its own; the sign-in,
/// sign-out, token renewal, throttling and housekeeping are this one machinery, configured per kind.
package struct AppAccountKind: Sendable, Hashable, CustomStringConvertible {
    /// What a kind needs to know about one account at sign-in.
    package struct Credentials: Sendable {
        package let accountID: Int64
        package let passwordHash: String
        /// False when staff have disabled the account: the right password is then refused with `refusal`.
        package let mayUseApp: Bool

        package init(accountID: Int64, passwordHash: String, mayUseApp: Bool = true) {
            self.accountID = accountID
            self.passwordHash = passwordHash
            self.mayUseApp = mayUseApp
        }
    }

    /// The audit log's role for these accounts (`member`, `patient`), and the sign-in throttle's prefix.
    package let role: String
    /// The API's root for this kind (`/api/v1`, `/api/v1/patient`): sign-in is `POST {prefix}/sessions`,
    /// sign-out `DELETE {prefix}/sessions/current`.
    package let apiPrefix: String
    /// The JSON field the app signs in with (`pseudonym`, `username`) and the words for it in messages.
    package let identifierField: String
    package let identifierName: String
    /// The password rule for a new password: a message for the person, or nil when it will do.
    package let passwordProblem: @Sendable (_ password: String, _ identifier: String?, PasswordPolicy) -> String?
    /// Where the tokens live and which owners may use them.
    package let tokens: BearerTokens.Store
    /// Where the people's web app keeps this kind's pages (`/app/patient`): its home, with `/sign-in` and
    /// `/sign-out` beneath it.
    package let pagesPath: String
    /// What the web app calls this kind's part, on its sign-in page and in its header ("Your treatment").
    package let pagesTitle: String
    /// The account an identifier names, typed as the person typed it.
    package let credentials: @Sendable (_ identifier: String, any SQLDatabase) async throws -> Credentials?
    /// What the app is told when the right password belongs to a disabled account.
    package let refusal: @Sendable (ProgramSettings) -> APIError
    /// Notes the account's activity (at sign-in, a failed attempt, a token's renewal), in the caller's transaction.
    package let noteActivity: @Sendable (_ accountID: Int64, AppAccountActivity, Date, AuditOrigin, any SQLDatabase) async throws -> Void

    package init(
        role: String,
        apiPrefix: String,
        identifierField: String,
        identifierName: String,
        passwordProblem: @escaping @Sendable (String, String?, PasswordPolicy) -> String?,
        tokens: BearerTokens.Store,
        pagesPath: String? = nil,
        pagesTitle: String = "Your account",
        credentials: @escaping @Sendable (String, any SQLDatabase) async throws -> Credentials?,
        refusal: @escaping @Sendable (ProgramSettings) -> APIError = { _ in .unauthorized },
        noteActivity: @escaping @Sendable (Int64, AppAccountActivity, Date, AuditOrigin, any SQLDatabase) async throws -> Void
    ) {
        self.role = role
        self.apiPrefix = apiPrefix
        self.identifierField = identifierField
        self.identifierName = identifierName
        self.passwordProblem = passwordProblem
        self.tokens = tokens
        self.pagesPath = pagesPath ?? "/app/\(role)"
        self.pagesTitle = pagesTitle
        self.credentials = credentials
        self.refusal = refusal
        self.noteActivity = noteActivity
    }

    package static func == (lhs: AppAccountKind, rhs: AppAccountKind) -> Bool { lhs.role == rhs.role }
    package func hash(into hasher: inout Hasher) { hasher.combine(role) }
    package var description: String { "\(role)s" }

    package var bearerTokens: BearerTokens { BearerTokens(store: tokens) }
    package var sessionsPath: String { "\(apiPrefix)/sessions" }
    package var currentSessionPath: String { "\(apiPrefix)/sessions/current" }
    package var signInPagePath: String { "\(pagesPath)/sign-in" }
    package var signOutPagePath: String { "\(pagesPath)/sign-out" }
    /// The sign-in throttle's key for one account of this kind, as the person typed its identifier.
    package func throttleKey(_ identifier: String) -> SignInThrottle.Key { .appAccount(role: role, identifier: identifier) }
    /// The message for a wrong identifier or password, the same for both so neither is revealed.
    package var wrongCredentials: String { "The \(identifierName) or password is not right" }
}

/// What a kind of account is told about its accounts' activity.
package enum AppAccountActivity: Sendable {
    /// The right password: the app now holds a new token.
    case signedIn
    /// A wrong password for an account that exists.
    case failedSignIn
    /// A token was renewed, at most once an hour: the account is in use.
    case renewedToken
}

/// The account behind the bearer token of an app's request.
package struct AppAccountHolder: Sendable {
    package let kind: AppAccountKind
    package let accountID: Int64
    package let tokenHash: String
    package let expiresAt: Date
    /// Until when this sign-in has proved itself again (her PIN, her password), for a kind whose tokens
    /// keep it (`BearerTokens.Store.openedUntilColumn`); read with the token. It may lie in the past.
    package let openedUntil: Date?

    package init(kind: AppAccountKind, accountID: Int64, tokenHash: String, expiresAt: Date, openedUntil: Date? = nil) {
        self.kind = kind
        self.accountID = accountID
        self.tokenHash = tokenHash
        self.expiresAt = expiresAt
        self.openedUntil = openedUntil
    }

    /// The same sign-in, proved again until `until` during this request (her PIN just entered).
    package func opened(until: Date) -> AppAccountHolder {
        AppAccountHolder(kind: kind, accountID: accountID, tokenHash: tokenHash, expiresAt: expiresAt, openedUntil: until)
    }
}

/// A token just issued, with the account it was issued to, for the kind's sign-in answer.
package struct IssuedAppToken: Sendable {
    package let accountID: Int64
    package let token: String
    package let expiresAt: Date

    package init(accountID: Int64, token: String, expiresAt: Date) {
        self.accountID = accountID
        self.token = token
        self.expiresAt = expiresAt
    }
}

extension Portal {
    /// The account of `kind` whose bearer token the request carries, renewing the token when due; a 401
    /// in the API's error shape otherwise.
    package func authenticate(_ kind: AppAccountKind, _ request: Request) async throws -> AppAccountHolder {
        try await authenticate(kind, bearerToken: request.bearerToken)
    }

    /// The account of `kind` a bearer token belongs to, renewing it when due; a 401 otherwise.
    package func authenticate(_ kind: AppAccountKind, bearerToken: String?) async throws -> AppAccountHolder {
        guard let token = bearerToken else { throw APIError.unauthorized }
        let now = self.now
        guard let holder = try await kind.bearerTokens.resolve(token, now: now, in: database) else { throw APIError.unauthorized }
        if holder.renewed {
            try await database.write { db in try await kind.noteActivity(holder.ownerID, .renewedToken, now, .commandLine, db) }
        }
        return AppAccountHolder(
            kind: kind,
            accountID: holder.ownerID,
            tokenHash: holder.tokenHash,
            expiresAt: holder.expiresAt,
            openedUntil: holder.openedUntil
        )
    }

    /// An app's sign-in: checks the identifier and password under the throttle, audits every outcome, and
    /// on success issues a token in the same transaction as `answer`, whose result is the response's body.
    package func signInApp<Answer: Encodable & Sendable>(
        _ kind: AppAccountKind,
        request: Request,
        context: PortalContext,
        answer: @escaping @Sendable (IssuedAppToken, any SQLDatabase) async throws -> Answer
    ) async throws -> Response {
        let fields = try await request.json(AppSignInBody.self).strings([kind.identifierField, "password"])
        do {
            let answered = try await checkAppSignIn(
                kind,
                identifier: fields[kind.identifierField] ?? "",
                password: fields["password"] ?? "",
                origin: origin(of: request, context: context),
                answer: answer
            )
            return .json(answered, status: .created)
        } catch let refusal as AppSignInRefusal {
            switch refusal {
            case .incomplete(let problems):
                throw APIError.validation(problems.mapKeys { $0 == AppSignInRefusal.identifierKey ? kind.identifierField : $0 })
            case .wrongCredentials:
                throw APIError(status: .unauthorized, code: "invalid_credentials", message: "\(kind.wrongCredentials).")
            case .paused(let until):
                throw APIError.tooManyRequests(until: until, now: now)
            case .disabled:
                throw kind.refusal(programSettings.current)
            }
        }
    }

    /// The sign-in both the app's API and its web pages use: checks `identifier` and `password` under the
    /// throttle, audits every outcome, and on success issues a token in the same transaction as `answer`.
    /// Throws `AppSignInRefusal` for everything the person is told.
    package func checkAppSignIn<Answer: Sendable>(
        _ kind: AppAccountKind,
        identifier typed: String,
        password: String,
        origin: AuditOrigin,
        answer: @escaping @Sendable (IssuedAppToken, any SQLDatabase) async throws -> Answer
    ) async throws -> Answer {
        let identifier = typed.trimmed
        var problems: [String: String] = [:]
        if identifier.isEmpty { problems[AppSignInRefusal.identifierKey] = "Enter your \(kind.identifierName)" }
        if password.isEmpty { problems["password"] = "Enter your password" }
        guard problems.isEmpty else { throw AppSignInRefusal.incomplete(problems) }

        let now = self.now
        let throttle = SignInThrottle()
        let keys = [kind.throttleKey(identifier)] + (origin.address.map { [SignInThrottle.Key.address($0)] } ?? [])
        guard let attempt = try await throttle.reserve(keys, now: now, in: database) else {
            let until = try await database.read { db in try await throttle.pausedUntil(keys, now: now, on: db) }
            throw AppSignInRefusal.paused(until: until ?? now.addingTimeInterval(SignInThrottle.pause))
        }
        let credentials = try await database.read { db in try await kind.credentials(identifier, db) }
        let passwordMatches = try await passwords.verify(password, againstStored: credentials?.passwordHash)
        func event(_ outcome: AuditOutcome = .success, detail: String? = nil) -> AuditEvent {
            AuditEvent(
                actor: AuditActor(accountID: credentials?.accountID, role: kind.role, name: nil),
                action: .signIn,
                recordType: kind.role,
                recordID: credentials.map { "\($0.accountID)" },
                outcome: outcome,
                origin: origin,
                detail: detail
            )
        }
        guard let credentials, passwordMatches else {
            try await database.transaction { db in
                try await throttle.fail(attempt, on: db)
                if let credentials { try await kind.noteActivity(credentials.accountID, .failedSignIn, now, origin, db) }
                try await audit.record(event(.failure, detail: credentials == nil ? "unknown \(kind.identifierName)" : "wrong password"), on: db)
            }
            throw AppSignInRefusal.wrongCredentials
        }
        guard credentials.mayUseApp else {
            try await database.transaction { db in
                try await throttle.release(attempt, on: db)
                try await audit.record(event(.denied, detail: "\(kind.role) disabled"), on: db)
            }
            throw AppSignInRefusal.disabled
        }
        let randomBytes = dependencies.randomBytes
        return try await database.transaction { db in
            try await throttle.release(attempt, on: db)
            try await throttle.clear(kind.throttleKey(identifier), on: db)
            try await kind.noteActivity(credentials.accountID, .signedIn, now, origin, db)
            try await audit.record(event(), on: db)
            let issued = try await kind.bearerTokens.issue(ownerID: credentials.accountID, randomBytes: randomBytes, now: now, on: db)
            return try await answer(IssuedAppToken(accountID: credentials.accountID, token: issued.token, expiresAt: issued.expiresAt), db)
        }
    }

    /// An app's sign-out: the token the request carries stops working at once.
    package func signOutApp(request: Request, context: PortalContext) async throws -> Response {
        guard let holder = context.appAccount else { throw APIError.unauthorized }
        try await endAppSession(holder, origin: origin(of: request, context: context))
        return .noContent
    }

    /// Revokes the token `holder` signed in with, and audits it: the API's sign-out and the web app's.
    package func endAppSession(_ holder: AppAccountHolder, origin: AuditOrigin) async throws {
        try await database.transaction { db in
            try await holder.kind.bearerTokens.revoke(tokenHash: holder.tokenHash, on: db)
            try await audit.record(
                AuditEvent(
                    actor: AuditActor(accountID: holder.accountID, role: holder.kind.role, name: nil),
                    action: .signOut,
                    recordType: holder.kind.role,
                    recordID: "\(holder.accountID)",
                    origin: origin
                ),
                on: db
            )
        }
    }
}

extension PortalRoutes {
    /// `POST {prefix}/sessions` and `DELETE {prefix}/sessions/current` for one kind of app account.
    package mutating func appSessions<Answer: Encodable & Sendable>(
        _ kind: AppAccountKind,
        answer: @escaping @Sendable (IssuedAppToken, any SQLDatabase) async throws -> Answer
    ) {
        let portal = self.portal
        post(RouterPath(kind.sessionsPath), access: .everyone) { request, context in
            try await portal.signInApp(kind, request: request, context: context, answer: answer)
        }
        delete(RouterPath(kind.currentSessionPath), access: .app(kind)) { request, context in
            try await portal.signOutApp(request: request, context: context)
        }
    }
}

/// A sign-in's JSON body: its fields by name. The identifier and the password must be strings when
/// present (a mistyped one is refused as the API refuses any mistyped field); other fields are ignored.
private struct AppSignInBody: Decodable {
    private enum Value: Decodable {
        case text(String)
        case null
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .null; return }
            self = (try? container.decode(String.self)).map(Value.text) ?? .other
        }
    }

    private var values: [String: Value]

    init(from decoder: any Decoder) throws {
        values = try [String: Value](from: decoder)
    }

    /// The string fields `names`, refusing any of them that is present with another type.
    func strings(_ names: [String]) throws -> [String: String] {
        var found: [String: String] = [:]
        for name in names {
            switch values[name] {
            case .text(let value): found[name] = value
            case .other: throw APIError.invalidJSON("The field \(name) has the wrong type.")
            case .null, nil: break
            }
        }
        return found
    }
}

/// Why an app's sign-in was refused, for the API and the web pages to put in their own words.
package enum AppSignInRefusal: Error, Sendable {
    /// The key `incomplete` uses for the identifier, whatever the kind calls it.
    package static let identifierKey = "identifier"

    /// A field left empty: its message by field (`identifierKey` or `password`).
    case incomplete([String: String])
    /// The identifier or the password is wrong; which is never said.
    case wrongCredentials
    /// Too many tries: refused until then.
    case paused(until: Date)
    /// The right password for an account staff have disabled.
    case disabled
}

extension Dictionary {
    fileprivate func mapKeys(_ transform: (Key) -> Key) -> [Key: Value] {
        Dictionary(uniqueKeysWithValues: map { (transform($0.key), $0.value) })
    }
}

/// One app account, of any kind: whose feed, whose points.
package struct AppAccountRef: Sendable, Hashable {
    /// The kind's role (`member`, `patient`).
    package let role: String
    package let accountID: Int64

    package init(role: String, accountID: Int64) {
        self.role = role
        self.accountID = accountID
    }
}

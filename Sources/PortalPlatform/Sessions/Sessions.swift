import Foundation
import Hummingbird
import SQLKit

/// A session that is in force for this request.
public struct ActiveSession: Sendable, Equatable {
    /// The id the browser holds; never stored.
    package let id: String
    package let idHash: String
    public let csrfToken: String
    package let accountID: Int64?
    package let flash: Flash?

    package init(id: String, idHash: String, csrfToken: String, accountID: Int64? = nil, flash: Flash? = nil) {
        self.id = id
        self.idHash = idHash
        self.csrfToken = csrfToken
        self.accountID = accountID
        self.flash = flash
    }
}

/// A one-time message shown on the next page, such as "Password changed".
public struct Flash: Sendable, Equatable {
    public enum Kind: String, Sendable { case success, info, warning }
    public var kind: Kind
    public var text: String

    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.text = text
    }

    package var stored: String { "\(kind.rawValue)|\(text)" }

    package init?(stored: String?) {
        guard let stored, let bar = stored.firstIndex(of: "|"), let kind = Kind(rawValue: String(stored[..<bar])) else { return nil }
        self.init(kind, String(stored[stored.index(after: bar)...]))
    }
}

/// Server-side sessions: creation, expiry, rotation on sign-in, and the cookie that carries the id.
public struct Sessions: Sendable {
    package let database: Database
    package let repository = SessionRepository()
    package let settings: Settings
    package let dependencies: Dependencies

    /// A session is refreshed in storage at most this often, so reads do not all become writes.
    package static let touchInterval: TimeInterval = 30

    package var cookieName: String { settings.cookiesAreSecure ? "__Host-careportal_session" : "careportal_session" }

    /// The session a cookie names, if it is still in force, and the staff account it is signed in to
    /// (nil for a session that carries only a CSRF token, or whose account is gone). An expired session
    /// is deleted.
    package func resolve(cookieValue: String?) async throws -> (session: ActiveSession, account: StaffAccount?)? {
        guard let id = cookieValue, !id.isEmpty, id.count <= 64 else { return nil }
        let idHash = SecretToken.hash(id)
        let now = dependencies.now()
        guard let (stored, account) = try await database.read({ db in try await repository.findWithAccount(idHash: idHash, on: db) }) else {
            return nil
        }
        let idle = now.timeIntervalSince(stored.lastSeenAt)
        let age = now.timeIntervalSince(stored.createdAt)
        if idle > settings.sessionIdleTimeout.timeInterval || age > settings.sessionLifetime.timeInterval {
            try await database.write { db in try await repository.delete(idHash: idHash, on: db) }
            return nil
        }
        let touching = idle > Self.touchInterval
        if touching || stored.flash != nil {
            // The flash is shown once: this request shows it, so it is cleared.
            try await database.write { db in
                if touching { try await repository.touch(idHash: idHash, at: now, on: db) }
                if stored.flash != nil { try await repository.setFlash(nil, idHash: idHash, on: db) }
            }
        }
        let session = ActiveSession(
            id: id,
            idHash: idHash,
            csrfToken: stored.csrfToken,
            accountID: stored.accountID,
            flash: Flash(stored: stored.flash)
        )
        return (session, account)
    }

    /// Starts a session; with `accountID` nil one that is not signed in yet (a second sign-in step under way,
    /// or a message for the next page after signing out).
    package func start(accountID: Int64?, flash: Flash? = nil, on db: any SQLDatabase) async throws -> ActiveSession {
        let id = SecretToken(randomBytes: dependencies.randomBytes)
        let csrf = SecretToken(randomBytes: dependencies.randomBytes)
        let now = dependencies.now()
        try await repository.insert(
            StoredSession(idHash: id.hash, accountID: accountID, csrfToken: csrf.value, createdAt: now, lastSeenAt: now, flash: flash?.stored),
            on: db
        )
        return ActiveSession(id: id.value, idHash: id.hash, csrfToken: csrf.value, accountID: accountID, flash: nil)
    }

    /// Replaces `old` with a new session for `accountID`: the old id stops working at once.
    package func rotate(_ old: ActiveSession?, toAccount accountID: Int64?, flash: Flash? = nil, on db: any SQLDatabase) async throws -> ActiveSession
    {
        if let old { try await repository.delete(idHash: old.idHash, on: db) }
        return try await start(accountID: accountID, flash: flash, on: db)
    }

    package func end(_ session: ActiveSession, on db: any SQLDatabase) async throws {
        try await repository.delete(idHash: session.idHash, on: db)
    }

    package func endAll(accountID: Int64, keeping session: ActiveSession? = nil, on db: any SQLDatabase) async throws {
        try await repository.deleteAll(accountID: accountID, keeping: session?.idHash, on: db)
    }

    package func setFlash(_ flash: Flash, on session: ActiveSession) async throws {
        try await database.write { db in try await repository.setFlash(flash.stored, idHash: session.idHash, on: db) }
    }

    package func deleteExpired() async throws {
        let now = dependencies.now()
        try await database.write { db in
            try await repository.deleteExpired(
                lastSeenBefore: now.addingTimeInterval(-settings.sessionIdleTimeout.timeInterval),
                createdBefore: now.addingTimeInterval(-settings.sessionLifetime.timeInterval),
                on: db
            )
        }
    }

    /// Holds 256 random bits the forms of a visitor without a session take their token from.
    package var formCookieName: String { settings.cookiesAreSecure ? "__Host-careportal_form" : "careportal_form" }

    /// The cookie a visitor's form token is derived from, for as long as the browser is open.
    package func formCookie(_ value: String) -> Cookie {
        Cookie(name: formCookieName, value: value, path: "/", secure: settings.cookiesAreSecure, httpOnly: true, sameSite: .lax)
    }

    /// The token the forms of a visitor holding the form cookie `form` carry: it cannot be made without
    /// reading the cookie, which only our pages' origin can.
    package static func formToken(form: String) -> String {
        SecretToken.hash("careportal staff form\n\(form)")
    }

    /// The cookie that hands `session` to the browser.
    package func cookie(for session: ActiveSession) -> Cookie {
        Cookie(
            name: cookieName,
            value: session.id,
            path: "/",
            secure: settings.cookiesAreSecure,
            httpOnly: true,
            sameSite: .lax
        )
    }

    /// A cookie that makes the browser forget the session.
    package var expiredCookie: Cookie {
        Cookie(
            name: cookieName,
            value: "",
            expires: Date(timeIntervalSince1970: 0),
            maxAge: 0,
            path: "/",
            secure: settings.cookiesAreSecure,
            httpOnly: true,
            sameSite: .lax
        )
    }

    package init(database: Database, settings: Settings, dependencies: Dependencies) {
        self.database = database
        self.settings = settings
        self.dependencies = dependencies
    }
}

extension Duration {
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

import Foundation
import SQLKit

/// A browser's session as stored: only the hash of its id is kept.
package struct StoredSession: Sendable, Equatable {
    package var idHash: String
    package var accountID: Int64?
    package var csrfToken: String
    package var createdAt: Date
    package var lastSeenAt: Date
    package var flash: String?

    package init(idHash: String, accountID: Int64? = nil, csrfToken: String, createdAt: Date, lastSeenAt: Date, flash: String? = nil) {
        self.idHash = idHash
        self.accountID = accountID
        self.csrfToken = csrfToken
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.flash = flash
    }
}

/// The only place sessions are read and written.
package struct SessionRepository: Sendable {
    package func insert(_ session: StoredSession, on db: any SQLDatabase) async throws {
        try await db.insert(into: "sessions")
            .columns("id_hash", "account_id", "csrf_token", "created_at", "last_seen_at", "flash")
            .values(
                SQLBind(session.idHash),
                SQLBind(session.accountID),
                SQLBind(session.csrfToken),
                SQLBind(session.createdAt.millisecondsSince1970),
                SQLBind(session.lastSeenAt.millisecondsSince1970),
                SQLBind(session.flash)
            )
            .run()
    }

    /// The session and the staff account it is signed in to (nil when it carries none, or the account
    /// is gone), in one query: every signed-in page starts with this.
    package func findWithAccount(idHash: String, on db: any SQLDatabase) async throws -> (StoredSession, StaffAccount?)? {
        guard let row = try await db.raw("\(unsafeRaw: Self.selectWithAccount) WHERE s.id_hash = \(bind: idHash)").first() else { return nil }
        let hasAccount = try row.decodeNil(column: Self.accountPrefix + "id") == false
        return (try decode(row), hasAccount ? try StaffAccountRepository().account(from: row, prefix: Self.accountPrefix) : nil)
    }

    /// Written out once: every signed-in request runs it, and building it each time costs more than running it.
    private static let selectWithAccount = """
        SELECT s.id_hash, s.account_id, s.csrf_token, s.created_at, s.last_seen_at, s.flash, \
        \(StaffAccountRepository.columnList(of: "a", prefix: accountPrefix))
        FROM sessions s LEFT JOIN staff_accounts a ON a.id = s.account_id
        """

    /// Not "account_": the session's own `account_id` would hide the account's `id` under that name.
    private static let accountPrefix = "staff_"

    private func decode(_ row: any SQLRow) throws -> StoredSession {
        StoredSession(
            idHash: try row.decode(column: "id_hash", as: String.self),
            accountID: try row.decode(column: "account_id", as: Int64?.self),
            csrfToken: try row.decode(column: "csrf_token", as: String.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            lastSeenAt: Date(millisecondsSince1970: try row.decode(column: "last_seen_at", as: Int64.self)),
            flash: try row.decode(column: "flash", as: String?.self)
        )
    }

    package func touch(idHash: String, at time: Date, on db: any SQLDatabase) async throws {
        try await db.update("sessions").set("last_seen_at", to: time.millisecondsSince1970)
            .where("id_hash", .equal, idHash).run()
    }

    package func setFlash(_ flash: String?, idHash: String, on db: any SQLDatabase) async throws {
        try await db.update("sessions").set("flash", to: flash).where("id_hash", .equal, idHash).run()
    }

    package func delete(idHash: String, on db: any SQLDatabase) async throws {
        try await db.delete(from: "sessions").where("id_hash", .equal, idHash).run()
    }

    /// Ends every session of an account, except `keeping` when given.
    package func deleteAll(accountID: Int64, keeping idHash: String? = nil, on db: any SQLDatabase) async throws {
        let query = db.delete(from: "sessions").where("account_id", .equal, accountID)
        if let idHash { query.where("id_hash", .notEqual, idHash) }
        try await query.run()
    }

    package func deleteExpired(lastSeenBefore idleCutoff: Date, createdBefore lifetimeCutoff: Date, on db: any SQLDatabase) async throws {
        try await db.delete(from: "sessions")
            .where("last_seen_at", .lessThan, idleCutoff.millisecondsSince1970)
            .orWhere("created_at", .lessThan, lifetimeCutoff.millisecondsSince1970)
            .run()
    }

    package func count(accountID: Int64, on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "sessions") { $0.where("account_id", .equal, accountID) }
    }

    package init() {}
}

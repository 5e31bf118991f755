import Foundation
import SQLKit

/// The bearer tokens an app signs in with (the member app, the patient app). A token is 256 random
/// bits; only its SHA-256 hash is stored. It lapses after `idleLifetime` without use and
/// `absoluteLifetime` after sign-in; each use renews the idle lifetime (written at most once per
/// `renewalInterval`).
///
/// Each kind of app keeps its tokens in its own table, `token_hash, <owner>, created_at, renewed_at,
/// expires_at`, beside the table of the accounts that own them.
package struct BearerTokens: Sendable {
    /// Where one kind of app's tokens live and which owners may use them.
    package struct Store: Sendable {
        /// The tokens' table, such as `member_tokens`.
        package let table: String
        /// The column naming the owner, such as `member_id`.
        package let ownerColumn: String
        /// The owners' table and its key, joined to check the owner may still sign in.
        package let ownerTable: String
        package let ownerKey: String
        /// The owner is allowed to use the app: a condition on `ownerTable`'s columns.
        package let ownerInForce: @Sendable (SQLSelectBuilder) -> SQLSelectBuilder
        /// The token's column saying until when this sign-in has proved itself again (a PIN, the password),
        /// if the kind has one: read with the token, so a request that asks costs no second query.
        package let openedUntilColumn: String?

        package init(
            table: String,
            ownerColumn: String,
            ownerTable: String,
            ownerKey: String,
            ownerInForce: @escaping @Sendable (SQLSelectBuilder) -> SQLSelectBuilder,
            openedUntilColumn: String? = nil
        ) {
            self.table = table
            self.ownerColumn = ownerColumn
            self.ownerTable = ownerTable
            self.ownerKey = ownerKey
            self.ownerInForce = ownerInForce
            self.openedUntilColumn = openedUntilColumn
        }
    }

    package static let idleLifetime: TimeInterval = 7 * 86_400
    package static let absoluteLifetime: TimeInterval = 30 * 86_400
    package static let renewalInterval: TimeInterval = 3_600

    /// Who a token in force belongs to.
    package struct Holder: Sendable {
        package var ownerID: Int64
        package var tokenHash: String
        package var expiresAt: Date
        /// True when this request renewed the token, which is also when the owner's last activity is noted.
        package var renewed: Bool
        /// The store's `openedUntilColumn`, as it was when the token was read.
        package var openedUntil: Date?

        package init(ownerID: Int64, tokenHash: String, expiresAt: Date, renewed: Bool, openedUntil: Date? = nil) {
            self.ownerID = ownerID
            self.tokenHash = tokenHash
            self.expiresAt = expiresAt
            self.renewed = renewed
            self.openedUntil = openedUntil
        }
    }

    package let store: Store

    /// Issues a token and returns the value to hand to the app (shown once) with its expiry.
    package func issue(
        ownerID: Int64,
        randomBytes: @Sendable (Int) -> [UInt8],
        now: Date,
        on db: any SQLDatabase
    ) async throws -> (token: String, expiresAt: Date) {
        let token = SecretToken(randomBytes: randomBytes)
        let expires = now.addingTimeInterval(Self.idleLifetime)
        let time = now.millisecondsSince1970
        try await db.insert(into: store.table).columns("token_hash", store.ownerColumn, "created_at", "renewed_at", "expires_at")
            .values(SQLBind(token.hash), SQLBind(ownerID), SQLBind(time), SQLBind(time), SQLBind(expires.millisecondsSince1970))
            .run()
        return (token.value, expires)
    }

    /// The holder of a token in force whose owner may still use the app, renewing it when due (a write
    /// of its own, at most once per `renewalInterval`).
    package func resolve(_ token: String, now: Date, in database: Database) async throws -> Holder? {
        let hash = SecretToken.hash(token)
        guard let found = try await database.read({ db in try await find(hash: hash, on: db) }) else { return nil }
        var expires = found.expiresAt
        guard expires > now else { return nil }
        let renewing = now.timeIntervalSince(found.renewedAt) >= Self.renewalInterval
        if renewing {
            expires = min(now.addingTimeInterval(Self.idleLifetime), found.createdAt.addingTimeInterval(Self.absoluteLifetime))
            try await database.write { [expires] db in
                try await db.update(store.table)
                    .set("renewed_at", to: now.millisecondsSince1970)
                    .set("expires_at", to: expires.millisecondsSince1970)
                    .where("token_hash", .equal, hash)
                    .run()
            }
        }
        return Holder(ownerID: found.ownerID, tokenHash: hash, expiresAt: expires, renewed: renewing, openedUntil: found.openedUntil)
    }

    private struct Found: Sendable {
        package let ownerID: Int64
        package let createdAt: Date
        package let renewedAt: Date
        package let expiresAt: Date
        package let openedUntil: Date?

        package init(ownerID: Int64, createdAt: Date, renewedAt: Date, expiresAt: Date, openedUntil: Date?) {
            self.ownerID = ownerID
            self.createdAt = createdAt
            self.renewedAt = renewedAt
            self.expiresAt = expiresAt
            self.openedUntil = openedUntil
        }
    }

    private func find(hash: String, on db: any SQLDatabase) async throws -> Found? {
        let columns = [store.ownerColumn, "created_at", "renewed_at", "expires_at"] + (store.openedUntilColumn.map { [$0] } ?? [])
        let query = db.select()
            .columns(columns.map { SQLColumn($0, table: store.table) })
            .from(store.table)
            .join(store.ownerTable, on: SQLColumn(store.ownerColumn, table: store.table), .equal, SQLColumn(store.ownerKey, table: store.ownerTable))
            .where(SQLColumn("token_hash", table: store.table), .equal, SQLBind(hash))
        guard let row = try await store.ownerInForce(query).first() else { return nil }
        return Found(
            ownerID: try row.decode(column: store.ownerColumn, as: Int64.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            renewedAt: Date(millisecondsSince1970: try row.decode(column: "renewed_at", as: Int64.self)),
            expiresAt: Date(millisecondsSince1970: try row.decode(column: "expires_at", as: Int64.self)),
            openedUntil: try store.openedUntilColumn.flatMap { try row.decode(column: $0, as: Int64?.self) }.map(Date.init(millisecondsSince1970:))
        )
    }

    /// True while the token with this hash is in force and its owner may still use the app (no renewal).
    package func holderInForce(tokenHash: String, now: Date, on db: any SQLDatabase) async throws -> Bool {
        guard let found = try await find(hash: tokenHash, on: db) else { return false }
        return found.expiresAt > now
    }

    package func revoke(tokenHash: String, on db: any SQLDatabase) async throws {
        try await db.delete(from: store.table).where("token_hash", .equal, tokenHash).run()
    }

    /// Signs an owner out everywhere, except the token `keeping` when given.
    package func revokeAll(ownerID: Int64, keeping tokenHash: String? = nil, on db: any SQLDatabase) async throws {
        let query = db.delete(from: store.table).where(store.ownerColumn, .equal, ownerID)
        if let tokenHash { query.where("token_hash", .notEqual, tokenHash) }
        try await query.run()
    }

    package func count(ownerID: Int64, on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: store.table) { $0.where(store.ownerColumn, .equal, ownerID) }
    }

    package func deleteExpired(now: Date, on db: any SQLDatabase) async throws {
        try await db.delete(from: store.table).where("expires_at", .lessThanOrEqual, now.millisecondsSince1970).run()
    }

    package init(store: Store) {
        self.store = store
    }
}

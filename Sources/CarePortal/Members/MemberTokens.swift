import Foundation
import SQLKit

/// The bearer tokens the member app signs in with. A token is 256 random bits; only its SHA-256
/// hash is stored. It lapses after `idleLifetime` without use and `absoluteLifetime` after sign-in;
/// each use renews the idle lifetime (written at most once per `renewalInterval`).
struct MemberTokens: Sendable {
    static let idleLifetime: TimeInterval = 7 * 86_400
    static let absoluteLifetime: TimeInterval = 30 * 86_400
    static let renewalInterval: TimeInterval = 3_600

    /// Who a token in force belongs to.
    struct Holder: Sendable {
        var memberID: Int64
        var tokenHash: String
        var expiresAt: Date
        /// True when this request renewed the token, which is also when the member's last activity is noted.
        var renewed: Bool
    }

    /// Issues a token and returns the value to hand to the app (shown once) with its expiry.
    func issue(memberID: Int64, randomBytes: @Sendable (Int) -> [UInt8], now: Date, on db: any SQLDatabase) async throws -> (token: String, expiresAt: Date) {
        let token = SecretToken(randomBytes: randomBytes)
        let expires = now.addingTimeInterval(Self.idleLifetime)
        let time = now.millisecondsSince1970
        try await db.insert(into: "member_tokens").columns("token_hash", "member_id", "created_at", "renewed_at", "expires_at")
            .values(SQLBind(token.hash), SQLBind(memberID), SQLBind(time), SQLBind(time), SQLBind(expires.millisecondsSince1970))
            .run()
        return (token.value, expires)
    }

    /// The holder of a token in force whose member is active, renewing it when due.
    func resolve(_ token: String, now: Date, on db: any SQLDatabase) async throws -> Holder? {
        let hash = SecretToken.hash(token)
        guard let row = try await db.select()
            .columns(SQLColumn("member_id", table: "member_tokens"), SQLColumn("created_at", table: "member_tokens"),
                     SQLColumn("renewed_at", table: "member_tokens"), SQLColumn("expires_at", table: "member_tokens"))
            .from("member_tokens")
            .join("members", on: SQLColumn("member_id", table: "member_tokens"), .equal, SQLColumn("id", table: "members"))
            .where(SQLColumn("token_hash", table: "member_tokens"), .equal, SQLBind(hash))
            .where(SQLColumn("status", table: "members"), .equal, SQLBind(Member.Status.active.rawValue))
            .first()
        else { return nil }
        let memberID = try row.decode(column: "member_id", as: Int64.self)
        let created = Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self))
        let renewed = Date(millisecondsSince1970: try row.decode(column: "renewed_at", as: Int64.self))
        var expires = Date(millisecondsSince1970: try row.decode(column: "expires_at", as: Int64.self))
        guard expires > now else { return nil }
        let renewing = now.timeIntervalSince(renewed) >= Self.renewalInterval
        if renewing {
            expires = min(now.addingTimeInterval(Self.idleLifetime), created.addingTimeInterval(Self.absoluteLifetime))
            try await db.update("member_tokens")
                .set("renewed_at", to: now.millisecondsSince1970)
                .set("expires_at", to: expires.millisecondsSince1970)
                .where("token_hash", .equal, hash)
                .run()
        }
        return Holder(memberID: memberID, tokenHash: hash, expiresAt: expires, renewed: renewing)
    }

    func revoke(tokenHash: String, on db: any SQLDatabase) async throws {
        try await db.delete(from: "member_tokens").where("token_hash", .equal, tokenHash).run()
    }

    /// Signs a member out everywhere, except the token `keeping` when given.
    func revokeAll(memberID: Int64, keeping tokenHash: String? = nil, on db: any SQLDatabase) async throws {
        let query = db.delete(from: "member_tokens").where("member_id", .equal, memberID)
        if let tokenHash { query.where("token_hash", .notEqual, tokenHash) }
        try await query.run()
    }

    func count(memberID: Int64, on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "member_tokens") { $0.where("member_id", .equal, memberID) }
    }

    func deleteExpired(now: Date, on db: any SQLDatabase) async throws {
        try await db.delete(from: "member_tokens").where("expires_at", .lessThanOrEqual, now.millisecondsSince1970).run()
    }
}

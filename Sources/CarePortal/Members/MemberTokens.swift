import Foundation
import SQLKit

/// The bearer tokens the member app signs in with, kept in `member_tokens` by the shared
/// `BearerTokens` machinery: 256 random bits, only the hash stored, 7 days unused and 30 days after
/// sign-in at most. Only an active member's tokens are in force.
struct MemberTokens: Sendable {
    static let idleLifetime = BearerTokens.idleLifetime
    static let absoluteLifetime = BearerTokens.absoluteLifetime
    static let renewalInterval = BearerTokens.renewalInterval

    /// Who a token in force belongs to.
    struct Holder: Sendable {
        var memberID: Int64
        var tokenHash: String
        var expiresAt: Date
        /// True when this request renewed the token, which is also when the member's last activity is noted.
        var renewed: Bool
    }

    private let tokens = BearerTokens(store: .init(
        table: "member_tokens", ownerColumn: "member_id", ownerTable: "members", ownerKey: "id",
        ownerInForce: { $0.where(SQLColumn("status", table: "members"), .equal, SQLBind(Member.Status.active.rawValue)) }
    ))

    /// Issues a token and returns the value to hand to the app (shown once) with its expiry.
    func issue(memberID: Int64, randomBytes: @Sendable (Int) -> [UInt8], now: Date, on db: any SQLDatabase) async throws -> (token: String, expiresAt: Date) {
        try await tokens.issue(ownerID: memberID, randomBytes: randomBytes, now: now, on: db)
    }

    /// The holder of a token in force whose member is active, renewing it when due.
    func resolve(_ token: String, now: Date, in database: Database) async throws -> Holder? {
        try await tokens.resolve(token, now: now, in: database).map {
            Holder(memberID: $0.ownerID, tokenHash: $0.tokenHash, expiresAt: $0.expiresAt, renewed: $0.renewed)
        }
    }

    func revoke(tokenHash: String, on db: any SQLDatabase) async throws {
        try await tokens.revoke(tokenHash: tokenHash, on: db)
    }

    /// Signs a member out everywhere, except the token `keeping` when given.
    func revokeAll(memberID: Int64, keeping tokenHash: String? = nil, on db: any SQLDatabase) async throws {
        try await tokens.revokeAll(ownerID: memberID, keeping: tokenHash, on: db)
    }

    func count(memberID: Int64, on db: any SQLDatabase) async throws -> Int {
        try await tokens.count(ownerID: memberID, on: db)
    }

    func deleteExpired(now: Date, on db: any SQLDatabase) async throws {
        try await tokens.deleteExpired(now: now, on: db)
    }
}

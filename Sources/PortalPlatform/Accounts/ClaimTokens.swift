import Foundation
import SQLKit

/// The token someone claims an app account with, sent to her by email: 20 characters from the
/// alphabet nobody misreads (about 99 bits), shown in groups of four. Only its SHA-256 is stored.
package struct ClaimToken: Sendable, Equatable {
    package let value: String

    package static let length = 20
    /// Letters and digits nobody mistakes for each other on the phone: no 0/O, no 1/I/L.
    package static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")

    package init(randomBytes: (Int) -> [UInt8]) {
        let alphabet = Self.alphabet
        let limit = UInt8(256 - 256 % alphabet.count)
        var characters: [Character] = []
        while characters.count < Self.length {
            for byte in randomBytes(Self.length * 2) where byte < limit && characters.count < Self.length {
                characters.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        value = String(characters)
    }

    /// "K7M4-XPQ2-…", as the email shows it.
    package var grouped: String {
        stride(from: 0, to: value.count, by: 4).map { start in
            let from = value.index(value.startIndex, offsetBy: start)
            return String(value[from..<value.index(from, offsetBy: 4)])
        }.joined(separator: "-")
    }

    package var hash: String { Self.hash(value) }

    /// Typed tokens are compared without case, spaces or hyphens.
    package static func normalized(_ typed: String) -> String {
        typed.uppercased().filter { !$0.isWhitespace && $0 != "-" }
    }

    package static func hash(_ typed: String) -> String { SecretToken.hash(normalized(typed)) }
}

/// Where an app account's claim token lives: the columns `claim_token_hash` (unique), `claim_sent_at`,
/// `claim_expires_at`, `claim_revoked_at`, `claimed_at` and `updated_at` of the account's table, whose
/// key is `key`. A token works once, until it expires, unless a newer one replaced it or staff revoked
/// it; `inForce` narrows which accounts may be claimed at all (a withdrawn participant's may not).
/// Patients' and study participants' accounts share it.
package struct ClaimTokens: Sendable {
    package let table: String
    package let key: String
    package let inForce: (@Sendable (SQLPredicateGroupBuilder) -> SQLPredicateGroupBuilder)?

    /// How long a claim token works after it is emailed.
    package static let lifetimeDays = 14
    package static let lifetime = TimeInterval(lifetimeDays * 86_400)

    package init(
        table: String,
        key: String,
        inForce: (@Sendable (SQLPredicateGroupBuilder) -> SQLPredicateGroupBuilder)? = nil
    ) {
        self.table = table
        self.key = key
        self.inForce = inForce
    }

    /// When a token sent at `now` stops working.
    package static func expiry(sentAt now: Date) -> Date { now.addingTimeInterval(lifetime) }

    /// A new token for an account not yet claimed; an earlier one stops working. False once claimed.
    package func issue(ownerID: Int64, token: ClaimToken, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update(table)
            .set("claim_token_hash", to: token.hash)
            .set("claim_sent_at", to: now.millisecondsSince1970)
            .set("claim_expires_at", to: Self.expiry(sentAt: now).millisecondsSince1970)
            .set("claim_revoked_at", to: SQLLiteral.null)
            .set("updated_at", to: now.millisecondsSince1970)
            .where(SQLIdentifier(key), .equal, SQLBind(ownerID))
            .where("claimed_at", .is, SQLLiteral.null)
            .returning(key)
            .first() != nil
    }

    /// Stops the current token at once. False when there is none to stop.
    package func revoke(ownerID: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update(table)
            .set("claim_token_hash", to: SQLLiteral.null)
            .set("claim_revoked_at", to: now.millisecondsSince1970)
            .set("updated_at", to: now.millisecondsSince1970)
            .where(SQLIdentifier(key), .equal, SQLBind(ownerID))
            .where("claimed_at", .is, SQLLiteral.null)
            .where("claim_token_hash", .isNot, SQLLiteral.null)
            .returning(key)
            .first() != nil
    }

    /// The account a typed token opens, while it can still be used.
    package func owner(token: String, now: Date, on db: any SQLDatabase) async throws -> Int64? {
        try await usable(db.select().column(SQLColumn(key)).from(table), token: token, now: now)
            .first()?.decode(column: key, as: Int64.self)
    }

    /// Claims the account a token opens, setting what `changes` adds, only if it still can be: of two
    /// claims with one token, one wins. The account's key, or nil when the token no longer works.
    package func claim(
        token: String,
        now: Date,
        on db: any SQLDatabase,
        changes: (SQLUpdateBuilder) -> SQLUpdateBuilder
    ) async throws -> Int64? {
        try await usable(
            changes(db.update(table))
                .set("claimed_at", to: now.millisecondsSince1970)
                .set("claim_token_hash", to: SQLLiteral.null)
                .set("updated_at", to: now.millisecondsSince1970),
            token: token,
            now: now
        )
        .returning(key)
        .first()?.decode(column: key, as: Int64.self)
    }

    private func usable<Builder: SQLPredicateBuilder>(_ builder: Builder, token: String, now: Date) -> Builder {
        let usable =
            builder
            .where("claim_token_hash", .equal, ClaimToken.hash(token))
            .where("claimed_at", .is, SQLLiteral.null)
            .where("claim_revoked_at", .is, SQLLiteral.null)
            .where("claim_expires_at", .greaterThan, now.millisecondsSince1970)
        guard let inForce else { return usable }
        return usable.where { inForce($0) }
    }
}

/// What became of an account's claim token.
public enum ClaimStatus: String, Sendable {
    case waiting, expired, revoked, claimed

    package init(expiresAt: Date?, revokedAt: Date?, claimedAt: Date?, now: Date) {
        if claimedAt != nil {
            self = .claimed
        } else if revokedAt != nil || expiresAt == nil {
            self = .revoked
        } else {
            self = expiresAt! <= now ? .expired : .waiting
        }
    }

    public var title: String {
        switch self {
        case .waiting: "Waiting to be claimed"
        case .expired: "Claim token expired"
        case .revoked: "Claim token revoked"
        case .claimed: "Claimed"
        }
    }

    package var tagClass: String {
        switch self {
        case .waiting: "tag--blue"
        case .expired, .revoked: "tag--grey"
        case .claimed: "tag--green"
        }
    }
}

extension ClaimTokens {
    /// The account an app's claim request opens, and the token as typed, normalized: an empty token is
    /// asked for; while `throttleKey`'s wrong guesses pause it the request is refused; the guess is reserved,
    /// looked up and, when it opens nothing, recorded (`failedClaim`, counted against `throttleKey`) in one
    /// transaction and answered `wrongToken` beside `claim_token`, so tokens cannot be guessed, even at once.
    package func ownerOfClaimRequest(
        _ typed: String?,
        throttleKey: SignInThrottle.Key?,
        failedClaim: AuditEvent,
        wrongToken: String,
        now: Date,
        portal: Portal
    ) async throws -> (token: String, ownerID: Int64) {
        let token = ClaimToken.normalized(typed ?? "")
        guard !token.isEmpty else { throw APIError.validation(["claim_token": "Enter the claim token from your email"]) }
        let throttle = SignInThrottle()
        let keys = throttleKey.map { [$0] } ?? []
        let found = try await portal.database.transaction { db -> Int64? in
            let attempt = try await throttle.reserveAPIAttempt(keys, now: now, on: db)
            if token.count == ClaimToken.length, let owner = try await self.owner(token: token, now: now, on: db) {
                try await throttle.release(attempt, on: db)
                return owner
            }
            try await throttle.fail(attempt, on: db)
            try await portal.audit.record(failedClaim, on: db)
            return nil
        }
        guard let found else { throw APIError.validation(["claim_token": wrongToken]) }
        return (token, found)
    }
}

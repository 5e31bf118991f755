import Foundation
import PortalPlatform
import SQLKit

/// A staff account's second factor as stored: the sealed secret and whether it was confirmed.
struct StoredSecondFactor: Sendable, Equatable {
    let accountID: Int64
    let sealedSecret: String
    let createdAt: Date
    let confirmedAt: Date?
    let lastStep: Int64

    var isConfirmed: Bool { confirmedAt != nil }
}

/// A browser whose password was right and that must now give a code, or set up a second factor first.
struct SecondFactorChallenge: Sendable, Equatable {
    let accountID: Int64
    let next: String?
    let expiresAt: Date

    /// How long the code page waits after the password.
    static let lifetime: TimeInterval = 10 * 60
}

/// The only place second factors, recovery codes, the roles that require them and sign-in challenges
/// are read and written.
struct SecondFactorRepository: Sendable {
    // MARK: Second factors

    func find(accountID: Int64, on db: any SQLDatabase) async throws -> StoredSecondFactor? {
        try await db.select().columns("account_id", "sealed_secret", "created_at", "confirmed_at", "last_step")
            .from("second_factors").where("account_id", .equal, accountID)
            .first()
            .map { row in
                StoredSecondFactor(
                    accountID: try row.decode(column: "account_id", as: Int64.self),
                    sealedSecret: try row.decode(column: "sealed_secret", as: String.self),
                    createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
                    confirmedAt: try row.decode(column: "confirmed_at", as: Int64?.self).map(Date.init(millisecondsSince1970:)),
                    lastStep: try row.decode(column: "last_step", as: Int64.self)
                )
            }
    }

    /// Which of `accountIDs` have a confirmed second factor.
    func confirmedAccounts(_ accountIDs: [Int64], on db: any SQLDatabase) async throws -> Set<Int64> {
        guard !accountIDs.isEmpty else { return [] }
        return Set(
            try await db.select().column("account_id").from("second_factors")
                .where("account_id", .in, accountIDs).where("confirmed_at", .isNot, SQLLiteral.null)
                .all().map { try $0.decode(column: "account_id", as: Int64.self) }
        )
    }

    /// Starts setting up: a new secret, not yet confirmed, replacing any earlier one that was not.
    func begin(accountID: Int64, sealedSecret: String, now: Date, on db: any SQLDatabase) async throws {
        try await db.delete(from: "second_factors").where("account_id", .equal, accountID).where("confirmed_at", .is, SQLLiteral.null).run()
        try await db.insert(into: "second_factors").columns("account_id", "sealed_secret", "created_at", "last_step")
            .values(SQLBind(accountID), SQLBind(sealedSecret), SQLBind(now.millisecondsSince1970), SQLBind(Int64(0)))
            .run()
    }

    /// Records that the code of `step` was used, only if no code of that step or later was: of two
    /// requests with one code, one wins. Confirms a factor being set up at the same time.
    func use(step: Int64, accountID: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        let updated = try await db.update("second_factors")
            .set("last_step", to: step)
            .set("confirmed_at", to: SQLFunction("COALESCE", args: SQLColumn("confirmed_at"), SQLBind(now.millisecondsSince1970)))
            .where("account_id", .equal, accountID).where("last_step", .lessThan, step)
            .returning("account_id")
            .first()
        return updated != nil
    }

    /// Turns the second factor off: the secret and the recovery codes go.
    func remove(accountID: Int64, on db: any SQLDatabase) async throws {
        try await db.delete(from: "second_factors").where("account_id", .equal, accountID).run()
        try await db.delete(from: "recovery_codes").where("account_id", .equal, accountID).run()
    }

    // MARK: Recovery codes

    func replaceRecoveryCodes(_ codes: [String], accountID: Int64, on db: any SQLDatabase) async throws {
        try await db.delete(from: "recovery_codes").where("account_id", .equal, accountID).run()
        for code in codes {
            try await db.insert(into: "recovery_codes").columns("account_id", "code_hash")
                .values(SQLBind(accountID), SQLBind(RecoveryCodes.hash(code))).run()
        }
    }

    /// Uses a recovery code once; false when it is not one of the account's unused codes.
    func useRecoveryCode(_ typed: String, accountID: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("recovery_codes").set("used_at", to: now.millisecondsSince1970)
            .where("account_id", .equal, accountID).where("code_hash", .equal, RecoveryCodes.hash(typed))
            .where("used_at", .is, SQLLiteral.null)
            .returning("id")
            .first() != nil
    }

    func unusedRecoveryCodeCount(accountID: Int64, on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "recovery_codes") { $0.where("account_id", .equal, accountID).where("used_at", .is, SQLLiteral.null) }
    }

    // MARK: Roles that require a second factor

    func requiredRoles(on db: any SQLDatabase) async throws -> Set<StaffRole> {
        Set(
            try await db.select().column("role").from("second_factor_roles").all()
                .compactMap { StaffRole(rawValue: try $0.decode(column: "role", as: String.self)) }
        )
    }

    func isRequired(for role: StaffRole, on db: any SQLDatabase) async throws -> Bool {
        try await db.select().column("role").from("second_factor_roles").where("role", .equal, role.rawValue).first() != nil
    }

    func setRequiredRoles(_ roles: Set<StaffRole>, now: Date, on db: any SQLDatabase) async throws {
        let current = try await requiredRoles(on: db)
        for role in current.subtracting(roles) {
            try await db.delete(from: "second_factor_roles").where("role", .equal, role.rawValue).run()
        }
        for role in roles.subtracting(current) {
            try await db.insert(into: "second_factor_roles").columns("role", "required_since")
                .values(SQLBind(role.rawValue), SQLBind(now.millisecondsSince1970)).run()
        }
    }

    // MARK: Sign-in challenges

    func createChallenge(sessionHash: String, accountID: Int64, next: String?, now: Date, on db: any SQLDatabase) async throws {
        try await db.insert(into: "second_factor_challenges").columns("session_hash", "account_id", "next", "expires_at")
            .values(
                SQLBind(sessionHash),
                SQLBind(accountID),
                SQLBind(next),
                SQLBind(now.addingTimeInterval(SecondFactorChallenge.lifetime).millisecondsSince1970)
            )
            .run()
    }

    func challenge(sessionHash: String, now: Date, on db: any SQLDatabase) async throws -> SecondFactorChallenge? {
        try await db.select().columns("account_id", "next", "expires_at").from("second_factor_challenges")
            .where("session_hash", .equal, sessionHash).where("expires_at", .greaterThan, now.millisecondsSince1970)
            .first()
            .map { row in
                SecondFactorChallenge(
                    accountID: try row.decode(column: "account_id", as: Int64.self),
                    next: try row.decode(column: "next", as: String?.self),
                    expiresAt: Date(millisecondsSince1970: try row.decode(column: "expires_at", as: Int64.self))
                )
            }
    }

    func endChallenge(sessionHash: String, on db: any SQLDatabase) async throws {
        try await db.delete(from: "second_factor_challenges").where("session_hash", .equal, sessionHash).run()
    }

    func endChallenges(accountID: Int64, on db: any SQLDatabase) async throws {
        try await db.delete(from: "second_factor_challenges").where("account_id", .equal, accountID).run()
    }

    func deleteExpiredChallenges(now: Date, on db: any SQLDatabase) async throws {
        try await db.delete(from: "second_factor_challenges").where("expires_at", .lessThan, now.millisecondsSince1970).run()
    }
}

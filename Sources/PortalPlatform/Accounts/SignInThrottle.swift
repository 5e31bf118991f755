import Foundation
import SQLKit

/// Slows down guessing: five failures for one account, or twenty from one address, within fifteen
/// minutes pause sign-in for that account or address for fifteen minutes. Features throttle other
/// guessing the same way under keys of their own (the member app's registration and recovery).
/// The only place the throttle's SQL lives.
package struct SignInThrottle: Sendable {
    package static let accountLimit = 5
    package static let addressLimit = 20
    package static let signUpCodeLimit = 5
    package static let registrationAddressLimit = 10
    package static let window: TimeInterval = 15 * 60
    package static let pause: TimeInterval = 15 * 60

    /// What a failure counts against: its stored form and how many failures in the window pause it.
    /// Features add their own (a recovery address, a sign-up code) beside these.
    package struct Key: Sendable {
        package let stored: String
        package let limit: Int

        package init(stored: String, limit: Int) {
            self.stored = stored
            self.limit = limit
        }

        /// A staff username.
        package static func account(_ username: String) -> Key {
            Key(stored: "account:\(usernameKey(username))", limit: SignInThrottle.accountLimit)
        }

        /// Any sign-in or recovery from this address.
        package static func address(_ address: String) -> Key {
            Key(stored: "address:\(address)", limit: SignInThrottle.addressLimit)
        }

        /// An app account's identifier (a member's pseudonym, a patient's username), as its kind's role says.
        package static func appAccount(role: String, identifier: String) -> Key {
            Key(stored: "\(role):\(usernameKey(identifier))", limit: SignInThrottle.accountLimit)
        }
    }

    /// True while any of `keys` is paused.
    package func isPaused(_ keys: [Key], now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await pausedUntil(keys, now: now, on: db) != nil
    }

    /// When the last pause among `keys` ends, or nil when none is paused.
    package func pausedUntil(_ keys: [Key], now: Date, on db: any SQLDatabase) async throws -> Date? {
        guard !keys.isEmpty else { return nil }
        return try await db.select().column("locked_until").from("sign_in_locks")
            .where("throttle_key", .in, keys.map(\.stored))
            .where("locked_until", .greaterThan, now.millisecondsSince1970)
            .orderBy("locked_until", .descending)
            .first()
            .map { Date(millisecondsSince1970: try $0.decode(column: "locked_until", as: Int64.self)) }
    }

    /// One try at a secret (a password, a code, a token, an answer), counted before the secret is checked.
    package struct Attempt: Sendable {
        package let keys: [Key]
        fileprivate let rowIDs: [Int64]
        fileprivate let at: Date
    }

    /// Counts and refuses in one step, before anything is checked: nil while any of `keys` is paused or
    /// already holds its limit of failures and tries under way in the window; otherwise the try is recorded
    /// against every key, where it counts as a failure until `release` (the secret was right). So a burst of
    /// simultaneous guesses gets at most a key's limit of checks. Must run inside a transaction: on
    /// PostgreSQL the keys are locked until it ends, so simultaneous tries take turns (SQLite's one writer
    /// already makes them).
    package func reserve(_ keys: [Key], now: Date, on db: any SQLDatabase) async throws -> Attempt? {
        if db.dialect.name == "postgresql" {
            for stored in Set(keys.map(\.stored)).sorted() {
                try await db.raw("SELECT pg_advisory_xact_lock(7261003, hashtext(\(bind: stored)))").run()
            }
        }
        if try await pausedUntil(keys, now: now, on: db) != nil { return nil }
        for key in keys where try await failures(key, now: now, on: db) >= key.limit { return nil }
        return try await record(keys, now: now, on: db)
    }

    /// `reserve` in a transaction of its own, for a check made outside any transaction (a password's hash).
    package func reserve(_ keys: [Key], now: Date, in database: Database) async throws -> Attempt? {
        try await database.transaction { db in try await reserve(keys, now: now, on: db) }
    }

    /// The secret was wrong: the try stays counted as a failure, and any key that reached its limit is paused.
    package func fail(_ attempt: Attempt, on db: any SQLDatabase) async throws {
        for key in attempt.keys where try await failures(key, now: attempt.at, on: db) >= key.limit {
            try await db.insert(into: "sign_in_locks").columns("throttle_key", "locked_until")
                .values(SQLBind(key.stored), SQLBind(attempt.at.addingTimeInterval(Self.pause).millisecondsSince1970))
                .onConflict(with: ["throttle_key"]) { $0.set(excludedValueOf: "locked_until") }
                .run()
        }
    }

    /// The secret was right (or the try was refused for a reason that is no guess): the try no longer counts.
    package func release(_ attempt: Attempt, on db: any SQLDatabase) async throws {
        guard !attempt.rowIDs.isEmpty else { return }
        try await db.delete(from: "sign_in_failures").where("id", .in, attempt.rowIDs).run()
    }

    /// For requests counted whether or not they succeed (registrations, asking for reset links): reserves and
    /// counts the request in one step; false, counting nothing, while any key is paused or at its limit.
    package func admit(_ keys: [Key], now: Date, on db: any SQLDatabase) async throws -> Bool {
        guard let attempt = try await reserve(keys, now: now, on: db) else { return false }
        try await fail(attempt, on: db)
        return true
    }

    private func record(_ keys: [Key], now: Date, on db: any SQLDatabase) async throws -> Attempt {
        var rowIDs: [Int64] = []
        for key in keys {
            rowIDs.append(
                try await db.insert(into: "sign_in_failures").columns("throttle_key", "failed_at")
                    .values(SQLBind(key.stored), SQLBind(now.millisecondsSince1970))
                    .returning("id").first()!.decode(column: "id", as: Int64.self)
            )
        }
        return Attempt(keys: keys, rowIDs: rowIDs, at: now)
    }

    private func failures(_ key: Key, now: Date, on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "sign_in_failures") {
            $0.where("throttle_key", .equal, key.stored)
                .where("failed_at", .greaterThan, now.addingTimeInterval(-Self.window).millisecondsSince1970)
        }
    }

    /// A correct password clears the account's earlier failures.
    package func clear(_ key: Key, on db: any SQLDatabase) async throws {
        try await db.delete(from: "sign_in_failures").where("throttle_key", .equal, key.stored).run()
        try await db.delete(from: "sign_in_locks").where("throttle_key", .equal, key.stored).run()
    }

    /// Forgets failures older than the window and pauses that have ended.
    package func deleteExpired(now: Date, on db: any SQLDatabase) async throws {
        try await db.delete(from: "sign_in_failures")
            .where("failed_at", .lessThan, now.addingTimeInterval(-Self.window).millisecondsSince1970).run()
        try await db.delete(from: "sign_in_locks")
            .where("locked_until", .lessThan, now.millisecondsSince1970).run()
    }

    package init() {}
}

extension SignInThrottle {
    /// For the apps' APIs: a 429 with `Retry-After` while any of `keys` is paused.
    package func refuseAPIRequestWhilePaused(_ keys: [Key], now: Date, in database: Database) async throws {
        if let until = try await database.read({ db in try await pausedUntil(keys, now: now, on: db) }) {
            throw APIError.tooManyRequests(until: until, now: now)
        }
    }

    /// For the apps' APIs: `reserve`, answering 429 with `Retry-After` while any of `keys` is paused or has its
    /// limit of tries under way. Inside a transaction, as `reserve`.
    package func reserveAPIAttempt(_ keys: [Key], now: Date, on db: any SQLDatabase) async throws -> Attempt {
        if let attempt = try await reserve(keys, now: now, on: db) { return attempt }
        throw APIError.tooManyRequests(until: try await pausedUntil(keys, now: now, on: db) ?? now.addingTimeInterval(Self.pause), now: now)
    }

    /// For the apps' APIs: `admit`, answering 429 with `Retry-After` while any of `keys` is paused or at its limit.
    package func admitAPIRequest(_ keys: [Key], now: Date, on db: any SQLDatabase) async throws {
        try await fail(try await reserveAPIAttempt(keys, now: now, on: db), on: db)
    }

    /// `reserveAPIAttempt` in a transaction of its own, for a check made outside any transaction (a password's hash).
    package func reserveAPIAttempt(_ keys: [Key], now: Date, in database: Database) async throws -> Attempt {
        try await database.transaction { db in try await reserveAPIAttempt(keys, now: now, on: db) }
    }
}

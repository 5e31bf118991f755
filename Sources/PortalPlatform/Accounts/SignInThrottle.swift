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

    /// Counts a failure against each key, pausing any that reached its limit.
    package func recordFailure(_ keys: [Key], now: Date, on db: any SQLDatabase) async throws {
        let time = now.millisecondsSince1970
        for key in keys {
            try await db.insert(into: "sign_in_failures").columns("throttle_key", "failed_at")
                .values(SQLBind(key.stored), SQLBind(time)).run()
            let failures = try await db.count(in: "sign_in_failures") {
                $0.where("throttle_key", .equal, key.stored)
                    .where("failed_at", .greaterThan, now.addingTimeInterval(-Self.window).millisecondsSince1970)
            }
            if failures >= key.limit {
                try await db.insert(into: "sign_in_locks").columns("throttle_key", "locked_until")
                    .values(SQLBind(key.stored), SQLBind(now.addingTimeInterval(Self.pause).millisecondsSince1970))
                    .onConflict(with: ["throttle_key"]) { $0.set(excludedValueOf: "locked_until") }
                    .run()
            }
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
}

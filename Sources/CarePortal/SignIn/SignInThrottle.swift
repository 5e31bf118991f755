import Foundation
import SQLKit

/// Slows down guessing: five failures for one account, or twenty from one address, within fifteen
/// minutes pause sign-in for that account or address for fifteen minutes. The member app's
/// registration (per sign-up code and per address) and account recovery are throttled the same way.
/// The only place the throttle's SQL lives.
struct SignInThrottle: Sendable {
    static let accountLimit = 5
    static let addressLimit = 20
    static let signUpCodeLimit = 5
    static let registrationAddressLimit = 10
    static let window: TimeInterval = 15 * 60
    static let pause: TimeInterval = 15 * 60

    enum Key {
        /// A staff username.
        case account(String)
        /// Any sign-in or recovery from this address.
        case address(String)
        /// A member's pseudonym.
        case member(String)
        /// A recovery email address.
        case recovery(String)
        /// A sign-up code as typed, normalised.
        case signUpCode(String)
        /// Registrations with a wrong code from this address.
        case registrationAddress(String)
        /// A patient app account's username.
        case patient(String)
        /// Patient app claims with a wrong token from this address.
        case patientClaim(String)

        var stored: String {
            switch self {
            case .account(let username): "account:\(usernameKey(username))"
            case .address(let address): "address:\(address)"
            case .member(let pseudonym): "member:\(usernameKey(pseudonym))"
            case .recovery(let email): "recovery:\(MemberRules.emailKey(email))"
            case .signUpCode(let code): "code:\(SecretToken.hash(SignUpCode.normalized(code)))"
            case .registrationAddress(let address): "registration:\(address)"
            case .patient(let username): "patient:\(usernameKey(username))"
            case .patientClaim(let address): "patient-claim:\(address)"
            }
        }

        var limit: Int {
            switch self {
            case .account, .member, .recovery, .patient: SignInThrottle.accountLimit
            case .address: SignInThrottle.addressLimit
            case .signUpCode: SignInThrottle.signUpCodeLimit
            case .registrationAddress, .patientClaim: SignInThrottle.registrationAddressLimit
            }
        }
    }

    /// True while any of `keys` is paused.
    func isPaused(_ keys: [Key], now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await pausedUntil(keys, now: now, on: db) != nil
    }

    /// When the last pause among `keys` ends, or nil when none is paused.
    func pausedUntil(_ keys: [Key], now: Date, on db: any SQLDatabase) async throws -> Date? {
        guard !keys.isEmpty else { return nil }
        return try await db.select().column("locked_until").from("sign_in_locks")
            .where("throttle_key", .in, keys.map(\.stored))
            .where("locked_until", .greaterThan, now.millisecondsSince1970)
            .orderBy("locked_until", .descending)
            .first()
            .map { Date(millisecondsSince1970: try $0.decode(column: "locked_until", as: Int64.self)) }
    }

    /// Counts a failure against each key, pausing any that reached its limit.
    func recordFailure(_ keys: [Key], now: Date, on db: any SQLDatabase) async throws {
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
    func clear(_ key: Key, on db: any SQLDatabase) async throws {
        try await db.delete(from: "sign_in_failures").where("throttle_key", .equal, key.stored).run()
        try await db.delete(from: "sign_in_locks").where("throttle_key", .equal, key.stored).run()
    }

    /// Forgets failures older than the window and pauses that have ended.
    func deleteExpired(now: Date, on db: any SQLDatabase) async throws {
        try await db.delete(from: "sign_in_failures")
            .where("failed_at", .lessThan, now.addingTimeInterval(-Self.window).millisecondsSince1970).run()
        try await db.delete(from: "sign_in_locks")
            .where("locked_until", .lessThan, now.millisecondsSince1970).run()
    }
}

extension SignInThrottle {
    /// For the apps' APIs: a 429 with `Retry-After` while any of `keys` is paused.
    func refuseAPIRequestWhilePaused(_ keys: [Key], now: Date, in database: Database) async throws {
        if let until = try await database.read({ db in try await pausedUntil(keys, now: now, on: db) }) {
            throw APIError.tooManyRequests(until: until, now: now)
        }
    }
}

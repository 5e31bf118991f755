import Foundation
import PortalPlatform
import SQLKit

/// A link that lets a member of staff choose a new password: asked for on the sign-in page, or sent
/// by an administrator from her account's page.
struct PasswordReset: Sendable, Equatable {
    let id: Int64
    let accountID: Int64
    let expiresAt: Date

    /// How long a link works.
    static let lifetime: TimeInterval = 60 * 60

    /// How many links one account or one typed address may be sent within the throttle's window, and
    /// how many requests one client address may make.
    static let perAccountLimit = 3
    static let perAddressLimit = 10

    /// The throttle key for requests naming one account (by its email address or its id).
    static func throttleKey(accountID: Int64) -> SignInThrottle.Key {
        SignInThrottle.Key(stored: "password_reset:account:\(accountID)", limit: perAccountLimit)
    }

    static func throttleKey(email: String) -> SignInThrottle.Key {
        SignInThrottle.Key(stored: "password_reset:email:\(email.lowercased())", limit: perAccountLimit)
    }

    static func throttleKey(address: String) -> SignInThrottle.Key {
        SignInThrottle.Key(stored: "password_reset:address:\(address)", limit: perAddressLimit)
    }

    /// The address in the email; the token travels only there and in the reset form, never in a log.
    static func link(token: SecretToken, settings: Settings) -> String {
        "\(settings.baseURL)\(SiteURL.resetPassword.path)?token=\(token.value)"
    }
}

extension Mail {
    /// The plain-text email with a reset link.
    static func passwordReset(
        to account: StaffAccount,
        email: String,
        token: SecretToken,
        expires: Date,
        byAdministrator: Bool,
        settings: Settings,
        clock: ProgramClock
    ) -> Mail {
        Mail(
            recipient: email,
            subject: "Reset your \(settings.programName) password",
            body: """
                Hello \(account.username),

                \(byAdministrator ? "An administrator of \(settings.programName) sent you this link to choose a new password." : "Someone, probably you, asked to reset the password of your \(settings.programName) account.")

                Open this link to choose a new password:
                \(PasswordReset.link(token: token, settings: settings))

                The link works once, until \(clock.dateTime(expires)). When you set a new password, you are signed out everywhere.

                If you did not ask for this, you can ignore this email: your password stays as it is.

                \(settings.programName)
                """,
            secrets: [token.value]
        )
    }
}

/// The only place password reset links are read and written. Only a hash of each link's token is kept.
struct PasswordResetRepository: Sendable {
    func create(accountID: Int64, token: SecretToken, now: Date, on db: any SQLDatabase) async throws -> PasswordReset {
        let expires = now.addingTimeInterval(PasswordReset.lifetime)
        let row = try await db.insert(into: "password_resets")
            .columns("account_id", "token_hash", "created_at", "expires_at")
            .values(SQLBind(accountID), SQLBind(token.hash), SQLBind(now.millisecondsSince1970), SQLBind(expires.millisecondsSince1970))
            .returning("id")
            .first()
        guard let id = try row?.decode(column: "id", as: Int64.self) else {
            throw StorageInconsistency(description: "insert into password_resets returned no id")
        }
        return PasswordReset(id: id, accountID: accountID, expiresAt: expires)
    }

    /// The link a token opens, if it is unused and has not expired.
    func findUsable(token: String, now: Date, on db: any SQLDatabase) async throws -> PasswordReset? {
        try await usable(db.select().columns("id", "account_id", "expires_at").from("password_resets"), token: token, now: now)
            .first().map(decode)
    }

    /// Marks the link as used, only if it still can be: of two submissions of one link, one wins.
    func use(token: String, now: Date, on db: any SQLDatabase) async throws -> PasswordReset? {
        try await usable(db.update("password_resets").set("used_at", to: now.millisecondsSince1970), token: token, now: now)
            .returning("id", "account_id", "expires_at")
            .first().map(decode)
    }

    /// Every other open link of the account stops working once its password is set.
    func retireAll(accountID: Int64, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("password_resets").set("used_at", to: now.millisecondsSince1970)
            .where("account_id", .equal, accountID).where("used_at", .is, SQLLiteral.null).run()
    }

    /// Forgets links that can no longer be used.
    func deleteExpired(now: Date, on db: any SQLDatabase) async throws {
        try await db.delete(from: "password_resets").where("expires_at", .lessThan, now.millisecondsSince1970).run()
    }

    private func usable<Builder: SQLPredicateBuilder>(_ builder: Builder, token: String, now: Date) -> Builder {
        builder.where("token_hash", .equal, SecretToken.hash(token))
            .where("used_at", .is, SQLLiteral.null)
            .where("expires_at", .greaterThan, now.millisecondsSince1970)
    }

    private func decode(_ row: any SQLRow) throws -> PasswordReset {
        PasswordReset(
            id: try row.decode(column: "id", as: Int64.self),
            accountID: try row.decode(column: "account_id", as: Int64.self),
            expiresAt: Date(millisecondsSince1970: try row.decode(column: "expires_at", as: Int64.self))
        )
    }
}

import Foundation
import SQLKit

/// One kind of app account's forgotten-password links, in a table of its own: `token_hash` (the link's secret,
/// hashed), the owner's id, `created_at`, `expires_at` and `used_at`. A link works once, for an hour; the
/// first one used ends every other link of that account.
package struct PasswordResetLinks: Sendable {
    package static let lifetime: TimeInterval = 60 * 60

    /// The table, and the column that holds the account's id.
    package let table: String
    package let owner: String

    package init(table: String, owner: String) {
        self.table = table
        self.owner = owner
    }

    package func create(tokenHash: String, accountID: Int64, now: Date, on db: any SQLDatabase) async throws {
        try await db.insert(into: table).columns("token_hash", owner, "created_at", "expires_at")
            .values(
                SQLBind(tokenHash),
                SQLBind(accountID),
                SQLBind(now.millisecondsSince1970),
                SQLBind(now.addingTimeInterval(Self.lifetime).millisecondsSince1970)
            )
            .run()
    }

    package func isUsable(tokenHash: String, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await usable(db.select().column(SQLIdentifier(owner)).from(table), tokenHash: tokenHash, now: now).first() != nil
    }

    /// Uses a link once and ends the account's other open links: the account it was for, or nil when the
    /// link is unknown, used or expired.
    package func use(tokenHash: String, now: Date, on db: any SQLDatabase) async throws -> Int64? {
        guard
            let accountID = try await usable(db.update(table).set("used_at", to: now.millisecondsSince1970), tokenHash: tokenHash, now: now)
                .returning(SQLIdentifier(owner)).first()?.decode(column: owner, as: Int64.self)
        else { return nil }
        try await db.update(table).set("used_at", to: now.millisecondsSince1970)
            .where(SQLIdentifier(owner), .equal, SQLBind(accountID)).where("used_at", .is, SQLLiteral.null)
            .run()
        return accountID
    }

    /// Links a day past their hour: used or not, they open nothing by then.
    package func deleteExpired(before cutoff: Date, on db: any SQLDatabase) async throws {
        try await db.delete(from: table).where("expires_at", .lessThan, cutoff.millisecondsSince1970).run()
    }

    private func usable<Query: SQLPredicateBuilder>(_ query: Query, tokenHash: String, now: Date) -> Query {
        query.where("token_hash", .equal, tokenHash).where("used_at", .is, SQLLiteral.null).where(
            "expires_at",
            .greaterThan,
            now.millisecondsSince1970
        )
    }
}

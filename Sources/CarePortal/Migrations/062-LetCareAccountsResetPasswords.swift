import PortalPlatform
import SQLKit

/// Forgotten-password links for care receivers and caregivers (`PasswordResetLinks`): only the token's hash
/// is kept, each link works once, for an hour.
struct LetCareAccountsResetPasswords: Migration {
    let version = 62
    let name = "LetCareAccountsResetPasswords"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "care_password_resets")
            .column("token_hash", type: .text, .primaryKey(autoIncrement: false))
            .column("account_id", type: .bigint, .notNull, .references("care_accounts", "id", onDelete: .cascade))
            .column("created_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .column("used_at", type: .bigint)
            .run()
        try await db.create(index: "care_password_resets_account").on("care_password_resets").column("account_id").run()
    }
}

import PortalPlatform
import SQLKit

/// Staff accounts complete: password reset links, invitations for every role, deleted accounts kept as
/// a nameless stub (what she wrote stays), and two-factor sign-in with its recovery codes.
struct CompleteStaffAccounts: Migration {
    let version = 26
    let name = "CompleteStaffAccounts"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        // Set when an account is deleted; the row stays, nameless, so what she wrote keeps its author.
        try await db.alter(table: "staff_accounts").column("deleted_at", type: .bigint).run()
        // The role the invitation is for; a date of birth of "" means the role does not ask for one.
        try await db.alter(table: "staff_invitations")
            .column("role", type: .text, .notNull, .default("medical_professional")).run()

        try await db.create(table: "password_resets")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("account_id", type: .bigint, .notNull, .references("staff_accounts", "id", onDelete: .cascade))
            .column("token_hash", type: .text, .notNull, .unique)
            .column("created_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .column("used_at", type: .bigint)
            .run()
        try await db.create(index: "password_resets_account").on("password_resets").column("account_id").run()

        // The TOTP secret, sealed with the key under DATA_DIR; `confirmed_at` is NULL while being set up.
        try await db.create(table: "second_factors")
            .column("account_id", type: .bigint, .primaryKey(autoIncrement: false), .references("staff_accounts", "id", onDelete: .cascade))
            .column("sealed_secret", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("confirmed_at", type: .bigint)
            // The time step of the last code accepted: a code is accepted once, and none before it.
            .column("last_step", type: .bigint, .notNull, .default(0))
            .run()
        try await db.create(table: "recovery_codes")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("account_id", type: .bigint, .notNull, .references("staff_accounts", "id", onDelete: .cascade))
            .column("code_hash", type: .text, .notNull)
            .column("used_at", type: .bigint)
            .run()
        try await db.create(index: "recovery_codes_account").on("recovery_codes").column("account_id").run()
        // Roles whose members must use a second factor.
        try await db.create(table: "second_factor_roles")
            .column("role", type: .text, .primaryKey(autoIncrement: false))
            .column("required_since", type: .bigint, .notNull)
            .run()
        // A browser whose password was right and that must now give a code (or set up a second factor).
        try await db.create(table: "second_factor_challenges")
            .column("session_hash", type: .text, .primaryKey(autoIncrement: false))
            .column("account_id", type: .bigint, .notNull, .references("staff_accounts", "id", onDelete: .cascade))
            .column("next", type: .text)
            .column("expires_at", type: .bigint, .notNull)
            .run()
    }
}

import PortalPlatform
import SQLKit

struct CreateStaffAccounts: Migration {
    let version = 1
    let name = "CreateStaffAccounts"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "staff_accounts")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("username", type: .text, .notNull)
            .column("username_key", type: .text, .notNull, .unique)
            .column("email", type: .text)
            .column("role", type: .text, .notNull)
            .column("status", type: .text, .notNull)
            .column("password_hash", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "staff_accounts_role_status").on("staff_accounts").column("role").column("status").run()

        try await db.create(table: "physician_profiles")
            .column(
                "account_id",
                type: .bigint,
                .primaryKey(autoIncrement: false),
                .references("staff_accounts", "id", onDelete: .cascade)
            )
            .column("first_name", type: .text, .notNull)
            .column("middle_name", type: .text, .notNull)
            .column("last_name", type: .text, .notNull)
            .column("practice_location", type: .text, .notNull)
            .column("medical_id_number", type: .text, .notNull)
            .column("approved_by", type: .bigint)
            .column("approved_at", type: .bigint)
            .run()
    }
}

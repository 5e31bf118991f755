import PortalPlatform
import SQLKit

struct CreateStaffInvitations: Migration {
    let version = 8
    let name = "CreateStaffInvitations"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        // What an invitation recorded about a medical professional, and what they chose on accepting it.
        try await db.create(table: "staff_profiles")
            .column(
                "account_id",
                type: .bigint,
                .primaryKey(autoIncrement: false),
                .references("staff_accounts", "id", onDelete: .cascade)
            )
            .column("first_name", type: .text, .notNull)
            .column("last_name", type: .text, .notNull)
            .column("date_of_birth", type: .text, .notNull)
            .column("avatar", type: .text, .notNull)
            .column("bio", type: .text, .notNull, .default(""))
            .run()

        try await db.create(table: "staff_invitations")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("first_name", type: .text, .notNull)
            .column("last_name", type: .text, .notNull)
            .column("date_of_birth", type: .text, .notNull)
            .column("email", type: .text, .notNull)
            .column("token_hash", type: .text, .notNull, .unique)
            .column("created_by", type: .bigint, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .column("last_sent_at", type: .bigint, .notNull)
            .column("accepted_at", type: .bigint)
            .column("account_id", type: .bigint, .references("staff_accounts", "id"))
            .column("revoked_at", type: .bigint)
            .column("revoked_by", type: .bigint)
            .run()
        try await db.create(index: "staff_invitations_created").on("staff_invitations").column("created_at").run()
    }
}

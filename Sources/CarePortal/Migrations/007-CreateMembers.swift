import PortalPlatform
import SQLKit

struct CreateMembers: Migration {
    let version = 7
    let name = "CreateMembers"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "program_settings")
            .column("name", type: .text, .primaryKey(autoIncrement: false))
            .column("value", type: .text, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()

        try await db.create(table: "cohorts")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("due_month", type: .text, .notNull, .unique)
            .column("created_at", type: .bigint, .notNull)
            .run()

        try await db.create(table: "members")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("pseudonym", type: .text, .notNull)
            // Byte order on both engines, so a pseudonym prefix search is a range scan on the index.
            .column("pseudonym_key", type: engine == .postgres ? .custom(SQLRaw(#"TEXT COLLATE "C""#)) : .text, .notNull, .unique)
            .column("password_hash", type: .text, .notNull)
            .column("avatar", type: .text, .notNull)
            .column("due_date", type: .text, .notNull)
            .column("cohort_id", type: .bigint, .notNull, .references("cohorts", "id"))
            .column("recovery_email", type: .text, .notNull)
            .column("recovery_email_key", type: .text, .notNull)
            .column("security_question", type: .text, .notNull)
            .column("security_answer_hash", type: .text, .notNull)
            .column("us_state", type: .text)
            .column("zip_code", type: .text)
            .column("bio", type: .text, .notNull)
            .column("status", type: .text, .notNull)
            .column("sign_up_code_id", type: .bigint)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .column("last_active_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "members_cohort").on("members").column("cohort_id").run()
        try await db.create(index: "members_created").on("members").column("created_at").column("id").run()
        try await db.create(index: "members_last_active").on("members").column("last_active_at").column("id").run()
        try await db.create(index: "members_recovery_email").on("members").column("recovery_email_key").run()

        try await db.create(table: "member_tokens")
            .column("token_hash", type: .text, .primaryKey(autoIncrement: false))
            .column("member_id", type: .bigint, .notNull, .references("members", "id", onDelete: .cascade))
            .column("created_at", type: .bigint, .notNull)
            .column("renewed_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "member_tokens_member").on("member_tokens").column("member_id").run()
        try await db.create(index: "member_tokens_expires").on("member_tokens").column("expires_at").run()

        try await db.create(table: "member_sign_ins")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("member_id", type: .bigint, .notNull, .references("members", "id", onDelete: .cascade))
            .column("happened_at", type: .bigint, .notNull)
            .column("kind", type: .text, .notNull)
            .column("address", type: .text)
            .column("user_agent", type: .text)
            .run()
        try await db.create(index: "member_sign_ins_member").on("member_sign_ins").column("member_id").column("happened_at").run()
    }
}

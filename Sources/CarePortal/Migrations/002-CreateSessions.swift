import PortalPlatform
import SQLKit

struct CreateSessions: Migration {
    let version = 2
    let name = "CreateSessions"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "sessions")
            .column("id_hash", type: .text, .primaryKey(autoIncrement: false))
            .column("account_id", type: .bigint, .references("staff_accounts", "id", onDelete: .cascade))
            .column("csrf_token", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("last_seen_at", type: .bigint, .notNull)
            .column("flash", type: .text)
            .run()
        try await db.create(index: "sessions_account").on("sessions").column("account_id").run()
        try await db.create(index: "sessions_last_seen").on("sessions").column("last_seen_at").run()
    }
}

import PortalPlatform
import SQLKit

struct CreateOutbox: Migration {
    let version = 5
    let name = "CreateOutbox"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "outbox")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("created_at", type: .bigint, .notNull)
            .column("recipient", type: .text, .notNull)
            .column("subject", type: .text, .notNull)
            .column("body", type: .text, .notNull)
            .column("status", type: .text, .notNull)
            .column("attempts", type: .bigint, .notNull)
            .column("next_attempt_at", type: .bigint, .notNull)
            .column("claimed_until", type: .bigint)
            .column("last_error", type: .text)
            .column("sent_at", type: .bigint)
            .run()
        try await db.create(index: "outbox_due").on("outbox").column("status").column("next_attempt_at").run()
        try await db.create(index: "outbox_created").on("outbox").column("created_at").run()
    }
}

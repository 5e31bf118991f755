import PortalPlatform
import SQLKit

struct CreateSignInThrottle: Migration {
    let version = 3
    let name = "CreateSignInThrottle"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "sign_in_failures")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("throttle_key", type: .text, .notNull)
            .column("failed_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "sign_in_failures_key_time").on("sign_in_failures")
            .column("throttle_key").column("failed_at").run()

        try await db.create(table: "sign_in_locks")
            .column("throttle_key", type: .text, .primaryKey(autoIncrement: false))
            .column("locked_until", type: .bigint, .notNull)
            .run()
    }
}

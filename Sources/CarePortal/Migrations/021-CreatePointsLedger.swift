import PortalPlatform
import SQLKit

/// The points ledger every kind of app account earns into, and the baby's development week by week.
struct CreatePointsLedger: Migration {
    let version = 21
    let name = "CreatePointsLedger"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "points_ledger")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            // Any kind of app account: the account's own deletion removes its lines (`PointsLedger.forget`).
            .column("account_role", type: .text, .notNull)
            .column("account_id", type: .bigint, .notNull)
            .column("amount", type: .bigint, .notNull)
            .column("reason", type: .text, .notNull)
            .column("reference", type: .text, .notNull)
            // The day or month in which the same reason and reference may earn once.
            .column("period", type: .text, .notNull)
            .column("day", type: .text, .notNull)
            .column("month", type: .text, .notNull)
            .column("earned_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "points_ledger_once").on("points_ledger")
            .column("account_role").column("account_id").column("reason").column("reference").column("period").unique().run()
        try await db.create(index: "points_ledger_month").on("points_ledger").column("account_role").column("account_id").column("month").run()

        try await db.create(table: "baby_weeks")
            .column("week", type: .bigint, .primaryKey(autoIncrement: false))
            .column("size", type: .text, .notNull)
            .column("mother", type: .text, .notNull)
            .column("baby", type: .text, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()
    }
}

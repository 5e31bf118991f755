import PortalPlatform
import SQLKit

struct CreateCatalogue: Migration {
    let version = 10
    let name = "CreateCatalogue"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        // What physicians prescribe from, kept by administrators. Names are unique without regard to case.
        try await db.create(table: "catalogue_medications")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("name", type: .text, .notNull)
            .column("name_key", type: .text, .notNull, .unique)
            // One available dose per line, such as "25/100 mg tablet".
            .column("doses", type: .text, .notNull)
            .column("description", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()

        try await db.create(table: "catalogue_exercises")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("name", type: .text, .notNull)
            .column("name_key", type: .text, .notNull, .unique)
            .column("description", type: .text, .notNull)
            // The illustration's file name under DATA_DIR/illustrations, chosen by the server, and its type.
            .column("illustration", type: .text)
            .column("illustration_type", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()

        try await db.create(table: "catalogue_frequencies")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("name", type: .text, .notNull)
            .column("name_key", type: .text, .notNull, .unique)
            // How often on the days it applies, and every how many days (1 daily, 2 every other day, 7 weekly).
            .column("times_per_day", type: .int, .notNull)
            .column("every_days", type: .int, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()

        try await db.create(table: "catalogue_exercise_amounts")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("name", type: .text, .notNull)
            .column("name_key", type: .text, .notNull, .unique)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()
    }
}

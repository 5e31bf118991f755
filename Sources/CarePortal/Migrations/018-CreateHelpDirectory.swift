import PortalPlatform
import SQLKit

/// The directory of help members reach for: helplines, crisis lines, treatment locators, care locations
/// and websites, nationwide or for chosen US states.
struct CreateHelpDirectory: Migration {
    let version = 18
    let name = "CreateHelpDirectory"
    private static let boolean = SQLDataType.custom(SQLRaw("BOOLEAN"))

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "help_resources")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("name", type: .text, .notNull)
            .column("name_key", type: .text, .notNull)
            .column("kind", type: .text, .notNull)
            // Canonical digits ("8006624357", "988").
            .column("phone", type: .text)
            .column("text_number", type: .text)
            .column("web_address", type: .text)
            .column("hours", type: .text, .notNull)
            .column("languages", type: .text, .notNull)
            .column("description", type: .text, .notNull)
            .column("address", type: .text)
            .column("nationwide", type: Self.boolean, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "help_resources_name").on("help_resources").column("name_key").run()
        try await db.create(table: "help_resource_states")
            .column("resource_id", type: .bigint, .notNull, .references("help_resources", "id", onDelete: .cascade))
            .column("state", type: .text, .notNull)
            .primaryKey("resource_id", "state")
            .run()
        try await db.create(index: "help_resource_states_state").on("help_resource_states").column("state").run()
    }
}

import PortalPlatform
import SQLKit

/// The help directory becomes one part serving each program's own list (the perinatal program's
/// resources and helplines, the research study's care locations): every entry, and its rows in the two
/// search tables, names its program; entries already kept are the perinatal program's. A care location
/// may carry the latitude and longitude of its pin on the app's map.
struct KeepADirectoryPerProgram: Migration {
    let version = 58
    let name = "KeepADirectoryPerProgram"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        for table in ["help_resources"] + Self.searchTables { try await Self.addProgram(to: table, on: db) }
        let decimal = engine == .postgres ? "DOUBLE PRECISION" : "REAL"
        try await db.raw("ALTER TABLE help_resources ADD COLUMN latitude \(unsafeRaw: decimal)").run()
        try await db.raw("ALTER TABLE help_resources ADD COLUMN longitude \(unsafeRaw: decimal)").run()
        try await db.create(index: "help_resources_program").on("help_resources").column("program").column("name_key").column("id").run()
    }

    static let searchTables = ["help_resource_words", "help_resource_reach"]

    /// Gives `table` its program column, every row already there the perinatal program's.
    static func addProgram(to table: String, on db: any SQLDatabase) async throws {
        try await db.raw("ALTER TABLE \(ident: table) ADD COLUMN program TEXT NOT NULL DEFAULT 'perinatal_community'").run()
    }
}

import PortalPlatform
import SQLKit

/// The help directory filtered to one kind, read in the list's order (by name) from this index, where without
/// it the names' index was read in order and each entry's kind tested until a page of that kind was found.
struct IndexHelpEntriesByKind: Migration {
    let version = 41
    let name = "IndexHelpEntriesByKind"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(index: "help_resources_kind").on("help_resources").column("kind").column("name_key").column("id").run()
    }
}

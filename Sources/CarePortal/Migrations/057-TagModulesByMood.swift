import PortalPlatform
import SQLKit

/// The mood groups after which a learning module is recommended (DR5.FR7.1): `neutral`, `negative`, both
/// (comma-separated), or empty for none.
struct TagModulesByMood: Migration {
    let version = 57
    let name = "TagModulesByMood"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.raw("ALTER TABLE learning_modules ADD COLUMN mood_groups TEXT NOT NULL DEFAULT ''").run()
    }
}

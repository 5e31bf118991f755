import PortalPlatform
import SQLKit

/// A physician's practice phone (seed 002, 3.12.1.2), which her patients' app shows: ten digits, or empty
/// for physicians who registered before it was asked.
struct AddPracticePhone: Migration {
    let version = 56
    let name = "AddPracticePhone"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.raw("ALTER TABLE physician_profiles ADD COLUMN practice_phone TEXT NOT NULL DEFAULT ''").run()
    }
}

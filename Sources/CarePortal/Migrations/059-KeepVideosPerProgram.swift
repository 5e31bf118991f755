import PortalPlatform
import SQLKit

/// The learning centre's videos become one part serving each program's own library (the perinatal
/// program's learning videos, the research study's videos by category): every video names its program,
/// and the videos already kept are the perinatal program's.
struct KeepVideosPerProgram: Migration {
    let version = 59
    let name = "KeepVideosPerProgram"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.raw("ALTER TABLE learning_videos ADD COLUMN program TEXT NOT NULL DEFAULT 'perinatal_community'").run()
        try await db.create(index: "learning_videos_program").on("learning_videos").column("program").column("status").column("category").run()
    }
}

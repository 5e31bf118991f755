import PortalPlatform
import SQLKit

/// Indexes the study's pages read by day: the dashboard counts each item's marks and the app opens per
/// day over its last two weeks from the index alone, in the order it groups them (no sort, no table
/// rows), and a participant's page counts her opens per day the same way. The day-only indexes they
/// replace go.
struct IndexStudyDays: Migration {
    let version = 30
    let name = "IndexStudyDays"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(index: "study_todo_marks_day_item").on("study_todo_marks").column("day").column("item_id").run()
        try await db.create(index: "study_app_opens_day_participant").on("study_app_opens").column("day").column("participant_id").run()
        try await db.create(index: "study_app_opens_participant_day").on("study_app_opens").column("participant_id").column("day").run()
        // Each led by the same column as one of the new ones, which serve every query they did.
        try await db.drop(index: "study_todo_marks_day").run()
        try await db.drop(index: "study_app_opens_day").run()
    }
}

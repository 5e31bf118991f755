import PortalPlatform
import SQLKit

/// Feedback and bug reports become one inbox every program with an app uses (`Feedback/`): the study's
/// messages move from `study_feedback` to `feedback`, each with its program, its author as an app account
/// (role and id) rather than a participant, and its kind. Every message keeps its id, so audit entries
/// still name the same message.
struct ShareTheFeedbackInbox: Migration {
    let version = 63
    let name = "ShareTheFeedbackInbox"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "feedback")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("program", type: .text, .notNull)
            // The app account that sent it; deleted with the account (`FeedbackRepository.deleteAll`).
            .column("author_role", type: .text, .notNull)
            .column("author_id", type: .bigint, .notNull)
            // `feedback` or `bug_report`.
            .column("kind", type: .text, .notNull)
            .column("body", type: .text, .notNull)
            .column("submitted_at", type: .bigint, .notNull)
            .column("handled_at", type: .bigint)
            .column("handled_by", type: .bigint)
            .run()
        // A program's inbox, newest first: every message, or those still waiting.
        try await db.create(index: "feedback_newest").on("feedback").column("program").column("submitted_at").column("id").run()
        try await db.create(index: "feedback_waiting").on("feedback").column("program").column("handled_at").column("submitted_at").column("id").run()
        try await db.create(index: "feedback_author").on("feedback").column("author_role").column("author_id").run()
        try await db.raw(
            """
            INSERT INTO feedback (id, program, author_role, author_id, kind, body, submitted_at, handled_at, handled_by)
            SELECT id, 'research_study', 'participant', participant_id, 'feedback', body, submitted_at, handled_at, handled_by FROM study_feedback
            """
        ).run()
        if engine == .postgres {
            try await db.raw("SELECT setval(pg_get_serial_sequence('feedback', 'id'), COALESCE((SELECT MAX(id) FROM feedback), 0) + 1, false)").run()
        }
        try await db.drop(table: "study_feedback").run()
    }
}

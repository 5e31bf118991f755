import PortalPlatform
import SQLKit

/// The study's feedback inbox is read a page at a time, newest first (`StudyRepository.feedback(page:)`):
/// every message by `(submitted_at, id)`, and those not yet handled by an index of their own, so that a
/// page of either is found on an index alone however many messages a year of a study gathers. They
/// replace the index of the time alone.
struct IndexStudyFeedbackPages: Migration {
    let version = 47
    let name = "IndexStudyFeedbackPages"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.drop(index: "study_feedback_time").run()
        try await db.create(index: "study_feedback_newest").on("study_feedback").column("submitted_at").column("id").run()
        try await db.raw("CREATE INDEX study_feedback_unhandled ON study_feedback (submitted_at, id) WHERE handled_at IS NULL").run()
    }
}

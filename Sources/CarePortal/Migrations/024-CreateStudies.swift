import PortalPlatform
import SQLKit

/// The research study: participants and their app logins and tokens, the daily to-do items with the
/// days they apply, what she marked done, her app opens, her feedback, and the study's contact page.
/// Events may now belong to a participant (with no member or cohort).
struct CreateStudies: Migration {
    let version = 24
    let name = "CreateStudies"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "study_participants")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            // The study id staff chose ("NU-017"), as typed, and its upper-cased key for uniqueness.
            .column("study_code", type: .text, .notNull)
            .column("study_code_key", type: .text, .notNull, .unique)
            .column("arm", type: .text)
            .column("email", type: .text)
            // Days on the program's clock, `YYYY-MM-DD`.
            .column("enrolled_on", type: .text, .notNull)
            .column("withdrawn_on", type: .text)
            .column("status", type: .text, .notNull)
            .column("username", type: .text, .notNull)
            .column("username_key", type: .text, .notNull, .unique)
            .column("password_hash", type: .text, .notNull)
            // 1 until she replaces the one-time password staff gave her.
            .column("must_change_password", type: .bigint, .notNull)
            .column("last_active_at", type: .bigint)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()

        try await db.create(table: "study_participant_tokens")
            .column("token_hash", type: .text, .primaryKey(autoIncrement: false))
            .column("participant_id", type: .bigint, .notNull, .references("study_participants", "id", onDelete: .cascade))
            .column("created_at", type: .bigint, .notNull)
            .column("renewed_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "study_participant_tokens_owner").on("study_participant_tokens").column("participant_id").run()

        // An item applies from `starts_on` to `ends_on` (inclusive, open when null); a change made today
        // takes effect tomorrow, so what a past day asked of her never changes.
        try await db.create(table: "study_todo_items")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("title", type: .text, .notNull)
            .column("starts_on", type: .text, .notNull)
            .column("ends_on", type: .text)
            .column("position", type: .bigint, .notNull)
            // The item this one replaced, when its wording was changed.
            .column("replaces_id", type: .bigint)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()
        // The study's defaults (seed 001, use case 5), in force from the start.
        for (position, title) in ["Completed daily exercise", "Taken daily folate"].enumerated() {
            try await db.insert(into: "study_todo_items")
                .columns("title", "starts_on", "position", "created_at", "updated_at")
                .values(SQLBind(title), SQLBind("1970-01-01"), SQLBind(Int64(position + 1)), SQLBind(Int64(0)), SQLBind(Int64(0)))
                .run()
        }

        // Only what she marked done is stored; a day with no mark by midnight is not done.
        try await db.create(table: "study_todo_marks")
            .column("participant_id", type: .bigint, .notNull, .references("study_participants", "id", onDelete: .cascade))
            .column("item_id", type: .bigint, .notNull, .references("study_todo_items", "id"))
            .column("day", type: .text, .notNull)
            .column("marked_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "study_todo_marks_once").on("study_todo_marks").column("participant_id").column("day").column("item_id").unique()
            .run()
        try await db.create(index: "study_todo_marks_day").on("study_todo_marks").column("day").run()

        try await db.create(table: "study_app_opens")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("participant_id", type: .bigint, .notNull, .references("study_participants", "id", onDelete: .cascade))
            .column("opened_at", type: .bigint, .notNull)
            .column("day", type: .text, .notNull)
            .run()
        try await db.create(index: "study_app_opens_participant").on("study_app_opens").column("participant_id").column("opened_at").run()
        try await db.create(index: "study_app_opens_day").on("study_app_opens").column("day").run()

        try await db.create(table: "study_feedback")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("participant_id", type: .bigint, .notNull, .references("study_participants", "id", onDelete: .cascade))
            .column("body", type: .text, .notNull)
            .column("submitted_at", type: .bigint, .notNull)
            .column("handled_at", type: .bigint)
            .column("handled_by", type: .bigint)
            .run()
        try await db.create(index: "study_feedback_time").on("study_feedback").column("submitted_at").run()

        // One row: the contact and appointments page, as staff wrote it and as SafeHTML made it.
        try await db.create(table: "study_contact")
            .column("id", type: .bigint, .primaryKey(autoIncrement: false))
            .column("markdown", type: .text, .notNull)
            .column("html", type: .text, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .column("updated_by", type: .bigint)
            .run()

        // A participant's events: member and cohort empty, the participant named; deleting her data
        // keeps them counted, no longer hers.
        try await db.alter(table: "events")
            .column("participant_id", type: .bigint, .references("study_participants", "id", onDelete: .setNull))
            .run()
        try await db.create(index: "events_participant_time").on("events").column("participant_id").column("occurred_at").run()
        try await db.create(index: "events_participant_client").on("events").column("participant_id").column("client_id").unique().run()
    }
}

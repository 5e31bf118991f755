import PortalPlatform
import SQLKit

/// The learning center's videos, modules with their links and quizzes, members' quiz attempts and the
/// videos they watched.
struct CreateLearningContent: Migration {
    let version = 22
    let name = "CreateLearningContent"
    private static let boolean = SQLDataType.custom(SQLRaw("BOOLEAN"))

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "learning_videos")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("title", type: .text, .notNull)
            .column("description", type: .text, .notNull)
            .column("category", type: .text, .notNull)
            .column("length_seconds", type: .bigint, .notNull)
            // A hosted video's https address, or an uploaded file under DATA_DIR/videos.
            .column("url", type: .text)
            .column("file_name", type: .text)
            .column("file_type", type: .text)
            .column("file_size", type: .bigint)
            // `all`, `trimester_1`…`trimester_3` or `weeks`, and the weeks of pregnancy it covers.
            .column("stage", type: .text, .notNull)
            .column("week_from", type: .bigint, .notNull)
            .column("week_to", type: .bigint, .notNull)
            .column("status", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()

        try await db.create(table: "learning_modules")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("title", type: .text, .notNull)
            .column("summary", type: .text, .notNull)
            // The Markdown as written, and its HTML through SafeHTML.
            .column("body_source", type: .text, .notNull)
            .column("body_html", type: .text, .notNull)
            .column("category", type: .text, .notNull)
            .column("stage", type: .text, .notNull)
            .column("week_from", type: .bigint, .notNull)
            .column("week_to", type: .bigint, .notNull)
            .column("position", type: .bigint, .notNull)
            .column("status", type: .text, .notNull)
            .column("video_id", type: .bigint, .references("learning_videos", "id", onDelete: .setNull))
            // Set the first time it is published: members of its stage are told once.
            .column("published_at", type: .bigint)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "learning_modules_listing").on("learning_modules").column("status").column("week_from").column("week_to").run()

        try await db.create(table: "learning_module_links")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("module_id", type: .bigint, .notNull, .references("learning_modules", "id", onDelete: .cascade))
            .column("position", type: .bigint, .notNull)
            .column("title", type: .text, .notNull)
            .column("url", type: .text, .notNull)
            .run()
        try await db.create(index: "learning_module_links_module").on("learning_module_links").column("module_id").run()

        try await db.create(table: "learning_questions")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("module_id", type: .bigint, .notNull, .references("learning_modules", "id", onDelete: .cascade))
            .column("prompt", type: .text, .notNull)
            .column("explanation", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "learning_questions_module").on("learning_questions").column("module_id").run()

        try await db.create(table: "learning_choices")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("question_id", type: .bigint, .notNull, .references("learning_questions", "id", onDelete: .cascade))
            .column("position", type: .bigint, .notNull)
            .column("text", type: .text, .notNull)
            .column("is_correct", type: Self.boolean, .notNull)
            .run()
        try await db.create(index: "learning_choices_question").on("learning_choices").column("question_id").run()

        // One row per quiz submitted: her score then. Her attempts go with her account.
        try await db.create(table: "learning_attempts")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("module_id", type: .bigint, .notNull, .references("learning_modules", "id", onDelete: .cascade))
            .column("member_id", type: .bigint, .notNull, .references("members", "id", onDelete: .cascade))
            .column("correct_count", type: .bigint, .notNull)
            .column("question_count", type: .bigint, .notNull)
            .column("submitted_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "learning_attempts_member").on("learning_attempts").column("member_id").column("module_id").run()

        try await db.create(table: "learning_video_views")
            .column("video_id", type: .bigint, .notNull, .references("learning_videos", "id", onDelete: .cascade))
            .column("member_id", type: .bigint, .notNull, .references("members", "id", onDelete: .cascade))
            .column("first_watched_at", type: .bigint, .notNull)
            .column("last_watched_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "learning_video_views_once").on("learning_video_views").column("member_id").column("video_id").unique().run()

        // Raised by every change to modules, questions and videos, so the members' listings kept in memory
        // (`LearningCenterCache`) are right whichever server made the change.
        try await db.insert(into: "list_versions").columns("list", "version").values(SQLBind("learning"), SQLBind(Int64(0))).run()
    }
}

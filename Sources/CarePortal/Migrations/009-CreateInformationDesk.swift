import PortalPlatform
import SQLKit

struct CreateInformationDesk: Migration {
    let version = 9
    let name = "CreateInformationDesk"
    private static let boolean = SQLDataType.custom(SQLRaw("BOOLEAN"))

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        // A thread is a member's question; its body is kept as written beside the sanitized HTML and its words.
        try await db.create(table: "desk_threads")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("title", type: .text, .notNull)
            .column("body_source", type: .text, .notNull)
            .column("body_html", type: .text, .notNull)
            .column("body_text", type: .text, .notNull)
            .column("author_member_id", type: .bigint, .notNull, .references("members", "id", onDelete: .cascade))
            .column("is_anonymous", type: Self.boolean, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("last_activity_at", type: .bigint, .notNull)
            // When staff first replied; null while the question waits.
            .column("answered_at", type: .bigint)
            .column("reply_count", type: .int, .notNull, .default(0))
            .column("accepted_reply_id", type: .bigint)
            .column("moderation", type: .text, .notNull, .default("visible"))
            .column("moderation_reason", type: .text)
            .column("hidden_by_flags", type: Self.boolean, .notNull, .default(false))
            .run()
        try await db.create(index: "desk_threads_waiting").on("desk_threads").column("answered_at").column("created_at").run()
        try await db.create(index: "desk_threads_created").on("desk_threads").column("created_at").run()
        try await db.create(index: "desk_threads_activity").on("desk_threads").column("last_activity_at").run()
        // Covers the counts on every list page, so they read this small index instead of every question.
        try await db.create(index: "desk_threads_counts").on("desk_threads")
            .column("moderation").column("answered_at").column("accepted_reply_id").run()
        try await db.create(index: "desk_threads_author").on("desk_threads").column("author_member_id").run()

        try await db.create(table: "desk_replies")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("thread_id", type: .bigint, .notNull, .references("desk_threads", "id", onDelete: .cascade))
            // Exactly one of these two is set: a member or a staff account wrote it.
            .column("author_member_id", type: .bigint, .references("members", "id", onDelete: .cascade))
            .column("author_staff_id", type: .bigint, .references("staff_accounts", "id"))
            .column("body_source", type: .text, .notNull)
            .column("body_html", type: .text, .notNull)
            .column("body_text", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("edited_at", type: .bigint)
            .column("moderation", type: .text, .notNull, .default("visible"))
            .column("moderation_reason", type: .text)
            .column("hidden_by_flags", type: Self.boolean, .notNull, .default(false))
            .run()
        try await db.create(index: "desk_replies_thread").on("desk_replies").column("thread_id").column("id").run()

        // What an edited reply said before, oldest first.
        try await db.create(table: "desk_reply_versions")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("reply_id", type: .bigint, .notNull, .references("desk_replies", "id", onDelete: .cascade))
            .column("body_source", type: .text, .notNull)
            .column("body_html", type: .text, .notNull)
            .column("replaced_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "desk_reply_versions_reply").on("desk_reply_versions").column("reply_id").column("id").run()

        // `post` is "question:ID" or "reply:ID"; a member flags a post once.
        try await db.create(table: "desk_flags")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("post", type: .text, .notNull)
            .column("thread_id", type: .bigint, .notNull, .references("desk_threads", "id", onDelete: .cascade))
            .column("reply_id", type: .bigint, .references("desk_replies", "id", onDelete: .cascade))
            .column("member_id", type: .bigint, .notNull, .references("members", "id", onDelete: .cascade))
            .column("reason", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("resolved_at", type: .bigint)
            .unique("post", "member_id")
            .run()
        try await db.create(index: "desk_flags_open").on("desk_flags").column("resolved_at").column("post").run()

        // A member's feed: replies to her questions, accepted answers, and removals of her posts.
        try await db.create(table: "desk_notifications")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("member_id", type: .bigint, .notNull, .references("members", "id", onDelete: .cascade))
            .column("kind", type: .text, .notNull)
            .column("thread_id", type: .bigint, .notNull, .references("desk_threads", "id", onDelete: .cascade))
            .column("reply_id", type: .bigint, .references("desk_replies", "id", onDelete: .cascade))
            .column("reason", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "desk_notifications_member").on("desk_notifications").column("member_id").column("id").run()

        // Who did what to which post and why; kept when the post itself is gone.
        try await db.create(table: "desk_moderation_log")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("happened_at", type: .bigint, .notNull)
            .column("actor_id", type: .bigint)
            .column("actor_name", type: .text, .notNull)
            .column("action", type: .text, .notNull)
            .column("post", type: .text, .notNull)
            .column("thread_id", type: .bigint, .notNull)
            .column("reason", type: .text, .notNull)
            .run()
        try await db.create(index: "desk_moderation_log_time").on("desk_moderation_log").column("happened_at").run()

        try await db.create(table: "desk_author_reveals")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("thread_id", type: .bigint, .notNull, .references("desk_threads", "id", onDelete: .cascade))
            .column("revealed_by", type: .bigint, .notNull)
            .column("revealed_by_name", type: .text, .notNull)
            .column("reason", type: .text, .notNull)
            .column("revealed_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "desk_author_reveals_thread").on("desk_author_reveals").column("thread_id").run()

        // Medical professionals who switched off the new-question emails.
        try await db.create(table: "desk_email_opt_outs")
            .column("staff_id", type: .bigint, .primaryKey(autoIncrement: false), .references("staff_accounts", "id", onDelete: .cascade))
            .column("since", type: .bigint, .notNull)
            .run()

        // The words of each thread (title, question, visible replies) for full-text search.
        switch engine {
        case .sqlite:
            try await db.raw(
                """
                CREATE VIRTUAL TABLE desk_search USING fts5(title, body, tokenize = 'porter unicode61 remove_diacritics 2')
                """
            ).run()
            try await db.raw(
                """
                CREATE TRIGGER desk_threads_unindex AFTER DELETE ON desk_threads
                BEGIN DELETE FROM desk_search WHERE rowid = old.id; END
                """
            ).run()
        case .postgres:
            try await db.raw(
                """
                CREATE TABLE desk_search (
                    thread_id BIGINT PRIMARY KEY REFERENCES desk_threads(id) ON DELETE CASCADE,
                    document TSVECTOR NOT NULL
                )
                """
            ).run()
            try await db.raw("CREATE INDEX desk_search_document ON desk_search USING GIN (document)").run()
        }
    }
}

import PortalPlatform
import SQLKit

/// `events`, the one table of what members did (see docs/events.md), and the cohorts' chat rooms:
/// their messages and mood posts, members' reports of messages, mutes, and each cohort's retention.
struct CreateEventsAndChat: Migration {
    let version = 17
    let name = "CreateEventsAndChat"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        // Never a member's words: a kind, who and which cohort, when, and a number or a short code.
        try await db.create(table: "events")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("kind", type: .text, .notNull)
            // A deleted member's events stay counted, no longer hers.
            .column("member_id", type: .bigint, .references("members", "id", onDelete: .setNull))
            .column("cohort_id", type: .bigint, .references("cohorts", "id"))
            .column("occurred_at", type: .bigint, .notNull)
            .column("number", type: .bigint)
            .column("label", type: .text)
            // The app's id for an event it sends, so a retried batch is counted once.
            .column("client_id", type: .text)
            .run()
        try await db.create(index: "events_kind_time").on("events").column("kind").column("occurred_at").run()
        try await db.create(index: "events_member_time").on("events").column("member_id").column("occurred_at").run()
        try await db.create(index: "events_client").on("events").column("member_id").column("client_id").unique().run()

        try await db.alter(table: "cohorts").column("chat_retention_hours", type: .bigint).run()

        try await db.create(table: "chat_messages")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("cohort_id", type: .bigint, .notNull, .references("cohorts", "id"))
            // Her messages go with her account.
            .column("member_id", type: .bigint, .notNull, .references("members", "id", onDelete: .cascade))
            .column("kind", type: .text, .notNull)
            .column("body", type: .text, .notNull)
            .column("body_html", type: .text, .notNull)
            .column("mood", type: .text)
            .column("client_id", type: .text, .notNull)
            .column("posted_at", type: .bigint, .notNull)
            .column("removed_at", type: .bigint)
            .column("removed_by", type: .bigint)
            .column("removal_reason", type: .text)
            .run()
        try await db.create(index: "chat_messages_room").on("chat_messages").column("cohort_id").column("id").run()
        try await db.create(index: "chat_messages_posted").on("chat_messages").column("posted_at").run()
        try await db.create(index: "chat_messages_client").on("chat_messages").column("member_id").column("client_id").unique().run()

        try await db.create(table: "chat_reports")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("message_id", type: .bigint, .notNull, .references("chat_messages", "id", onDelete: .cascade))
            .column("member_id", type: .bigint, .notNull, .references("members", "id", onDelete: .cascade))
            .column("reason", type: .text, .notNull)
            .column("reported_at", type: .bigint, .notNull)
            .column("resolved_at", type: .bigint)
            .run()
        try await db.create(index: "chat_reports_once").on("chat_reports").column("message_id").column("member_id").unique().run()
        try await db.create(index: "chat_reports_open").on("chat_reports").column("resolved_at").column("message_id").run()

        try await db.create(table: "chat_mutes")
            .column("member_id", type: .bigint, .primaryKey(autoIncrement: false), .references("members", "id", onDelete: .cascade))
            // Null: until an administrator unmutes her.
            .column("muted_until", type: .bigint)
            .column("muted_at", type: .bigint, .notNull)
            .column("muted_by", type: .bigint, .notNull)
            .column("reason", type: .text, .notNull)
            .run()
    }
}

import PortalPlatform
import SQLKit

/// One notification feed for every app account (replacing the desk's own), each account's choices
/// about it, the phones pushes go to, and the administrators' broadcasts.
struct CreateNotifications: Migration {
    let version = 19
    let name = "CreateNotifications"
    private static let boolean = SQLDataType.custom(SQLRaw("BOOLEAN"))

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "notifications")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            // Any kind of app account: the account's own deletion removes its entries (`Notifications.forget`).
            .column("account_role", type: .text, .notNull)
            .column("account_id", type: .bigint, .notNull)
            .column("kind", type: .text, .notNull)
            .column("message", type: .text, .notNull)
            .column("body", type: .text)
            .column("subject_type", type: .text)
            .column("subject_id", type: .bigint)
            .column("detail_id", type: .bigint)
            .column("reason", type: .text)
            // Entries written once only (a reminder for one occurrence) carry a key; nulls never clash.
            .column("once_key", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .column("read_at", type: .bigint)
            .column("push_status", type: .text, .notNull)
            .column("push_attempts", type: .bigint, .notNull, .default(0))
            .column("push_next_at", type: .bigint, .notNull)
            .column("push_claimed_until", type: .bigint)
            .column("push_error", type: .text)
            .run()
        try await db.create(index: "notifications_feed").on("notifications").column("account_role").column("account_id").column("id").run()
        try await db.create(index: "notifications_once").on("notifications")
            .column("account_role").column("account_id").column("once_key").unique().run()
        try await db.create(index: "notifications_subject").on("notifications").column("subject_type").column("subject_id").run()
        // The unread count and the push sender read only the few rows these conditions keep.
        try await db.raw(
            """
            CREATE INDEX notifications_unread ON notifications (account_role, account_id) WHERE read_at IS NULL
            """
        ).run()
        try await db.raw(
            """
            CREATE INDEX notifications_push_due ON notifications (push_next_at, id) WHERE push_status = 'pending'
            """
        ).run()

        // Only the kinds she switched away from their default.
        try await db.create(table: "notification_choices")
            .column("account_role", type: .text, .notNull)
            .column("account_id", type: .bigint, .notNull)
            .column("kind", type: .text, .notNull)
            .column("enabled", type: Self.boolean, .notNull)
            .primaryKey("account_role", "account_id", "kind")
            .run()
        try await db.create(table: "notification_settings")
            .column("account_role", type: .text, .notNull)
            .column("account_id", type: .bigint, .notNull)
            .column("reminder_lead_minutes", type: .bigint, .notNull)
            .column("check_in_minute", type: .bigint, .notNull)
            .primaryKey("account_role", "account_id")
            .run()
        try await db.create(table: "push_devices")
            .column("token", type: .text, .primaryKey(autoIncrement: false))
            .column("platform", type: .text, .notNull)
            .column("account_role", type: .text, .notNull)
            .column("account_id", type: .bigint, .notNull)
            .column("registered_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "push_devices_account").on("push_devices").column("account_role").column("account_id").run()

        // The desk's entries move into the one feed, keeping their ids so the app's cursors stay right.
        try await db.raw(
            """
            INSERT INTO notifications (id, account_role, account_id, kind, message, subject_type, subject_id, detail_id, reason,
                created_at, read_at, push_status, push_attempts, push_next_at)
            SELECT id, 'member', member_id, kind,
                CASE kind WHEN 'reply' THEN 'Someone replied to your question.'
                          WHEN 'accepted_answer' THEN 'Your question has an accepted answer.'
                          ELSE 'A moderator removed one of your posts.' END,
                'thread', thread_id, reply_id, reason, created_at, created_at, 'skipped', 0, created_at
            FROM desk_notifications
            """
        ).run()
        if engine == .postgres {
            try await db.raw(
                """
                SELECT setval(pg_get_serial_sequence('notifications', 'id'), GREATEST((SELECT COALESCE(MAX(id), 0) FROM notifications), 1))
                """
            ).run()
        }
        try await db.drop(table: "desk_notifications").run()

        try await db.create(table: "broadcasts")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("title", type: .text, .notNull)
            .column("body", type: .text, .notNull)
            // Null: to every member; otherwise the cohorts in `broadcast_cohorts`.
            .column("to_everyone", type: Self.boolean, .notNull)
            .column("send_at", type: .bigint, .notNull)
            .column("status", type: .text, .notNull)
            .column("recipient_count", type: .bigint)
            .column("sent_at", type: .bigint)
            .column("created_by", type: .bigint)
            .column("created_by_name", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("cancelled_at", type: .bigint)
            .run()
        try await db.create(index: "broadcasts_due").on("broadcasts").column("status").column("send_at").run()
        try await db.create(table: "broadcast_cohorts")
            .column("broadcast_id", type: .bigint, .notNull, .references("broadcasts", "id", onDelete: .cascade))
            .column("cohort_id", type: .bigint, .notNull, .references("cohorts", "id", onDelete: .cascade))
            .primaryKey("broadcast_id", "cohort_id")
            .run()

        // Chat activity is told to a cohort at most once a quiet period.
        try await db.alter(table: "cohorts").column("chat_told_at", type: .bigint).run()
    }
}

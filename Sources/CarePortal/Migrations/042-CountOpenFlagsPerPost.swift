import PortalPlatform
import SQLKit

/// Each flagged post's open flags, kept as flags are raised, reviewed and erased with a member
/// (`DeskRepository.addFlag`, `resolveFlags`, `uncountFlags`), so that the moderation queue reads its page in order from an
/// index instead of grouping every open flag on every request.
struct CountOpenFlagsPerPost: Migration {
    let version = 42
    let name = "CountOpenFlagsPerPost"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "desk_flagged_posts")
            .column("post", type: .text, .primaryKey(autoIncrement: false))
            .column("thread_id", type: .bigint, .notNull, .references("desk_threads", "id", onDelete: .cascade))
            .column("reply_id", type: .bigint, .references("desk_replies", "id", onDelete: .cascade))
            .column("open_flags", type: .int, .notNull)
            .column("first_at", type: .bigint, .notNull)
            .run()
        try await db.raw("CREATE INDEX desk_flagged_posts_queue ON desk_flagged_posts (open_flags DESC, first_at, post)").run()
        try await Self.countFlags(on: db)
    }

    /// Counts every post's open flags into the new table.
    static func countFlags(on db: any SQLDatabase) async throws {
        try await db.raw(
            """
            INSERT INTO desk_flagged_posts (post, thread_id, reply_id, open_flags, first_at)
            SELECT post, MIN(thread_id), MIN(reply_id), COUNT(*), MIN(created_at) FROM desk_flags WHERE resolved_at IS NULL GROUP BY post
            """
        ).run()
    }
}

import PortalPlatform
import SQLKit

/// The flagged posts are read a page at a time by seeking (`DeskRepository.flaggedPosts`), most-flagged first,
/// then the longest flagged. Seeking needs every key to run the same way, so the open flags are negated in a
/// column the engine keeps (`flag_rank`, generated from `open_flags`) and indexed `(flag_rank, first_at, post)`:
/// the row value of a page's last post then seeks straight to the next page, which an index on the expression
/// did not give SQLite. It replaces migration 42's index of `(open_flags DESC, first_at, post)`.
struct IndexFlagQueueForSeeking: Migration {
    let version = 51
    let name = "IndexFlagQueueForSeeking"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        // SQLite adds only a virtual generated column to a table that exists; PostgreSQL keeps only stored ones.
        let kept = engine == .postgres ? "STORED" : "VIRTUAL"
        try await db.raw("ALTER TABLE desk_flagged_posts ADD COLUMN flag_rank INTEGER GENERATED ALWAYS AS (0 - open_flags) \(unsafeRaw: kept)").run()
        try await db.drop(index: "desk_flagged_posts_queue").run()
        try await db.create(index: "desk_flagged_posts_queue").on("desk_flagged_posts").column("flag_rank").column("first_at").column("post").run()
    }
}

import PortalPlatform
import SQLKit

/// On PostgreSQL, each thread's search words move from `desk_search` into the thread's own row
/// (`desk_threads.search_document`, NULL while the thread is hidden or removed). A search then finds
/// its threads' rows straight from the words' index, instead of looking each match up in
/// `desk_threads` one by one to filter and sort it: a common word matched a few hundred threads and
/// the look-ups were most of the search's time. SQLite keeps its FTS5 table, whose matches it looks up
/// in the same process for far less.
struct MoveDeskSearchIntoThreads: Migration {
    let version = 14
    let name = "MoveDeskSearchIntoThreads"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        guard engine == .postgres else { return }
        try await db.raw("ALTER TABLE desk_threads ADD COLUMN search_document TSVECTOR").run()
        try await db.raw(
            """
            UPDATE desk_threads SET search_document = s.document FROM desk_search s WHERE s.thread_id = desk_threads.id
            """
        ).run()
        try await db.raw("CREATE INDEX desk_threads_search ON desk_threads USING GIN (search_document)").run()
        try await db.raw("DROP TABLE desk_search").run()
    }
}

import PortalPlatform
import SQLKit

/// `desk_threads.replies_version`, which the database raises whenever anything a thread's replies
/// show changes, whatever code changes it: a reply added, changed or removed, or the pseudonym,
/// avatar, username or role of someone who replied. A thread's replies can be kept under the version
/// they were read at (`DeskRepliesCache`) and are never shown once it has moved on, on any server.
struct AddDeskRepliesVersion: Migration {
    let version = 13
    let name = "AddDeskRepliesVersion"

    /// A table whose rows the replies show, and the threads whose replies show a given row of it.
    private struct Watched: Sendable {
        let table: String
        let threads: @Sendable (_ row: String) -> String
        /// Only changes to these columns are seen by replies (nil: every change): members' and staff
        /// accounts' other columns change often (last seen, password) and leave the replies alone.
        var columns: [String]? = nil
        /// False where a new row cannot have replies yet and removing one removes its replies first
        /// (members) or is refused while it has any (staff accounts).
        var insertsAndDeletes = true
    }

    private static let watched = [
        Watched(table: "desk_replies", threads: { row in "id = \(row).thread_id" }),
        Watched(
            table: "members",
            threads: { row in "id IN (SELECT thread_id FROM desk_replies WHERE author_member_id = \(row).id)" },
            columns: ["pseudonym", "avatar"],
            insertsAndDeletes: false
        ),
        Watched(
            table: "staff_accounts",
            threads: { row in "id IN (SELECT thread_id FROM desk_replies WHERE author_staff_id = \(row).id)" },
            columns: ["username", "role"],
            insertsAndDeletes: false
        ),
        Watched(
            table: "staff_profiles",
            threads: { row in "id IN (SELECT thread_id FROM desk_replies WHERE author_staff_id = \(row).account_id)" },
            columns: ["avatar"]
        )
    ]

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.alter(table: "desk_threads").column("replies_version", type: .bigint, .notNull, .default(0)).run()
        // The triggers find a member's or staff account's replies by author.
        try await db.create(index: "desk_replies_member").on("desk_replies").column("author_member_id").run()
        try await db.create(index: "desk_replies_staff").on("desk_replies").column("author_staff_id").run()
        for watched in Self.watched {
            switch engine {
            case .sqlite: try await sqliteTriggers(watched, db)
            case .postgres: try await postgresTriggers(watched, db)
            }
        }
    }

    private func bump(_ threads: String) -> String {
        "UPDATE desk_threads SET replies_version = replies_version + 1 WHERE \(threads);"
    }

    private func sqliteTriggers(_ watched: Watched, _ db: any SQLDatabase) async throws {
        let table = watched.table
        let changed = watched.columns.map { columns in "WHEN " + columns.map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR ") }
        try await db.raw(
            """
            CREATE TRIGGER \(ident: table + "_replies_changed") AFTER UPDATE ON \(ident: table) \(unsafeRaw: changed ?? "")
            BEGIN \(unsafeRaw: bump(watched.threads("OLD"))) \(unsafeRaw: bump(watched.threads("NEW"))) END
            """
        ).run()
        guard watched.insertsAndDeletes else { return }
        try await db.raw(
            """
            CREATE TRIGGER \(ident: table + "_replies_added") AFTER INSERT ON \(ident: table)
            BEGIN \(unsafeRaw: bump(watched.threads("NEW"))) END
            """
        ).run()
        try await db.raw(
            """
            CREATE TRIGGER \(ident: table + "_replies_removed") AFTER DELETE ON \(ident: table)
            BEGIN \(unsafeRaw: bump(watched.threads("OLD"))) END
            """
        ).run()
    }

    private func postgresTriggers(_ watched: Watched, _ db: any SQLDatabase) async throws {
        let table = watched.table
        let function = table + "_replies_changed"
        try await db.raw(
            """
            CREATE FUNCTION \(ident: function)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP IN ('UPDATE', 'DELETE') THEN \(unsafeRaw: bump(watched.threads("OLD"))) END IF;
                IF TG_OP IN ('INSERT', 'UPDATE') THEN \(unsafeRaw: bump(watched.threads("NEW"))) END IF;
                RETURN NULL;
            END $$
            """
        ).run()
        let changed = watched.columns.map { columns in
            "WHEN (" + columns.map { "OLD.\($0) IS DISTINCT FROM NEW.\($0)" }.joined(separator: " OR ") + ")"
        }
        try await db.raw(
            """
            CREATE TRIGGER \(ident: table + "_replies_changed") AFTER UPDATE ON \(ident: table)
            FOR EACH ROW \(unsafeRaw: changed ?? "") EXECUTE FUNCTION \(ident: function)()
            """
        ).run()
        guard watched.insertsAndDeletes else { return }
        try await db.raw(
            """
            CREATE TRIGGER \(ident: table + "_replies_added_or_removed") AFTER INSERT OR DELETE ON \(ident: table)
            FOR EACH ROW EXECUTE FUNCTION \(ident: function)()
            """
        ).run()
    }
}

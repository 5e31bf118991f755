import PortalPlatform
import SQLKit

/// `list_versions`, one row per list the portal keeps pages of, and the information desk's row
/// (`desk`), which the database raises whenever anything a page of the desk's list shows or counts
/// may have changed, whatever code or server changed it: a question added, changed, answered,
/// moderated or removed (a reply changes its question's row too: its activity, its count and its
/// replies version), or an asker's pseudonym or avatar. Pages of the list and the counts on its tabs
/// are kept under the version they were read at (`DeskListCache`) and are never shown once it has
/// moved on, on any server.
///
/// On PostgreSQL the row is raised once for each transaction that changes any of these, when it
/// commits (a deferred trigger), the last lock it takes: two transactions that change questions in
/// opposite orders never wait for each other's version row while holding a question the other wants.
struct AddDeskListVersion: Migration {
    let version = 15
    let name = "AddDeskListVersion"

    static let bump = "UPDATE list_versions SET version = version + 1 WHERE list = 'desk';"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "list_versions")
            .column("list", type: .text, .primaryKey(autoIncrement: false))
            .column("version", type: .bigint, .notNull)
            .run()
        try await db.insert(into: "list_versions").columns("list", "version").values(SQLBind("desk"), SQLBind(Int64(0))).run()
        let askerChanged = ["pseudonym", "avatar"]
        switch engine {
        case .sqlite:
            for (event, name) in [("INSERT", "added"), ("UPDATE", "changed"), ("DELETE", "removed")] {
                try await db.raw(
                    """
                    CREATE TRIGGER \(ident: "desk_threads_list_" + name) AFTER \(unsafeRaw: event) ON desk_threads
                    BEGIN \(unsafeRaw: Self.bump) END
                    """
                ).run()
            }
            try await db.raw(
                """
                CREATE TRIGGER members_desk_list_changed AFTER UPDATE ON members
                WHEN \(unsafeRaw: askerChanged.map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR "))
                BEGIN \(unsafeRaw: Self.bump) END
                """
            ).run()
        case .postgres:
            // Constraint triggers fire for each row; once a transaction has raised the version, the rest
            // of its rows leave it alone (the setting lasts until the transaction ends).
            try await db.raw(
                """
                CREATE FUNCTION desk_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF current_setting('careportal.desk_list_raised', true) = 'yes' THEN RETURN NULL; END IF;
                    PERFORM set_config('careportal.desk_list_raised', 'yes', true);
                    \(unsafeRaw: Self.bump)
                    RETURN NULL;
                END $$
                """
            ).run()
            try await db.raw(
                """
                CREATE CONSTRAINT TRIGGER desk_threads_list_changed AFTER INSERT OR UPDATE OR DELETE ON desk_threads
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION desk_list_changed()
                """
            ).run()
            try await db.raw(
                """
                CREATE CONSTRAINT TRIGGER members_desk_list_changed AFTER UPDATE ON members
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
                WHEN (\(unsafeRaw: askerChanged.map { "OLD.\($0) IS DISTINCT FROM NEW.\($0)" }.joined(separator: " OR ")))
                EXECUTE FUNCTION desk_list_changed()
                """
            ).run()
        }
    }
}

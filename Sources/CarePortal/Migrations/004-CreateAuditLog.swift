import PortalPlatform
import SQLKit

struct CreateAuditLog: Migration {
    let version = 4
    let name = "CreateAuditLog"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "audit_log")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("occurred_at", type: .bigint, .notNull)
            .column("actor_account_id", type: .bigint)
            .column("actor_role", type: .text)
            .column("actor_name", type: .text)
            .column("action", type: .text, .notNull)
            .column("record_type", type: .text)
            .column("record_id", type: .text)
            .column("outcome", type: .text, .notNull)
            .column("address", type: .text)
            .column("user_agent", type: .text)
            .column("detail", type: .text)
            .run()
        try await db.create(index: "audit_log_time").on("audit_log").column("occurred_at").run()
        try await db.create(index: "audit_log_actor").on("audit_log").column("actor_account_id").column("occurred_at").run()
        try await db.create(index: "audit_log_action").on("audit_log").column("action").column("occurred_at").run()

        // The database itself refuses to change or remove an audit row, whatever code asks.
        switch engine {
        case .sqlite:
            try await db.raw(
                """
                CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
                BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END
                """
            ).run()
            try await db.raw(
                """
                CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
                BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END
                """
            ).run()
        case .postgres:
            try await db.raw(
                """
                CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$
                """
            ).run()
            try await db.raw(
                """
                CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
                FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()
                """
            ).run()
            try await db.raw(
                """
                CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
                FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()
                """
            ).run()
        }
    }
}

import PortalPlatform
import SQLKit

/// The two logs filtered by who acted, read from an index in the list's order at any depth: the
/// moderation log by the moderator's account (`actor_id IS NULL` for hiding by members' flags), and the
/// audit log by the name an entry was written under, in any case (`lowercased(_:equals:)`); and staff
/// accounts by the start of their email address, in any case, as by the start of their username, and
/// counted by status (the physicians waiting for approval, on every staff list page).
struct IndexLogsByPerson: Migration {
    let version = 36
    let name = "IndexLogsByPerson"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(index: "desk_moderation_log_actor").on("desk_moderation_log")
            .column("actor_id").column("happened_at").column("id").run()
        try await db.raw("CREATE INDEX audit_log_actor_name ON audit_log (LOWER(actor_name), occurred_at, id)").run()
        try await db.raw("CREATE INDEX staff_accounts_email_folded ON staff_accounts (LOWER(email))").run()
        try await db.create(index: "staff_accounts_status").on("staff_accounts").column("status").run()
    }
}

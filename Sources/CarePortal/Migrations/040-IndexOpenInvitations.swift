import PortalPlatform
import SQLKit

/// The invitations still open (neither accepted nor revoked), newest first, which the medical professionals'
/// page lists above the accounts, read from an index of those alone rather than from every invitation ever
/// sent: one was accepted for each member of staff, so the table grows with the staff.
struct IndexOpenInvitations: Migration {
    let version = 40
    let name = "IndexOpenInvitations"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.raw(
            """
            CREATE INDEX staff_invitations_open ON staff_invitations (created_at, id) WHERE accepted_at IS NULL AND revoked_at IS NULL
            """
        ).run()
    }
}

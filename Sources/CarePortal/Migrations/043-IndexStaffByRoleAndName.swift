import PortalPlatform
import SQLKit

/// One role's staff accounts in username order (the medical professionals' list, the staff accounts page
/// filtered to a role), read in that order from this index. Without it SQLite read every account of the
/// role from the role's index and sorted them for the first page (59 ms with 100,000 medical
/// professionals), while the pages after it walked the usernames' index.
struct IndexStaffByRoleAndName: Migration {
    let version = 43
    let name = "IndexStaffByRoleAndName"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(index: "staff_accounts_role_username").on("staff_accounts").column("role").column("username_key").column("id").run()
    }
}

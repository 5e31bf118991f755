import PortalPlatform
import SQLKit

/// Old `?page=N` bookmarks skip rows on an index alone, and the help directory's crisis-lines-first order is
/// read from one.
///
/// - One role's staff accounts in username order hold only the accounts not deleted (the only ones a list
///   shows), so skipping 50,000 medical professionals reads the index without opening each account to see
///   whether it was deleted (PostgreSQL 104 → 26 ms for that skip). It replaces migration 43's index.
/// - The help directory by name is indexed with the id that ends its order, where the name alone left each
///   run of equal names to be sorted (87 → 21 ms to skip 50,000 entries).
/// - Its kind order (`HelpDirectoryRepository.kindOrder`, written out here as it was when this ran, which a
///   test holds it to) is indexed as an expression, so the list by kind seeks to its page rather than ranking
///   and sorting every entry.
struct IndexListsForOldPageLinks: Migration {
    let version = 44
    let name = "IndexListsForOldPageLinks"

    static let helpKindOrder =
        "CASE kind WHEN 'crisis_line' THEN 0 WHEN 'helpline' THEN 1 WHEN 'treatment_locator' THEN 2 WHEN 'care_location' THEN 3 WHEN 'website' THEN 4 ELSE 99 END"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.drop(index: "staff_accounts_role_username").run()
        try await db.raw("CREATE INDEX staff_accounts_role_username_kept ON staff_accounts (role, username_key, id) WHERE deleted_at IS NULL").run()
        try await db.drop(index: "help_resources_name").run()
        try await db.create(index: "help_resources_name_id").on("help_resources").column("name_key").column("id").run()
        try await db.raw("CREATE INDEX help_resources_kind_order ON help_resources ((\(unsafeRaw: Self.helpKindOrder)), name_key, id)").run()
    }
}

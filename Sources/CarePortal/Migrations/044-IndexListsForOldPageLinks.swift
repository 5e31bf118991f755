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
/// - Its kind order (`HelpDirectoryRepository.kindOrderSQL`, written out here as it was when this ran, which a
///   test holds it to) is indexed as an expression, so the list by kind seeks to its page rather than ranking
///   and sorting every entry.
/// - A question's written answers, newest first, are indexed without the answers that hold no text (the
///   choices of the survey's other questions), so skipping them reads no answer rows.
/// - Pharmacy customers in name order carry their email key in the index, so a search for the start of a
///   name or address tests each customer on the index alone, as it walks the names to a page. PostgreSQL
///   is also given statistics on the lowered names: without them it guessed a few hundred matches for a
///   common start of a name where there were 40,000, and scanned and sorted the whole table instead.
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
        try await db.drop(index: "pharmacy_customers_name_id").run()
        try await db.create(index: "pharmacy_customers_name_email").on("pharmacy_customers")
            .column("last_name").column("first_name").column("id").column("email_key").run()
        if engine == .postgres {
            try await db.raw("CREATE STATISTICS pharmacy_customers_last_name_folded ON (LOWER(last_name)) FROM pharmacy_customers").run()
            try await db.raw("CREATE STATISTICS pharmacy_customers_first_name_folded ON (LOWER(first_name)) FROM pharmacy_customers").run()
        }
        try await db.raw("CREATE INDEX survey_answers_written ON survey_answers (question_id, id) WHERE text IS NOT NULL").run()
        try await db.raw("CREATE INDEX help_resources_kind_order ON help_resources ((\(unsafeRaw: Self.helpKindOrder)), name_key, id)").run()
    }
}

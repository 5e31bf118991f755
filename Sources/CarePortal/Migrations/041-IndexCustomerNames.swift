import PortalPlatform
import SQLKit

/// The pharmacy's search for a customer by the start of her name reads a range of each of these indexes,
/// and of her email address's (`PharmacyRepository.findCustomers`), rather than testing every customer's
/// names.
struct IndexCustomerNames: Migration {
    let version = 41
    let name = "IndexCustomerNames"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.raw("CREATE INDEX pharmacy_customers_last_name_key ON pharmacy_customers (LOWER(last_name))").run()
        try await db.raw("CREATE INDEX pharmacy_customers_first_name_key ON pharmacy_customers (LOWER(first_name))").run()
    }
}

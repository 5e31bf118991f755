import PortalPlatform
import SQLKit

/// A search of the pharmacy's customers by date of birth reads its page, by last name, from this index, where
/// without it the names' index was walked and every customer's date of birth tested to find a handful.
struct IndexCustomersByBirthDate: Migration {
    let version = 52
    let name = "IndexCustomersByBirthDate"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(index: "pharmacy_customers_birth_date").on("pharmacy_customers")
            .column("date_of_birth").column("last_name").column("first_name").column("id").run()
    }
}

import PortalPlatform
import SQLKit

/// The pharmacy's customer search reads this table: every start of every word of each customer's first and last
/// names and of her email address before the "@" (`WordStarts`), with her names as the list sorts them, indexed
/// `(word_start, last_name, first_name, customer_id)`, so that a search reads its page in the list's order from
/// one range of the index, and counts there, where `LIKE 'mar%'` on three columns tested every customer in
/// turn. The rows of the customers already registered are written here; `PharmacyRepository` keeps them with
/// each change of her names or address after that.
struct IndexCustomersByWord: Migration {
    let version = 49
    let name = "IndexCustomersByWord"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.createSearchTable(
            "pharmacy_customer_words",
            column: "word_start",
            owner: "customer_id",
            references: "pharmacy_customers",
            copied: [("last_name", .text), ("first_name", .text)],
            order: ["last_name", "first_name"]
        )
        let repository = PharmacyRepository()
        try await db.forEachBatch(of: "pharmacy_customers", columns: ["first_name", "last_name", "email"]) { rows in
            for row in rows {
                try await repository.setSearchWords(
                    customerID: try row.decode(column: "id", as: Int64.self),
                    firstName: try row.decode(column: "first_name", as: String.self),
                    lastName: try row.decode(column: "last_name", as: String.self),
                    email: try row.decode(column: "email", as: String.self),
                    on: db
                )
            }
        }
    }
}

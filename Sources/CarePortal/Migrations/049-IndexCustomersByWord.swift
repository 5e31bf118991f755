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
        try await db.create(table: "pharmacy_customer_words")
            .column("word_start", type: .text, .notNull)
            .column("customer_id", type: .bigint, .notNull, .references("pharmacy_customers", "id", onDelete: .cascade))
            .column("last_name", type: .text, .notNull)
            .column("first_name", type: .text, .notNull)
            .primaryKey("word_start", "customer_id")
            .run()
        try await db.create(index: "pharmacy_customer_words_start").on("pharmacy_customer_words")
            .column("word_start").column("last_name").column("first_name").column("customer_id").run()
        try await db.create(index: "pharmacy_customer_words_customer").on("pharmacy_customer_words").column("customer_id").run()
        let repository = PharmacyRepository()
        var after: Int64 = 0
        while true {
            let rows = try await db.select().columns("id", "first_name", "last_name", "email").from("pharmacy_customers")
                .where("id", .greaterThan, after).orderBy("id").limit(500).all()
            guard let last = rows.last else { break }
            for row in rows {
                try await repository.setSearchWords(
                    customerID: try row.decode(column: "id", as: Int64.self), firstName: try row.decode(column: "first_name", as: String.self),
                    lastName: try row.decode(column: "last_name", as: String.self), email: try row.decode(column: "email", as: String.self), on: db
                )
            }
            after = try last.decode(column: "id", as: Int64.self)
        }
    }
}

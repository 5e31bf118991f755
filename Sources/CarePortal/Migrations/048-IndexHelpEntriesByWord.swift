import PortalPlatform
import SQLKit

/// The help directory's name search reads this table: every start of every word of each entry's name
/// (`WordStarts`), with the entry's name key, kind and nationwide flag, so that a search finds its page in
/// the list's order on one index (`help_resource_words_start`), filtered by kind or state as it goes, and
/// counts its matches there. `LIKE '%…%'` on the names tested every entry. The rows of the entries already
/// in the directory are written here; `HelpDirectoryRepository` keeps them with each entry after that.
struct IndexHelpEntriesByWord: Migration {
    let version = 48
    let name = "IndexHelpEntriesByWord"
    private static let boolean = SQLDataType.custom(SQLRaw("BOOLEAN"))

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "help_resource_words")
            .column("word_start", type: .text, .notNull)
            .column("resource_id", type: .bigint, .notNull, .references("help_resources", "id", onDelete: .cascade))
            .column("name_key", type: .text, .notNull)
            .column("kind", type: .text, .notNull)
            .column("nationwide", type: Self.boolean, .notNull)
            .primaryKey("word_start", "resource_id")
            .run()
        try await db.create(index: "help_resource_words_start").on("help_resource_words")
            .column("word_start").column("name_key").column("resource_id").run()
        try await db.create(index: "help_resource_words_entry").on("help_resource_words").column("resource_id").run()
        let repository = HelpDirectoryRepository()
        var after: Int64 = 0
        while true {
            let rows = try await db.select().columns("id", "name", "kind", "nationwide").from("help_resources")
                .where("id", .greaterThan, after).orderBy("id").limit(500).all()
            guard let last = rows.last else { break }
            for row in rows {
                try await repository.setWords(
                    of: try row.decode(column: "id", as: Int64.self), name: try row.decode(column: "name", as: String.self),
                    kind: try row.decode(column: "kind", as: String.self), nationwide: try row.decode(column: "nationwide", as: Bool.self),
                    on: db
                )
            }
            after = try last.decode(column: "id", as: Int64.self)
        }
    }
}

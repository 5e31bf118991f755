import PortalPlatform
import SQLKit

/// The help directory's name search and state filter each read a table of their own, kept with each entry by
/// `HelpDirectoryRepository`, so that a page of either is found in the list's order on one index:
///
/// - `help_resource_words`: every start of every word of each entry's name (`WordStarts`), indexed
///   `(word_start, name_key, resource_id)`, where `LIKE '%…%'` on the names tested every entry;
/// - `help_resource_reach`: each state whose members see the entry, every state for a nationwide one, indexed
///   `(state, name_key, resource_id)`, where the filter walked the names testing each entry's states.
///
/// Both carry the entry's name key and kind, so the kind filter applies as the index is read. The rows of the
/// entries already in the directory are written here.
struct IndexHelpEntriesByWordAndState: Migration {
    let version = 48
    let name = "IndexHelpEntriesByWordAndState"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        let copied: [(String, SQLDataType)] = [("name_key", .text), ("kind", .text)]
        try await db.createSearchTable(
            "help_resource_words", column: "word_start", owner: "resource_id", references: "help_resources", copied: copied, order: ["name_key"]
        )
        try await db.createSearchTable(
            "help_resource_reach", column: "state", owner: "resource_id", references: "help_resources", copied: copied, order: ["name_key"]
        )
        let repository = HelpDirectoryRepository()
        try await db.forEachBatch(of: "help_resources", columns: ["name", "kind"]) { rows in
            let ids = try rows.map { try $0.decode(column: "id", as: Int64.self) }
            var states: [Int64: [String]] = [:]
            for row in try await db.select().columns("resource_id", "state").from("help_resource_states").where("resource_id", .in, ids).all() {
                states[try row.decode(column: "resource_id", as: Int64.self), default: []].append(try row.decode(column: "state", as: String.self))
            }
            for (id, row) in zip(ids, rows) {
                try await repository.setSearchRows(
                    of: id, name: try row.decode(column: "name", as: String.self), kind: try row.decode(column: "kind", as: String.self),
                    states: states[id] ?? [], on: db
                )
            }
        }
    }
}

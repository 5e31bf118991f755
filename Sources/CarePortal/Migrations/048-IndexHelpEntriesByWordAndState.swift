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
            "help_resource_words",
            column: "word_start",
            owner: "resource_id",
            references: "help_resources",
            copied: copied,
            order: ["name_key"]
        )
        try await db.createSearchTable(
            "help_resource_reach",
            column: "state",
            owner: "resource_id",
            references: "help_resources",
            copied: copied,
            order: ["name_key"]
        )
        try await db.forEachBatch(of: "help_resources", columns: ["name", "kind"]) { rows in
            let ids = try rows.map { try $0.decode(column: "id", as: Int64.self) }
            var states: [Int64: [String]] = [:]
            for row in try await db.select().columns("resource_id", "state").from("help_resource_states").where("resource_id", .in, ids).all() {
                states[try row.decode(column: "resource_id", as: Int64.self), default: []].append(try row.decode(column: "state", as: String.self))
            }
            // The rows as this version's tables hold them (migration 58 adds each row's program later).
            for (id, row) in zip(ids, rows) {
                let name = try row.decode(column: "name", as: String.self), chosen = states[id] ?? []
                let copied: [(String, any Encodable & Sendable)] = [
                    ("name_key", HelpDirectoryRepository.nameKey(name)), ("kind", try row.decode(column: "kind", as: String.self))
                ]
                try await db.replaceSearchRows(
                    in: "help_resource_words",
                    column: "word_start",
                    values: WordStarts.starts(of: name).sorted(),
                    owner: "resource_id",
                    id: id,
                    copied: copied
                )
                try await db.replaceSearchRows(
                    in: "help_resource_reach",
                    column: "state",
                    values: chosen.isEmpty ? USState.all.sorted() : chosen,
                    owner: "resource_id",
                    id: id,
                    copied: copied
                )
            }
        }
    }
}

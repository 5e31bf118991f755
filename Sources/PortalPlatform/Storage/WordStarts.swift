import SQLKit

/// How a list finds a name by the words typed into its search box: every word typed must be the start of
/// one of the name's words ("lake clin" finds "Lakeview Women's Clinic"). A list keeps every start of every
/// word of each name in a table of its own, indexed with the list's order, so that a search reads one
/// range of that index in the list's order however long the list is, where `LIKE '%…%'` tested every name.
package enum WordStarts {
    /// The words of `text` as a search compares them: composed, lower case, split at anything that is not
    /// a letter or a digit ("Women's" is "women" and "s").
    package static func words(of text: String) -> [String] {
        var seen = Set<String>()
        return text.precomposedStringWithCanonicalMapping.lowercased()
            .split(whereSeparator: { !($0.isLetter || $0.isNumber) })
            .map(String.init)
            .filter { seen.insert($0).inserted }
    }

    /// Every start of every word of `text`, each once: "Oak Clinic" gives o, oa, oak, c, cl, … clinic.
    package static func starts(of text: String) -> Set<String> {
        var starts = Set<String>()
        for word in words(of: text) {
            var start = ""
            for character in word {
                start.append(character)
                starts.insert(start)
            }
        }
        return starts
    }
}

extension SQLDatabase {
    /// Creates a table a list searches or filters by, as `replaceSearchRows` writes it: `column` and the owner's
    /// id (its rows deleted with the owner) as its key, the `copied` columns beside them, indexed
    /// `(column, order…, owner)` so a search reads its page in the list's order, and by the owner for rewrites.
    package func createSearchTable(
        _ table: String,
        column: String,
        owner: String,
        references ownerTable: String,
        copied: [(String, SQLDataType)],
        order: [String]
    ) async throws {
        let create = create(table: table).column(column, type: .text, .notNull)
            .column(owner, type: .bigint, .notNull, .references(ownerTable, "id", onDelete: .cascade))
        for (name, type) in copied { create.column(name, type: type, .notNull) }
        try await create.primaryKey(column, owner).run()
        let ordered = self.create(index: "\(table)_order").on(table).column(column)
        for name in order + [owner] { ordered.column(name) }
        try await ordered.run()
        try await self.create(index: "\(table)_owner").on(table).column(owner).run()
    }

    /// Calls `body` with the rows of `table`, `columns` of each, a batch at a time in the order of their ids:
    /// a migration that writes something for every row never holds the whole table.
    package func forEachBatch(of table: String, columns: [String], size: Int = 500, _ body: ([any SQLRow]) async throws -> Void) async throws {
        var after: Int64 = 0
        while true {
            let rows = try await select().columns(["id"] + columns).from(table).where("id", .greaterThan, after).orderBy("id").limit(size).all()
            guard let last = rows.last else { return }
            try await body(rows)
            after = try last.decode(column: "id", as: Int64.self)
        }
    }

    /// Replaces one item's rows in a table a list searches or filters by (its word starts, the states an entry
    /// reaches): a row for each of `values` in `column`, beside the item's id in `owner` and the `copied`
    /// columns the list sorts and filters by, written a hundred rows a statement.
    package func replaceSearchRows(
        in table: String,
        column: String,
        values: [String],
        owner: String,
        id: Int64,
        copied: [(String, any Encodable & Sendable)] = []
    ) async throws {
        try await delete(from: table).where(SQLIdentifier(owner), .equal, SQLBind(id)).run()
        for start in stride(from: 0, to: values.count, by: 100) {
            let insert = insert(into: table).columns([column, owner] + copied.map(\.0))
            for value in values[start..<min(start + 100, values.count)] {
                insert.values([SQLBind(value), SQLBind(id)] + copied.map { SQLBind($0.1) })
            }
            try await insert.run()
        }
    }
}

extension SQLSelectBuilder {
    /// Reads a table of word starts (written by `replaceSearchRows`) as the list's own rows: its owner column
    /// named `id` beside the `copied` columns the list sorts and filters by, the rows of the longest word typed
    /// read from the table's index `(word_start, …)` in the list's order, and each other word looked up for the
    /// items found. Nothing matches when no word was typed.
    @discardableResult
    package func fromWordStarts(_ words: [String], table: String, owner: String, copied: [String]) -> SQLSelectBuilder {
        let columns: [any SQLExpression] =
            [SQLIdentifier("word_start"), SQLAlias(SQLIdentifier(owner), as: SQLIdentifier("id"))]
            + copied.map { SQLIdentifier($0) }
        from(SQLAlias(SQLGroupExpression(SQLQueryString("SELECT \(SQLList(columns)) FROM \(ident: table)")), as: SQLIdentifier(table)))
        guard let longest = words.max(by: { $0.count < $1.count }) else { return `where`(SQLLiteral.boolean(false)) }
        `where`("word_start", .equal, longest)
        for word in words where word != longest {
            `where`(SQLQueryString("id IN (SELECT \(ident: owner) FROM \(ident: table) WHERE word_start = \(bind: word))"))
        }
        return self
    }
}

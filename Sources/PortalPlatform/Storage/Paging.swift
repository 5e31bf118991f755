import SQLKit

/// Which slice of a long list a person asked for.
public struct PageRequest: Sendable, Hashable {
    public static let defaultSize = 25
    public var number: Int
    public var size: Int

    public init(number: Int, size: Int = PageRequest.defaultSize) {
        self.number = max(1, number)
        self.size = min(max(1, size), 200)
    }

    package var offset: Int { (number - 1) * size }
}

/// One slice of a list and how long the whole list is.
public struct PageOf<Item: Sendable>: Sendable {
    public var items: [Item]
    public var totalCount: Int
    public var request: PageRequest

    public var pageCount: Int { max(1, (totalCount + request.size - 1) / request.size) }
    public var firstIndex: Int { totalCount == 0 ? 0 : request.offset + 1 }
    public var lastIndex: Int { request.offset + items.count }

    package init(items: [Item], totalCount: Int, request: PageRequest) {
        self.items = items
        self.totalCount = totalCount
        self.request = request
    }
}

extension String {
    /// A `LIKE` pattern that finds `self` anywhere, with `%`, `_` and `\` taken literally (used with `ESCAPE '\'`).
    package var containsPattern: String {
        let escaped = self.lowercased()
            .replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        return "%\(escaped)%"
    }
}

/// `LOWER(column) LIKE pattern ESCAPE '\'`, the same on both engines.
package func lowercased(_ column: String, contains text: String) -> SQLQueryString {
    "LOWER(\(ident: column)) LIKE \(bind: text.containsPattern) ESCAPE '\\'"
}

extension SQLDatabase {
    /// How many rows of `table` the filter keeps.
    package func count(in table: String, filter: (SQLSelectBuilder) -> SQLSelectBuilder = { $0 }) async throws -> Int {
        try await filter(select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "count").from(table))
            .first()?.decode(column: "count", as: Int.self) ?? 0
    }

    /// One page of `table`: counts every row `filter` keeps, then reads the requested slice in `order`.
    package func page<Item: Sendable>(
        of table: String, _ request: PageRequest, columns: [String] = ["*"],
        filter: (SQLSelectBuilder) -> SQLSelectBuilder, order: (SQLSelectBuilder) -> SQLSelectBuilder,
        decode: (any SQLRow) throws -> Item
    ) async throws -> PageOf<Item> {
        let total = try await count(in: table, filter: filter)
        let rows = try await order(filter(select().columns(columns).from(table)))
            .limit(request.size).offset(request.offset)
            .all()
        return PageOf(items: try rows.map(decode), totalCount: total, request: request)
    }
}

import Crypto
import Foundation
import SQLKit

/// Where in a long list a page starts.
public enum PagePosition: Sendable, Hashable {
    case first
    /// A page by its number: the apps' feeds, and old `?page=N` links to a staff list (those within
    /// `PageRequest.countLimit` rows, so a bookmark near the top keeps working).
    case number(Int)
    /// The rows after this one, in the list's order.
    case after(PageCursor)
    /// The rows before this one: the previous page, found by seeking the other way.
    case before(PageCursor)
    case last
}

/// Which slice of a long list a person asked for.
public struct PageRequest: Sendable, Hashable {
    public static let defaultSize = 25
    /// Lists count their rows only up to this many, so a count costs the same at any size: past it a
    /// list says "more than 1,000", which is all a person paging through it needs (a cohort's or a
    /// program's exact size is on its own page).
    public static let countLimit = 1_000
    public var position: PagePosition
    public var size: Int

    public init(number: Int, size: Int = PageRequest.defaultSize) {
        self.init(number > 1 ? .number(number) : .first, size: size)
    }

    public init(_ position: PagePosition, size: Int = PageRequest.defaultSize) {
        self.position = position
        self.size = min(max(1, size), 200)
    }

    /// The page number of a list paged by number (the members' and patients' apps' feeds); 1 otherwise.
    /// At most `numberLimit`, so any number typed into an address gives an offset that fits.
    public var number: Int {
        if case .number(let number) = position { return min(max(1, number), Self.numberLimit) }
        return 1
    }

    /// A page number past any list's end (ten million pages of at most 200 rows).
    public static let numberLimit = 10_000_000

    package var offset: Int { (number - 1) * size }

    /// Whether the page starts within the rows a list counts. An old `?page=N` link to a staff list opens
    /// by its number only then: further in, skipping to the page costs as much as reading every row before
    /// it, more for each page deeper, where a list's own links (a cursor, or `?page=last`) cost what its
    /// first page does.
    package var startsWithinCountedRows: Bool { offset < Self.countLimit }
}

/// An old `?page=N` link past the page numbers lists still open (`PageRequest.startsWithinCountedRows`): a 410 page
/// that links to the list's first and last pages, with its search, filters and sort.
public struct OldPageLinkBeyondReach: Error, Sendable {
    public let number: Int
    public let firstPath: String
    public let lastPath: String

    public init(number: Int, firstPath: String, lastPath: String) {
        self.number = number
        self.firstPath = firstPath
        self.lastPath = lastPath
    }
}

/// A link that has been changed or belongs to another order of the list: shown as a 400 page.
public struct DamagedPageLink: Error, Sendable {
    public init() {}
}

/// The row a page starts after or ends before: its sort values (the id last) and its place in the list.
///
/// It travels in links as `base64url(JSON).check`, where `check` is the start of the JSON's SHA-256, so
/// a damaged or edited link is refused rather than read as another place. It is not a secret and opens
/// nothing: every filter and access check still applies to the rows it seeks to.
public struct PageCursor: Sendable, Hashable {
    public enum Value: Sendable, Hashable, Codable {
        case integer(Int64)
        case text(String)

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int64.self) { self = .integer(number) } else { self = .text(try container.decode(String.self)) }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .integer(let number): try container.encode(number)
            case .text(let text): try container.encode(text)
            }
        }

        var bind: SQLBind {
            switch self {
            case .integer(let number): SQLBind(number)
            case .text(let text): SQLBind(text)
            }
        }
    }

    /// The list order it was made in (`ListOrder.signature`).
    public var order: String
    public var values: [Value]
    /// The row's place in the list, counting from 1; 0 when it is not known.
    public var index: Int

    public init(order: String, values: [Value], index: Int) {
        self.order = order
        self.values = values
        self.index = index
    }

    private struct Wire: Codable {
        var o: String
        var v: [Value]
        var n: Int
    }

    /// The form used in links: the JSON Foundation's encoder writes for `Wire` with sorted keys, written
    /// here directly (a list page makes two of these, and the encoder cost more than the page's query).
    public var token: String {
        var json: [UInt8] = []
        json.reserveCapacity(64)
        json.append(contentsOf: #"{"n":"#.utf8)
        json.append(contentsOf: String(index).utf8)
        json.append(contentsOf: #","o":"#.utf8)
        APIJSONWriter.writeString(order, to: &json, escapingSlashes: true)
        json.append(contentsOf: #","v":["#.utf8)
        for (position, value) in values.enumerated() {
            if position > 0 { json.append(UInt8(ascii: ",")) }
            switch value {
            case .integer(let number): json.append(contentsOf: String(number).utf8)
            case .text(let text): APIJSONWriter.writeString(text, to: &json, escapingSlashes: true)
            }
        }
        json.append(contentsOf: "]}".utf8)
        return Self.base64URL(json) + "." + Self.check(json)
    }

    /// The same, through Foundation's encoder: what `token` must equal, for the tests.
    package var foundationToken: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = (try? encoder.encode(Wire(o: order, v: values, n: index))) ?? Data()
        return Self.base64URL(json) + "." + Self.check(json)
    }

    /// Reads a link's cursor; throws `DamagedPageLink` for anything that was not made by `token`.
    public init(token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 2_000, parts.count == 2,
            let json = Self.data(base64URL: String(parts[0])), Self.check(json) == parts[1],
            let wire = try? JSONDecoder().decode(Wire.self, from: json), wire.n >= 0, !wire.v.isEmpty
        else { throw DamagedPageLink() }
        self.init(order: wire.o, values: wire.v, index: wire.n)
    }

    private static func check(_ json: some DataProtocol) -> String {
        base64URL(Array(SHA256.hash(data: json).prefix(6)))
    }

    private static let base64URLAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Base64 with `-` and `_` for `+` and `/`, and no padding.
    private static func base64URL(_ bytes: some Collection<UInt8>) -> String {
        let alphabet = base64URLAlphabet
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[Int(buffer >> UInt32(bits) & 0x3F)])
            }
        }
        if bits > 0 { out.append(alphabet[Int(buffer << UInt32(6 - bits) & 0x3F)]) }
        return String(decoding: out, as: UTF8.self)
    }

    private static func data(base64URL text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard base64.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "/" }) else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

/// One column (or expression) a list is ordered by, read back from each row for the cursor.
package struct SortKey: Sendable {
    package enum Kind: Sendable { case integer, text }
    package let expression: any SQLExpression
    /// The name the value has in each selected row.
    package let resultColumn: String
    package let kind: Kind

    package init(_ expression: any SQLExpression, resultColumn: String, kind: Kind) {
        self.expression = expression
        self.resultColumn = resultColumn
        self.kind = kind
    }

    /// A column of `table` (or of the only table), read back under its own name.
    package static func integer(_ column: String, table: String? = nil) -> SortKey {
        SortKey(SQLColumn(column, table: table), resultColumn: column, kind: .integer)
    }

    package static func text(_ column: String, table: String? = nil) -> SortKey {
        SortKey(SQLColumn(column, table: table), resultColumn: column, kind: .text)
    }
}

/// How a list is ordered: its keys, ending with one that is unique (the id), all in one direction, so
/// `(keys) > (cursor's values)` seeks straight to a page on an index with the same columns.
package struct ListOrder: Sendable {
    package let name: String
    package let keys: [SortKey]
    package let descending: Bool

    package init(_ name: String, keys: [SortKey], descending: Bool) {
        self.name = name
        self.keys = keys
        self.descending = descending
    }

    /// Written into cursors, so a cursor made in one order is not used in another.
    package var signature: String { "\(name).\(descending ? "desc" : "asc")" }

    fileprivate func cursor(for row: any SQLRow, index: Int) throws -> PageCursor {
        PageCursor(
            order: signature,
            values: try keys.map { key in
                switch key.kind {
                case .integer: .integer(try row.decode(column: key.resultColumn, as: Int64.self))
                case .text: .text(try row.decode(column: key.resultColumn, as: String.self))
                }
            },
            index: index
        )
    }

    /// The last key: the id, unique in the list.
    fileprivate var idKey: any SQLExpression { keys[keys.count - 1].expression }

    /// Orders `builder` by the keys, all one way.
    fileprivate func sort(_ builder: SQLSelectBuilder, descending: Bool) {
        let direction = descending ? SQLDirection.descending : SQLDirection.ascending
        for key in keys { builder.orderBy(key.expression, direction) }
    }

    /// The cursor's values, checked against this order's keys.
    fileprivate func values(of cursor: PageCursor) throws -> [SQLBind] {
        guard cursor.order == signature, cursor.values.count == keys.count else { throw DamagedPageLink() }
        return try zip(keys, cursor.values).map { key, value in
            switch (key.kind, value) {
            case (.integer, .integer), (.text, .text): value.bind
            default: throw DamagedPageLink()
            }
        }
    }
}

/// One slice of a list, how long the whole list is (as far as it was counted), and where its neighbours start.
public struct PageOf<Item: Sendable>: Sendable {
    public var items: [Item]
    /// Every row the filters keep, or `PageRequest.countLimit + 1` when there are more than that.
    public var totalCount: Int
    public var request: PageRequest
    public var hasPrevious: Bool
    public var hasNext: Bool
    /// The first item's place in the whole list, counting from 1; nil when not known.
    public var startIndex: Int?
    /// The first and last items' cursors, for the previous and next pages; nil for a list paged by number.
    public var firstCursor: PageCursor?
    public var lastCursor: PageCursor?

    /// True when the list was counted to the end.
    public var totalIsExact: Bool { totalCount <= PageRequest.countLimit }
    /// How many rows the list has, in words: "240", or "more than 1,000" when it was not counted to the end.
    public var totalText: String {
        totalIsExact ? "\(totalCount)" : "more than \(PageRequest.countLimit.formatted(.number.grouping(.automatic)))"
    }
    public var pageCount: Int { max(1, (totalCount + request.size - 1) / request.size) }
    public var firstIndex: Int { items.isEmpty ? 0 : startIndex ?? 0 }
    public var lastIndex: Int { items.isEmpty ? 0 : (startIndex ?? 1) + items.count - 1 }

    /// A page of a list paged by number, counted to the end.
    package init(items: [Item], totalCount: Int, request: PageRequest) {
        self.items = items
        self.totalCount = totalCount
        self.request = request
        hasPrevious = request.number > 1
        hasNext = request.offset + items.count < totalCount
        startIndex = request.offset + 1
    }

    /// The same page with each item made into something else (a row read further with another query).
    package func replacingItems<Other: Sendable>(_ items: [Other]) -> PageOf<Other> {
        PageOf<Other>(
            items: items,
            totalCount: totalCount,
            request: request,
            hasPrevious: hasPrevious,
            hasNext: hasNext,
            startIndex: startIndex,
            firstCursor: firstCursor,
            lastCursor: lastCursor
        )
    }

    package init(
        items: [Item],
        totalCount: Int,
        request: PageRequest,
        hasPrevious: Bool,
        hasNext: Bool,
        startIndex: Int?,
        firstCursor: PageCursor?,
        lastCursor: PageCursor?
    ) {
        self.items = items
        self.totalCount = totalCount
        self.request = request
        self.hasPrevious = hasPrevious
        self.hasNext = hasNext
        self.startIndex = startIndex
        self.firstCursor = firstCursor
        self.lastCursor = lastCursor
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

/// `LOWER(column) = LOWER(text)`: the same fold on both sides, so each engine compares by its own `LOWER`
/// (SQLite folds only ASCII letters), and an index on `LOWER(column)` serves it.
package func lowercased(_ column: String, equals text: String) -> SQLQueryString {
    "LOWER(\(ident: column)) = LOWER(\(bind: text))"
}

/// `expression` starts with `prefix` (already folded as the expression is): a range an index on the
/// expression reads directly, where `LIKE` would read every row.
package func startsWith(_ expression: any SQLExpression, _ prefix: String) -> SQLQueryString {
    "(\(expression) >= \(bind: prefix) AND \(expression) < \(bind: prefix + "\u{10FFFF}"))"
}

extension SQLDatabase {
    /// How many rows of `table` the filter keeps.
    package func count(in table: String, filter: (SQLSelectBuilder) -> SQLSelectBuilder = { $0 }) async throws -> Int {
        try await filter(select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "count").from(table))
            .first()?.decode(column: "count", as: Int.self) ?? 0
    }

    /// The `linked` ids of each of `owners` in the link table `table` (its `owner` column), in order:
    /// the cohorts of a page of surveys or broadcasts in one statement rather than one for each.
    package func linkedIDs(_ linked: String, in table: String, by owner: String, for owners: [Int64]) async throws -> [Int64: [Int64]] {
        guard !owners.isEmpty else { return [:] }
        var found: [Int64: [Int64]] = [:]
        for row in try await select().column(owner).column(linked).from(table).where(SQLIdentifier(owner), .in, SQLBind.group(owners))
            .orderBy(owner).orderBy(linked).all()
        {
            found[try row.decode(column: owner, as: Int64.self), default: []].append(try row.decode(column: linked, as: Int64.self))
        }
        return found
    }

    /// How many rows of `table` each of `owners` has in its `owner` column (those with none left out), in
    /// one statement: the questions of a page of modules, the responses to a page of surveys. Counted for
    /// the page's rows together rather than by a subquery in each row, for which PostgreSQL plans once
    /// for any owner and, when one owner holds most rows, reads the whole table for every row.
    package func counts(in table: String, by owner: String, for owners: [Int64]) async throws -> [Int64: Int] {
        guard !owners.isEmpty else { return [:] }
        var counts: [Int64: Int] = [:]
        for row in try await select().column(owner).column(SQLFunction("COUNT", args: SQLLiteral.all), as: "count").from(table)
            .where(SQLIdentifier(owner), .in, SQLBind.group(owners)).groupBy(owner).all()
        {
            counts[try row.decode(column: owner, as: Int64.self)] = try row.decode(column: "count", as: Int.self)
        }
        return counts
    }
}

extension SQLDatabase {
    /// One page of a list, found by seeking on its order rather than skipping rows, so a page deep in the
    /// list costs what the first does (given an index on the filter's columns, then the order's keys).
    /// `SeekQuery` says what each argument does.
    package func seek<Item: Sendable>(
        _ request: PageRequest,
        order: ListOrder,
        columns: [any SQLExpression] = [SQLLiteral.all],
        rows: @escaping (SQLSelectBuilder) -> SQLSelectBuilder,
        counted: ((SQLSelectBuilder) -> SQLSelectBuilder)? = nil,
        idsFirst: ((SQLSelectBuilder) -> SQLSelectBuilder)? = nil,
        decode: @escaping (any SQLRow) throws -> Item
    ) async throws -> PageOf<Item> {
        let query = SeekQuery(database: self, order: order, columns: columns, rows: rows, counted: counted, idsFirst: idsFirst, decode: decode)
        return try await query.page(request)
    }
}

/// How the pages of one list are read: each page by seeking on the list's order (`ListOrder`) from a
/// cursor, so any page costs what the first does, with the list's rows counted up to
/// `PageRequest.countLimit` in the same statement.
///
/// - `rows` adds the table, joins and filters to a select; it is called for each statement this makes.
/// - `counted`, when given, is the same rows under the same table names without the joins that only add
///   columns: what the count and an old page number's skipped rows read.
/// - `idsFirst` reads the page "ids first": it adds the list's own table (under the name the order's keys
///   use) and its filters, without joins, and the page's ids (the order's last key) are sought on that
///   table's index alone; only those rows are then read with `rows`'s joins. Without it, a planner that
///   cannot take the rows in the list's order from one index (filters on several values of a column, a
///   join it misjudges) joins every row the filters keep before it sorts and cuts the page.
///
/// An old page number skips rows with `OFFSET` on the page's ids alone (`idsFirst`, else `counted`, else
/// `rows`), and only the page's rows are then read whole; the links it shows move on by cursor.
package struct SeekQuery<Item: Sendable> {
    package let database: any SQLDatabase
    package let order: ListOrder
    package let columns: [any SQLExpression]
    package let rows: (SQLSelectBuilder) -> SQLSelectBuilder
    package let counted: ((SQLSelectBuilder) -> SQLSelectBuilder)?
    package let idsFirst: ((SQLSelectBuilder) -> SQLSelectBuilder)?
    package let decode: (any SQLRow) throws -> Item

    /// The column each row of a counted reading carries the list's count in.
    private static var totalColumn: String { "page_total_count" }

    /// The page `request` asks for.
    package func page(_ request: PageRequest) async throws -> PageOf<Item> {
        switch request.position {
        case .first: try await first(request)
        case .number: try await numbered(request)
        case .after(let cursor): try await after(cursor, request)
        case .before(let cursor): try await before(cursor, request)
        case .last: try await last(request)
        }
    }

    // MARK: The pages

    private func first(_ request: PageRequest) async throws -> PageOf<Item> {
        let found = try await read(Reading(size: request.size))
        return try page(
            found.prefix(request.size),
            request,
            total: try total(of: found),
            hasPrevious: false,
            hasNext: found.count > request.size,
            startIndex: 1
        )
    }

    /// A page by its number; past the list's end, its last page.
    private func numbered(_ request: PageRequest) async throws -> PageOf<Item> {
        let offset = request.offset
        // Rows found past the limit: the list holds more than the limit now, with no need to count.
        let found = try await read(Reading(size: request.size, offset: offset, counting: request.startsWithinCountedRows))
        if found.isEmpty && offset > 0 { return try await last(request) }
        return try page(
            found.prefix(request.size),
            request,
            total: try total(of: found),
            hasPrevious: offset > 0,
            hasNext: found.count > request.size,
            startIndex: offset + 1
        )
    }

    /// The rows after `cursor`; when nothing is after it any more (the rows were deleted), the list's last page.
    private func after(_ cursor: PageCursor, _ request: PageRequest) async throws -> PageOf<Item> {
        // A cursor past the limit's place: the list held more than the limit when its page was shown, as
        // the place this page shows ("Showing 1,001 to …") also takes from it.
        let found = try await read(Reading(size: request.size, cursor: cursor, counting: cursor.index < PageRequest.countLimit))
        if found.isEmpty { return try await last(request) }
        return try page(
            found.prefix(request.size),
            request,
            total: try total(of: found),
            hasPrevious: true,
            hasNext: found.count > request.size,
            startIndex: cursor.index > 0 ? cursor.index + 1 : nil
        )
    }

    /// The rows before `cursor`, sought backwards; fewer than a page before it is the start of the list,
    /// shown as a full first page.
    private func before(_ cursor: PageCursor, _ request: PageRequest) async throws -> PageOf<Item> {
        let size = request.size
        let found = try await read(Reading(size: size, backwards: true, cursor: cursor, counting: cursor.index <= PageRequest.countLimit))
        if found.count < size { return try await first(PageRequest(.first, size: size)) }
        let hasPrevious = found.count > size
        return try page(
            found.prefix(size).reversed(),
            request,
            total: try total(of: found),
            hasPrevious: hasPrevious,
            hasNext: true,
            startIndex: !hasPrevious ? 1 : cursor.index > size ? cursor.index - size : nil
        )
    }

    private func last(_ request: PageRequest) async throws -> PageOf<Item> {
        let found = try await read(Reading(size: request.size, backwards: true))
        let shown = found.prefix(request.size).reversed()
        let total = try total(of: found)
        return try page(
            shown,
            request,
            total: total,
            hasPrevious: found.count > request.size,
            hasNext: false,
            startIndex: total <= PageRequest.countLimit ? total - shown.count + 1 : nil
        )
    }

    private func page(
        _ shown: some BidirectionalCollection<any SQLRow>,
        _ request: PageRequest,
        total: Int,
        hasPrevious: Bool,
        hasNext: Bool,
        startIndex: Int?
    ) throws -> PageOf<Item> {
        let known = startIndex.map { max(1, $0) }
        return PageOf(
            items: try shown.map(decode),
            totalCount: total,
            request: request,
            hasPrevious: hasPrevious,
            hasNext: hasNext,
            startIndex: known,
            firstCursor: try shown.first.map { try order.cursor(for: $0, index: known ?? 0) },
            lastCursor: try shown.last.map { try order.cursor(for: $0, index: known.map { $0 + shown.count - 1 } ?? 0) }
        )
    }

    /// The list's count, from the first row read; none means the list holds nothing past the filters. Rows
    /// read without their count lie past `PageRequest.countLimit` rows of the list.
    private func total(of found: [any SQLRow]) throws -> Int {
        guard let first = found.first else { return 0 }
        guard first.contains(column: Self.totalColumn) else { return PageRequest.countLimit + 1 }
        return try first.decode(column: Self.totalColumn, as: Int.self)
    }

    // MARK: The statements

    /// One statement's rows: which way, from where, how many skipped, and whether they carry the count.
    private struct Reading {
        var size: Int
        /// Seeking against the list's order, for the rows before a place.
        var backwards = false
        var cursor: PageCursor? = nil
        var offset = 0
        /// False for a page known to lie past the first `PageRequest.countLimit` rows, which says "more than
        /// 1,000" whatever a count would find: counting up to the limit was most of PostgreSQL's time for a
        /// page far down a long list.
        var counting = true
    }

    /// The rows of `reading` in the order it reads them, one more than a page to see past it.
    private func read(_ reading: Reading) async throws -> [any SQLRow] {
        let descending = order.descending != reading.backwards
        let whole = selection(counting: reading.counting)
        if let ids = idFinder(skipping: reading.offset) {
            try narrow(ids, to: reading, descending: descending)
            whole.where(SQLBinaryExpression(order.idKey, .in, SQLGroupExpression(ids.select)))
            order.sort(whole, descending: descending)
        } else {
            try narrow(whole, to: reading, descending: descending)
        }
        return try await whole.all()
    }

    /// The list's columns, with its count as a column of each row when `counting`.
    private func selection(counting: Bool) -> SQLSelectBuilder {
        let listed = columns.reduce(database.select()) { $0.column($1) }
        guard counting else { return rows(listed) }
        return rows(listed.column(SQLAlias(SQLGroupExpression(countingQuery().select), as: SQLIdentifier(Self.totalColumn))))
    }

    /// Counts the list's rows up to one past `PageRequest.countLimit`. It rides along with the page's rows,
    /// a column of each (a subquery run once), rather than a statement of its own: one round trip fewer to
    /// PostgreSQL for every page of every list.
    private func countingQuery() -> SQLSelectBuilder {
        let bounded = (counted ?? rows)(database.select().column(SQLLiteral.numeric("1"))).limit(PageRequest.countLimit + 1)
        return database.select().column(SQLFunction("COUNT", args: SQLLiteral.all))
            .from(SQLAlias(SQLGroupExpression(bounded.select), as: "counted"))
    }

    /// The statement that finds the page's ids alone, when the page is found that way: with `idsFirst`, or
    /// for rows skipped by an old page number, so that skipping reads the order's index rather than every
    /// skipped row and its joins. Nil when the whole selection finds its page itself.
    private func idFinder(skipping offset: Int) -> SQLSelectBuilder? {
        if let idsFirst { return idsFirst(database.select().column(order.idKey)) }
        guard offset > 0 else { return nil }
        return (counted ?? rows)(database.select().column(order.idKey))
    }

    /// Keeps the rows of `reading` in `finder`: past its cursor, in order, a page and one more, after the
    /// rows it skips.
    private func narrow(_ finder: SQLSelectBuilder, to reading: Reading, descending: Bool) throws {
        if let cursor = reading.cursor {
            let values = try order.values(of: cursor)
            finder.where(
                SQLBinaryExpression(
                    SQLGroupExpression(order.keys.map(\.expression)),
                    descending ? .lessThan : .greaterThan,
                    SQLGroupExpression(values)
                )
            )
            // SQLite seeks on an index by a row value's first column, but not when that is an expression
            // (the help directory's kind order): then it walks the index from its start. The first key's
            // own bound, which the row value implies, gives it the place to start.
            if order.keys.count > 1, !(order.keys[0].expression is SQLColumn) {
                finder.where(order.keys[0].expression, descending ? .lessThanOrEqual : .greaterThanOrEqual, values[0])
            }
        }
        order.sort(finder, descending: descending)
        finder.limit(reading.size + 1)
        if reading.offset > 0 { finder.offset(reading.offset) }
    }
}

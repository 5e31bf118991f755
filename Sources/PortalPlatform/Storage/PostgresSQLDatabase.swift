import Logging
import NIOCore
import PostgresKit
import PostgresNIO
import SQLKit
import Synchronization

/// SQLKit over one leased PostgreSQL connection, keeping each statement it runs prepared on that
/// connection, as `SQLiteHandle` does for SQLite.
///
/// PostgresKit sends every query as an unnamed statement, which PostgreSQL parses and plans on every
/// run; for the portal's short queries that was nine tenths of the server's time per statement
/// (a session check: parse 0.16 ms and bind 0.24 ms against 0.04 ms to execute). Here each statement
/// is named once per connection and later runs only bind and execute, and after a few runs PostgreSQL
/// keeps a generic plan for it when that plan costs no more than planning each time.
///
/// Statements are declared with the types of the values bound to them, as PostgresKit declares them
/// for its unnamed statements (a null value leaves its parameter's type to the server), so a query
/// means the same either way. SQL is written in PostgresKit's dialect and rows fall back on its decoding.
/// Values that are not PostgreSQL types of their own (what PostgresKit encodes as arrays or JSON
/// through `Encodable`) and statements beyond `PreparedSQL.limit` run through PostgresKit unnamed; those
/// of a task that asks for plans made with its values (`StatementPlanning`) run unnamed through
/// PostgresNIO, their rows read as a kept statement's are.
///
/// PostgresNIO prepares statements a connection has not seen, once, on the first run; it keys them by
/// name, so a name always stands for the same SQL with the same parameter types (`PreparedSQL.names`).
package struct PostgresSQLDatabase: SQLDatabase {
    package let connection: PostgresConnection
    /// False while migrating: a schema change can change what a kept `SELECT *` returns, and
    /// PostgreSQL then refuses to run the statement kept before it.
    package let keepsStatements: Bool

    package var logger: Logger { connection.logger }
    package var eventLoop: any EventLoop { connection.eventLoop }
    package var dialect: any SQLDialect { PostgresDialect() }
    package var version: (any SQLDatabaseReportedVersion)? { nil }

    /// PostgresKit's own database over the same connection, for what is not kept prepared.
    private var unnamed: some SQLDatabase { connection.sql(queryLogLevel: nil) }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        eventLoop.makeFutureWithTask { try await execute(sql: query, onRow) }
    }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        guard keepsStatements else { return try await unnamed.execute(sql: query, onRow) }
        let (sql, binds) = serialize(query)
        guard let statement = try PreparedSQL(sql: sql, binds: binds) else {
            return try await unnamed.execute(sql: query, onRow)
        }
        // Every row of a result has the same columns: their names are read once, from the first.
        var columns: [String]?
        let each: (PostgresRow) -> Void = { row in
            let names = columns ?? row.map(\.columnName)
            columns = names
            onRow(Row(row, columns: names))
        }
        if StatementPlanning.withValues {
            try await statement.runUnnamed(on: connection, each)
        } else {
            try await statement.run(on: connection, each)
        }
    }

    package func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }

    /// A row that reads the column types repositories use (integers, text, booleans, doubles and
    /// their optionals) with PostgresNIO's own decoders, as `SQLiteSQLDatabase.Row` does for SQLite.
    /// PostgresKit's rows take every column through a `Decodable` path built for arrays and JSON
    /// (a quarter of the server's time on a 50-reply thread page); anything else, or a value those
    /// decoders refuse, goes to PostgresKit's row, which decodes it or says why not.
    package struct Row: SQLRow {
        private let row: PostgresRow
        private let cells: PostgresRandomAccessRow
        private let columns: [String]

        package init(_ row: PostgresRow, columns: [String]) {
            self.row = row
            cells = row.makeRandomAccess()
            self.columns = columns
        }

        package var allColumns: [String] { columns }

        package func contains(column: String) -> Bool { index(of: column) != nil }

        package func decodeNil(column: String) throws -> Bool {
            guard let index = index(of: column) else { return true }
            return cells[index].bytes == nil
        }

        /// Where the column named `column` is. A row has a few dozen columns at most: comparing names
        /// in order beats hashing the name (PostgresNIO's lookup by name hashed it twice for each
        /// value, a tenth of the thread page's server time).
        private func index(of column: String) -> Int? {
            for index in columns.indices where columns[index] == column { return index }
            return nil
        }

        /// Compared by identity, not looked up as a protocol; nothing wraps a `D` in another generic
        /// type, for the reason `SQLiteSQLDatabase.Row.decode` gives.
        package func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
            if let index = index(of: column) {
                let cell = cells[index]
                if D.self == Int.self, let value = try? cell.decode(Int.self) { return unsafeBitCast(value, to: D.self) }
                if D.self == String.self, let value = try? cell.decode(String.self) { return unsafeBitCast(value, to: D.self) }
                if D.self == Int64.self, let value = try? cell.decode(Int64.self) { return unsafeBitCast(value, to: D.self) }
                if D.self == Bool.self, let value = try? cell.decode(Bool.self) { return unsafeBitCast(value, to: D.self) }
                if D.self == Double.self, cell.dataType == .float8 || cell.dataType == .float4,
                    let value = try? cell.decode(Double.self)
                {
                    return unsafeBitCast(value, to: D.self)
                }
                if D.self == Optionals.int, let value = Self.optional(cell, Int.self) { return unsafeBitCast(value, to: D.self) }
                if D.self == Optionals.string, let value = Self.optional(cell, String.self) { return unsafeBitCast(value, to: D.self) }
                if D.self == Optionals.int64, let value = Self.optional(cell, Int64.self) { return unsafeBitCast(value, to: D.self) }
                if D.self == ByteBuffer.self, let value = try? cell.decode(ByteBuffer.self) { return unsafeBitCast(value, to: D.self) }
            }
            return try row.sql().decode(column: column, as: D.self)
        }

        /// The cell as a `T?` (nil for NULL), or nil when PostgresNIO's decoder refuses it.
        private static func optional<T: PostgresDecodable>(_ cell: PostgresCell, _ type: T.Type) -> T?? {
            guard cell.bytes != nil else { return .some(nil) }
            return (try? cell.decode(T.self)).map { .some($0) }
        }
    }

    package init(connection: PostgresConnection, keepsStatements: Bool) {
        self.connection = connection
        self.keepsStatements = keepsStatements
    }
}

/// One run of a kept statement: its name, SQL, parameter types and the values bound this time.
///
/// PostgresNIO's prepared statements are types whose SQL is known when the program is compiled
/// (`PostgresPreparedStatement`'s `name`, `sql` and `bindingDataTypes` are static). SQLKit's are
/// built at run time, so this one type stands for all of them: its static properties read the
/// statement the current task is running (`current`, bound by `run` around the call, which reads
/// them in the calling task).
package struct PreparedSQL: PostgresPreparedStatement {
    package typealias Row = PostgresRow

    /// What a statement is prepared as on a connection.
    package struct Declaration: Hashable, Sendable {
        package let sql: String
        package let types: [PostgresDataType]

        package init(sql: String, types: [PostgresDataType]) {
            self.sql = sql
            self.types = types
        }
    }

    /// How many distinct statements are kept (on each connection, at most this many): SQL that
    /// differs only in a literal is a statement of its own, so past this, new ones run unnamed.
    package static let limit = 1_000

    /// The name each declaration was given, process-wide, so that a name never stands for two, and
    /// how many names were ever given.
    private static let names = Mutex<(current: [Declaration: String], given: Int)>(([:], 0))

    @TaskLocal private static var current: (name: String, declaration: Declaration)?

    package static var name: String { current?.name ?? "" }
    package static var sql: String { current?.declaration.sql ?? "" }
    package static var bindingDataTypes: [PostgresDataType] { current?.declaration.types ?? [] }

    private let name: String
    private let declaration: Declaration
    private let bindings: PostgresBindings

    /// The statement for `sql` with `binds`, or nil when it is to run unnamed: a value PostgresKit
    /// would encode through `Encodable`, or no name left to give.
    package init?(sql: String, binds: [any Encodable & Sendable]) throws {
        var bindings = PostgresBindings(capacity: binds.count)
        var types: [PostgresDataType] = []
        types.reserveCapacity(binds.count)
        for bind in binds {
            if Self.isNil(bind) {
                bindings.appendNull()
                types.append(.null)
            } else if let value = bind as? any PostgresThrowingDynamicTypeEncodable {
                try bindings.append(value, context: .default)
                types.append(value.psqlType)
            } else {
                return nil
            }
        }
        let declaration = Declaration(sql: sql, types: types)
        guard let name = Self.name(for: declaration) else { return nil }
        self.name = name
        self.declaration = declaration
        self.bindings = bindings
    }

    private static func isNil(_ value: any Encodable & Sendable) -> Bool {
        guard let optional = value as? any OptionalValue else { return false }
        return optional.isNone
    }

    private static func name(for declaration: Declaration) -> String? {
        names.withLock { names in
            if let name = names.current[declaration] { return name }
            guard names.given < limit else { return nil }
            names.given += 1
            let name = "careportal_\(names.given)"
            names.current[declaration] = name
            return name
        }
    }

    /// Failures after which a connection may keep refusing the statement under its name: PostgresNIO
    /// remembers a preparation that failed (as in a transaction an earlier error aborted), and
    /// PostgreSQL will not run a kept statement whose columns a schema change altered.
    private static let failuresThatStick: Set<String> = [
        "25P02", // in_failed_sql_transaction
        "0A000" // feature_not_supported: "cached plan must not change result type"
    ]

    /// Runs the statement on `connection` (preparing it there first if it is new to it), calling
    /// `onRow` for each row. After a failure that could stick to the name, the statement is given a
    /// new one, so the next run prepares it again.
    package func run(on connection: PostgresConnection, _ onRow: (PostgresRow) -> Void) async throws {
        do {
            try await Self.$current.withValue((name, declaration)) {
                for try await row in try await connection.execute(self, logger: connection.logger) {
                    onRow(row)
                }
            }
        } catch let error as PSQLError {
            if let state = error.serverInfo?[.sqlState], Self.failuresThatStick.contains(state) {
                Self.names.withLock { names in
                    if names.current[declaration] == name { names.current[declaration] = nil }
                }
            }
            throw error
        }
    }

    /// Runs the statement unnamed, so PostgreSQL plans it for this run's values (`StatementPlanning`),
    /// with its rows read as a kept statement's are.
    package func runUnnamed(on connection: PostgresConnection, _ onRow: (PostgresRow) -> Void) async throws {
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: declaration.sql, binds: bindings), logger: connection.logger) {
            onRow(row)
        }
    }

    package func makeBindings() throws -> PostgresBindings { bindings }

    package func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// Lets a bound value that is an optional say whether it is empty, whatever it wraps.
private protocol OptionalValue {
    var isNone: Bool { get }
}

extension Optional: OptionalValue {
    package var isNone: Bool { self == nil }
}

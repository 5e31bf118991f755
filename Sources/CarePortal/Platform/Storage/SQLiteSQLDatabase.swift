import Logging
import NIOCore
import SQLKit
import SQLiteKit
import SQLiteNIO

/// SQLKit over one SQLite connection, as SQLiteKit's own `sql()` is, with rows that read the column
/// types repositories use (integers, text, booleans, doubles and their optionals) straight from
/// SQLite's values. SQLiteKit's rows look every requested type up as a protocol at run time and
/// decode optionals through `Decodable`; on a list page that was more work than running its queries.
/// Any other type goes through SQLiteKit's decoder, exactly as before.
struct SQLiteSQLDatabase: SQLDatabase {
    let connection: SQLiteConnection
    let queryLogLevel: Logger.Level?

    private static let encoder = SQLiteDataEncoder()
    private static let decoder = SQLiteDataDecoder()

    var eventLoop: any EventLoop { connection.eventLoop }
    var logger: Logger { connection.logger }
    var dialect: any SQLDialect { SQLiteDialect() }
    var version: (any SQLDatabaseReportedVersion)? { connection.sql().version }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        let statement: (sql: String, binds: [SQLiteData])
        do {
            statement = try prepare(query)
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        return connection.query(statement.sql, statement.binds) { onRow(Row(row: $0)) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let statement = try prepare(query)
        try await connection.query(statement.sql, statement.binds) { onRow(Row(row: $0)) }
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }

    private func prepare(_ query: any SQLExpression) throws -> (sql: String, binds: [SQLiteData]) {
        let (sql, binds) = serialize(query)
        if let queryLogLevel {
            logger.log(level: queryLogLevel, "Executing query", metadata: ["sql": .string(sql)])
        }
        return (sql, try binds.map { try Self.encoder.encode($0) })
    }

    /// A column asked for that the query did not select.
    struct MissingColumn: Error, CustomStringConvertible {
        let column: String
        var description: String { "no column \(column) in the row" }
    }

    struct Row: SQLRow {
        let row: SQLiteRow

        var allColumns: [String] { row.columns.map(\.name) }

        func contains(column: String) -> Bool { row.column(column) != nil }

        func decodeNil(column: String) throws -> Bool {
            (row.column(column) ?? .null) == .null
        }

        func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
            guard let data = row.column(column) else { throw MissingColumn(column: column) }
            if let value = Self.direct(data, as: D.self) { return value }
            return try SQLiteSQLDatabase.decoder.decode(D.self, from: data)
        }

        /// The value for the common types, compared by identity rather than looked up as a protocol;
        /// nil for anything else, or a value of another kind, which SQLiteKit's decoder then reports.
        private static func direct<D>(_ data: SQLiteData, as _: D.Type) -> D? {
            if D.self == Int64.self, case .integer(let value) = data { return unsafeBitCast(Int64(value), to: D.self) }
            if D.self == Int.self, case .integer(let value) = data { return unsafeBitCast(value, to: D.self) }
            if D.self == String.self, case .text(let value) = data { return unsafeBitCast(value, to: D.self) }
            if D.self == Int64?.self { return optional(data, Int64.self) }
            if D.self == Int?.self { return optional(data, Int.self) }
            if D.self == String?.self { return optional(data, String.self) }
            if D.self == Bool.self, case .integer(let value) = data { return unsafeBitCast(value != 0, to: D.self) }
            if D.self == Double.self, case .float(let value) = data { return unsafeBitCast(value, to: D.self) }
            return nil
        }

        /// `Optional<Wrapped>` as `D` (the caller has checked they are the same type).
        private static func optional<Wrapped, D>(_ data: SQLiteData, _: Wrapped.Type) -> D? {
            if data == .null { return unsafeBitCast(Wrapped?.none, to: D.self) }
            guard let value = direct(data, as: Wrapped.self) else { return nil }
            return unsafeBitCast(Wrapped?.some(value), to: D.self)
        }
    }
}

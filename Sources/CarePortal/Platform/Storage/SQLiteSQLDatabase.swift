import Logging
import NIOCore
import SQLKit
import SQLiteKit
import SQLiteNIO

/// SQLKit over one of the portal's own SQLite connections (`SQLiteHandle`), with rows that read
/// the column types repositories use (integers, text, booleans, doubles and their optionals) straight
/// from SQLite's values. SQLiteKit's rows look every requested type up as a protocol at run time and
/// decode optionals through `Decodable`; on a list page that was more work than running its queries.
/// Any other type goes through SQLiteKit's decoder. SQL is written in SQLiteKit's dialect and values
/// are bound through its encoder, as with SQLiteKit's own `sql()`.
///
/// Statements run on SQLite's own threads (`SQLiteConnectionPool.threads`), never on the thread that
/// asked: a commit waits for the disk. (Reads run on the calling thread were measured too: more
/// requests a second, but at 16 connections on two cores their slowest hundredth took three times as long.)
struct SQLiteSQLDatabase: SQLDatabase {
    let connection: SQLiteHandle
    let logger: Logger
    let queryLogLevel: Logger.Level?

    private static let encoder = SQLiteDataEncoder()
    private static let decoder = SQLiteDataDecoder()

    var eventLoop: any EventLoop { MultiThreadedEventLoopGroup.singleton.any() }
    var dialect: any SQLDialect { SQLiteDialect() }
    var version: (any SQLDatabaseReportedVersion)? { nil }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        let eventLoop = self.eventLoop
        do {
            let statement = try prepare(query)
            return SQLiteConnectionPool.threads.runIfActive(eventLoop: eventLoop) { try run(statement, onRow) }
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let statement = try prepare(query)
        try await SQLiteConnectionPool.threads.runIfActive { try run(statement, onRow) }
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }

    private func run(_ statement: (sql: String, binds: [SQLiteData]), _ onRow: (any SQLRow) -> Void) throws {
        try connection.run(statement.sql, statement.binds) { onRow(Row(row: $0)) }
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
        let row: SQLiteHandle.Row

        var allColumns: [String] { row.columns }

        func contains(column: String) -> Bool { row.value(column) != nil }

        func decodeNil(column: String) throws -> Bool {
            (row.value(column) ?? .null) == .null
        }

        func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
            guard let data = row.value(column) else { throw MissingColumn(column: column) }
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

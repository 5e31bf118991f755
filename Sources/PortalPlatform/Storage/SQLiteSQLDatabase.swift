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
/// Statements never run on a thread that serves HTTP connections: SQLite's calls block (a commit
/// waits for the disk). A reader's statements run on its own thread (`EventLoopExecutor.sqlite`), where
/// the pool runs the whole read, so they run where they are asked for; the writer's on any free thread
/// of `SQLiteConnectionPool.writerThreads`.
package struct SQLiteSQLDatabase: SQLDatabase {
    package let connection: SQLiteHandle
    /// The reader's own thread; nil for the writer.
    package let thread: EventLoopExecutor?
    package let logger: Logger
    package let queryLogLevel: Logger.Level?

    private static let encoder = SQLiteDataEncoder()
    private static let decoder = SQLiteDataDecoder()

    package var eventLoop: any EventLoop { thread?.eventLoop ?? MultiThreadedEventLoopGroup.singleton.any() }
    package var dialect: any SQLDialect { SQLiteDialect() }
    package var version: (any SQLDatabaseReportedVersion)? { nil }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        let eventLoop = self.eventLoop
        do {
            let statement = try serialized(query)
            return eventLoop.makeFutureWithTask { try await Self.run(on: thread) { try run(statement, onRow) } }
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
    }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let statement = try serialized(query)
        try await Self.run(on: thread) { try run(statement, onRow) }
    }

    /// Runs `work` on `thread`, or on a free writer's thread when there is none.
    package static func run<T: Sendable>(on thread: EventLoopExecutor?, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        if let thread { return try await thread.run(work) }
        return try await SQLiteConnectionPool.writerThreads.runIfActive(work)
    }

    package func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }

    private func run(_ statement: (sql: String, binds: [SQLiteData]), _ onRow: (any SQLRow) -> Void) throws {
        try connection.run(statement.sql, statement.binds) { onRow(Row(row: $0)) }
    }

    private func serialized(_ query: any SQLExpression) throws -> (sql: String, binds: [SQLiteData]) {
        let (sql, binds) = serialize(query)
        if let queryLogLevel {
            logger.log(level: queryLogLevel, "Executing query", metadata: ["sql": .string(sql)])
        }
        return (sql, try binds.map { try Self.encoder.encode($0) })
    }

    /// A column asked for that the query did not select.
    package struct MissingColumn: Error, CustomStringConvertible {
        package let column: String
        package var description: String { "no column \(column) in the row" }

        package init(column: String) {
            self.column = column
        }
    }

    package struct Row: SQLRow {
        package let row: SQLiteHandle.Row

        package var allColumns: [String] { row.columns }

        package func contains(column: String) -> Bool { row.value(column) != nil }

        package func decodeNil(column: String) throws -> Bool {
            (row.value(column) ?? .null) == .null
        }

        /// The common types are read straight from SQLite's value, compared by identity rather than
        /// looked up as a protocol; anything else, or a value of another kind, goes to SQLiteKit's
        /// decoder, which decodes or reports it. Nothing here wraps a `D` in another generic type
        /// (`D?`, `Result`): `decode` is reached through `any SQLRow`, so it is not specialized, and the
        /// runtime would look that type up on every call — a twentieth of a 50-reply thread page.
        package func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
            guard let data = row.value(column) else { throw MissingColumn(column: column) }
            switch data {
            case .integer(let value):
                if D.self == Int64.self { return unsafeBitCast(Int64(value), to: D.self) }
                if D.self == Int.self { return unsafeBitCast(value, to: D.self) }
                if D.self == Bool.self { return unsafeBitCast(value != 0, to: D.self) }
                if D.self == Optionals.int64 { return unsafeBitCast(Int64?.some(Int64(value)), to: D.self) }
                if D.self == Optionals.int { return unsafeBitCast(Int?.some(value), to: D.self) }
            case .text(let value):
                if D.self == String.self { return unsafeBitCast(value, to: D.self) }
                if D.self == Optionals.string { return unsafeBitCast(String?.some(value), to: D.self) }
            case .float(let value):
                if D.self == Double.self { return unsafeBitCast(value, to: D.self) }
            case .null:
                if D.self == Optionals.int64 { return unsafeBitCast(Int64?.none, to: D.self) }
                if D.self == Optionals.int { return unsafeBitCast(Int?.none, to: D.self) }
                if D.self == Optionals.string { return unsafeBitCast(String?.none, to: D.self) }
            case .blob:
                break
            }
            return try SQLiteSQLDatabase.decoder.decode(D.self, from: data)
        }

        package init(row: SQLiteHandle.Row) {
            self.row = row
        }
    }

    package init(connection: SQLiteHandle, thread: EventLoopExecutor? = nil, logger: Logger, queryLogLevel: Logger.Level? = nil) {
        self.connection = connection
        self.thread = thread
        self.logger = logger
        self.queryLogLevel = queryLogLevel
    }
}

/// The optional types rows read directly (`SQLiteSQLDatabase.Row`, `PostgresSQLDatabase.Row`), looked
/// up once rather than on every comparison.
package enum Optionals {
    package static let int64: Any.Type = Int64?.self
    package static let int: Any.Type = Int?.self
    package static let string: Any.Type = String?.self
}

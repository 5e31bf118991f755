import NIOCore
import SQLiteNIO
import VaporCSQLite

/// One connection to the SQLite database file, through the SQLite library SQLiteNIO builds in (the
/// same library every other connection in the process uses, so they share its file locks).
///
/// It keeps each statement it has run prepared: running the same SQL again binds and steps it
/// without parsing and planning it again, which was most of SQLite's time for the portal's short
/// queries. Its calls block; `SQLiteSQLDatabase` makes them on SQLite's own threads.
///
/// Not safe for use by two tasks at once: the pool hands each connection to one at a time.
package final class SQLiteHandle: @unchecked Sendable {
    /// An error SQLite reported, with its (extended) result code and message.
    package struct Failure: Error, CustomStringConvertible {
        package let code: Int32
        package let message: String
        package var description: String { "SQLite error \(code): \(message)" }

        package init(code: Int32, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// A prepared statement and the names of its result columns, read once.
    private struct Statement {
        package let raw: OpaquePointer
        package let columns: [String]

        package init(raw: OpaquePointer, columns: [String]) {
            self.raw = raw
            self.columns = columns
        }
    }

    /// Statements kept per connection. SQL that differs only in a literal (a page's `OFFSET`) is a
    /// statement of its own, so when this many are kept they are all let go and kept afresh.
    package static let statementLimit = 128

    private var raw: OpaquePointer?
    private var statements: [String: Statement] = [:]

    /// SQLite's global set-up, done once before the first connection opens.
    private static let initialized: Bool = sqlite_nio_sqlite3_initialize() == SQLITE_OK

    /// Opens (creating if need be) the database file at `path`; with `mustExist`, a missing file is an
    /// error instead of a new, empty database.
    package init(path: String, mustExist: Bool = false) throws {
        guard Self.initialized else { throw Failure(code: SQLITE_ERROR, message: "SQLite could not be initialized") }
        var handle: OpaquePointer?
        // One task at a time uses a connection, so SQLite's own per-connection mutex is not needed.
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if !mustExist { flags |= SQLITE_OPEN_CREATE }
        let code = sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "cannot open \(path)"
            sqlite_nio_sqlite3_close(handle)
            throw Failure(code: code, message: message)
        }
        raw = handle
    }

    deinit {
        close()
    }

    /// Lets go of every kept statement and closes the connection; it cannot be used afterwards.
    package func close() {
        forgetStatements()
        if let raw { sqlite_nio_sqlite3_close(raw) }
        raw = nil
    }

    /// Runs one statement with its bound values, handing each result row to `onRow`.
    package func run(_ sql: String, _ binds: [SQLiteData], onRow: (Row) throws -> Void) throws {
        var statement = try prepared(sql)
        // Reset (which ends the statement's read of the database) but keep the bound values: every run
        // binds all of them again, and SQLite plans some statements again whenever a value changes (a
        // cleared binding counts as a change), so clearing them would make every run a fresh prepare.
        defer { sqlite_nio_sqlite3_reset(statement.raw) }
        // Every parameter is bound on every run, so none keeps a value from the run before.
        let parameters = Int(sqlite_nio_sqlite3_bind_parameter_count(statement.raw))
        guard binds.count == parameters else {
            throw Failure(code: SQLITE_RANGE, message: "\(binds.count) values for \(parameters) parameters")
        }
        for (index, value) in binds.enumerated() {
            try check(bind(value, at: Int32(index + 1), of: statement.raw))
        }
        var count = Int32(statement.columns.count)
        while true {
            switch sqlite_nio_sqlite3_step(statement.raw) {
            case SQLITE_ROW:
                // A schema change since the statement was kept makes SQLite prepare it again, and
                // `SELECT *` may then have other columns: read their names again.
                if sqlite_nio_sqlite3_column_count(statement.raw) != count {
                    statement = Statement(raw: statement.raw, columns: Self.columnNames(of: statement.raw))
                    statements[sql] = statement
                    count = Int32(statement.columns.count)
                }
                var values: [SQLiteData] = []
                values.reserveCapacity(Int(count))
                for column in 0..<count { values.append(Self.value(of: statement.raw, at: column)) }
                try onRow(Row(columns: statement.columns, values: values))
            case SQLITE_DONE:
                return
            case let code:
                throw failure(code)
            }
        }
    }

    /// Copies this whole database into `destination` with SQLite's online backup API, as it stood at one
    /// commit. Every page is copied in one step, inside one read transaction: in WAL mode that read holds
    /// up no writer, whereas copying a few pages at a time starts over whenever another connection
    /// commits, and under steady writes might never finish.
    package func backup(into destination: SQLiteHandle) throws {
        guard let raw, let target = destination.raw else { throw Failure(code: SQLITE_MISUSE, message: "the connection is closed") }
        guard let backup = sqlite_nio_sqlite3_backup_init(target, "main", raw, "main") else {
            throw destination.failure(sqlite_nio_sqlite3_extended_errcode(target))
        }
        var code: Int32
        var waits = 0
        repeat {
            code = sqlite_nio_sqlite3_backup_step(backup, -1)
            // Busy only while another process recovers the write-ahead log: wait for it, up to ten seconds.
            guard code == SQLITE_BUSY || code == SQLITE_LOCKED, waits < 200 else { break }
            waits += 1
            sqlite_nio_sqlite3_sleep(50)
        } while true
        let finished = sqlite_nio_sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE else {
            throw Failure(code: code, message: sqlite_nio_sqlite3_errstr(code).map { String(cString: $0) } ?? "the backup stopped")
        }
        guard finished == SQLITE_OK else { throw destination.failure(finished) }
    }

    /// How many statements this connection keeps prepared.
    package var preparedCount: Int { statements.count }

    private func prepared(_ sql: String) throws -> Statement {
        if let statement = statements[sql] { return statement }
        guard let raw else { throw Failure(code: SQLITE_MISUSE, message: "the connection is closed") }
        if statements.count >= Self.statementLimit { forgetStatements() }
        var handle: OpaquePointer?
        let code = sqlite_nio_sqlite3_prepare_v3(raw, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK else { throw failure(code) }
        guard let handle else { throw Failure(code: SQLITE_MISUSE, message: "no statement in the SQL given") }
        let statement = Statement(raw: handle, columns: Self.columnNames(of: handle))
        statements[sql] = statement
        return statement
    }

    private static func columnNames(of statement: OpaquePointer) -> [String] {
        (0..<sqlite_nio_sqlite3_column_count(statement)).map { column in
            sqlite_nio_sqlite3_column_name(statement, column).map { String(cString: $0) } ?? ""
        }
    }

    private func forgetStatements() {
        for statement in statements.values { sqlite_nio_sqlite3_finalize(statement.raw) }
        statements.removeAll()
    }

    private func bind(_ value: SQLiteData, at index: Int32, of statement: OpaquePointer) -> Int32 {
        switch value {
        case .integer(let integer):
            sqlite_nio_sqlite3_bind_int64(statement, index, Int64(integer))
        case .float(let double):
            sqlite_nio_sqlite3_bind_double(statement, index, double)
        case .text(let text):
            sqlite_nio_sqlite3_bind_text64(statement, index, text, UInt64(text.utf8.count), Self.transient, UInt8(SQLITE_UTF8))
        case .blob(let buffer):
            buffer.withUnsafeReadableBytes {
                sqlite_nio_sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), Self.transient)
            }
        case .null:
            sqlite_nio_sqlite3_bind_null(statement, index)
        }
    }

    private static func value(of statement: OpaquePointer, at column: Int32) -> SQLiteData {
        switch sqlite_nio_sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            return .integer(Int(sqlite_nio_sqlite3_column_int64(statement, column)))
        case SQLITE_FLOAT:
            return .float(sqlite_nio_sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            // Text first, then its length: asking for the length after the text is what SQLite documents.
            guard let text = sqlite_nio_sqlite3_column_text(statement, column) else { return .text("") }
            let length = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self))
        case SQLITE_BLOB:
            let blob = sqlite_nio_sqlite3_column_blob(statement, column)
            let length = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            return .blob(ByteBuffer(bytes: UnsafeRawBufferPointer(start: blob, count: blob == nil ? 0 : length)))
        default:
            return .null
        }
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw failure(code) }
    }

    private func failure(_ code: Int32) -> Failure {
        let message = raw.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "unknown error"
        return Failure(code: code, message: message)
    }

    /// Tells SQLite to copy a bound value before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// One result row: the statement's column names and this row's values, in order.
    package struct Row: Sendable {
        package let columns: [String]
        package let values: [SQLiteData]

        /// The value of the column named `name`, or nil when the query did not select it.
        package func value(_ name: String) -> SQLiteData? {
            // A row has a few dozen columns at most: comparing names in order beats hashing each one.
            for index in columns.indices where columns[index] == name { return values[index] }
            return nil
        }

        package init(columns: [String], values: [SQLiteData]) {
            self.columns = columns
            self.values = values
        }
    }
}

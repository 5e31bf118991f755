import Foundation
import NIOCore
import SQLiteNIO
import SQLKit
import Synchronization
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Many transactions at once all commit: on SQLite they take turns in memory rather than failing
/// with "database is locked"; a failed one rolls back and lets the next one start.
@Suite struct DatabaseTransactionTests {
    @Test(arguments: TestEngines.all)
    func concurrentTransactionsAllCommitAndAFailedOneLeavesNothing(engine: Database.Engine) async throws {
        struct Abandoned: Error {}
        try await TestPortal.run(engine) { portal in
            let audit = portal.portal.audit
            func event(_ n: Int) -> AuditEvent {
                AuditEvent(actor: .anonymous, action: .accessDenied, recordType: "test", recordID: "\(n)", origin: .commandLine)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 1...30 {
                    group.addTask {
                        do {
                            try await portal.database.transaction { db in
                                try await audit.record(event(n), on: db)
                                if n % 10 == 0 { throw Abandoned() }
                            }
                        } catch is Abandoned {}
                    }
                }
                try await group.waitForAll()
            }
            var query = AuditQuery()
            query.action = .accessDenied
            query.page = PageRequest(number: 1, size: 100)
            let entries = try await portal.database.read { db in try await audit.list(query, on: db) }
            let expected = Set((1...30).filter { $0 % 10 != 0 }.map { "\($0)" })
            #expect(Set(entries.items.compactMap(\.recordID)) == expected)
        }
    }

    private static func event(_ id: String) -> AuditEvent {
        AuditEvent(actor: .anonymous, action: .accessDenied, recordType: "test", recordID: id, origin: .commandLine)
    }

    /// Which of these ids' audit entries are stored, read from another connection.
    private static func stored(_ ids: [String], in portal: TestPortal) async throws -> [String: Bool] {
        var query = AuditQuery()
        query.action = .accessDenied
        query.page = PageRequest(number: 1, size: 100)
        let found = Set(try await portal.database.read { db in try await portal.portal.audit.list(query, on: db) }.items.compactMap(\.recordID))
        return Dictionary(uniqueKeysWithValues: ids.map { ($0, found.contains($0)) })
    }

    /// Runs transaction "a"; while its body runs, starts the others, and on SQLite lets "a" end only
    /// once they all wait in line behind it. Each records its entry, then does `then`.
    private static func inLine(
        _ others: [String],
        in portal: TestPortal,
        then: @escaping @Sendable (String, any SQLDatabase) async throws -> Void
    ) async -> [String: Result<Void, any Error>] {
        let database = portal.database
        let audit = portal.portal.audit
        let outcomes = Mutex<[String: Result<Void, any Error>]>([:])
        let (aRecorded, recorded) = AsyncStream<Void>.makeStream()
        let run: @Sendable (String) async -> Void = { id in
            do {
                try await database.transaction { db in
                    try await audit.record(event(id), on: db)
                    if id == "a" {
                        recorded.yield()
                        if database.engine == .sqlite {
                            while database.waitingWriters < others.count { try await Task.sleep(for: .milliseconds(1)) }
                        }
                    }
                    try await then(id, db)
                }
                outcomes.withLock { $0[id] = .success(()) }
            } catch {
                outcomes.withLock { $0[id] = .failure(error) }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await run("a") }
            for await _ in aRecorded { break }
            for id in others { group.addTask { await run(id) } }
        }
        return outcomes.withLock { $0 }
    }

    /// On SQLite, transactions waiting in line share the commit of the one before them: none is
    /// answered before it, and none is visible to other connections until then.
    @Test func transactionsInLineShareOneCommit() async throws {
        try await TestPortal.run(.sqlite) { portal in
            let seenBefore = Mutex<[String: Bool]>([:])
            let outcomes = await Self.inLine(["b", "c"], in: portal) { id, _ in
                // From another connection: whether "a" was committed when this one ran.
                if id != "a" {
                    let visible = try await Self.stored(["a"], in: portal)["a"] ?? false
                    seenBefore.withLock { $0[id] = visible }
                }
            }
            #expect(outcomes.values.allSatisfy { (try? $0.get()) != nil })
            // The first behind "a" always runs inside a's transaction; the second too unless the first's
            // read took over `sharedAge` (a loaded machine), when it commits and the second starts anew.
            let seen = seenBefore.withLock { $0 }
            #expect(seen.count == 2 && seen.values.contains(false), "a's entry was not yet committed while the next one ran")
            let found = try await Self.stored(["a", "b", "c"], in: portal)
            #expect(found == ["a": true, "b": true, "c": true])
            // The shared transaction ended: the next one starts its own.
            try await portal.database.transaction { db in try await portal.portal.audit.record(Self.event("d"), on: db) }
            let later = try await Self.stored(["d"], in: portal)
            #expect(later == ["d": true])
        }
    }

    /// One that throws in a shared commit is rolled back alone; the others in it are stored.
    @Test(arguments: TestEngines.all)
    func aFailedTransactionInLineLeavesTheOthersStored(engine: Database.Engine) async throws {
        struct Abandoned: Error {}
        try await TestPortal.run(engine) { portal in
            let outcomes = await Self.inLine(["b", "c"], in: portal) { id, _ in
                if id == "b" { throw Abandoned() }
            }
            #expect((try? outcomes["a"]?.get()) != nil && (try? outcomes["c"]?.get()) != nil)
            #expect(throws: Abandoned.self) { try outcomes["b"]?.get() }
            let found = try await Self.stored(["a", "b", "c"], in: portal)
            #expect(found == ["a": true, "b": false, "c": true])
        }
    }

    /// When SQLite has rolled back the whole shared transaction (as it does on a full disk), everyone
    /// waiting for its commit gets that error and nothing of it is stored; the next transaction works.
    @Test func aTransactionLostWholeFailsEveryoneInIt() async throws {
        struct DiskGone: Error {}
        try await TestPortal.run(.sqlite) { portal in
            let outcomes = await Self.inLine(["b"], in: portal) { id, db in
                if id == "b" {
                    try await db.raw("ROLLBACK").run()
                    throw DiskGone()
                }
            }
            #expect(throws: DiskGone.self, "a waited for the commit that was lost") { try outcomes["a"]?.get() }
            #expect(throws: DiskGone.self) { try outcomes["b"]?.get() }
            let found = try await Self.stored(["a", "b"], in: portal)
            #expect(found == ["a": false, "b": false])
            try await portal.database.transaction { db in try await portal.portal.audit.record(Self.event("c"), on: db) }
            let later = try await Self.stored(["c"], in: portal)
            #expect(later == ["c": true])
        }
    }

    @Test(arguments: TestEngines.all)
    func recordsOfAccessMadeAtOnceAreAllKept(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 1...40 {
                    group.addTask {
                        try await portal.portal.recordAccess(
                            AuditEvent(
                                actor: .anonymous,
                                action: .patientViewed,
                                recordType: "patient",
                                recordID: "\(n)",
                                origin: AuditOrigin(address: "127.0.0.1", userAgent: nil)
                            )
                        )
                    }
                }
                try await group.waitForAll()
            }
            let entries = try await portal.database.read { db in
                var query = AuditQuery()
                query.action = .patientViewed
                query.page = PageRequest(number: 1, size: 100)
                return try await portal.portal.audit.list(query, on: db)
            }
            #expect(Set(entries.items.compactMap(\.recordID)) == Set((1...40).map { "\($0)" }))
        }
    }

    /// A transaction inside another, or an access record waiting for a commit inside one, throws at once
    /// instead of waiting for the turn its own caller holds.
    @Test(arguments: TestEngines.all)
    func aTransactionInsideATransactionIsRefusedNotAwaited(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let event = AuditEvent(actor: .anonymous, action: .accessDenied, recordType: "test", recordID: "inner", origin: .commandLine)
            try await portal.database.transaction { _ in
                await #expect(throws: NestedTransaction.self) {
                    try await portal.database.transaction { db in try await portal.portal.audit.record(event, on: db) }
                }
                await #expect(throws: NestedTransaction.self) { try await portal.portal.recordAccess(event) }
                await #expect(throws: NestedTransaction.self) {
                    try await portal.database.write { db in try await portal.portal.audit.record(event, on: db) }
                }
                await #expect(throws: NestedTransaction.self) {
                    try await portal.database.writeAlone { db in try await portal.portal.audit.record(event, on: db) }
                }
            }
            // Outside, both work, and the refused inner one left nothing.
            try await portal.database.transaction { db in try await portal.portal.audit.record(event, on: db) }
            try await portal.portal.recordAccess(event)
            var query = AuditQuery()
            query.record = "test:inner"
            let entries = try await portal.database.read { db in try await portal.portal.audit.list(query, on: db) }
            #expect(entries.items.count == 2)
        }
    }

    /// More entries than one statement may bind are written in several.
    @Test(arguments: TestEngines.all)
    func aLargeBatchOfAuditEntriesIsWrittenWhole(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let events = (1...3_100).map {
                AuditEvent(actor: .anonymous, action: .patientViewed, recordType: "batch", recordID: "\($0)", origin: .commandLine)
            }
            try await portal.database.transaction { db in try await portal.portal.audit.record(events, on: db) }
            let count = try await portal.database.read { db in
                try await db.raw("SELECT COUNT(*) AS n FROM audit_log WHERE record_type = 'batch'").first()?.decode(column: "n", as: Int.self)
            }
            #expect(count == 3_100)
        }
    }

    /// A write outside a transaction commits each statement as it runs; on SQLite a read cannot write,
    /// so a write hidden in a read fails in tests instead of taking SQLite's lock on a request's thread.
    @Test(arguments: TestEngines.all)
    func writesCommitOnTheirOwnAndOnSQLiteAReadCannotWrite(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let event = AuditEvent(actor: .anonymous, action: .accessDenied, recordType: "test", recordID: "write", origin: .commandLine)
            try await portal.database.write { db in try await portal.portal.audit.record(event, on: db) }
            var query = AuditQuery()
            query.record = "test:write"
            #expect(try await portal.database.read { db in try await portal.portal.audit.list(query, on: db) }.items.count == 1)
            if engine == .sqlite {
                await #expect(throws: SQLiteHandle.Failure.self) {
                    try await portal.database.read { db in try await portal.portal.audit.record(event, on: db) }
                }
                #expect(try await portal.database.read { db in try await portal.portal.audit.list(query, on: db) }.items.count == 1)
            }
        }
    }

    /// A statement run again on a connection is the one it prepared before, and a failed statement
    /// leaves the connection usable; past the limit the kept statements are let go and kept afresh.
    @Test func aConnectionKeepsItsStatementsPreparedWithinALimit() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("careportal-handle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let connection = try SQLiteHandle(path: directory.appendingPathComponent("test.sqlite").path)
        defer { connection.close() }
        try connection.run("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB)", []) { _ in }
        try connection.run("INSERT INTO t (name, score, data) VALUES (?, ?, ?)", [.text("Ada é"), .float(1.5), .blob(ByteBuffer(bytes: [0, 1, 2]))]) {
            _ in
        }
        try connection.run("INSERT INTO t (name, score, data) VALUES (?, ?, ?)", [.null, .integer(2), .null]) { _ in }
        var rows: [SQLiteHandle.Row] = []
        for _ in 0..<3 {
            rows = []
            try connection.run("SELECT id, name, score, data FROM t ORDER BY id", []) { rows.append($0) }
        }
        #expect(rows.count == 2)
        #expect(rows[0].value("name") == .text("Ada é") && rows[0].value("score") == .float(1.5))
        #expect(rows[0].value("data") == .blob(ByteBuffer(bytes: [0, 1, 2])))
        #expect(rows[1].value("name") == .null && rows[1].value("score") == .float(2))
        #expect(rows[0].value("missing") == nil)
        let kept = connection.preparedCount
        #expect(kept == 3, "the create, the insert (run twice) and the select (run three times): one statement each")

        // The same statement with other values, and back: each run sees only its own values.
        for (id, name) in [(1, SQLiteData.text("Ada é")), (2, .null), (1, .text("Ada é"))] {
            var found: [SQLiteData?] = []
            try connection.run("SELECT name FROM t WHERE id = ? AND score > ?", [.integer(id), .integer(0)]) { found.append($0.value("name")) }
            #expect(found == [name])
        }
        #expect(throws: SQLiteHandle.Failure.self, "a value missing for a parameter is refused, not left from the run before") {
            try connection.run("SELECT name FROM t WHERE id = ? AND score > ?", [.integer(1)]) { _ in }
        }

        #expect(throws: SQLiteHandle.Failure.self) { try connection.run("INSERT INTO t (id) VALUES (?)", [.integer(1)]) { _ in } }
        #expect(throws: SQLiteHandle.Failure.self) { try connection.run("SELECT nothing FROM nowhere", []) { _ in } }
        var count: SQLiteData?
        try connection.run("SELECT COUNT(*) AS n FROM t", []) { count = $0.value("n") }
        #expect(count == .integer(2), "the failed insert left nothing and the connection still works")

        // A column added after `SELECT *` was kept: the statement is prepared again and reads it.
        var columns: [String] = []
        try connection.run("SELECT * FROM t WHERE id = ?", [.integer(1)]) { columns = $0.columns }
        #expect(columns == ["id", "name", "score", "data"])
        try connection.run("ALTER TABLE t ADD COLUMN note TEXT DEFAULT 'kept'", []) { _ in }
        var note: SQLiteData?
        try connection.run("SELECT * FROM t WHERE id = ?", [.integer(1)]) {
            columns = $0.columns; note = $0.value("note")
        }
        #expect(columns == ["id", "name", "score", "data", "note"] && note == .text("kept"))

        for n in 0..<SQLiteHandle.statementLimit { try connection.run("SELECT \(n) AS n", []) { _ in } }
        #expect(connection.preparedCount <= SQLiteHandle.statementLimit)
    }
}

/// On PostgreSQL each statement is prepared once per connection, declared with the types of the
/// values bound to it, and later runs bind the new values; migrations and values PostgresKit encodes
/// through `Encodable` run unnamed.
@Suite struct PostgresKeptStatementTests {
    private static let keptSQL = "SELECT id, name, score FROM kept WHERE id = $1"

    /// The connection's statements whose SQL is `sql`, with their declared parameter types.
    private func kept(_ sql: String, on db: any SQLDatabase) async throws -> [String] {
        try await db.raw("SELECT parameter_types::text AS types FROM pg_prepared_statements WHERE statement = \(bind: sql)")
            .all().map { try $0.decode(column: "types", as: String.self) }
    }

    @Test(.enabled(if: TestEngines.postgresURL != nil, "needs CAREPORTAL_TEST_POSTGRES_URL"))
    func aStatementIsPreparedOnceAndRunsWithEachRunsValues() async throws {
        try await TestPortal.run(.postgres) { portal in
            try await portal.database.read { db in
                try await db.raw("CREATE TEMPORARY TABLE kept (id integer PRIMARY KEY, name text, score bigint)").run()
                for id in 1...3 {
                    let name: String? = id == 2 ? nil : "Núñez \(id)"
                    try await db.raw("INSERT INTO kept (id, name, score) VALUES (\(bind: id), \(bind: name), \(bind: id * 10))").run()
                }
                // More runs than PostgreSQL plans one by one before it may keep a generic plan.
                for id in [1, 2, 3, 1, 2, 3, 1, 2, 3, 4] {
                    let row = try await db.raw("SELECT id, name, score FROM kept WHERE id = \(bind: id)").first()
                    #expect(try row?.decode(column: "id", as: Int.self) == (id <= 3 ? id : nil))
                    #expect(try row?.decode(column: "name", as: String?.self) == (id == 2 || id > 3 ? nil : "Núñez \(id)"))
                    #expect(try row?.decode(column: "score", as: Int.self) == (id <= 3 ? id * 10 : nil))
                }
                #expect(try await kept(Self.keptSQL, on: db) == ["{bigint}"], "one statement, declared with the bound value's type")

                // A null value leaves its parameter's type to PostgreSQL (here it infers text from
                // the column): a statement of its own.
                let nobody: String? = nil
                let unnamed = try await db.raw("SELECT id FROM kept WHERE name IS NOT DISTINCT FROM \(bind: nobody)").all()
                #expect(try unnamed.map { try $0.decode(column: "id", as: Int.self) } == [2])
                let named = try await db.raw("SELECT id FROM kept WHERE name IS NOT DISTINCT FROM \(bind: "Núñez 3")").all()
                #expect(try named.map { try $0.decode(column: "id", as: Int.self) } == [3])
                #expect(try await kept("SELECT id FROM kept WHERE name IS NOT DISTINCT FROM $1", on: db) == ["{text}", "{text}"])

                // A failed run leaves the connection and the kept statement usable.
                await #expect(throws: (any Error).self) {
                    try await db.raw("INSERT INTO kept (id, name, score) VALUES (\(bind: 1), \(bind: "again"), \(bind: 0))").run()
                }
                #expect(
                    try await db.raw("SELECT id, name, score FROM kept WHERE id = \(bind: 3)").first()?.decode(column: "score", as: Int.self) == 30
                )
            }
        }
    }

    /// A task that asks for plans made with its values (`StatementPlanning`) runs its statements unnamed,
    /// so PostgreSQL plans each run for the values bound; outside it the same SQL is kept.
    @Test(.enabled(if: TestEngines.postgresURL != nil, "needs CAREPORTAL_TEST_POSTGRES_URL"))
    func statementsPlannedForTheirValuesAreNotKept() async throws {
        try await TestPortal.run(.postgres) { portal in
            try await portal.database.read { db in
                try await db.raw("CREATE TEMPORARY TABLE planned (id integer PRIMARY KEY, kind text)").run()
                try await db.raw(
                    "INSERT INTO planned (id, kind) SELECT n, CASE WHEN n = 7 THEN 'rare' ELSE 'common' END FROM generate_series(1, 50) AS n"
                ).run()
                let sql = "SELECT id FROM planned WHERE kind = $1 ORDER BY id"
                for (kind, expected) in [("rare", [7]), ("common", Array(1...50).filter { $0 != 7 })] {
                    let ids = try await StatementPlanning.forValues(if: true) {
                        try await db.raw("SELECT id FROM planned WHERE kind = \(bind: kind) ORDER BY id").all().map {
                            try $0.decode(column: "id", as: Int.self)
                        }
                    }
                    #expect(ids == expected)
                }
                #expect(try await kept(sql, on: db).isEmpty, "planned with its values: not kept")
                _ = try await StatementPlanning.forValues(if: false) {
                    try await db.raw("SELECT id FROM planned WHERE kind = \(bind: "rare") ORDER BY id").all()
                }
                #expect(try await kept(sql, on: db) == ["{text}"], "without the request, kept as before")
            }
        }
    }

    /// A statement first met in a transaction an earlier error aborted cannot be prepared there; once
    /// the transaction is rolled back it runs, on the same connection.
    @Test(.enabled(if: TestEngines.postgresURL != nil, "needs CAREPORTAL_TEST_POSTGRES_URL"))
    func aStatementRefusedInAnAbortedTransactionRunsAfterIt() async throws {
        try await TestPortal.run(.postgres) { portal in
            try await portal.database.read { db in
                try await db.raw("BEGIN").run()
                await #expect(throws: (any Error).self) { try await db.raw("SELECT 1 / \(bind: 0) AS n").run() }
                await #expect(throws: (any Error).self, "the transaction is aborted") {
                    try await db.raw("SELECT \(bind: 20) + 22 AS answer").run()
                }
                try await db.raw("ROLLBACK").run()
                #expect(try await db.raw("SELECT \(bind: 20) + 22 AS answer").first()?.decode(column: "answer", as: Int.self) == 42)
            }
        }
    }

    /// A kept `SELECT *` whose table gained a column is refused once by PostgreSQL, then prepared
    /// again and returns the new column.
    @Test(.enabled(if: TestEngines.postgresURL != nil, "needs CAREPORTAL_TEST_POSTGRES_URL"))
    func aKeptStatementWhoseColumnsChangedIsPreparedAgain() async throws {
        try await TestPortal.run(.postgres) { portal in
            try await portal.database.read { db in
                try await db.raw("CREATE TEMPORARY TABLE widened (id integer PRIMARY KEY)").run()
                try await db.raw("INSERT INTO widened (id) VALUES (\(bind: 1))").run()
                #expect(try await db.raw("SELECT * FROM widened WHERE id = \(bind: 1)").first()?.allColumns == ["id"])
                try await db.raw("ALTER TABLE widened ADD COLUMN note text DEFAULT 'kept'").run()
                await #expect(throws: (any Error).self, "cached plan must not change result type") {
                    try await db.raw("SELECT * FROM widened WHERE id = \(bind: 1)").first()
                }
                let row = try await db.raw("SELECT * FROM widened WHERE id = \(bind: 1)").first()
                #expect(row?.allColumns == ["id", "note"])
                #expect(try row?.decode(column: "note", as: String.self) == "kept")
            }
        }
    }

    @Test(.enabled(if: TestEngines.postgresURL != nil, "needs CAREPORTAL_TEST_POSTGRES_URL"))
    func migrationsAndEncodableValuesRunUnnamed() async throws {
        struct Settings: Encodable, Sendable { let colour: String }
        try await TestPortal.run(.postgres) { portal in
            let (sum, keptWhileMigrating) = try await Database.$keepsStatements.withValue(false) {
                try await portal.database.read { db in
                    let sum = try await db.raw("SELECT \(bind: 41) + 1 AS n").first()?.decode(column: "n", as: Int.self)
                    return (sum, try await kept("SELECT $1 + 1 AS n", on: db))
                }
            }
            #expect(sum == 42 && keptWhileMigrating.isEmpty)
            try await portal.database.read { db in
                let row = try await db.raw("SELECT \(bind: Settings(colour: "teal"))::jsonb ->> 'colour' AS colour").first()
                #expect(try row?.decode(column: "colour", as: String.self) == "teal")
                #expect(try await kept("SELECT $1::jsonb ->> 'colour' AS colour", on: db).isEmpty)
                // The same connection keeps what it may.
                _ = try await db.raw("SELECT \(bind: 41) + 1 AS n").first()
                #expect(try await kept("SELECT $1 + 1 AS n", on: db) == ["{bigint}"])
            }
        }
    }
}

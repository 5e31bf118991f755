import Foundation
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct MigrationTests {
    /// `table.column` for every column the migrations create.
    static func columns(of url: String) async throws -> Set<String> {
        let database = try Database(url: url, logger: TestDatabase.logger)
        return try await database.whileRunning {
            try await database.read { db in
                switch database.engine {
                case .sqlite:
                    let tables = try await db.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all()
                        .map { try $0.decode(column: "name", as: String.self) }
                    var result = Set<String>()
                    for table in tables {
                        for row in try await db.raw("SELECT name FROM pragma_table_xinfo(\(bind: table))").all() {
                            result.insert("\(table).\(try row.decode(column: "name", as: String.self))")
                        }
                    }
                    return result
                case .postgres:
                    let rows = try await db.raw(
                        """
                        SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'
                        """
                    ).all()
                    return Set(
                        try rows.map {
                            "\(try $0.decode(column: "table_name", as: String.self)).\(try $0.decode(column: "column_name", as: String.self))"
                        }
                    )
                }
            }
        }
    }

    @Test(.enabled(if: TestEngines.postgresURL != nil, "needs CAREPORTAL_TEST_POSTGRES_URL"))
    func bothEnginesEndWithTheSameTablesAndColumns() async throws {
        let sqlite = try await TestDatabase.make(.sqlite)
        let postgres = try await TestDatabase.make(.postgres)
        let sqliteColumns = try await Self.columns(of: sqlite)
        let postgresColumns = try await Self.columns(of: postgres)
        try await TestDatabase.drop(sqlite)
        try await TestDatabase.drop(postgres)
        #expect(sqliteColumns.contains("audit_log.occurred_at"))
        // Full-text search is each engine's own: FTS5's virtual table and its shadow tables, or a tsvector column.
        func ordinary(_ columns: Set<String>) -> Set<String> {
            columns.filter { !$0.hasPrefix("desk_search") && $0 != "desk_threads.search_document" }
        }
        #expect(ordinary(sqliteColumns) == ordinary(postgresColumns))
        #expect(sqliteColumns.contains("desk_search.body") && postgresColumns.contains("desk_threads.search_document"))
        #expect(!postgresColumns.contains { $0.hasPrefix("desk_search") })
    }

    @Test(arguments: TestEngines.all)
    func migratingTwiceChangesNothingAndRecordsTheVersion(engine: Database.Engine) async throws {
        let url = try await TestDatabase.make(engine)
        let database = try Database(url: url, logger: TestDatabase.logger)
        let (applied, version) = try await database.whileRunning {
            let migrator = Migrator(database: database, logger: TestDatabase.logger)
            return (try await migrator.migrate(), try await migrator.currentVersion())
        }
        try await TestDatabase.drop(url)
        #expect(applied.isEmpty)
        #expect(version == SchemaHistory.latestVersion)
    }

    @Test func databaseURLsAreReadForBothEngines() throws {
        #expect(try DatabaseLocation(url: "sqlite://./data/careportal.sqlite") == .sqlite(path: "./data/careportal.sqlite"))
        guard case .postgres(let configuration) = try DatabaseLocation(url: "postgres://care:p%40ss@127.0.0.1:5433/care") else {
            Issue.record("not read as PostgreSQL")
            return
        }
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 5433)
        #expect(configuration.password == "p@ss")
        #expect(configuration.database == "care")
        #expect(configuration.options.maximumConnections == DatabaseLocation.defaultPoolSize)
        #expect(DatabaseLocation.defaultPoolSize >= 8)
        #expect(throws: DatabaseLocation.InvalidURL.self) { try DatabaseLocation(url: "mysql://x") }
    }

    @Test func aPostgreSQLUnixSocketIsReadFromTheURLAsLibpqReadsIt() throws {
        func socketPath(_ url: String) throws -> String? {
            guard case .postgres(let configuration) = try DatabaseLocation(url: url) else { return nil }
            return configuration.unixSocketPath
        }
        #expect(try socketPath("postgres://care@/care?host=/var/run/postgresql") == "/var/run/postgresql/.s.PGSQL.5432")
        #expect(try socketPath("postgres://care:secret@/care?host=/tmp/pg/&port=5433") == "/tmp/pg/.s.PGSQL.5433")
        #expect(try socketPath("postgres://care@127.0.0.1:5433/care") == nil, "a host name is reached over TCP")
        #expect(throws: DatabaseLocation.InvalidURL.self, "a host and a socket folder") {
            try DatabaseLocation(url: "postgres://care@127.0.0.1/care?host=/var/run/postgresql")
        }
        #expect(throws: DatabaseLocation.InvalidURL.self, "neither a host nor a socket folder") {
            try DatabaseLocation(url: "postgres://care@/care")
        }
    }

    @Test(.enabled(if: TestEngines.postgresSocketURL != nil, "needs CAREPORTAL_TEST_POSTGRES_SOCKET_URL"))
    func theServerIsReachedThroughItsUnixSocket() async throws {
        let database = try Database(url: try #require(TestEngines.postgresSocketURL), logger: TestDatabase.logger)
        let address = try await database.whileRunning {
            try await database.read { db in
                try await db.raw("SELECT COALESCE(inet_client_addr()::text, 'socket') AS address").first()?.decode(column: "address", as: String.self)
            }
        }
        #expect(address == "socket", "a connection over a Unix socket has no client address")
    }

    @Test(.enabled(if: TestEngines.postgresURL != nil, "needs CAREPORTAL_TEST_POSTGRES_URL"))
    func everyPostgreSQLConnectionRunsItsStatementsWithoutParallelWorkers() async throws {
        let database = try Database(url: try #require(TestEngines.postgresURL), logger: TestDatabase.logger)
        let settings = try await database.whileRunning {
            // Several connections at once, so more than the pool's first one is asked.
            try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await database.read { db in
                            try await db.raw("SELECT current_setting(\(bind: DatabaseLocation.parallelWorkersSetting)) AS workers, pg_sleep(0.05)")
                                .first()?
                                .decode(column: "workers", as: String.self)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(settings == ["0", "0", "0", "0"])
    }

    @Test func aPostgreSQLPoolSizeIsReadFromTheURL() throws {
        guard case .postgres(let configuration) = try DatabaseLocation(url: "postgres://care@127.0.0.1/care?pool_size=3&sslmode=disable") else {
            Issue.record("not read as PostgreSQL")
            return
        }
        #expect(configuration.options.maximumConnections == 3)
        for size in ["0", "-2", "many", "1001", ""] {
            #expect(throws: DatabaseLocation.InvalidURL.self, "pool_size=\(size)") {
                try DatabaseLocation(url: "postgres://care@127.0.0.1/care?pool_size=\(size)")
            }
        }
    }
}

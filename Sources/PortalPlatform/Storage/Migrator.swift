import Foundation
import Logging
import SQLKit

/// One step of the schema, applied once and recorded in `schema_migrations`.
package protocol Migration: Sendable {
    /// Numbers are never reused or reordered; a new step takes the next one.
    var version: Int { get }
    var name: String { get }
    func apply(to database: any SQLDatabase, engine: Database.Engine) async throws
}

/// Brings a database up to the latest schema; safe to run from several servers at once.
public struct Migrator: Sendable {
    package let database: Database
    /// The whole schema's steps, every feature's in one numbered sequence.
    package let migrations: [any Migration]
    package let now: @Sendable () -> Date
    package let logger: Logger

    package init(database: Database, migrations: [any Migration], now: @escaping @Sendable () -> Date = Date.init, logger: Logger) {
        self.database = database
        self.migrations = migrations
        self.now = now
        self.logger = logger
    }

    /// Applies what is missing and returns the versions it applied.
    @discardableResult
    public func migrate() async throws -> [Int] {
        try await Database.$keepsStatements.withValue(false) { try await applyMissing() }
    }

    private func applyMissing() async throws -> [Int] {
        try await database.transaction { db in
            try await db.create(table: "schema_migrations")
                .ifNotExists()
                .column("version", type: .bigint, .primaryKey(autoIncrement: false))
                .column("name", type: .text, .notNull)
                .column("applied_at", type: .bigint, .notNull)
                .run()
        }
        // Most starts find every migration applied: one read says so, where a transaction for each
        // migration took forty round trips (and a lock each on PostgreSQL) before the server could start.
        let recorded = try await database.read { db in
            Set(try await db.select().column("version").from("schema_migrations").all().map { try $0.decode(column: "version", as: Int.self) })
        }
        var applied: [Int] = []
        for migration in migrations.sorted(by: { $0.version < $1.version }) where !recorded.contains(migration.version) {
            // Looked at again under the lock: another server starting beside this one may have applied it since.
            let didApply = try await database.transaction { db in
                if database.engine == .postgres {
                    // Two servers starting together take turns instead of racing to create tables.
                    try await db.raw("SELECT pg_advisory_xact_lock(7261001)").run()
                }
                let done = try await db.select().column("version").from("schema_migrations")
                    .where("version", .equal, migration.version)
                    .first()
                guard done == nil else { return false }
                try await migration.apply(to: db, engine: database.engine)
                try await db.insert(into: "schema_migrations")
                    .columns("version", "name", "applied_at")
                    .values(SQLBind(migration.version), SQLBind(migration.name), SQLBind(now().millisecondsSince1970))
                    .run()
                return true
            }
            if didApply {
                logger.info("Applied migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
                applied.append(migration.version)
            }
        }
        return applied
    }

    /// The highest applied version, or 0 on a database that was never migrated.
    public func currentVersion() async throws -> Int {
        try await database.read { db in
            let row = try await db.raw("SELECT MAX(version) AS version FROM schema_migrations").first()
            return try row?.decode(column: "version", as: Int?.self) ?? 0
        }
    }

    /// How many tables the database holds in its schema (PostgreSQL's current schema), CarePortal's or not:
    /// a restore goes only into a database with none.
    public func tableCount() async throws -> Int {
        try await database.read { db in
            let sql: SQLQueryString =
                switch database.engine {
                case .postgres: "SELECT COUNT(*) AS tables FROM information_schema.tables WHERE table_schema = current_schema()"
                case .sqlite: "SELECT COUNT(*) AS tables FROM sqlite_master WHERE type = 'table'"
                }
            return try await db.raw(sql).first()?.decode(column: "tables", as: Int.self) ?? 0
        }
    }
}

extension Date {
    /// Instants are stored as whole milliseconds since 1970 UTC on both engines.
    package var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    package init(millisecondsSince1970: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(millisecondsSince1970) / 1000)
    }
}

import Foundation
import Logging
import PostgresNIO
import SQLKit
@testable import CarePortal
@testable import PortalPlatform

/// The engines a storage test runs on: SQLite always, PostgreSQL when `CAREPORTAL_TEST_POSTGRES_URL` is set.
enum TestEngines {
    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["CAREPORTAL_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The same server through its Unix socket (`script/test` sets it).
    static var postgresSocketURL: String? {
        ProcessInfo.processInfo.environment["CAREPORTAL_TEST_POSTGRES_SOCKET_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static var all: [Database.Engine] { postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }
}

/// A fresh, migrated database for one test, copied from a template migrated once per run.
enum TestDatabase {
    static let logger: Logger = {
        var logger = Logger(label: "careportal.test")
        logger.logLevel = .error
        return logger
    }()

    /// The URL of a new database; deleted again by `drop`.
    static func make(_ engine: Database.Engine) async throws -> String {
        switch engine {
        case .sqlite:
            let template = try await Templates.shared.sqliteTemplate()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("careportal-test-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appendingPathComponent("careportal.sqlite").path
            try FileManager.default.copyItem(atPath: template, toPath: path)
            return "sqlite://\(path)"
        case .postgres:
            guard let serverURL = TestEngines.postgresURL else { throw TestSetupFailed(reason: "CAREPORTAL_TEST_POSTGRES_URL is not set") }
            let template = try await Templates.shared.postgresTemplate()
            let name = "careportal_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20))"
            try await administer(serverURL) { db in
                try await db.raw("CREATE DATABASE \(ident: name) TEMPLATE \(ident: template)").run()
            }
            return replacingDatabase(in: serverURL, with: name)
        }
    }

    /// A database with no tables at all, for a test that migrates it part of the way, writes rows as they
    /// were stored then, and migrates the rest; `drop` it afterwards.
    static func emptyDatabaseURL(_ engine: Database.Engine) async throws -> String {
        switch engine {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("careportal-test-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return "sqlite://\(directory.appendingPathComponent("careportal.sqlite").path)"
        case .postgres:
            guard let serverURL = TestEngines.postgresURL else { throw TestSetupFailed(reason: "CAREPORTAL_TEST_POSTGRES_URL is not set") }
            let name = "careportal_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20))"
            try await administer(serverURL) { db in try await db.raw("CREATE DATABASE \(ident: name)").run() }
            return replacingDatabase(in: serverURL, with: name)
        }
    }

    static func drop(_ url: String) async throws {
        if url.hasPrefix("sqlite://") {
            let path = String(url.dropFirst("sqlite://".count))
            try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent())
        } else if let serverURL = TestEngines.postgresURL, let name = URLComponents(string: url)?.path.dropFirst() {
            try await administer(serverURL) { db in
                try await db.raw("DROP DATABASE IF EXISTS \(ident: String(name)) WITH (FORCE)").run()
            }
        }
    }

    static func replacingDatabase(in url: String, with name: String) -> String {
        var components = URLComponents(string: url)!
        components.path = "/\(name)"
        return components.string!
    }

    /// Runs `body` on the server's maintenance database.
    static func administer(_ serverURL: String, _ body: @Sendable (any SQLDatabase) async throws -> Void) async throws {
        let database = try Database(url: replacingDatabase(in: serverURL, with: "postgres"), logger: logger)
        try await database.whileRunning { try await database.read(body) }
    }

    /// Tests never touch a database that is not on this machine.
    static func requireLocal(_ url: String) throws {
        guard let host = URLComponents(string: url)?.host, ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host) else {
            throw TestSetupFailed(reason: "CAREPORTAL_TEST_POSTGRES_URL must point at this machine")
        }
    }
}

struct TestSetupFailed: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

/// The migrated template of each engine, made once per test run.
actor Templates {
    static let shared = Templates()
    private var sqlitePath: Task<String, any Error>?
    private var postgresName: Task<String, any Error>?

    /// Tests ask concurrently; the first request makes the template and the others wait for it.
    func sqliteTemplate() async throws -> String {
        if sqlitePath == nil { sqlitePath = Task { try await Self.makeSQLiteTemplate() } }
        return try await sqlitePath!.value
    }

    func postgresTemplate() async throws -> String {
        if postgresName == nil { postgresName = Task { try await Self.makePostgresTemplate() } }
        return try await postgresName!.value
    }

    private static func makeSQLiteTemplate() async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("careportal-template-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("template.sqlite").path
        let database = try Database(url: "sqlite://\(path)", logger: TestDatabase.logger)
        try await database.whileRunning {
            try await Migrator(database: database, logger: TestDatabase.logger).migrate()
            // Fold the write-ahead log into the file so a plain copy is complete.
            try await database.read { db in try await db.raw("PRAGMA wal_checkpoint(TRUNCATE)").run() }
        }
        return path
    }

    private static func makePostgresTemplate() async throws -> String {
        guard let serverURL = TestEngines.postgresURL else { throw TestSetupFailed(reason: "CAREPORTAL_TEST_POSTGRES_URL is not set") }
        try TestDatabase.requireLocal(serverURL)
        let name = "careportal_template_\(ProcessInfo.processInfo.processIdentifier)_\(Int.random(in: 0..<1_000_000))"
        try await TestDatabase.administer(serverURL) { db in
            try await db.raw("CREATE DATABASE \(ident: name)").run()
        }
        let database = try Database(url: TestDatabase.replacingDatabase(in: serverURL, with: name), logger: TestDatabase.logger)
        try await database.whileRunning {
            try await Migrator(database: database, logger: TestDatabase.logger).migrate()
        }
        return name
    }
}

import Foundation

/// PostgreSQL's own `pg_dump` and `pg_restore`, run for the database a `postgres://` DATABASE_URL names.
/// The connection is handed over in libpq's environment variables (`PGHOST`, `PGPASSWORD`, …), so the
/// password never appears on a command line, where any user of the machine could read it.
package struct PostgresTools: Sendable {
    let environment: [String: String]
    let database: String

    /// The tools for the database `url` names; throws `BackupRefused` for a URL they cannot use.
    package init(url: String) throws {
        guard let components = URLComponents(string: url), components.scheme == "postgres" || components.scheme == "postgresql",
              let user = components.user
        else { throw BackupRefused("DATABASE_URL is not a postgres:// address (nothing was done).") }
        let query = components.queryItems ?? []
        func parameter(_ name: String) -> String? { query.first { $0.name == name }?.value }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        // A host that is a folder holds the server's Unix socket, as libpq reads it.
        if let host = components.host, !host.isEmpty {
            environment["PGHOST"] = host
        } else if let folder = parameter("host") {
            environment["PGHOST"] = folder
        }
        environment["PGPORT"] = String(components.port ?? parameter("port").flatMap { Int($0) } ?? 5432)
        environment["PGUSER"] = user.removingPercentEncoding ?? user
        if let password = components.password { environment["PGPASSWORD"] = password.removingPercentEncoding ?? password }
        if let mode = parameter("sslmode") { environment["PGSSLMODE"] = mode }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? environment["PGUSER"]! : path
        environment["PGDATABASE"] = database
        self.environment = environment
    }

    /// The whole database into a new file at `path`, in `pg_dump`'s custom format, from one snapshot.
    package func dump(to path: String) throws {
        try run("pg_dump", ["--format=custom", "--no-owner", "--no-privileges", "--file=\(path)"], doing: "dump the database")
    }

    /// The dump at `path` into the (empty) database, all or nothing.
    package func restore(from path: String) throws {
        try run("pg_restore", ["--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction", "--dbname=\(database)", path],
                doing: "restore the database")
    }

    /// Runs one of PostgreSQL's programs from PATH; throws `BackupRefused` with what it said when it fails.
    private func run(_ program: String, _ arguments: [String], doing what: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw BackupRefused("Could not start \(program) to \(what): \(error). Install PostgreSQL's client programs (Debian: postgresql-client).")
        }
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let message = String(decoding: said, as: UTF8.self).split(separator: "\n").suffix(5).joined(separator: " ")
            let reason = process.terminationStatus == 127 ? "\(program) is not installed (Debian: postgresql-client)" : message
            throw BackupRefused("\(program) could not \(what): \(reason)")
        }
    }
}

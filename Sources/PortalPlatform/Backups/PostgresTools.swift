import Foundation

/// PostgreSQL's own `pg_dump` and `pg_restore`, run for the database a `postgres://` DATABASE_URL names.
/// The connection is handed over in libpq's environment variables (`PGHOST`, `PGPASSWORD`, …), so the
/// password never appears on a command line, where any user of the machine could read it.
package struct PostgresTools: Sendable {
    let environment: [String: String]
    let database: String

    /// The tools for the database `url` names, read as the server reads it (`DatabaseLocation`); throws
    /// `BackupRefused` for a URL that is not PostgreSQL's.
    package init(url: String) throws {
        guard case .postgres(let configuration) = try DatabaseLocation(url: url) else {
            throw BackupRefused("DATABASE_URL is not a postgres:// address (nothing was done).")
        }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        if let socket = configuration.unixSocketPath {
            // libpq takes the socket's folder as its host, and finds `.s.PGSQL.<port>` in it.
            let name = (socket as NSString).lastPathComponent
            environment["PGHOST"] = (socket as NSString).deletingLastPathComponent
            environment["PGPORT"] = String(name.dropFirst(".s.PGSQL.".count))
        } else {
            environment["PGHOST"] = configuration.host
            environment["PGPORT"] = configuration.port.map(String.init)
        }
        environment["PGUSER"] = configuration.username
        environment["PGPASSWORD"] = configuration.password
        // The TLS the server asks for is the URL's `sslmode`, which libpq reads under the same name.
        environment["PGSSLMODE"] = URLComponents(string: url)?.queryItems?.first { $0.name == "sslmode" }?.value
        database = configuration.database.flatMap { $0.isEmpty ? nil : $0 } ?? configuration.username
        environment["PGDATABASE"] = database
        self.environment = environment
    }

    /// The whole database into a new file at `path`, in `pg_dump`'s custom format, from one snapshot.
    package func dump(to path: String) throws {
        try run("pg_dump", ["--format=custom", "--no-owner", "--no-privileges", "--file=\(path)"], doing: "dump the database")
    }

    /// The dump at `path` into the (empty) database, all or nothing.
    package func restore(from path: String) throws {
        try run(
            "pg_restore",
            ["--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction", "--dbname=\(database)", path],
            doing: "restore the database"
        )
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

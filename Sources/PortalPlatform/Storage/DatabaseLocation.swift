import Foundation
import PostgresKit
import PostgresNIO

/// Where a `DATABASE_URL` points.
package enum DatabaseLocation: Equatable {
    case sqlite(path: String)
    case postgres(PostgresClient.Configuration)

    package struct InvalidURL: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) {
            self.description = description
        }
    }

    private static let expected = """
        DATABASE_URL must be sqlite://PATH, postgres://USER:PASSWORD@HOST:PORT/DATABASE, \
        or postgres://USER@/DATABASE?host=SOCKET_FOLDER for a PostgreSQL server's Unix socket
        """

    package init(url: String) throws {
        if url.hasPrefix("sqlite://") {
            let path = String(url.dropFirst("sqlite://".count))
            guard !path.isEmpty else { throw InvalidURL(description: "DATABASE_URL sqlite:// needs a file path") }
            self = .sqlite(path: path)
            return
        }
        guard let components = URLComponents(string: url),
            components.scheme == "postgres" || components.scheme == "postgresql",
            let user = components.user
        else {
            throw InvalidURL(description: Self.expected)
        }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let database = path.isEmpty ? nil : path
        let query = components.queryItems ?? []
        func parameter(_ name: String) -> String? { query.first { $0.name == name }?.value }
        let username = user.removingPercentEncoding ?? user
        let password = components.password?.removingPercentEncoding
        let port = components.port ?? parameter("port").flatMap { Int($0) } ?? 5432
        var configuration: PostgresClient.Configuration
        if let socketFolder = parameter("host"), socketFolder.hasPrefix("/") {
            // As libpq reads it: a host that is a folder holds the server's Unix socket, named for its port.
            guard components.host?.isEmpty ?? true else {
                throw InvalidURL(description: "DATABASE_URL names a host and a socket folder (host=\(socketFolder)); give one of them")
            }
            configuration = PostgresClient.Configuration(
                unixSocketPath: socketFolder + (socketFolder.hasSuffix("/") ? "" : "/") + ".s.PGSQL.\(port)",
                username: username,
                password: password,
                database: database
            )
        } else {
            guard let host = components.host, !host.isEmpty else {
                throw InvalidURL(description: Self.expected)
            }
            let tls: PostgresClient.Configuration.TLS
            switch parameter("sslmode") ?? "disable" {
            case "disable": tls = .disable
            case "prefer": tls = .prefer(.makeClientConfiguration())
            default: tls = .require(.makeClientConfiguration())
            }
            configuration = PostgresClient.Configuration(
                host: host,
                port: port,
                username: username,
                password: password,
                database: database,
                tls: tls
            )
        }
        if let value = parameter("pool_size") {
            guard let size = Int(value), (1...1_000).contains(size) else {
                throw InvalidURL(description: "DATABASE_URL pool_size must be a whole number from 1 to 1000, not \(value)")
            }
            configuration.options.maximumConnections = size
        } else {
            configuration.options.maximumConnections = Self.defaultPoolSize
        }
        // Each statement runs in its own connection's process, without parallel workers: the portal's statements
        // are a page's worth of work, many run at once, and workers are started afresh for each statement. The
        // activity page's count of opens per member, planned with two workers, took 16 to 24 ms on an idle
        // two-core machine, and 8 to 9 ms without (docs/performance-history.md).
        configuration.options.additionalStartupParameters = [(Self.parallelWorkersSetting, "0")]
        self = .postgres(configuration)
    }

    /// The PostgreSQL setting each connection starts with at 0 (its parameter in the startup message).
    package static let parallelWorkersSetting = "max_parallel_workers_per_gather"

    /// PostgreSQL connections kept by default: twice this machine's cores, and at least eight. More
    /// connections than that only add PostgreSQL processes competing for the same cores: on the
    /// 2-core benchmark machine, 16 connections made the slowest hundredth of the desk's pages take
    /// twice as long as 4 to 8 did, for no more requests a second (docs/performance-history.md).
    package static var defaultPoolSize: Int { max(8, 2 * ProcessInfo.processInfo.activeProcessorCount) }

    package static func == (lhs: DatabaseLocation, rhs: DatabaseLocation) -> Bool {
        switch (lhs, rhs) {
        case (.sqlite(let a), .sqlite(let b)): a == b
        case (.postgres(let a), .postgres(let b)):
            a.host == b.host && a.port == b.port && a.unixSocketPath == b.unixSocketPath && a.username == b.username && a.database == b.database
        default: false
        }
    }
}

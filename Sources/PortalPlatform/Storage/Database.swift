import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresKit
import PostgresNIO
import Prometheus
import SQLKit
import SQLiteKit
import SQLiteNIO
import ServiceLifecycle
import Synchronization

/// The database CarePortal keeps everything in: SQLite (the embedded default) or PostgreSQL.
///
/// Repositories receive an `any SQLDatabase` from `read` or `transaction` and write one query for
/// both engines. The engine differences (pooling, locking, transaction syntax) stay in this file.
public final class Database: Sendable {
    public enum Engine: String, Sendable, CaseIterable {
        case sqlite
        case postgres
    }

    public let engine: Engine
    private let backend: Backend
    private let logger: Logger
    /// The requests waiting for a PostgreSQL connection, given up when PostgreSQL stops taking connections.
    private let leaseWaits: LeaseWaits
    /// Where the time spent waiting for a connection is recorded, when the server keeps metrics.
    private let poolWaits: PoolWaits?
    /// Set while a checkpoint after deletions has not yet gone through (`checkpointDeletions`).
    private let checkpointOwed = Atomic<Bool>(false)

    private enum Backend: Sendable {
        case sqlite(SQLiteConnectionPool)
        case postgres(PostgresClient)
    }

    /// Opens the database a `DATABASE_URL` names: `sqlite://PATH` or `postgres://USER:PASSWORD@HOST:PORT/NAME`.
    public convenience init(url: String, logger: Logger) throws {
        try self.init(url: url, logger: logger, metrics: nil)
    }

    /// The same, recording how long each read, write and transaction waits for its connection into `metrics`.
    package init(url: String, logger: Logger, metrics: PortalMetrics?) throws {
        self.logger = logger
        let location = try DatabaseLocation(url: url)
        switch location {
        case .sqlite(let path):
            engine = .sqlite
            backend = .sqlite(SQLiteConnectionPool(path: path, maximumReaders: 4, logger: logger))
            leaseWaits = LeaseWaits { .answered }
        case .postgres(let configuration):
            engine = .postgres
            backend = .postgres(PostgresClient(configuration: configuration, backgroundLogger: logger))
            leaseWaits = LeaseWaits { await Self.check(host: configuration.host, port: configuration.port, socket: configuration.unixSocketPath) }
        }
        poolWaits = metrics?.poolWaits(for: engine)
    }

    /// What a connection is asked for: reading, statements that commit on their own, or a transaction.
    private enum Use { case read, write, transaction }

    /// Runs `body` with a connection: a reader, or the writer's turn on SQLite (for a transaction,
    /// inside the transaction the writer has open, `SQLiteConnectionPool.withTransaction`); a
    /// connection leased from the pool on PostgreSQL, where `transaction` wraps `body` itself. Records
    /// how long it took from asking to having one (PostgresNIO's pool measures none of this itself),
    /// first thing once it is handed over.
    private func withConnection<T: Sendable>(_ use: Use, _ body: (any SQLDatabase) async throws -> T) async throws -> T {
        let asked = ContinuousClock.now
        let waits = use == .read ? poolWaits?.read : poolWaits?.write
        func started(_ database: any SQLDatabase) async throws -> T {
            waits?.record(ContinuousClock.now - asked)
            return try await body(database)
        }
        switch (backend, use) {
        case (.sqlite(let pool), .read): return try await pool.withReader(started)
        case (.sqlite(let pool), .write): return try await pool.withWriter(started)
        case (.sqlite(let pool), .transaction): return try await pool.withTransaction(started)
        case (.postgres(let client), .transaction):
            return try await Self.withConnection(of: client, waits: leaseWaits) { database in
                waits?.record(ContinuousClock.now - asked)
                return try await Self.committing(database, body)
            }
        case (.postgres(let client), _): return try await Self.withConnection(of: client, waits: leaseWaits, started)
        }
    }

    /// Keeps the engine's connections alive until `body` returns; for commands and tests that run
    /// without the server's service group.
    @discardableResult
    public func whileRunning<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.runConnections() }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    /// How long a stopping server waits for PostgreSQL's connection pool to finish closing (`waitForStop`).
    package static let closingGrace: Duration = .seconds(5)

    /// Runs the connection pool until the task is cancelled (the PostgreSQL client needs a running task).
    package func runConnections() async throws {
        switch backend {
        case .postgres(let client):
            let running = Task { await client.run() }
            if await !waitForStop(of: running, grace: Self.closingGrace) {
                logger.warning("PostgreSQL's connection pool had not finished closing \(Self.closingGrace) after it was asked to; stopping without it")
            }
        case .sqlite(let pool):
            // Nothing to drive in the background: wait for cancellation, then close every connection.
            while (try? await Task.sleep(for: .seconds(3600))) != nil {}
            await pool.close()
        }
    }

    /// Hears PostgreSQL notifications on `channel` (`LISTEN`), calling `receive` with each payload, until
    /// the task is cancelled or the connection fails; it holds one of the pool's connections meanwhile.
    /// SQLite has no other server to hear from: it waits for cancellation.
    package func listen(on channel: String, _ receive: @escaping @Sendable (String) async -> Void) async throws {
        switch backend {
        case .postgres(let client):
            try await client.withConnection { connection in
                try await connection.listen(on: channel) { notifications in
                    for try await notification in notifications { await receive(notification.payload) }
                }
            }
        case .sqlite:
            while (try? await Task.sleep(for: .seconds(3600))) != nil {}
        }
    }

    /// Reads that need no transaction. On SQLite the connection is read-only: anything that writes
    /// goes through `write` or `transaction`.
    public func read<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await withConnection(.read, body)
    }

    /// How long a request waits for a PostgreSQL connection before anyone checks that PostgreSQL still
    /// takes connections. Under load a connection comes back in milliseconds and the request waits on;
    /// while PostgreSQL is down or restarting, the client's pool would otherwise hold every request for a
    /// minute, so the request is answered 503 instead.
    package static let connectionWait: Duration = .seconds(2)

    /// What a check of PostgreSQL's address found.
    package enum AddressCheck: Sendable, Equatable {
        /// Something accepted a connection.
        case answered
        /// The connection was refused (nothing listens there, or the socket file is gone): PostgreSQL is down.
        case refused
        /// Nothing answered within the second, or the listener's queue was full. A machine too busy to
        /// connect within a second looks the same as one cut off from PostgreSQL, so silence counts for
        /// less than a refusal.
        case silent
    }

    /// Checks PostgreSQL's address: a connection attempt of at most a second.
    package static func check(host: String?, port: Int?, socket: String?) async -> AddressCheck {
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connectTimeout(.seconds(1))
        do {
            let channel: any Channel
            if let socket {
                channel = try await bootstrap.connect(unixDomainSocketPath: socket).get()
            } else {
                channel = try await bootstrap.connect(host: host ?? "localhost", port: port ?? 5432).get()
            }
            try? await channel.close()
            return .answered
        } catch ChannelError.connectTimeout {
            return .silent
        } catch let error as IOError where error.errnoCode == EAGAIN {
            // A Unix socket whose queue of connections not yet accepted is full.
            return .silent
        } catch {
            return .refused
        }
    }

    private static func withConnection<T: Sendable>(
        of client: PostgresClient, waits: LeaseWaits, _ body: (any SQLDatabase) async throws -> T
    ) async throws -> T {
        do {
            // The wait runs in a child task, so that giving it up cancels only the wait, not the request.
            return try await withoutActuallyEscaping(body) { body in
                nonisolated(unsafe) let body = body
                return try await withThrowingTaskGroup(of: T.self) { group in
                    group.addTask {
                        let wait = withUnsafeCurrentTask { waits.start(LeaseWaits.Waiting(task: $0!)) }
                        do {
                            return try await client.withConnection { connection in
                                guard waits.end(wait) else { throw DatabaseUnavailable(reason: "PostgreSQL takes no connections") }
                                return try await withTaskExecutorPreference(EventLoopExecutor(connection.eventLoop)) {
                                    try await body(PostgresSQLDatabase(connection: connection, keepsStatements: keepsStatements))
                                }
                            }
                        } catch {
                            if !waits.end(wait) { throw DatabaseUnavailable(reason: "PostgreSQL takes no connections") }
                            throw error
                        }
                    }
                    return try await group.next()!
                }
            }
        } catch let error as DatabaseUnavailable {
            throw error
        } catch where Self.isUnreachable(error) {
            throw DatabaseUnavailable(reason: String(reflecting: error))
        }
    }

    /// The requests waiting for a PostgreSQL connection. While any are waiting, a check every second: once
    /// some have waited `connectionWait` and PostgreSQL's address has refused a connection at two checks in
    /// a row, or answered none at `silentChecksBeforeGivingUp` checks in a row, those are given up (their
    /// wait is cancelled, and they answer `DatabaseUnavailable`). One check serves every waiting request, so
    /// a request that gets its connection at once costs no timer.
    ///
    /// A refusal is PostgreSQL stopped or restarting, and comes back at once. Silence is a connection not
    /// made within its second: a host cut off, or a machine so busy (a test run of hundreds of servers on
    /// two cores) that the connection was made too late. Two silences in a row are common on such a
    /// machine, so silence gives up only after ten checks of it, about twenty seconds (each check sleeps its
    /// second, then waits out the second of connecting).
    package static let silentChecksBeforeGivingUp = 10

    private final class LeaseWaits: Sendable {
        /// A request's wait: its task, cancelled if the wait is given up.
        struct Waiting: @unchecked Sendable {
            // Only touched under `state`'s lock while the wait is registered, which is while the task is
            // inside `PostgresClient.withConnection`, alive and waiting: `end` unregisters it before going on.
            let task: UnsafeCurrentTask
        }

        private struct Registered {
            let waiting: Waiting
            let since: ContinuousClock.Instant
        }

        private struct State {
            var next = 0
            var registered: [Int: Registered] = [:]
            var givenUp: Set<Int> = []
            var checking = false
        }

        private let state = Mutex(State())
        private let checkAddress: @Sendable () async -> AddressCheck

        init(checkAddress: @escaping @Sendable () async -> AddressCheck) {
            self.checkAddress = checkAddress
        }

        /// Registers a wait; starts the checks if none are running.
        func start(_ waiting: Waiting) -> Int {
            let (id, startsChecks) = state.withLock { state in
                state.next += 1
                state.registered[state.next] = Registered(waiting: waiting, since: .now)
                defer { state.checking = true }
                return (state.next, !state.checking)
            }
            if startsChecks { Task { await self.check() } }
            return id
        }

        /// Ends a wait: true if it ended by itself (a connection, or an error of its own), false if it was given up.
        func end(_ id: Int) -> Bool {
            state.withLock { state in
                state.registered[id] = nil
                return state.givenUp.remove(id) == nil
            }
        }

        private func check() async {
            var refusals = 0
            var silences = 0
            while true {
                try? await Task.sleep(for: connectionWait / 2)
                let overdue = state.withLock { state -> [Int]? in
                    if state.registered.isEmpty {
                        state.checking = false
                        return nil
                    }
                    let before = ContinuousClock.now - connectionWait
                    return state.registered.filter { $0.value.since <= before }.map(\.key)
                }
                guard let overdue else { return }
                switch overdue.isEmpty ? .answered : await checkAddress() {
                case .answered:
                    refusals = 0
                    silences = 0
                    continue
                case .refused:
                    refusals += 1
                case .silent:
                    silences += 1
                }
                guard refusals >= 2 || silences >= silentChecksBeforeGivingUp else { continue }
                state.withLock { state in
                    for id in overdue {
                        guard let registered = state.registered.removeValue(forKey: id) else { continue }
                        state.givenUp.insert(id)
                        registered.waiting.task.cancel()
                    }
                }
            }
        }
    }

    /// True for the errors that mean PostgreSQL could not be reached or went away mid-request (stopped,
    /// restarting, network down), rather than something wrong with the request.
    package static func isUnreachable(_ error: any Error) -> Bool {
        if error is DatabaseUnavailable { return true }
        // The pool's own error (its module is not one this package imports): it gave up connecting, or is shutting down.
        if String(reflecting: type(of: error)).hasSuffix(".ConnectionPoolError") { return true }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed:
            return true
        case .server:
            // Class 08: connection exception; 57P01–57P03: the server is shutting down or starting up.
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
        default:
            return false
        }
    }

    /// True when SQLite could not write because the disk (or the database's page limit) is full.
    package static func isStorageFull(_ error: any Error) -> Bool {
        guard let failure = error as? SQLiteHandle.Failure else { return false }
        return failure.code & 0xff == 13  // SQLITE_FULL, whatever its extended code
    }

    /// False while the current task changes the schema (`Migrator`): PostgreSQL statements it runs
    /// are not kept prepared on their connections, since a kept `SELECT *` stops running once its
    /// table gains a column. SQLite finds such changes itself.
    @TaskLocal package static var keepsStatements = true

    /// Writes that need no transaction: each statement `body` runs is committed on its own, as soon as
    /// it has run (one update, or a few that stand alone). On SQLite they take the writer's turn, as a
    /// transaction does, and started inside a transaction they throw `NestedTransaction` for the same reason.
    public func write<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        guard !Self.isInTransaction else { throw NestedTransaction() }
        return try await Self.$isInTransaction.withValue(true) { try await withConnection(.write, body) }
    }

    /// Runs `body` in one transaction: everything it writes is committed together, or nothing is,
    /// and it returns only once that commit is on disk.
    ///
    /// SQLite takes one writer at a time. This server's transactions queue for their turn in memory,
    /// so each starts the moment the one before ends; SQLite's own wait for its lock (the busy
    /// timeout, which sleeps and polls) is left to other processes, such as a command run beside the
    /// server. Transactions that queue while others run share one commit, each in a savepoint of its
    /// own (`SQLiteConnectionPool.withTransaction`): sixteen at once wait for one flush to disk, not
    /// sixteen in a row. The writer takes the lock at the start (`BEGIN IMMEDIATE`), so a transaction
    /// never fails halfway with "database is locked".
    ///
    /// A transaction started inside another one throws `NestedTransaction`: on SQLite it would wait
    /// for the turn its own caller holds, and on either engine it would not commit with the outer one.
    public func transaction<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        guard !Self.isInTransaction else { throw NestedTransaction() }
        return try await Self.$isInTransaction.withValue(true) { try await run(transaction: body) }
    }

    /// One statement that stands alone (an audit entry of a record being read), committed by the time it
    /// returns. On PostgreSQL the statement is its own transaction: one round trip, not three (`BEGIN`, the
    /// statement, `COMMIT`). On SQLite it is a transaction, so that it shares one commit with the writers
    /// waiting beside it. `body` runs one statement: on PostgreSQL a second would be committed on its own.
    package func writeAlone<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        switch backend {
        case .postgres: try await write(body)
        case .sqlite: try await transaction(body)
        }
    }

    /// Leaves no byte of rows just deleted in any file of the database (chat past its retention). On SQLite
    /// `secure_delete` zeroes them in the pages a deletion writes, but those pages, and the earlier ones that
    /// still hold the text, sit in the write-ahead log until a checkpoint: this copies the log into the main
    /// file and truncates it to nothing, trying again for up to `checkpointPatience` while a reader still uses
    /// it. PostgreSQL keeps dead rows and its own log where no statement reaches them (docs/security.md).
    /// When a reader held the log throughout, `owesCheckpoint` stays true and the caller tries again on its
    /// next run, deletions or not.
    package func checkpointDeletions() async throws {
        guard case .sqlite = backend else { return }
        checkpointOwed.store(true, ordering: .relaxed)
        let deadline = ContinuousClock.now + Self.checkpointPatience
        while true {
            let busy = try await write { db in
                try await db.raw("PRAGMA wal_checkpoint(TRUNCATE)").first()?.decode(column: "busy", as: Int.self) ?? 1
            }
            if busy == 0 { return checkpointOwed.store(false, ordering: .relaxed) }
            guard ContinuousClock.now < deadline else {
                return logger.warning("The write-ahead log could not be checkpointed after a deletion: a reader held it; trying again on the next run")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// How long `checkpointDeletions` keeps trying while readers hold the log.
    package static let checkpointPatience: Duration = .seconds(10)

    /// True from a deletion's checkpoint until it has fully succeeded.
    package var owesCheckpoint: Bool { checkpointOwed.load(ordering: .relaxed) }

    /// How many transactions and writes wait for SQLite's writer (0 on PostgreSQL, which has no one writer).
    package var waitingWriters: Int {
        if case .sqlite(let pool) = backend { return pool.waitingWriters }
        return 0
    }

    /// True while the current task runs the body of a transaction.
    @TaskLocal package static var isInTransaction = false

    private func run<T: Sendable>(transaction body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await withConnection(.transaction, body)
    }

    /// Runs `body` between `BEGIN` and `COMMIT` on one PostgreSQL connection, rolling back if it throws.
    nonisolated(nonsending) private static func committing<T: Sendable>(
        _ database: any SQLDatabase, _ body: (any SQLDatabase) async throws -> T
    ) async throws -> T {
        try await database.raw("BEGIN").run()
        do {
            let result = try await body(database)
            try await database.raw("COMMIT").run()
            return result
        } catch {
            try? await database.raw("ROLLBACK").run()
            throw error
        }
    }
}

extension Database: Service {
    /// The service group stops services in reverse order, so the database closes after the server and
    /// the background jobs that use it.
    public func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await self.runConnections()
        }
    }
}

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
                username: username, password: password, database: database
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
                host: host, port: port, username: username, password: password, database: database, tls: tls
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

/// A transaction was started inside another one; the code that did so must pass the outer one's
/// database along instead.
package struct NestedTransaction: Error, CustomStringConvertible {
    package var description: String { "a transaction was started inside another transaction" }

    package init() {}
}

/// PostgreSQL could not be reached in time, or went away during the request: nothing of the request's
/// transaction was committed, and the person is asked to try again shortly (503).
package struct DatabaseUnavailable: Error, CustomStringConvertible {
    package let reason: String
    package var description: String { "the database could not be reached: \(reason)" }

    package init(reason: String) {
        self.reason = reason
    }
}

package struct DatabaseClosed: Error, CustomStringConvertible {
    package var description: String { "the database is closed" }

    package init() {}
}

/// SQLite connections: a few readers and one writer, each set up for safe concurrent use.
///
/// Readers are read-only (`PRAGMA query_only`): in WAL mode they read while the writer writes. The
/// writer serves one transaction (or `Database.write`) at a time, in the order they asked
/// (`WriterQueue`), so it starts the moment the previous one commits instead of sleeping in SQLite's
/// busy handler; that wait is left to other processes (a command run beside the server). Checking a
/// reader out and in takes a lock for a moment: every request does both.
package final class SQLiteConnectionPool: Sendable {
    /// A connection and, for a reader, the thread its statements and the reads that use it run on.
    package struct Connection: Sendable {
        package let handle: SQLiteHandle
        package let thread: EventLoopExecutor?

        package func close() { handle.close() }

        package init(handle: SQLiteHandle, thread: EventLoopExecutor? = nil) {
            self.handle = handle
            self.thread = thread
        }
    }

    /// The threads the writers' statements run on, any free one each time, shared by every database
    /// in the process and apart from the readers' (`EventLoopExecutor.sqlite`). A writer can wait in
    /// SQLite's busy handler for another connection's lock, and in a process with two databases on
    /// the same file (a command run inside the tests) that connection must be able to commit on
    /// another thread meanwhile; so writers are not tied to a thread of their own.
    package static let writerThreads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 4)
        pool.start()
        return pool
    }()

    private struct State {
        package var idle: [Connection] = []
        package var openCount = 0
        package var waiters: [CheckedContinuation<Connection, any Error>] = []
        package var closed = false
        /// Opened on the first transaction; only the transaction holding the writer's turn touches it.
        package var writer: Connection?
    }

    private let path: String
    private let maximumReaders: Int
    private let logger: Logger
    private let state = Mutex(State())
    private let writers = WriterQueue()

    package init(path: String, maximumReaders: Int, logger: Logger) {
        self.path = path
        self.maximumReaders = maximumReaders
        self.logger = logger
    }

    /// Runs `body` with a read-only connection of its own, on that connection's thread.
    package func withReader<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        let connection = try await checkOut()
        do {
            let result = try await run(body, on: connection)
            checkIn(connection)
            return result
        } catch {
            checkIn(connection)
            throw error
        }
    }

    /// Runs `body` on the connection's own thread, if it has one.
    private func run<T: Sendable>(_ body: (any SQLDatabase) async throws -> T, on connection: Connection) async throws -> T {
        try await withTaskExecutorPreference(connection.thread) {
            try await body(SQLiteSQLDatabase(connection: connection.handle, thread: connection.thread, logger: logger, queryLogLevel: nil))
        }
    }

    /// Waits for the previous transaction to finish, then runs `body` with the writer.
    package func withWriter<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        await writers.wait()
        defer { writers.next() }
        return try await run(body, on: try await writer())
    }

    /// The writer's connection, opened on first use; only the turn's holder asks.
    private func writer() async throws -> Connection {
        let existing = try state.withLock { state throws -> Connection? in
            if state.closed { throw DatabaseClosed() }
            return state.writer
        }
        if let existing { return existing }
        let writer = try await open(readOnly: false, on: nil)
        state.withLock { $0.writer = writer }
        return writer
    }

    /// The transaction the writer has open, shared by the transactions that queued while it ran:
    /// how many have run in it, those waiting for its commit, and since when the first has waited.
    private struct OpenTransaction {
        var members = 0
        var waiting: [CheckedContinuation<Void, any Error>] = []
        var waitingSince: ContinuousClock.Instant?
    }

    /// Touched only by the holder of the writer's turn.
    private let shared = Mutex<OpenTransaction?>(nil)

    /// At most this many transactions share a commit, and the turn is handed on to the next one in
    /// line only while the first to wait for the commit has waited less than `sharedAge`: it waits for
    /// the others' work, and this bounds that wait.
    package static let sharedLimit = 32
    package static let sharedAge: Duration = .milliseconds(5)

    /// Runs `body` in a transaction, answering only once it is committed.
    ///
    /// The writer's turn opens a transaction (`BEGIN IMMEDIATE`) or joins the one open, and runs
    /// `body` in a savepoint of its own. Then, if the next writer in line is a transaction too (and
    /// the shared one is still young and small), it hands the turn on and waits for that commit;
    /// otherwise it commits for everyone in it. A `body` that throws has its savepoint rolled back
    /// and the others in the transaction go on; it is answered with its error once the shared
    /// transaction has ended, so that what its caller reads next includes what those before it in
    /// line wrote, as when transactions ran one by one. If SQLite has rolled back the whole transaction
    /// (a full disk, an I/O error: the savepoint is gone), everyone in it is answered with that error,
    /// and nothing of it is stored.
    package func withTransaction<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        await writers.wait(joining: true)
        let writer: Connection
        do {
            writer = try await self.writer()
        } catch {
            // The pool was closed: a transaction left open by those before is not committed, and they are told.
            endShared(failure: error)
            throw error
        }
        return try await run({ database in try await self.runShared(body, on: database) }, on: writer)
    }

    private func runShared<T: Sendable>(_ body: (any SQLDatabase) async throws -> T, on database: any SQLDatabase) async throws -> T {
        if shared.withLock({ $0 == nil }) {
            do {
                try await database.raw("BEGIN IMMEDIATE").run()
            } catch {
                endShared(failure: error)
                throw error
            }
            shared.withLock { $0 = OpenTransaction() }
        }
        shared.withLock { $0?.members += 1 }
        let outcome: Result<T, any Error>
        do {
            try await database.raw("SAVEPOINT shared").run()
            let value = try await body(database)
            try await database.raw("RELEASE shared").run()
            outcome = .success(value)
        } catch let failure {
            outcome = .failure(failure)
            do {
                try await database.raw("ROLLBACK TO shared").run()
                try await database.raw("RELEASE shared").run()
            } catch {
                // The savepoint is gone with the whole transaction: the others in it are lost too.
                try? await database.raw("ROLLBACK").run()
                endShared(failure: failure)
                throw failure
            }
        }
        let handsOn = shared.withLock { shared in
            guard let shared else { return false }
            return shared.members < Self.sharedLimit && shared.waitingSince.map { ContinuousClock.now - $0 < Self.sharedAge } ?? true
        } && writers.nextJoins
        if handsOn {
            // It waits for the commit it is in; a failed one too, though nothing of it is stored, so that what
            // its caller reads next includes what those before it in line wrote, as if they had run one by one.
            var commitFailure: (any Error)?
            do {
                try await withCheckedThrowingContinuation { (committed: CheckedContinuation<Void, any Error>) in
                    shared.withLock { shared in
                        shared?.waiting.append(committed)
                        if shared?.waitingSince == nil { shared?.waitingSince = .now }
                    }
                    writers.next()
                }
            } catch {
                commitFailure = error
            }
            let value = try outcome.get()
            if let commitFailure { throw commitFailure }
            return value
        }
        do {
            try await database.raw("COMMIT").run()
        } catch {
            try? await database.raw("ROLLBACK").run()
            endShared(failure: error)
            throw error
        }
        endShared(failure: nil)
        return try outcome.get()
    }

    /// Ends the shared transaction (committed, rolled back or lost) and the writer's turn, and answers
    /// everyone who waited for its commit: with `failure`, or as stored when it is nil.
    private func endShared(failure: (any Error)?) {
        let waiting = shared.withLock { shared in
            defer { shared = nil }
            return shared?.waiting ?? []
        }
        writers.next()
        for waiter in waiting {
            if let failure { waiter.resume(throwing: failure) } else { waiter.resume() }
        }
    }

    /// How many writers wait for the writer's turn.
    package var waitingWriters: Int { writers.waitingCount }

    private enum CheckOut {
        case ready(Connection)
        case open(Int)
        case wait
    }

    private func checkOut() async throws -> Connection {
        let next = try state.withLock { state throws -> CheckOut in
            if state.closed { throw DatabaseClosed() }
            if let connection = state.idle.popLast() { return .ready(connection) }
            guard state.openCount < maximumReaders else { return .wait }
            state.openCount += 1
            return .open(state.openCount - 1)
        }
        switch next {
        case .ready(let connection):
            return connection
        case .open(let index):
            do {
                // Each reader its own thread, as far as there are threads.
                return try await open(readOnly: true, on: EventLoopExecutor.sqlite[index % EventLoopExecutor.sqlite.count])
            } catch {
                state.withLock { $0.openCount -= 1 }
                throw error
            }
        case .wait:
            return try await withCheckedThrowingContinuation { continuation in
                // A connection may have come back, or the pool closed, since the look above.
                let outcome = state.withLock { state -> Result<Connection, any Error>? in
                    if state.closed { return .failure(DatabaseClosed()) }
                    if let connection = state.idle.popLast() { return .success(connection) }
                    state.waiters.append(continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        }
    }

    private func checkIn(_ connection: Connection) {
        enum Next { case close, hand(CheckedContinuation<Connection, any Error>), keep }
        let next = state.withLock { state -> Next in
            if state.closed {
                state.openCount -= 1
                return .close
            }
            if !state.waiters.isEmpty { return .hand(state.waiters.removeFirst()) }
            state.idle.append(connection)
            return .keep
        }
        switch next {
        case .close: connection.close()
        case .hand(let waiter): waiter.resume(returning: connection)
        case .keep: break
        }
    }

    /// Opens a connection on the thread it will belong to, if any (opening reads the file), and sets it up.
    private func open(readOnly: Bool, on thread: EventLoopExecutor?) async throws -> Connection {
        let path = self.path
        let handle = try await SQLiteSQLDatabase.run(on: thread) {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let connection = try SQLiteHandle(path: path)
            do {
                // The busy timeout comes first: a connection opened while another one writes waits for it rather than failing.
                try connection.run("PRAGMA busy_timeout = 10000", []) { _ in }
                // WAL lets readers work while one writer commits; FULL sync makes every commit survive a crash.
                try connection.run("PRAGMA journal_mode = WAL", []) { _ in }
                try connection.run("PRAGMA synchronous = FULL", []) { _ in }
                try connection.run("PRAGMA foreign_keys = ON", []) { _ in }
                // Deleted rows are overwritten with zeros, so what retention deletes (chat) is not left in the file.
                try connection.run("PRAGMA secure_delete = ON", []) { _ in }
                if readOnly { try connection.run("PRAGMA query_only = ON", []) { _ in } }
            } catch {
                connection.close()
                throw error
            }
            return connection
        }
        return Connection(handle: handle, thread: thread)
    }

    /// Closes every connection: idle readers now, readers in use as they come back, and the writer
    /// once the transaction holding it (if any) has finished.
    package func close() async {
        let (waiters, connections) = state.withLock { state in
            state.closed = true
            defer {
                state.waiters.removeAll()
                state.openCount -= state.idle.count
                state.idle.removeAll()
            }
            return (state.waiters, state.idle)
        }
        for waiter in waiters {
            waiter.resume(throwing: DatabaseClosed())
        }
        for connection in connections { connection.close() }
        await writers.wait()
        let writer = state.withLock { state in
            defer { state.writer = nil }
            return state.writer
        }
        writer?.close()
        writers.next()
    }
}

/// Writers waiting for their turn, first come first served.
private final class WriterQueue: Sendable {
    private struct State {
        package var busy = false
        /// Each with whether it is a transaction that may join the one the writer has open.
        package var waiting: [(turn: CheckedContinuation<Void, Never>, joins: Bool)] = []
    }

    private let state = Mutex(State())

    /// Waits for the writer's turn; `joining` for a transaction that may run inside an open one.
    package func wait(joining: Bool = false) async {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let free = state.withLock { state in
                guard !state.busy else {
                    state.waiting.append((turn, joining))
                    return false
                }
                state.busy = true
                return true
            }
            if free { turn.resume() }
        }
    }

    /// True when the next writer in line is a transaction that may join the open one. Only the
    /// turn's holder asks, and only `next` takes waiters off, so the answer holds until it calls `next`.
    package var nextJoins: Bool { state.withLock { $0.waiting.first?.joins ?? false } }

    /// How many writers wait for their turn.
    package var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Ends the current turn: the next writer in line starts, or the queue is free.
    package func next() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst().turn
        }
        waiter?.resume()
    }
}

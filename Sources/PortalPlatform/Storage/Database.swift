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
                logger.warning(
                    "PostgreSQL's connection pool had not finished closing \(Self.closingGrace) after it was asked to; stopping without it"
                )
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
        of client: PostgresClient,
        waits: LeaseWaits,
        _ body: (any SQLDatabase) async throws -> T
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
        } catch  where Self.isUnreachable(error) {
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
        return failure.code & 0xff == 13 // SQLITE_FULL, whatever its extended code
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
                return logger.warning(
                    "The write-ahead log could not be checkpointed after a deletion: a reader held it; trying again on the next run"
                )
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
        _ database: any SQLDatabase,
        _ body: (any SQLDatabase) async throws -> T
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

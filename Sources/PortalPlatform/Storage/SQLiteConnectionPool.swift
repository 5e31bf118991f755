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
        let handsOn =
            shared.withLock { shared in
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

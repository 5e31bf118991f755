import Foundation
import PortalPlatform
import SQLKit
import Testing

/// A request waiting for a PostgreSQL connection waits on while the pool is only busy, and is answered
/// `DatabaseUnavailable` once PostgreSQL takes no connections (rather than being held for a minute).
@Suite struct PostgresConnectionWaitTests {
    struct TookTooLong: Error {}

    /// `body`'s answer, or a failure if it takes longer than `limit`: a wait that never ends fails the test instead of hanging it.
    private func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let answer = try await group.next() ?? nil else { throw TookTooLong() }
            return answer
        }
    }

    @Test(.enabled(if: TestEngines.postgresURL != nil, "needs CAREPORTAL_TEST_POSTGRES_URL"))
    func aRequestWaitingLongerThanTheCheckForABusyPoolGetsItsConnection() async throws {
        let base = TestEngines.postgresURL!
        let url = base + (base.contains("?") ? "&" : "?") + "pool_size=1"
        let database = try Database(url: url, logger: TestDatabase.logger)
        try await database.whileRunning {
            let (held, holds) = AsyncStream.makeStream(of: Void.self)
            let holding = Task {
                try await database.read { db in
                    holds.yield()
                    try await Task.sleep(for: Database.connectionWait * 2)
                    return try await db.raw("SELECT 1 AS n").first()?.decode(column: "n", as: Int.self)
                }
            }
            for await _ in held { break }
            let asked = ContinuousClock.now
            let answer = try await within(.seconds(30)) {
                try await database.read { db in try await db.raw("SELECT 2 AS n").first()?.decode(column: "n", as: Int.self) }
            }
            #expect(answer == 2)
            #expect(ContinuousClock.now - asked > Database.connectionWait, "it waited past the check for the one connection")
            #expect(try await holding.value == 1)
        }
    }

    @Test func aRequestWaitingWhilePostgreSQLTakesNoConnectionsIsAnsweredUnavailable() async throws {
        // A port nothing listens on: bound, then closed again.
        let port = LoopbackPort.free()
        let database = try Database(url: "postgres://careportal@127.0.0.1:\(port)/careportal", logger: TestDatabase.logger)
        try await database.whileRunning {
            let outcome = try await within(.seconds(30)) {
                do {
                    _ = try await database.read { db in try await db.raw("SELECT 1 AS n").first() }
                    return "answered"
                } catch is DatabaseUnavailable {
                    return "unavailable"
                }
            }
            #expect(outcome == "unavailable")
        }
    }
}

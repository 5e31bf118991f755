import Foundation
import PortalPlatform
import SQLKit
import Testing

/// A request waiting for a PostgreSQL connection waits on while the pool is only busy, and is answered
/// `DatabaseUnavailable` once PostgreSQL takes no connections (rather than being held for a minute): soon
/// when its address refuses them, only after ten seconds or so when it answers nothing.
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

    /// How a read from PostgreSQL at `port` ends, and after how long.
    private func readFromPostgreSQL(at port: Int, within limit: Duration) async throws -> (outcome: String, after: Duration) {
        let database = try Database(url: "postgres://careportal@127.0.0.1:\(port)/careportal", logger: TestDatabase.logger)
        return try await database.whileRunning {
            let asked = ContinuousClock.now
            let outcome = try await within(limit) {
                do {
                    _ = try await database.read { db in try await db.raw("SELECT 1 AS n").first() }
                    return "answered"
                } catch is DatabaseUnavailable {
                    return "unavailable"
                }
            }
            return (outcome, ContinuousClock.now - asked)
        }
    }

    @Test func aRequestWaitingWhilePostgreSQLRefusesConnectionsIsAnsweredUnavailableSoon() async throws {
        // A port nothing listens on: bound, then closed again.
        let (outcome, after) = try await readFromPostgreSQL(at: LoopbackPort.free(), within: .seconds(30))
        #expect(outcome == "unavailable")
        // The wait, then two refused checks a second apart: well before ten silent ones could have passed.
        #expect(after < Database.connectionWait + .seconds(Database.silentChecksBeforeGivingUp), "given up after \(after)")
    }

    @Test func aRequestWaitingWhilePostgreSQLsAddressIsSilentIsGivenUpOnlyAfterTenSilentChecks() async throws {
        let silent = try LoopbackListener(full: true)
        let (outcome, after) = try await readFromPostgreSQL(at: silent.port, within: .seconds(90))
        #expect(outcome == "unavailable")
        // Each silent check waits out its second of connecting.
        #expect(after > Database.connectionWait + .seconds(Database.silentChecksBeforeGivingUp), "given up after \(after)")
        withExtendedLifetime(silent) {}
    }

    @Test func eachCheckOfTheAddressTellsAnAnswerARefusalAndSilenceApart() async throws {
        let silent = try LoopbackListener(full: true)
        let listening = try LoopbackListener(full: false)
        #expect(await Database.check(host: "127.0.0.1", port: listening.port, socket: nil) == .answered)
        #expect(await Database.check(host: "127.0.0.1", port: LoopbackPort.free(), socket: nil) == .refused)
        #expect(await Database.check(host: "127.0.0.1", port: silent.port, socket: nil) == .silent)
        withExtendedLifetime((silent, listening)) {}
    }
}

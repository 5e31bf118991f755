import Synchronization
import Testing
@testable import PortalPlatform

/// Signals that something changed, on the one-server engine (SQLite): delivered in this process.
@Suite struct LiveSignalsTests {
    /// The limit stops a hang, not a slow run: alone it takes under a second, but among the whole suite on a
    /// loaded two-core machine it once waited over a minute for its turn.
    @Test(.timeLimit(.minutes(5))) func onSQLiteEachSignalIsDeliveredInTheOrderSentAndTheSenderDoesNotWaitForItsHandler() async throws {
        let url = try await TestDatabase.make(.sqlite)
        defer { Task { try? await TestDatabase.drop(url) } }
        let database = try Database(url: url, logger: TestDatabase.logger)
        let signals = LiveSignals(database: database)
        let heard = Mutex<[String]>([])
        let (firstHandled, handled) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        signals.on("room") { payload in
            // The first one holds its handler until the test lets it go.
            if payload == "posted 1" {
                handled.yield()
                for await _ in released { break }
            }
            heard.withLock { $0.append(payload) }
        }

        try await signals.send("room", "posted 1")
        try await signals.send("room", "removed 1")
        try await signals.send("other", "posted 2")
        try await signals.send("room", "posted 3")
        // Every send returned while the first handler is still waiting.
        for await _ in firstHandled { break }
        #expect(heard.withLock { $0 }.isEmpty)
        release.yield()

        for _ in 0..<500 where heard.withLock({ $0.count }) < 3 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(heard.withLock { $0 } == ["posted 1", "removed 1", "posted 3"])
    }
}

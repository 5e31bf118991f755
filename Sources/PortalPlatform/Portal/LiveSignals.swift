import Foundation
import Logging
import SQLKit
import ServiceLifecycle
import Synchronization

/// Signals that something changed, heard by every server: a feature sends a topic and a short payload
/// (ids, never anything a person wrote, since notifications are not encrypted at rest in PostgreSQL's
/// queue) after its transaction has committed; each server's handlers for the topic then do what the
/// change asks of that server (push a chat message to the sockets it holds). On PostgreSQL the signal
/// goes through `NOTIFY`, so every server sharing the database hears it, the sender included; on
/// SQLite there is one server and it is delivered in this process. Either way the sender does not wait
/// for the handlers (a member's post is answered before its frame reaches a thousand sockets), and each
/// server delivers its signals one at a time, in the order they were sent.
package final class LiveSignals: Sendable {
    package static let channel = "careportal_live"
    private let database: Database
    private let handlers = Handlers()
    /// SQLite's signals, waiting for the one task that delivers them (none on PostgreSQL).
    private let local: AsyncStream<String>.Continuation?

    /// The handlers by topic: shared with the task delivering SQLite's signals, which must not keep the
    /// signals themselves alive.
    private final class Handlers: Sendable {
        let byTopic = Mutex<[String: [@Sendable (String) async -> Void]]>([:])

        func deliver(_ message: String) async {
            guard let space = message.firstIndex(of: " ") else { return }
            let topic = String(message[..<space])
            let payload = String(message[message.index(after: space)...])
            for handler in byTopic.withLock({ $0[topic] ?? [] }) { await handler(payload) }
        }
    }

    package init(database: Database) {
        self.database = database
        if database.engine == .sqlite {
            let (signals, local) = AsyncStream.makeStream(of: String.self)
            self.local = local
            Task { [handlers] in
                for await message in signals { await handlers.deliver(message) }
            }
        } else {
            local = nil
        }
    }

    deinit {
        local?.finish()
    }

    /// Calls `handler` with the payload of every signal on `topic`, on this server.
    package func on(_ topic: String, _ handler: @escaping @Sendable (String) async -> Void) {
        precondition(!topic.contains(" "), "a topic is one word")
        handlers.byTopic.withLock { $0[topic, default: []].append(handler) }
    }

    /// Sends a signal to every server. Call it once the change it announces has committed.
    package func send(_ topic: String, _ payload: String) async throws {
        let message = "\(topic) \(payload)"
        switch database.engine {
        case .postgres:
            try await database.write { db in
                try await db.raw("SELECT pg_notify(\(bind: Self.channel), \(bind: message))").run()
            }
        case .sqlite:
            local?.yield(message)
        }
    }

    /// Hands a signal heard from the database to this server's handlers.
    package func deliver(_ message: String) async {
        await handlers.deliver(message)
    }
}

/// Listens for other servers' signals on PostgreSQL for as long as the server runs, listening again
/// after a lost connection.
package struct LiveSignalListener: Service, CustomStringConvertible {
    package let database: Database
    package let signals: LiveSignals
    package let logger: Logger

    package init(database: Database, signals: LiveSignals, logger: Logger) {
        self.database = database
        self.signals = signals
        self.logger = logger
    }

    package var description: String { "LiveSignalListener" }

    package func run() async throws {
        guard database.engine == .postgres else {
            // One server: signals are delivered in this process. A service that returned would stop the server.
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await database.listen(on: LiveSignals.channel) { message in await signals.deliver(message) }
                } catch {
                    if Task.isCancelled { return }
                    logger.warning("Listening for live signals failed; listening again", metadata: ["error": "\(String(reflecting: error))"])
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}

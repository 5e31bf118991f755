import Foundation
import Logging
import ServiceLifecycle

/// Delivers what waits in the outbox, in the background, with retries and growing pauses.
public final class OutboxSender: Service, Sendable {
    package let database: Database
    package let outbox: Outbox
    package let transport: any MailTransport
    package let sender: String
    package let logger: Logger
    private let wakeUps: AsyncStream<Void>
    private let wakeUpContinuation: AsyncStream<Void>.Continuation
    /// Due mail is looked for at least this often, even without a wake-up.
    package static let pollInterval: Duration = .seconds(5)

    package init(
        database: Database,
        outbox: Outbox,
        transport: any MailTransport,
        sender: String,
        logger: Logger,
        wakeUps: AsyncStream<Void>,
        wakeUpContinuation: AsyncStream<Void>.Continuation
    ) {
        self.database = database
        self.outbox = outbox
        self.transport = transport
        self.sender = sender
        self.logger = logger
        self.wakeUps = wakeUps
        self.wakeUpContinuation = wakeUpContinuation
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: Self.pollInterval)
                        self.wakeUpContinuation.yield()
                    }
                }
                for await _ in wakeUps.cancelOnGracefulShutdown() {
                    await deliverDueLogged()
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            self.wakeUpContinuation.finish()
        }
    }

    private func deliverDueLogged() async {
        do {
            try await deliverDue()
        } catch {
            logger.error("The outbox could not be read", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// Sends every message that is due now; returns how many were delivered.
    @discardableResult
    public func deliverDue() async throws -> Int {
        var delivered = 0
        while true {
            let batch = try await database.transaction { db in try await outbox.claimDue(limit: 10, on: db) }
            guard !batch.isEmpty else { return delivered }
            for message in batch {
                do {
                    try await transport.deliver(message, from: sender)
                    try await database.transaction { db in try await outbox.markSent(id: message.id, on: db) }
                    delivered += 1
                    logger.info("Delivered an email", metadata: ["outbox.id": "\(message.id)"])
                } catch {
                    try await database.transaction { db in
                        try await outbox.markFailed(message, error: "\(error)", on: db)
                    }
                    logger.warning(
                        "An email could not be delivered; it will be tried again",
                        metadata: [
                            "outbox.id": "\(message.id)", "attempt": "\(message.attempts + 1)", "error": "\(error)"
                        ]
                    )
                }
            }
        }
    }
}

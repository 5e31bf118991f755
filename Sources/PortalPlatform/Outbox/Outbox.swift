import Foundation
import SQLKit

/// An email waiting in the outbox, sent, or given up on.
public struct OutboxMessage: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable {
        case pending, sent, failed

        public var title: String {
            switch self {
            case .pending: "Waiting to send"
            case .sent: "Sent"
            case .failed: "Not delivered"
            }
        }
    }

    public var id: Int64
    public var createdAt: Date
    public var recipient: String
    public var subject: String
    /// The text, opened from its sealed form; nil once the message is delivered (only its recipient,
    /// subject, times and status are kept) or when it cannot be opened with this server's key.
    public var body: String?
    /// The parts of `body` that are secrets (tokens, links holding one), masked wherever the body is shown.
    public var secrets: [String]
    public var status: Status
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?
    public var sentAt: Date?

    package init(
        id: Int64,
        createdAt: Date,
        recipient: String,
        subject: String,
        body: String?,
        secrets: [String] = [],
        status: Status,
        attempts: Int,
        nextAttemptAt: Date,
        lastError: String? = nil,
        sentAt: Date? = nil
    ) {
        self.id = id
        self.createdAt = createdAt
        self.recipient = recipient
        self.subject = subject
        self.body = body
        self.secrets = secrets
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.sentAt = sentAt
    }
}

/// An email a feature wants sent.
public struct Mail: Sendable, Equatable {
    public var recipient: String
    public var subject: String
    public var body: String
    /// The parts of `body` that are secrets: the token, or the link that holds it. The outbox keeps the
    /// body sealed and masks these wherever it shows it.
    public var secrets: [String]

    public init(recipient: String, subject: String, body: String, secrets: [String] = []) {
        self.recipient = recipient
        self.subject = subject
        self.body = body
        self.secrets = secrets
    }
}

/// Mail is written here in the same transaction as the change that causes it, so it is never lost
/// and never sent for a change that did not happen. The only place the outbox's SQL lives.
///
/// Bodies rest sealed (`sealed_body`, AES-GCM under the sealing key) and are dropped once delivered:
/// a copy of the database holds no reset link, claim token or invitation link.
public struct Outbox: Sendable {
    /// After this many failed attempts a message is marked not delivered, for an administrator to retry.
    package static let maximumAttempts = 8
    /// A sender that crashed mid-delivery gives its claim up after this long.
    package static let claimDuration: TimeInterval = 120

    package let now: @Sendable () -> Date
    package let sealer: Sealer
    package let wakeSender: @Sendable () -> Void

    package static let bodyPurpose = SealingPurpose("outbox.sealed_body")
    /// The outbox's sealed column, re-sealed by a rotation of the key.
    package static let sealedColumn = SealedColumn(table: "outbox", key: "id", column: "sealed_body", purpose: bodyPurpose)

    /// What `sealed_body` holds once opened.
    private struct SealedBody: Codable {
        var body: String
        var secrets: [String]
    }

    /// Adds `mail` to the outbox inside the caller's transaction.
    public func enqueue(_ mail: Mail, on db: any SQLDatabase) async throws {
        let time = now().millisecondsSince1970
        let sealed = try sealer.seal(
            String(decoding: try JSONEncoder().encode(SealedBody(body: mail.body, secrets: mail.secrets)), as: UTF8.self),
            for: Self.bodyPurpose
        )
        try await db.insert(into: "outbox")
            .columns("created_at", "recipient", "subject", "sealed_body", "status", "attempts", "next_attempt_at")
            .values(
                SQLBind(time),
                SQLBind(mail.recipient),
                SQLBind(mail.subject),
                SQLBind(sealed),
                SQLBind(OutboxMessage.Status.pending.rawValue),
                SQLBind(0),
                SQLBind(time)
            )
            .run()
        wakeSender()
    }

    /// Claims up to `limit` messages that are due, so no other sender takes them meanwhile.
    package func claimDue(limit: Int, on db: any SQLDatabase) async throws -> [OutboxMessage] {
        let time = now()
        let candidates = try await db.select().column("id").from("outbox")
            .where("status", .equal, OutboxMessage.Status.pending.rawValue)
            .where("next_attempt_at", .lessThanOrEqual, time.millisecondsSince1970)
            .where(Self.unclaimed(at: time))
            .orderBy("next_attempt_at").orderBy("id")
            .limit(limit)
            .all()
            .map { try $0.decode(column: "id", as: Int64.self) }
        var claimed: [OutboxMessage] = []
        for id in candidates {
            // Only one sender's conditional update can succeed for a message.
            let won =
                try await db.update("outbox")
                .set("claimed_until", to: time.addingTimeInterval(Self.claimDuration).millisecondsSince1970)
                .where("id", .equal, id)
                .where("status", .equal, OutboxMessage.Status.pending.rawValue)
                .where(Self.unclaimed(at: time))
                .returning("id")
                .first() != nil
            if won, let message = try await find(id: id, on: db) { claimed.append(message) }
        }
        return claimed
    }

    /// No sender holds the message, or the one that did has let its claim lapse.
    private static func unclaimed(at time: Date) -> any SQLExpression {
        SQLGroupExpression(
            SQLBinaryExpression(
                SQLBinaryExpression(SQLColumn("claimed_until"), .is, SQLLiteral.null),
                .or,
                SQLBinaryExpression(SQLColumn("claimed_until"), .lessThan, SQLBind(time.millisecondsSince1970))
            )
        )
    }

    package func markSent(id: Int64, on db: any SQLDatabase) async throws {
        try await db.update("outbox")
            .set("status", to: OutboxMessage.Status.sent.rawValue)
            .set("sent_at", to: now().millisecondsSince1970)
            // Delivered: the text, and whatever secret it carried, is no longer kept.
            .set("sealed_body", to: SQLLiteral.null)
            .set("plain_body", to: SQLLiteral.null)
            .set("claimed_until", to: SQLLiteral.null)
            .set("last_error", to: SQLLiteral.null)
            .set(SQLColumn("attempts"), to: SQLBinaryExpression(SQLColumn("attempts"), .add, SQLLiteral.numeric("1")))
            .where("id", .equal, id)
            .run()
    }

    /// Records a failed attempt; tries again later with a growing pause, or gives up after `maximumAttempts`.
    package func markFailed(_ message: OutboxMessage, error: String, on db: any SQLDatabase) async throws {
        let attempts = message.attempts + 1
        let pause = min(3600, 30 * pow(2, Double(attempts - 1)))
        let status: OutboxMessage.Status = attempts >= Self.maximumAttempts ? .failed : .pending
        try await db.update("outbox")
            .set("status", to: status.rawValue)
            .set("attempts", to: attempts)
            .set("next_attempt_at", to: now().addingTimeInterval(pause).millisecondsSince1970)
            .set("claimed_until", to: SQLLiteral.null)
            .set("last_error", to: String(error.prefix(500)))
            .where("id", .equal, message.id)
            .run()
    }

    /// Puts a message that was not delivered back in the queue, due now, with a fresh set of attempts.
    package func retry(id: Int64, on db: any SQLDatabase) async throws {
        try await db.update("outbox")
            .set("status", to: OutboxMessage.Status.pending.rawValue)
            .set("attempts", to: 0)
            .set("next_attempt_at", to: now().millisecondsSince1970)
            .set("claimed_until", to: SQLLiteral.null)
            .where("id", .equal, id)
            .where("status", .equal, OutboxMessage.Status.failed.rawValue)
            .run()
        wakeSender()
    }

    package func find(id: Int64, on db: any SQLDatabase) async throws -> OutboxMessage? {
        try await db.select().column("*").from("outbox").where("id", .equal, id).first().map(decode)
    }

    package func list(status: OutboxMessage.Status?, page: PageRequest, on db: any SQLDatabase) async throws -> PageOf<OutboxMessage> {
        try await db.seek(
            page,
            order: ListOrder("created", keys: [.integer("created_at"), .integer("id")], descending: true),
            rows: { builder in
                builder.from("outbox")
                // A literal from a closed set: each status's statement is planned for that status (`valueFromClosedSet`).
                return status.map { builder.where("status", .equal, valueFromClosedSet($0.rawValue)) } ?? builder
            },
            decode: decode
        )
    }

    /// Mail not yet delivered, for the operator's monitoring: how many wait to be sent (tried again
    /// included) and since when the oldest of them waits, and how many were given up on.
    package struct QueueSummary: Sendable, Equatable {
        package var waiting = 0
        package var oldestWaitingSince: Date?
        package var notDelivered = 0
    }

    /// One query over the undelivered messages only (the `status` index), however many were sent.
    package func queueSummary(on db: any SQLDatabase) async throws -> QueueSummary {
        let rows = try await db.select()
            .column("status")
            .column(SQLFunction("COUNT", args: SQLLiteral.all), as: "messages")
            .column(SQLFunction("MIN", args: SQLColumn("created_at")), as: "oldest")
            .from("outbox")
            .where("status", .in, [OutboxMessage.Status.pending.rawValue, OutboxMessage.Status.failed.rawValue])
            .groupBy("status")
            .all()
        var summary = QueueSummary()
        for row in rows {
            let count = try row.decode(column: "messages", as: Int.self)
            switch OutboxMessage.Status(rawValue: try row.decode(column: "status", as: String.self)) {
            case .pending:
                summary.waiting = count
                summary.oldestWaitingSince = try row.decode(column: "oldest", as: Int64?.self).map(Date.init(millisecondsSince1970:))
            case .failed:
                summary.notDelivered = count
            case .sent, nil:
                break
            }
        }
        return summary
    }

    /// Seals the bodies written before they were sealed (`plain_body`, left by migration 55), once, at start.
    package func sealPlainBodies(on db: any SQLDatabase) async throws -> Int {
        let rows = try await db.select().column("id").column("plain_body").from("outbox")
            .where("plain_body", .isNot, SQLLiteral.null)
            .all()
        for row in rows {
            let body = try row.decode(column: "plain_body", as: String.self)
            let sealed = try sealer.seal(
                String(decoding: try JSONEncoder().encode(SealedBody(body: body, secrets: [])), as: UTF8.self),
                for: Self.bodyPurpose
            )
            try await db.update("outbox")
                .set("sealed_body", to: sealed)
                .set("plain_body", to: SQLLiteral.null)
                .where("id", .equal, try row.decode(column: "id", as: Int64.self))
                .run()
        }
        return rows.count
    }

    /// The body and its secrets, opened; nil when there is none, or it does not open (logged by the sender).
    private func openedBody(_ row: any SQLRow) throws -> SealedBody? {
        if let sealed = try row.decode(column: "sealed_body", as: String?.self) {
            guard let json = try? sealer.open(sealed, for: Self.bodyPurpose) else { return nil }
            return try? JSONDecoder().decode(SealedBody.self, from: Data(json.utf8))
        }
        return try row.decode(column: "plain_body", as: String?.self).map { SealedBody(body: $0, secrets: []) }
    }

    private func decode(_ row: any SQLRow) throws -> OutboxMessage {
        let opened = try openedBody(row)
        return OutboxMessage(
            id: try row.decode(column: "id", as: Int64.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            recipient: try row.decode(column: "recipient", as: String.self),
            subject: try row.decode(column: "subject", as: String.self),
            body: opened?.body,
            secrets: opened?.secrets ?? [],
            status: OutboxMessage.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .pending,
            attempts: try row.decode(column: "attempts", as: Int.self),
            nextAttemptAt: Date(millisecondsSince1970: try row.decode(column: "next_attempt_at", as: Int64.self)),
            lastError: try row.decode(column: "last_error", as: String?.self),
            sentAt: try row.decode(column: "sent_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        )
    }

    package init(now: @escaping @Sendable () -> Date, sealer: Sealer, wakeSender: @escaping @Sendable () -> Void) {
        self.now = now
        self.sealer = sealer
        self.wakeSender = wakeSender
    }
}

extension OutboxMessage {
    /// What stands for a secret wherever a body is shown.
    package static let mask = "••••••••"

    /// The body as administrators may read it: every secret it declares masked, and, for bodies written
    /// before messages declared theirs, every link's query and anything shaped like a claim token too.
    package var maskedBody: String? {
        guard var text = body else { return nil }
        for secret in secrets.sorted(by: { $0.count > $1.count }) where !secret.isEmpty {
            text = text.replacingOccurrences(of: secret, with: Self.mask)
        }
        // Every value in a link's query: `?token=…&next=…`.
        text = text.replacingOccurrences(of: #"(?<=[?&][A-Za-z0-9_.-]{1,40}=)[^\s&#•]+"#, with: Self.mask, options: .regularExpression)
        return text.replacingOccurrences(of: #"\b[A-Za-z0-9]{4}(-[A-Za-z0-9]{4}){3,}\b"#, with: Self.mask, options: .regularExpression)
    }
}

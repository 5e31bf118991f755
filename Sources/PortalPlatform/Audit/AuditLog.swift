import Foundation
import SQLKit

/// What happened, in words an administrator filters by. The raw value is what the database and the CSV
/// export hold, so it never changes once rows carry it; each feature declares its own actions (as
/// `static let`s in an extension, listed in its `auditActions`) and the audit log shows their titles.
public struct AuditAction: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public let title: String

    package init(_ rawValue: String, title: String) {
        self.rawValue = rawValue
        self.title = title
    }

    public static func == (lhs: AuditAction, rhs: AuditAction) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    public var description: String { rawValue }

    // The platform's own: what the shared sign-in machinery and the route checks record.
    public static let signIn = AuditAction("sign_in", title: "Sign in")
    public static let signOut = AuditAction("sign_out", title: "Sign out")
    public static let accessDenied = AuditAction("access_denied", title: "Access denied")
    public static let csrfRejected = AuditAction("csrf_rejected", title: "Forged request refused")

    package static let platformActions: [AuditAction] = [.signIn, .signOut, .accessDenied, .csrfRejected]
}

/// Every action the running portal's features declared, for the audit log's filter and titles.
package struct AuditVocabulary: Sendable {
    package let actions: [AuditAction]
    private let byRawValue: [String: AuditAction]

    /// Refuses two features declaring one raw value: the log could not tell them apart.
    package init(_ actions: [AuditAction]) {
        var byRawValue: [String: AuditAction] = [:]
        for action in actions {
            precondition(byRawValue[action.rawValue] == nil, "audit action \(action.rawValue) is declared twice")
            byRawValue[action.rawValue] = action
        }
        self.actions = actions
        self.byRawValue = byRawValue
    }

    package func action(_ rawValue: String) -> AuditAction? { byRawValue[rawValue] }

    /// The title of a stored action; one no running feature declares (its program's code is gone) shows as stored.
    package func title(of rawValue: String) -> String { byRawValue[rawValue]?.title ?? rawValue }
}

public enum AuditOutcome: String, Sendable, CaseIterable {
    case success, failure, denied
}

/// Who acted; nil fields for someone not signed in.
public struct AuditActor: Sendable, Equatable {
    public var accountID: Int64?
    public var role: String?
    public var name: String?

    public static let anonymous = AuditActor(accountID: nil, role: nil, name: nil)
    public static let system = AuditActor(accountID: nil, role: "system", name: "careportal")

    public init(accountID: Int64?, role: String?, name: String?) {
        self.accountID = accountID
        self.role = role
        self.name = name
    }
}

/// Where a request came from.
public struct AuditOrigin: Sendable, Equatable {
    public var address: String?
    public var userAgent: String?

    public static let commandLine = AuditOrigin(address: "command line", userAgent: nil)

    package init(address: String? = nil, userAgent: String? = nil) {
        self.address = address
        self.userAgent = userAgent
    }
}

/// One row of the audit log. Never carries a password, token or session id.
public struct AuditEvent: Sendable, Equatable {
    public var actor: AuditActor
    public var action: AuditAction
    public var recordType: String?
    public var recordID: String?
    public var outcome: AuditOutcome
    public var origin: AuditOrigin
    public var detail: String?

    public init(
        actor: AuditActor,
        action: AuditAction,
        recordType: String? = nil,
        recordID: String? = nil,
        outcome: AuditOutcome = .success,
        origin: AuditOrigin,
        detail: String? = nil
    ) {
        self.actor = actor
        self.action = action
        self.recordType = recordType
        self.recordID = recordID
        self.outcome = outcome
        self.origin = origin
        self.detail = detail
    }
}

/// An audit row as read back.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64
    public var occurredAt: Date
    public var actorAccountID: Int64?
    public var actorRole: String?
    public var actorName: String?
    public var action: String
    public var recordType: String?
    public var recordID: String?
    public var outcome: String
    public var address: String?
    public var userAgent: String?
    public var detail: String?

    package init(
        id: Int64,
        occurredAt: Date,
        actorAccountID: Int64? = nil,
        actorRole: String? = nil,
        actorName: String? = nil,
        action: String,
        recordType: String? = nil,
        recordID: String? = nil,
        outcome: String,
        address: String? = nil,
        userAgent: String? = nil,
        detail: String? = nil
    ) {
        self.id = id
        self.occurredAt = occurredAt
        self.actorAccountID = actorAccountID
        self.actorRole = actorRole
        self.actorName = actorName
        self.action = action
        self.recordType = recordType
        self.recordID = recordID
        self.outcome = outcome
        self.address = address
        self.userAgent = userAgent
        self.detail = detail
    }
}

public struct AuditQuery: Sendable, Equatable {
    /// Matches the actor's whole name at the time (in any case), or their account number.
    public var person = ""
    public var action: AuditAction?
    public var from: Date?
    /// Exclusive.
    public var until: Date?
    /// `type:id`, such as `member:12`: only entries about that record.
    public var record = ""
    public var page = PageRequest(number: 1, size: 50)

    public init() {}

    /// The person as typed, without the spaces around it.
    var trimmedPerson: String { person.trimmingCharacters(in: .whitespaces) }

    /// The record filter's type and id, when it names a record.
    var recordKey: (type: String, id: String)? {
        let parts = record.split(separator: ":", maxSplits: 1).map(String.init)
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }
}

/// The append-only record of who did what; the only place its SQL lives. It has no update or delete.
public struct AuditLog: Sendable {
    package let now: @Sendable () -> Date

    package func record(_ event: AuditEvent, on db: any SQLDatabase) async throws {
        try await record([event], on: db)
    }

    /// Several entries, all stamped with the same time, a few hundred to a statement (each entry binds
    /// eleven values, and both engines limit the values one statement may bind).
    package func record(_ events: [AuditEvent], on db: any SQLDatabase) async throws {
        let occurredAt = now().millisecondsSince1970
        for start in stride(from: 0, to: events.count, by: 500) {
            try await insert(events[start..<min(start + 500, events.count)], occurredAt: occurredAt, on: db)
        }
    }

    private func insert(_ events: ArraySlice<AuditEvent>, occurredAt: Int64, on db: any SQLDatabase) async throws {
        let insert = db.insert(into: "audit_log")
            .columns(
                "occurred_at",
                "actor_account_id",
                "actor_role",
                "actor_name",
                "action",
                "record_type",
                "record_id",
                "outcome",
                "address",
                "user_agent",
                "detail"
            )
        for event in events {
            insert.values(
                SQLBind(occurredAt),
                SQLBind(event.actor.accountID),
                SQLBind(event.actor.role),
                SQLBind(event.actor.name),
                SQLBind(event.action.rawValue),
                SQLBind(event.recordType),
                SQLBind(event.recordID),
                SQLBind(event.outcome.rawValue),
                SQLBind(event.origin.address.map { String($0.prefix(100)) }),
                SQLBind(event.origin.userAgent.map { String($0.prefix(400)) }),
                SQLBind(event.detail)
            )
        }
        try await insert.run()
    }

    package func list(_ query: AuditQuery, on db: any SQLDatabase) async throws -> PageOf<AuditEntry> {
        // A name is the user's text, bound: its statement is planned for each name (`StatementPlanning`).
        // Its entries are counted in the list's order, which the name's index gives: otherwise PostgreSQL
        // counts a common name's first thousand by reading the log until that many match.
        let byName = !query.trimmedPerson.isEmpty && Int64(query.trimmedPerson) == nil
        let countedInOrder: (SQLSelectBuilder) -> SQLSelectBuilder = {
            filtered($0.from("audit_log"), query).orderBy("occurred_at", .descending).orderBy("id", .descending)
        }
        return try await StatementPlanning.forValues(if: byName) {
            try await db.seek(
                query.page,
                order: ListOrder("time", keys: [.integer("occurred_at"), .integer("id")], descending: true),
                rows: { filtered($0.from("audit_log"), query) },
                counted: byName ? countedInOrder : nil,
                decode: decode
            )
        }
    }

    /// The next `limit` matching entries after `lastID`, oldest first, so an export walks the log in batches.
    package func entries(_ query: AuditQuery, after lastID: Int64, limit: Int, on db: any SQLDatabase) async throws -> [AuditEntry] {
        try await filtered(db.select().column("*").from("audit_log"), query)
            .where("id", .greaterThan, lastID)
            .orderBy("id", .ascending)
            .limit(limit)
            .all()
            .map(decode)
    }

    private func filtered<Builder: SQLPredicateBuilder>(_ builder: Builder, _ query: AuditQuery) -> Builder {
        let person = query.trimmedPerson
        if !person.isEmpty {
            if let id = Int64(person) {
                builder.where("actor_account_id", .equal, id)
            } else {
                builder.where(lowercased("actor_name", equals: person))
            }
        }
        if let action = query.action { builder.where("action", .equal, valueFromClosedSet(action.rawValue)) }
        if let from = query.from { builder.where("occurred_at", .greaterThanOrEqual, from.millisecondsSince1970) }
        if let until = query.until { builder.where("occurred_at", .lessThan, until.millisecondsSince1970) }
        if let record = query.recordKey { builder.where("record_type", .equal, record.type).where("record_id", .equal, record.id) }
        return builder
    }

    private func decode(_ row: any SQLRow) throws -> AuditEntry {
        AuditEntry(
            id: try row.decode(column: "id", as: Int64.self),
            occurredAt: Date(millisecondsSince1970: try row.decode(column: "occurred_at", as: Int64.self)),
            actorAccountID: try row.decode(column: "actor_account_id", as: Int64?.self),
            actorRole: try row.decode(column: "actor_role", as: String?.self),
            actorName: try row.decode(column: "actor_name", as: String?.self),
            action: try row.decode(column: "action", as: String.self),
            recordType: try row.decode(column: "record_type", as: String?.self),
            recordID: try row.decode(column: "record_id", as: String?.self),
            outcome: try row.decode(column: "outcome", as: String.self),
            address: try row.decode(column: "address", as: String?.self),
            userAgent: try row.decode(column: "user_agent", as: String?.self),
            detail: try row.decode(column: "detail", as: String?.self)
        )
    }

    package init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }
}

import Foundation
import PortalPlatform
import SQLKit

/// A message from the program to every member or to chosen cohorts, now or at a set time.
struct Broadcast: Sendable, Equatable, Identifiable {
    enum Status: String, Sendable, CaseIterable {
        case scheduled, sent, cancelled

        var title: String {
            switch self {
            case .scheduled: "Scheduled"
            case .sent: "Sent"
            case .cancelled: "Cancelled"
            }
        }
    }

    var id: Int64
    var title: String
    var body: String
    /// Nil: every member.
    var cohortIDs: [Int64]?
    var sendAt: Date
    var status: Status
    var recipientCount: Int?
    var sentAt: Date?
    var createdByName: String
    var createdAt: Date
    var cancelledAt: Date?
}

/// What an administrator asks for, already checked.
struct NewBroadcast: Sendable {
    var title: String
    var body: String
    var cohortIDs: [Int64]?
    /// Nil: now.
    var sendAt: Date?
}

/// The only place broadcasts' SQL lives.
struct BroadcastRepository: Sendable {
    func insert(
        _ new: NewBroadcast,
        status: Broadcast.Status,
        sendAt: Date,
        by staff: StaffAccount,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> Int64 {
        let id = try await db.insert(into: "broadcasts")
            .columns("title", "body", "to_everyone", "send_at", "status", "created_by", "created_by_name", "created_at")
            .values(
                SQLBind(new.title),
                SQLBind(new.body),
                SQLBind(new.cohortIDs == nil),
                SQLBind(sendAt.millisecondsSince1970),
                SQLBind(status.rawValue),
                SQLBind(staff.id),
                SQLBind(staff.username),
                SQLBind(now.millisecondsSince1970)
            )
            .returning("id").first()!.decode(column: "id", as: Int64.self)
        for cohortID in new.cohortIDs ?? [] {
            try await db.insert(into: "broadcast_cohorts").columns("broadcast_id", "cohort_id").values(SQLBind(id), SQLBind(cohortID)).run()
        }
        return id
    }

    func find(id: Int64, on db: any SQLDatabase) async throws -> Broadcast? {
        guard let row = try await db.select().column("*").from("broadcasts").where("id", .equal, id).first() else { return nil }
        return try await decode([row], on: db).first
    }

    func list(page: PageRequest, on db: any SQLDatabase) async throws -> PageOf<Broadcast> {
        let rows = try await db.seek(
            page,
            order: ListOrder("send", keys: [.integer("send_at"), .integer("id")], descending: true),
            rows: { $0.from("broadcasts") },
            decode: { $0 }
        )
        return rows.replacingItems(try await decode(rows.items, on: db))
    }

    /// Scheduled broadcasts whose time has come, oldest first.
    func due(now: Date, on db: any SQLDatabase) async throws -> [Int64] {
        try await db.select().column("id").from("broadcasts")
            .where("status", .equal, Broadcast.Status.scheduled.rawValue)
            .where("send_at", .lessThanOrEqual, now.millisecondsSince1970)
            .orderBy("send_at").orderBy("id").limit(20).all()
            .map { try $0.decode(column: "id", as: Int64.self) }
    }

    /// Marks a scheduled broadcast sent; false when another server (or a cancellation) got there first.
    /// On PostgreSQL the row stays locked until the caller's transaction ends, so only one server writes its notifications.
    func claim(id: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("broadcasts")
            .set("status", to: Broadcast.Status.sent.rawValue).set("sent_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("status", .equal, Broadcast.Status.scheduled.rawValue)
            .returning("id").first() != nil
    }

    func setRecipientCount(_ count: Int, id: Int64, on db: any SQLDatabase) async throws {
        try await db.update("broadcasts").set("recipient_count", to: count).where("id", .equal, id).run()
    }

    /// Cancels a broadcast that has not gone; false when it has gone or was cancelled already.
    func cancel(id: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("broadcasts")
            .set("status", to: Broadcast.Status.cancelled.rawValue).set("cancelled_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("status", .equal, Broadcast.Status.scheduled.rawValue)
            .returning("id").first() != nil
    }

    /// The rows' broadcasts, with the cohorts of those not to everyone read in one statement.
    private func decode(_ rows: [any SQLRow], on db: any SQLDatabase) async throws -> [Broadcast] {
        let audiences = try await CohortAudiences(of: rows, in: "broadcast_cohorts", by: "broadcast_id", on: db)
        return try rows.map { try decode($0, cohortIDs: audiences.cohortIDs(of: $0)) }
    }

    private func decode(_ row: any SQLRow, cohortIDs: [Int64]?) throws -> Broadcast {
        let id = try row.decode(column: "id", as: Int64.self)
        return Broadcast(
            id: id,
            title: try row.decode(column: "title", as: String.self),
            body: try row.decode(column: "body", as: String.self),
            cohortIDs: cohortIDs,
            sendAt: Date(millisecondsSince1970: try row.decode(column: "send_at", as: Int64.self)),
            status: Broadcast.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .scheduled,
            recipientCount: try row.decode(column: "recipient_count", as: Int?.self),
            sentAt: try row.decode(column: "sent_at", as: Int64?.self).map(Date.init(millisecondsSince1970:)),
            createdByName: try row.decode(column: "created_by_name", as: String.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            cancelledAt: try row.decode(column: "cancelled_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        )
    }
}

extension NotificationSubject {
    static let broadcastType = "broadcast"
    static func broadcast(_ id: Int64) -> NotificationSubject { NotificationSubject(broadcastType, id: id) }
}

/// Administrators' broadcasts: sent now in the request's transaction, or at their time by whichever
/// server's job claims them first — each is written to members' feeds exactly once.
struct Broadcasts: Sendable {
    static let titleMaximumLength = 80
    static let bodyMaximumLength = 1_000
    /// How far ahead a broadcast can be scheduled.
    static let furthestAhead: TimeInterval = 366 * 86_400

    /// The audit log's origin for a broadcast a server sent at its time.
    static let scheduledOrigin = AuditOrigin(address: "scheduled", userAgent: nil)

    let portal: Portal
    let repository = BroadcastRepository()
    private var feeds: MemberNotifications { MemberNotifications(notifications: portal.notifications) }

    /// Records the broadcast and, when it is for now, writes it to its members' feeds; returns its id.
    func create(_ new: NewBroadcast, by staff: StaffAccount, actor: AuditActor, origin: AuditOrigin) async throws -> Int64 {
        let now = portal.now
        let id = try await portal.database.transaction { db in
            let sendNow = new.sendAt.map { $0 <= now } ?? true
            let id = try await repository.insert(new, status: sendNow ? .sent : .scheduled, sendAt: new.sendAt ?? now, by: staff, now: now, on: db)
            if sendNow {
                try await repository.claimSent(id: id, now: now, on: db)
                let count = try await write(id: id, new.title, new.body, to: new.cohortIDs, on: db)
                try await repository.setRecipientCount(count, id: id, on: db)
            }
            try await portal.audit.record(
                AuditEvent(
                    actor: actor,
                    action: sendNow ? .broadcastSent : .broadcastScheduled,
                    recordType: "broadcast",
                    recordID: String(id),
                    origin: origin,
                    detail: Self.audienceDetail(new.cohortIDs)
                ),
                on: db
            )
            return id
        }
        if new.sendAt.map({ $0 <= now }) ?? true { await portal.announceNotifications(to: .everyMember) }
        return id
    }

    /// Sends every scheduled broadcast whose time has come; returns how many this server sent.
    @discardableResult
    func sendDue() async throws -> Int {
        let now = portal.now
        let due = try await portal.database.read { db in try await repository.due(now: now, on: db) }
        var sent = 0
        for id in due {
            let won = try await portal.database.transaction { db in
                guard try await repository.claim(id: id, now: now, on: db), let broadcast = try await repository.find(id: id, on: db) else {
                    return false
                }
                let count = try await write(id: id, broadcast.title, broadcast.body, to: broadcast.cohortIDs, on: db)
                try await repository.setRecipientCount(count, id: id, on: db)
                try await portal.audit.record(
                    AuditEvent(
                        actor: .system,
                        action: .broadcastSent,
                        recordType: "broadcast",
                        recordID: String(id),
                        origin: Self.scheduledOrigin,
                        detail: Self.audienceDetail(broadcast.cohortIDs)
                    ),
                    on: db
                )
                return true
            }
            if won {
                sent += 1
                await portal.announceNotifications(to: .everyMember)
            }
        }
        return sent
    }

    func cancel(id: Int64, actor: AuditActor, origin: AuditOrigin) async throws -> Bool {
        try await portal.database.transaction { db in
            guard try await repository.cancel(id: id, now: portal.now, on: db) else { return false }
            try await portal.audit.record(
                AuditEvent(
                    actor: actor,
                    action: .broadcastCancelled,
                    recordType: "broadcast",
                    recordID: String(id),
                    origin: origin
                ),
                on: db
            )
            return true
        }
    }

    private func write(id: Int64, _ title: String, _ body: String, to cohortIDs: [Int64]?, on db: any SQLDatabase) async throws -> Int {
        try await feeds.notifyMembers(of: cohortIDs, NewNotification(kind: .broadcast, message: title, body: body, subject: .broadcast(id)), on: db)
    }

    private static func audienceDetail(_ cohortIDs: [Int64]?) -> String {
        cohortIDs.map { "to cohorts \($0.map(String.init).joined(separator: ", "))" } ?? "to every member"
    }
}

extension BroadcastRepository {
    /// A broadcast sent as it is written is recorded sent straight away.
    func claimSent(id: Int64, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("broadcasts").set("sent_at", to: now.millisecondsSince1970).where("id", .equal, id).run()
    }
}

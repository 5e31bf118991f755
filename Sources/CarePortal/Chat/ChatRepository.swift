import Foundation
import PortalPlatform
import SQLKit

/// The only place the chat's SQL lives: rooms and their retention, messages, reports and mutes.
struct ChatRepository: Sendable {
    // MARK: Rooms and retention

    /// The program's default retention and the recommended reading are rows of `program_settings`.
    private enum Setting: String {
        case retentionHours = "chat_retention_hours"
        case readingTitle = "chat_recommended_title"
        case readingURL = "chat_recommended_url"
    }

    private func setting(_ name: Setting, on db: any SQLDatabase) async throws -> String? {
        try await db.select().column("value").from("program_settings").where("name", .equal, name.rawValue).first()
            .map { try $0.decode(column: "value", as: String.self) }
    }

    private func save(_ name: Setting, _ value: String, now: Date, on db: any SQLDatabase) async throws {
        try await db.insert(into: "program_settings").columns("name", "value", "updated_at")
            .values(SQLBind(name.rawValue), SQLBind(value), SQLBind(now.millisecondsSince1970))
            .onConflict(with: ["name"]) { $0.set(excludedValueOf: "value").set(excludedValueOf: "updated_at") }
            .run()
    }

    func defaultRetention(on db: any SQLDatabase) async throws -> ChatRetention {
        try await setting(.retentionHours, on: db).flatMap(Int.init).flatMap(ChatRetention.init) ?? .programDefault
    }

    func setDefaultRetention(_ retention: ChatRetention, now: Date, on db: any SQLDatabase) async throws {
        try await save(.retentionHours, String(retention.hours), now: now, on: db)
    }

    func setOverride(cohortID: Int64, _ retention: ChatRetention?, on db: any SQLDatabase) async throws {
        try await db.update("cohorts").set("chat_retention_hours", to: retention.map { Int64($0.hours) }).where("id", .equal, cohortID).run()
    }

    func recommendedReading(on db: any SQLDatabase) async throws -> RecommendedReading? {
        guard let title = try await setting(.readingTitle, on: db), let url = try await setting(.readingURL, on: db),
            !title.isEmpty, !url.isEmpty
        else { return nil }
        return RecommendedReading(title: title, url: url)
    }

    func setRecommendedReading(_ reading: RecommendedReading?, now: Date, on db: any SQLDatabase) async throws {
        try await save(.readingTitle, reading?.title ?? "", now: now, on: db)
        try await save(.readingURL, reading?.url ?? "", now: now, on: db)
    }

    /// Every cohort's room, oldest due month first.
    func rooms(on db: any SQLDatabase) async throws -> [ChatRoom] {
        let fallback = try await defaultRetention(on: db)
        return try await db.select().columns("id", "due_month", "chat_retention_hours").from("cohorts").orderBy("due_month").all()
            .map { try Self.room($0, default: fallback) }
    }

    func room(cohortID: Int64, on db: any SQLDatabase) async throws -> ChatRoom? {
        let fallback = try await defaultRetention(on: db)
        return try await db.select().columns("id", "due_month", "chat_retention_hours").from("cohorts").where("id", .equal, cohortID).first()
            .map { try Self.room($0, default: fallback) }
    }

    private static func room(_ row: any SQLRow, default fallback: ChatRetention) throws -> ChatRoom {
        let override = try row.decode(column: "chat_retention_hours", as: Int64?.self).flatMap { ChatRetention(rawValue: Int($0)) }
        return ChatRoom(
            cohort: Cohort(id: try row.decode(column: "id", as: Int64.self), dueMonth: try row.decode(column: "due_month", as: String.self)),
            override: override,
            retention: override ?? fallback
        )
    }

    func summaries(now: Date, on db: any SQLDatabase) async throws -> [ChatRoomSummary] {
        var summaries: [ChatRoomSummary] = []
        for room in try await rooms(on: db) {
            let after = room.visibleAfter(now).millisecondsSince1970
            let members = try await db.count(in: "members") { $0.where("cohort_id", .equal, room.cohort.id) }
            let messages = try await db.count(in: "chat_messages") {
                $0.where("cohort_id", .equal, room.cohort.id).where("posted_at", .greaterThan, after)
            }
            let reports =
                try await db.raw(
                    """
                    SELECT COUNT(DISTINCT r.message_id) AS count FROM chat_reports r JOIN chat_messages m ON m.id = r.message_id
                    WHERE m.cohort_id = \(bind: room.cohort.id) AND r.resolved_at IS NULL AND m.removed_at IS NULL
                      AND m.posted_at > \(bind: after)
                    """
                ).first()?.decode(column: "count", as: Int.self) ?? 0
            summaries.append(ChatRoomSummary(room: room, memberCount: members, messageCount: messages, openReports: reports))
        }
        return summaries
    }

    // MARK: Messages

    private static let messageColumns = """
        m.id, m.cohort_id, m.kind, m.body, m.body_html, m.mood, m.posted_at, m.removed_at, m.removal_reason,
        m.member_id, mb.pseudonym, mb.avatar
        """

    private static func message(_ row: any SQLRow) throws -> ChatMessage {
        let removedAt = try row.decode(column: "removed_at", as: Int64?.self)
        return ChatMessage(
            id: try row.decode(column: "id", as: Int64.self),
            cohortID: try row.decode(column: "cohort_id", as: Int64.self),
            kind: ChatMessage.Kind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .text,
            author: ChatMessage.Author(
                memberID: try row.decode(column: "member_id", as: Int64.self),
                pseudonym: try row.decode(column: "pseudonym", as: String.self),
                avatar: Avatar.member(try row.decode(column: "avatar", as: String.self)) ?? .memberDefault
            ),
            body: try row.decode(column: "body", as: String.self),
            bodyHTML: try row.decode(column: "body_html", as: String.self),
            mood: try row.decode(column: "mood", as: String?.self).flatMap(Mood.init),
            postedAt: Date(millisecondsSince1970: try row.decode(column: "posted_at", as: Int64.self)),
            removal: removedAt.map {
                ChatMessage.Removal(at: Date(millisecondsSince1970: $0), reason: (try? row.decode(column: "removal_reason", as: String?.self)) ?? "")
            }
        )
    }

    /// Adds a message unless she already sent one with `clientID`; returns the one stored under it
    /// and whether it is new.
    func post(
        cohortID: Int64,
        memberID: Int64,
        kind: ChatMessage.Kind,
        body: String,
        bodyHTML: String,
        mood: Mood?,
        clientID: String,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> (message: ChatMessage, isNew: Bool) {
        if let existing = try await existing(memberID: memberID, clientID: clientID, on: db) { return (existing, false) }
        try await db.insert(into: "chat_messages")
            .columns("cohort_id", "member_id", "kind", "body", "body_html", "mood", "client_id", "posted_at")
            .values(
                SQLBind(cohortID),
                SQLBind(memberID),
                SQLBind(kind.rawValue),
                SQLBind(body),
                SQLBind(bodyHTML),
                SQLBind(mood?.rawValue),
                SQLBind(clientID),
                SQLBind(now.millisecondsSince1970)
            )
            .ignoringConflicts(with: ["member_id", "client_id"])
            .run()
        guard let stored = try await existing(memberID: memberID, clientID: clientID, on: db) else {
            throw StorageInconsistency(description: "a chat message was not stored")
        }
        return (stored, true)
    }

    /// The message she sent under `clientID`, if any.
    func existing(memberID: Int64, clientID: String, on db: any SQLDatabase) async throws -> ChatMessage? {
        try await db.raw(
            """
            SELECT \(unsafeRaw: Self.messageColumns) FROM chat_messages m JOIN members mb ON mb.id = m.member_id
            WHERE m.member_id = \(bind: memberID) AND m.client_id = \(bind: clientID)
            """
        ).first().map(Self.message)
    }

    func message(id: Int64, on db: any SQLDatabase) async throws -> ChatMessage? {
        try await db.raw(
            """
            SELECT \(unsafeRaw: Self.messageColumns) FROM chat_messages m JOIN members mb ON mb.id = m.member_id
            WHERE m.id = \(bind: id)
            """
        ).first().map(Self.message)
    }

    /// Up to `limit` messages of the room posted after `visibleAfter`, newest first, older than `beforeID` when given.
    func newest(cohortID: Int64, visibleAfter: Date, beforeID: Int64?, limit: Int, on db: any SQLDatabase) async throws -> [ChatMessage] {
        try await db.raw(
            """
            SELECT \(unsafeRaw: Self.messageColumns) FROM chat_messages m JOIN members mb ON mb.id = m.member_id
            WHERE m.cohort_id = \(bind: cohortID) AND m.posted_at > \(bind: visibleAfter.millisecondsSince1970)
              AND m.id < \(bind: beforeID ?? Int64.max)
            ORDER BY m.id DESC LIMIT \(bind: limit)
            """
        ).all().map(Self.message)
    }

    /// Up to `limit` messages of the room newer than `afterID`, oldest first, posted after `visibleAfter`.
    func since(cohortID: Int64, afterID: Int64, visibleAfter: Date, limit: Int, on db: any SQLDatabase) async throws -> [ChatMessage] {
        try await db.raw(
            """
            SELECT \(unsafeRaw: Self.messageColumns) FROM chat_messages m JOIN members mb ON mb.id = m.member_id
            WHERE m.cohort_id = \(bind: cohortID) AND m.id > \(bind: afterID)
              AND m.posted_at > \(bind: visibleAfter.millisecondsSince1970)
            ORDER BY m.id LIMIT \(bind: limit)
            """
        ).all().map(Self.message)
    }

    /// Marks a message removed; false when it was already removed or is gone.
    func remove(id: Int64, reason: String, by staffID: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        guard
            try await db.select().column("id").from("chat_messages").where("id", .equal, id).where("removed_at", .is, SQLLiteral.null).first() != nil
        else { return false }
        try await db.update("chat_messages")
            .set("removed_at", to: now.millisecondsSince1970).set("removed_by", to: staffID).set("removal_reason", to: reason)
            .where("id", .equal, id).run()
        try await resolveReports(messageID: id, now: now, on: db)
        return true
    }

    /// Deletes every message older than its room's retention, with its reports; returns how many went.
    func purge(now: Date, on db: any SQLDatabase) async throws -> Int {
        var purged = 0
        for room in try await rooms(on: db) {
            let cutoff = room.visibleAfter(now).millisecondsSince1970
            let expired = db.select().column("id").from("chat_messages")
                .where("cohort_id", .equal, room.cohort.id).where("posted_at", .lessThanOrEqual, cutoff)
            let count = try await db.count(in: "chat_messages") {
                $0.where("cohort_id", .equal, room.cohort.id).where("posted_at", .lessThanOrEqual, cutoff)
            }
            guard count > 0 else { continue }
            try await db.delete(from: "chat_reports").where("message_id", .in, SQLGroupExpression(expired.query)).run()
            try await db.delete(from: "chat_messages")
                .where("cohort_id", .equal, room.cohort.id).where("posted_at", .lessThanOrEqual, cutoff).run()
            purged += count
        }
        return purged
    }

    // MARK: Reports

    /// Records her report; a second report of the same message by her changes nothing.
    func report(messageID: Int64, memberID: Int64, reason: String, now: Date, on db: any SQLDatabase) async throws {
        try await db.insert(into: "chat_reports").columns("message_id", "member_id", "reason", "reported_at")
            .values(SQLBind(messageID), SQLBind(memberID), SQLBind(reason), SQLBind(now.millisecondsSince1970))
            .ignoringConflicts(with: ["message_id", "member_id"])
            .run()
    }

    func resolveReports(messageID: Int64, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("chat_reports").set("resolved_at", to: now.millisecondsSince1970)
            .where("message_id", .equal, messageID).where("resolved_at", .is, SQLLiteral.null).run()
    }

    /// How many messages, not yet removed, have open reports.
    func openReportCount(on db: any SQLDatabase) async throws -> Int {
        try await db.raw(
            """
            SELECT COUNT(DISTINCT r.message_id) AS count FROM chat_reports r JOIN chat_messages m ON m.id = r.message_id
            WHERE r.resolved_at IS NULL AND m.removed_at IS NULL
            """
        ).first()?.decode(column: "count", as: Int.self) ?? 0
    }

    /// Messages with open reports, oldest report first (including those past their room's window,
    /// which the caller leaves out until the purge takes them).
    func reported(on db: any SQLDatabase) async throws -> [(message: ChatMessage, reasons: [String], firstReportedAt: Date)] {
        let rows = try await db.raw(
            """
            SELECT r.message_id, r.reason, r.reported_at FROM chat_reports r JOIN chat_messages m ON m.id = r.message_id
            WHERE r.resolved_at IS NULL AND m.removed_at IS NULL
            ORDER BY r.reported_at, r.id
            """
        ).all()
        var order: [Int64] = []
        var reasons: [Int64: [String]] = [:]
        var first: [Int64: Date] = [:]
        for row in rows {
            let id = try row.decode(column: "message_id", as: Int64.self)
            if reasons[id] == nil {
                order.append(id)
                first[id] = Date(millisecondsSince1970: try row.decode(column: "reported_at", as: Int64.self))
            }
            reasons[id, default: []].append(try row.decode(column: "reason", as: String.self))
        }
        var reported: [(message: ChatMessage, reasons: [String], firstReportedAt: Date)] = []
        for id in order {
            guard let message = try await message(id: id, on: db) else { continue }
            reported.append((message, reasons[id] ?? [], first[id] ?? .distantPast))
        }
        return reported
    }

    // MARK: Mutes

    /// Marks the cohort told of new chat activity now, if it was not told within `quietPeriod`; true
    /// when it was marked (the caller then writes the notices). Any server's second claim in the period fails.
    func claimActivityNotice(cohortID: Int64, now: Date, quietPeriod: TimeInterval, on db: any SQLDatabase) async throws -> Bool {
        let since = now.addingTimeInterval(-quietPeriod).millisecondsSince1970
        return try await db.raw(
            """
            UPDATE cohorts SET chat_told_at = \(bind: now.millisecondsSince1970)
            WHERE id = \(bind: cohortID) AND (chat_told_at IS NULL OR chat_told_at <= \(bind: since))
            RETURNING id
            """
        ).first() != nil
    }

    func mute(memberID: Int64, until: Date?, reason: String, by staffID: Int64, now: Date, on db: any SQLDatabase) async throws {
        try await db.insert(into: "chat_mutes").columns("member_id", "muted_until", "muted_at", "muted_by", "reason")
            .values(SQLBind(memberID), SQLBind(until?.millisecondsSince1970), SQLBind(now.millisecondsSince1970), SQLBind(staffID), SQLBind(reason))
            .onConflict(with: ["member_id"]) {
                $0.set(excludedValueOf: "muted_until").set(excludedValueOf: "muted_at").set(excludedValueOf: "muted_by").set(
                    excludedValueOf: "reason"
                )
            }
            .run()
    }

    /// False when she was not muted.
    func unmute(memberID: Int64, on db: any SQLDatabase) async throws -> Bool {
        guard try await mute(memberID: memberID, on: db) != nil else { return false }
        try await db.delete(from: "chat_mutes").where("member_id", .equal, memberID).run()
        return true
    }

    func mute(memberID: Int64, on db: any SQLDatabase) async throws -> ChatMute? {
        try await db.select().columns("member_id", "muted_until", "reason").from("chat_mutes").where("member_id", .equal, memberID).first()
            .map { row in
                ChatMute(
                    memberID: try row.decode(column: "member_id", as: Int64.self),
                    until: try row.decode(column: "muted_until", as: Int64?.self).map(Date.init(millisecondsSince1970:)),
                    reason: try row.decode(column: "reason", as: String.self)
                )
            }
    }

    /// The mutes in force at `now` among `memberIDs`.
    func mutes(memberIDs: [Int64], now: Date, on db: any SQLDatabase) async throws -> [Int64: ChatMute] {
        guard !memberIDs.isEmpty else { return [:] }
        var mutes: [Int64: ChatMute] = [:]
        for row in try await db.select().columns("member_id", "muted_until", "reason").from("chat_mutes")
            .where("member_id", .in, SQLBind.group(memberIDs)).all()
        {
            let mute = ChatMute(
                memberID: try row.decode(column: "member_id", as: Int64.self),
                until: try row.decode(column: "muted_until", as: Int64?.self).map(Date.init(millisecondsSince1970:)),
                reason: try row.decode(column: "reason", as: String.self)
            )
            if mute.isInForce(at: now) { mutes[mute.memberID] = mute }
        }
        return mutes
    }
}

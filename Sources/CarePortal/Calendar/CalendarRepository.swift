import Foundation
import PortalPlatform
import SQLKit

/// The only place members' calendars' SQL lives. Every read and change names the member, so one
/// member can never reach another's events.
struct CalendarRepository: Sendable {
    private static let columns = [
        "id", "member_id", "kind", "title", "note", "starts_on", "times", "repeats", "ends_on", "created_at", "updated_at", "next_occurrence_at"
    ]

    func events(memberID: Int64, on db: any SQLDatabase) async throws -> [CalendarEvent] {
        try await db.select().columns(Self.columns).from("calendar_events").where("member_id", .equal, memberID)
            .orderBy("starts_on").orderBy("id").all().map(decode)
    }

    func count(memberID: Int64, on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "calendar_events") { $0.where("member_id", .equal, memberID) }
    }

    func find(id: Int64, memberID: Int64, on db: any SQLDatabase) async throws -> CalendarEvent? {
        try await db.select().columns(Self.columns).from("calendar_events")
            .where("id", .equal, id).where("member_id", .equal, memberID).first().map(decode)
    }

    func insert(_ draft: CalendarEventDraft, memberID: Int64, next: Date?, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        try await db.insert(into: "calendar_events")
            .columns(
                "member_id",
                "kind",
                "title",
                "note",
                "starts_on",
                "times",
                "repeats",
                "ends_on",
                "created_at",
                "updated_at",
                "next_occurrence_at"
            )
            .values(
                SQLBind(memberID),
                SQLBind(draft.kind.rawValue),
                SQLBind(draft.title),
                SQLBind(draft.note),
                SQLBind(draft.startsOn.iso),
                SQLBind(Self.encode(draft.times)),
                SQLBind(draft.repeats.rawValue),
                SQLBind(draft.endsOn?.iso),
                SQLBind(now.millisecondsSince1970),
                SQLBind(now.millisecondsSince1970),
                SQLBind(next?.millisecondsSince1970)
            )
            .returning("id").first()!.decode(column: "id", as: Int64.self)
    }

    func update(id: Int64, memberID: Int64, _ draft: CalendarEventDraft, next: Date?, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("calendar_events")
            .set("kind", to: draft.kind.rawValue).set("title", to: draft.title).set("note", to: SQLBind(draft.note))
            .set("starts_on", to: draft.startsOn.iso).set("times", to: Self.encode(draft.times)).set("repeats", to: draft.repeats.rawValue)
            .set("ends_on", to: SQLBind(draft.endsOn?.iso)).set("updated_at", to: now.millisecondsSince1970)
            .set("next_occurrence_at", to: SQLBind(next?.millisecondsSince1970))
            .where("id", .equal, id).where("member_id", .equal, memberID).run()
    }

    func delete(id: Int64, memberID: Int64, on db: any SQLDatabase) async throws -> Bool {
        try await db.delete(from: "calendar_events").where("id", .equal, id).where("member_id", .equal, memberID)
            .returning("id").all().count > 0
    }

    /// An event whose reminder is due, with her lead time.
    struct Due: Sendable {
        let event: CalendarEvent
        let occurrence: Date
    }

    /// Events of active members whose next occurrence is within her lead time of `now`.
    func due(now: Date, limit: Int, on db: any SQLDatabase) async throws -> [Due] {
        let furthest = now.addingTimeInterval(TimeInterval(NotificationChoices.reminderLeadChoices.max() ?? 60) * 60).millisecondsSince1970
        let rows = try await db.raw(
            """
            SELECT \(unsafeRaw: Self.columns.map { "e.\($0)" }.joined(separator: ", ")),
                   COALESCE(s.reminder_lead_minutes, \(literal: NotificationChoices.defaultReminderLeadMinutes)) AS lead_minutes
            FROM calendar_events e
            JOIN members m ON m.id = e.member_id AND m.status = \(bind: Member.Status.active.rawValue)
            LEFT JOIN notification_settings s ON s.account_role = \(bind: AppAccountKind.member.role) AND s.account_id = e.member_id
            WHERE e.next_occurrence_at IS NOT NULL AND e.next_occurrence_at <= \(bind: furthest)
            ORDER BY e.next_occurrence_at, e.id
            LIMIT \(literal: limit * 4)
            """
        ).all()
        var due: [Due] = []
        for row in rows {
            let event = try decode(row)
            guard let occurrence = event.nextOccurrenceAt else { continue }
            let lead = TimeInterval(try row.decode(column: "lead_minutes", as: Int.self)) * 60
            if occurrence.addingTimeInterval(-lead) <= now { due.append(Due(event: event, occurrence: occurrence)) }
            if due.count == limit { break }
        }
        return due
    }

    /// Moves the event on to `next` if it still waits for `from`; false when another server moved it first.
    func advance(id: Int64, from: Date, to next: Date?, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("calendar_events")
            .set("next_occurrence_at", to: SQLBind(next?.millisecondsSince1970))
            .where("id", .equal, id).where("next_occurrence_at", .equal, from.millisecondsSince1970)
            .returning("id").first() != nil
    }

    private static func encode(_ times: [Int]) -> String { times.map { TimeOfDay(minutes: $0).text }.joined(separator: ",") }

    private func decode(_ row: any SQLRow) throws -> CalendarEvent {
        CalendarEvent(
            id: try row.decode(column: "id", as: Int64.self),
            memberID: try row.decode(column: "member_id", as: Int64.self),
            kind: CalendarEvent.Kind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .other,
            title: try row.decode(column: "title", as: String.self),
            note: try row.decode(column: "note", as: String?.self),
            startsOn: CalendarDate(iso: try row.decode(column: "starts_on", as: String.self)) ?? CalendarDate(year: 1970, month: 1, day: 1)!,
            times: try row.decode(column: "times", as: String.self).split(separator: ",").compactMap { TimeOfDay(text: String($0))?.minutes },
            repeats: CalendarEvent.Repeats(rawValue: try row.decode(column: "repeats", as: String.self)) ?? .never,
            endsOn: try row.decode(column: "ends_on", as: String?.self).flatMap(CalendarDate.init(iso:)),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            updatedAt: Date(millisecondsSince1970: try row.decode(column: "updated_at", as: Int64.self)),
            nextOccurrenceAt: try row.decode(column: "next_occurrence_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        )
    }
}

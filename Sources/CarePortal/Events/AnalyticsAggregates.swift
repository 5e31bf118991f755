import Foundation
import PortalPlatform
import SQLKit

/// Day, week and month numbers on the program's clock, as the analytics' aggregates store them.
struct AnalyticsDay: Sendable, Hashable, Comparable {
    /// Days since 1 January 1970.
    let number: Int

    init(_ number: Int) {
        self.number = number
    }

    init(_ date: CalendarDate) {
        number = date.dayNumber
    }

    var date: CalendarDate { CalendarDate(dayNumber: number) }
    /// Weeks start on Monday: week 0 began on Monday 29 December 1969 (day 0 was a Thursday).
    var week: Int { Int((Double(number + 3) / 7).rounded(.down)) }
    /// Year × 12 + month − 1.
    var month: Int { date.year * 12 + date.month - 1 }

    static func < (lhs: AnalyticsDay, rhs: AnalyticsDay) -> Bool { lhs.number < rhs.number }

    static func firstDay(ofWeek week: Int) -> AnalyticsDay { AnalyticsDay(week * 7 - 3) }
    static func firstDay(ofMonth month: Int) -> AnalyticsDay { AnalyticsDay(CalendarDate(year: month / 12, month: month % 12 + 1, day: 1)!) }
}

/// The aggregates the research analytics read (`event_day_counts`, `member_days`), kept as each event is
/// recorded and rebuilt from `events` on demand; the only place their SQL is written.
struct AnalyticsAggregates: Sendable {
    struct DayCount: Sendable, Hashable {
        let day: Int
        let cohortID: Int64
        let kind: String
        let label: String
    }

    struct MemberDay: Sendable, Hashable {
        let memberID: Int64
        let day: Int
    }

    struct MemberDayValues: Sendable, Hashable {
        let cohortID: Int64
        let joinedDay: Int
        let opens: Int64
    }

    /// What the aggregates hold: events and the sum of their numbers per day, cohort, kind and label, and
    /// each member's days with her cohort, the day she joined and the app opens that day.
    struct Snapshot: Sendable, Equatable {
        var counts: [DayCount: (events: Int64, total: Int64)] = [:]
        var memberDays: [MemberDay: MemberDayValues] = [:]

        static func == (lhs: Snapshot, rhs: Snapshot) -> Bool {
            lhs.memberDays == rhs.memberDays && lhs.counts.count == rhs.counts.count
                && lhs.counts.allSatisfy { key, value in rhs.counts[key].map { $0 == value } ?? false }
        }

        mutating func add(_ event: MemberEvent, clock: ProgramClock, joinedAt: Date?) {
            let day = AnalyticsDay(clock.date(of: event.occurredAt)).number
            let key = DayCount(day: day, cohortID: event.cohortID, kind: event.kind.rawValue, label: event.label ?? "")
            let current = counts[key] ?? (0, 0)
            counts[key] = (current.events + 1, current.total + (event.number ?? 0))
            guard let joinedAt else { return }
            let dayKey = MemberDay(memberID: event.memberID, day: day)
            let opens = (memberDays[dayKey]?.opens ?? 0) + (event.kind == .appOpened ? 1 : 0)
            memberDays[dayKey] = MemberDayValues(
                cohortID: memberDays[dayKey]?.cohortID ?? event.cohortID,
                joinedDay: AnalyticsDay(clock.date(of: joinedAt)).number, opens: opens
            )
        }
    }

    /// Counts one event just recorded, in the caller's transaction.
    func count(_ event: MemberEvent, clock: ProgramClock, on db: any SQLDatabase) async throws {
        let day = AnalyticsDay(clock.date(of: event.occurredAt))
        try await db.raw("""
            INSERT INTO event_day_counts (day, week, month, cohort_id, kind, label, events, total)
            VALUES (\(bind: day.number), \(bind: day.week), \(bind: day.month), \(bind: event.cohortID), \(bind: event.kind.rawValue),
                    \(bind: event.label ?? ""), 1, \(bind: event.number ?? 0))
            ON CONFLICT (kind, day, cohort_id, label)
            DO UPDATE SET events = event_day_counts.events + 1, total = event_day_counts.total + excluded.total
            """).run()
        let opens: Int64 = event.kind == .appOpened ? 1 : 0
        let known = try await db.raw("""
            UPDATE member_days SET opens = opens + \(bind: opens)
            WHERE member_id = \(bind: event.memberID) AND day = \(bind: day.number) RETURNING day
            """).first()
        guard known == nil else { return }
        // Her first event of the day: note the day she joined beside it, for retention by registration week.
        guard let joinedAt = try await db.select().column("created_at").from("members").where("id", .equal, event.memberID)
            .first()?.decode(column: "created_at", as: Int64.self)
        else { return }
        let joined = AnalyticsDay(clock.date(of: Date(millisecondsSince1970: joinedAt)))
        try await db.raw("""
            INSERT INTO member_days (member_id, day, week, month, cohort_id, joined_day, joined_week, opens)
            VALUES (\(bind: event.memberID), \(bind: day.number), \(bind: day.week), \(bind: day.month), \(bind: event.cohortID),
                    \(bind: joined.number), \(bind: joined.week), \(bind: opens))
            ON CONFLICT (member_id, day) DO UPDATE SET opens = member_days.opens + excluded.opens
            """).run()
    }

    /// What the aggregates would hold if every event were counted afresh on `clock`.
    func recount(clock: ProgramClock, on db: any SQLDatabase) async throws -> Snapshot {
        var snapshot = Snapshot()
        let rows = try await db.raw("""
            SELECT e.kind, e.member_id, e.cohort_id, e.occurred_at, e.number, e.label, m.created_at AS joined_at
            FROM events e LEFT JOIN members m ON m.id = e.member_id
            WHERE e.kind NOT LIKE 'study.%'
            ORDER BY e.id
            """).all()
        for row in rows {
            let memberID = try row.decode(column: "member_id", as: Int64?.self)
            let event = MemberEvent(
                kind: MemberEvent.Kind(try row.decode(column: "kind", as: String.self)), memberID: memberID ?? 0,
                cohortID: try row.decode(column: "cohort_id", as: Int64?.self) ?? 0,
                occurredAt: Date(millisecondsSince1970: try row.decode(column: "occurred_at", as: Int64.self)),
                number: try row.decode(column: "number", as: Int64?.self), label: try row.decode(column: "label", as: String?.self)
            )
            let joinedAt = try row.decode(column: "joined_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
            snapshot.add(event, clock: clock, joinedAt: memberID == nil ? nil : joinedAt)
        }
        return snapshot
    }

    /// What the aggregates hold now (a deleted member's days, no longer hers, are left out).
    func stored(on db: any SQLDatabase) async throws -> Snapshot {
        var snapshot = Snapshot()
        for row in try await db.select().columns("day", "cohort_id", "kind", "label", "events", "total").from("event_day_counts").all() {
            let key = DayCount(
                day: try row.decode(column: "day", as: Int.self), cohortID: try row.decode(column: "cohort_id", as: Int64.self),
                kind: try row.decode(column: "kind", as: String.self), label: try row.decode(column: "label", as: String.self)
            )
            snapshot.counts[key] = (try row.decode(column: "events", as: Int64.self), try row.decode(column: "total", as: Int64.self))
        }
        for row in try await db.select().columns("member_id", "day", "cohort_id", "joined_day", "opens").from("member_days")
            .where("member_id", .isNot, SQLLiteral.null).all() {
            let key = MemberDay(memberID: try row.decode(column: "member_id", as: Int64.self), day: try row.decode(column: "day", as: Int.self))
            snapshot.memberDays[key] = MemberDayValues(
                cohortID: try row.decode(column: "cohort_id", as: Int64.self), joinedDay: try row.decode(column: "joined_day", as: Int.self),
                opens: try row.decode(column: "opens", as: Int64.self)
            )
        }
        return snapshot
    }

    /// Counts every event afresh on `clock` (after the program's time zone changed, or to check the counts).
    func rebuild(clock: ProgramClock, on db: any SQLDatabase) async throws {
        let snapshot = try await recount(clock: clock, on: db)
        try await db.delete(from: "event_day_counts").run()
        try await db.delete(from: "member_days").where("member_id", .isNot, SQLLiteral.null).run()
        for (key, value) in snapshot.counts {
            let day = AnalyticsDay(key.day)
            try await db.insert(into: "event_day_counts")
                .columns("day", "week", "month", "cohort_id", "kind", "label", "events", "total")
                .values(SQLBind(day.number), SQLBind(day.week), SQLBind(day.month), SQLBind(key.cohortID), SQLBind(key.kind),
                        SQLBind(key.label), SQLBind(value.events), SQLBind(value.total))
                .run()
        }
        for (key, value) in snapshot.memberDays {
            let day = AnalyticsDay(key.day)
            let joined = AnalyticsDay(value.joinedDay)
            try await db.insert(into: "member_days")
                .columns("member_id", "day", "week", "month", "cohort_id", "joined_day", "joined_week", "opens")
                .values(SQLBind(key.memberID), SQLBind(day.number), SQLBind(day.week), SQLBind(day.month), SQLBind(value.cohortID),
                        SQLBind(joined.number), SQLBind(joined.week), SQLBind(value.opens))
                .run()
        }
    }
}

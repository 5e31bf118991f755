import Foundation
import PortalPlatform
import SQLKit

/// The research analytics' reads: every graph's numbers come from the aggregates (`event_day_counts`,
/// `member_days`), never from scanning `events`, except the de-identified export. The only place the
/// analytics' SQL lives.
struct AnalyticsRepository: Sendable {
    /// Events and the sum of their numbers, per bucket and label (and cohort, when comparing cohorts).
    struct Count: Sendable, Equatable {
        let bucket: Int
        let cohortID: Int64?
        let label: String
        let events: Int64
        let total: Int64
    }

    /// Members counted per bucket (and cohort, when comparing cohorts).
    struct Members: Sendable, Equatable {
        let bucket: Int
        let cohortID: Int64?
        let members: Int64
    }

    private func cohortFilter(_ cohortIDs: [Int64]) -> SQLQueryString {
        cohortIDs.isEmpty ? "" : " AND cohort_id IN (\(binds: cohortIDs))"
    }

    /// The first day anything was recorded, for "All time".
    func earliestDay(on db: any SQLDatabase) async throws -> AnalyticsDay? {
        try await db.raw("SELECT MIN(day) AS first FROM event_day_counts").first()?
            .decode(column: "first", as: Int?.self).map(AnalyticsDay.init)
    }

    func counts(
        kind: MemberEvent.Kind, in period: ClosedRange<AnalyticsDay>, by granularity: AnalyticsChoices.Granularity,
        cohortIDs: [Int64], perCohort: Bool, on db: any SQLDatabase
    ) async throws -> [Count] {
        let cohortColumn: SQLQueryString = perCohort ? ", cohort_id" : ""
        let query: SQLQueryString = """
            SELECT \(ident: granularity.column) AS bucket\(cohortColumn), label,
                   CAST(SUM(events) AS BIGINT) AS events, CAST(SUM(total) AS BIGINT) AS total
            FROM event_day_counts
            WHERE kind = \(bind: kind.rawValue) AND day BETWEEN \(bind: period.lowerBound.number) AND \(bind: period.upperBound.number)\(cohortFilter(cohortIDs))
            GROUP BY \(ident: granularity.column)\(cohortColumn), label
            """
        return try await db.raw(query).all().map { row in
            Count(
                bucket: try row.decode(column: "bucket", as: Int.self),
                cohortID: perCohort ? try row.decode(column: "cohort_id", as: Int64.self) : nil,
                label: try row.decode(column: "label", as: String.self),
                events: try row.decode(column: "events", as: Int64.self), total: try row.decode(column: "total", as: Int64.self)
            )
        }
    }

    /// Events and the sum of their numbers over the whole period, per label.
    func totals(kind: MemberEvent.Kind, in period: ClosedRange<AnalyticsDay>, cohortIDs: [Int64], on db: any SQLDatabase) async throws -> [String: (events: Int64, total: Int64)] {
        let query: SQLQueryString = """
            SELECT label, CAST(SUM(events) AS BIGINT) AS events, CAST(SUM(total) AS BIGINT) AS total FROM event_day_counts
            WHERE kind = \(bind: kind.rawValue) AND day BETWEEN \(bind: period.lowerBound.number) AND \(bind: period.upperBound.number)\(cohortFilter(cohortIDs))
            GROUP BY label
            """
        var totals: [String: (events: Int64, total: Int64)] = [:]
        for row in try await db.raw(query).all() {
            totals[try row.decode(column: "label", as: String.self)] = (try row.decode(column: "events", as: Int64.self), try row.decode(column: "total", as: Int64.self))
        }
        return totals
    }

    /// Events of `kind` with a number in `[start, end)`, per label and band of their number (the index into
    /// `bands`): how many, and the sum of their numbers. Read from `events` on its kind-and-time index: the
    /// aggregates keep sums, not spreads.
    func scoreBands(
        kind: MemberEvent.Kind, bands: [ClosedRange<Int64>], from start: Date, until end: Date, cohortIDs: [Int64], on db: any SQLDatabase
    ) async throws -> [String: [Int: (events: Int64, total: Int64)]] {
        var band: SQLQueryString = "CASE"
        for (index, range) in bands.enumerated() {
            band += " WHEN number BETWEEN \(literal: range.lowerBound) AND \(literal: range.upperBound) THEN \(literal: index)"
        }
        band += " ELSE -1 END"
        let query: SQLQueryString = """
            SELECT label, \(band) AS band, COUNT(*) AS events, CAST(SUM(number) AS BIGINT) AS total FROM events
            WHERE kind = \(bind: kind.rawValue) AND occurred_at >= \(bind: start.millisecondsSince1970)
              AND occurred_at < \(bind: end.millisecondsSince1970) AND number IS NOT NULL AND label IS NOT NULL\(cohortFilter(cohortIDs))
            GROUP BY label, \(band)
            """
        var result: [String: [Int: (events: Int64, total: Int64)]] = [:]
        for row in try await db.raw(query).all() {
            result[try row.decode(column: "label", as: String.self), default: [:]][try row.decode(column: "band", as: Int.self)] =
                (try row.decode(column: "events", as: Int64.self), try row.decode(column: "total", as: Int64.self))
        }
        return result
    }

    /// Members active (anything recorded for them) in each bucket.
    func activeMembers(
        in period: ClosedRange<AnalyticsDay>, by granularity: AnalyticsChoices.Granularity, cohortIDs: [Int64], perCohort: Bool,
        on db: any SQLDatabase
    ) async throws -> [Members] {
        let cohortColumn: SQLQueryString = perCohort ? ", cohort_id" : ""
        let query: SQLQueryString = """
            SELECT \(ident: granularity.column) AS bucket\(cohortColumn), COUNT(DISTINCT member_id) AS members
            FROM member_days
            WHERE day BETWEEN \(bind: period.lowerBound.number) AND \(bind: period.upperBound.number)\(cohortFilter(cohortIDs))
            GROUP BY \(ident: granularity.column)\(cohortColumn)
            """
        return try await db.raw(query).all().map { row in
            Members(
                bucket: try row.decode(column: "bucket", as: Int.self),
                cohortID: perCohort ? try row.decode(column: "cohort_id", as: Int64.self) : nil,
                members: try row.decode(column: "members", as: Int64.self)
            )
        }
    }

    /// How many different members were active at some time in `period` (all cohorts).
    func activeMemberCount(in period: ClosedRange<AnalyticsDay>, on db: any SQLDatabase) async throws -> Int {
        try await db.raw("""
            SELECT COUNT(DISTINCT member_id) AS members FROM member_days
            WHERE day BETWEEN \(bind: period.lowerBound.number) AND \(bind: period.upperBound.number)
            """).first()?.decode(column: "members", as: Int.self) ?? 0
    }

    /// How often each member active in `period` opened the app in it.
    func opensPerMember(in period: ClosedRange<AnalyticsDay>, cohortIDs: [Int64], on db: any SQLDatabase) async throws -> [Int64] {
        let query: SQLQueryString = """
            SELECT member_id, CAST(SUM(opens) AS BIGINT) AS opens FROM member_days
            WHERE member_id IS NOT NULL AND day BETWEEN \(bind: period.lowerBound.number) AND \(bind: period.upperBound.number)\(cohortFilter(cohortIDs))
            GROUP BY member_id
            """
        return try await db.raw(query).all().map { try $0.decode(column: "opens", as: Int64.self) }
    }

    /// For members who joined in `period`: how many of those who joined in each week were active in each
    /// week after it (up to `weeks` weeks after).
    func retention(
        joinedIn period: ClosedRange<AnalyticsDay>, weeks: Int, cohortIDs: [Int64], on db: any SQLDatabase
    ) async throws -> [(joinedWeek: Int, weeksAfter: Int, members: Int64)] {
        let query: SQLQueryString = """
            SELECT joined_week, week - joined_week AS after, COUNT(DISTINCT member_id) AS members FROM member_days
            WHERE joined_day BETWEEN \(bind: period.lowerBound.number) AND \(bind: period.upperBound.number)
              AND week - joined_week BETWEEN 0 AND \(bind: weeks)\(cohortFilter(cohortIDs))
            GROUP BY joined_week, week - joined_week
            """
        return try await db.raw(query).all().map { row in
            (try row.decode(column: "joined_week", as: Int.self), try row.decode(column: "after", as: Int.self),
             try row.decode(column: "members", as: Int64.self))
        }
    }

    /// When each member (of the chosen cohorts) who joined between two instants registered.
    func registrations(from start: Date, until end: Date, cohortIDs: [Int64], on db: any SQLDatabase) async throws -> [Date] {
        let query: SQLQueryString = """
            SELECT created_at FROM members
            WHERE created_at >= \(bind: start.millisecondsSince1970) AND created_at < \(bind: end.millisecondsSince1970)\(cohortFilter(cohortIDs))
            """
        return try await db.raw(query).all().map { Date(millisecondsSince1970: try $0.decode(column: "created_at", as: Int64.self)) }
    }

    /// One row of the de-identified export.
    struct ExportedEvent: Sendable {
        let memberID: Int64?
        let cohortID: Int64?
        let kind: String
        let occurredAt: Date
        let label: String?
        let number: Int64?
    }

    /// Every event in `[start, end)` of the chosen cohorts, oldest first, handed over in batches.
    func events(
        from start: Date, until end: Date, cohortIDs: [Int64], on db: any SQLDatabase, _ each: ([ExportedEvent]) async throws -> Void
    ) async throws {
        var after: Int64 = 0
        while true {
            let query: SQLQueryString = """
                SELECT id, member_id, cohort_id, kind, occurred_at, label, number FROM events
                WHERE id > \(bind: after) AND kind NOT LIKE 'study.%' AND occurred_at >= \(bind: start.millisecondsSince1970)
                  AND occurred_at < \(bind: end.millisecondsSince1970)\(cohortFilter(cohortIDs))
                ORDER BY id LIMIT 5000
                """
            let rows = try await db.raw(query).all()
            guard let last = rows.last else { return }
            after = try last.decode(column: "id", as: Int64.self)
            try await each(try rows.map { row in
                ExportedEvent(
                    memberID: try row.decode(column: "member_id", as: Int64?.self), cohortID: try row.decode(column: "cohort_id", as: Int64?.self),
                    kind: try row.decode(column: "kind", as: String.self),
                    occurredAt: Date(millisecondsSince1970: try row.decode(column: "occurred_at", as: Int64.self)),
                    label: try row.decode(column: "label", as: String?.self), number: try row.decode(column: "number", as: Int64?.self)
                )
            })
        }
    }
}

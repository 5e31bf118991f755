import Foundation
import PortalPlatform
import SQLKit

/// The research analytics' reads: every graph's numbers come from the aggregates (per day, week and month:
/// `AnalyticsAggregates`), never from scanning `events`, except the de-identified export. The only place the
/// analytics' SQL lives.
struct AnalyticsRepository: Sendable {
    /// The first and last days anything was recorded on (`recordedDays`), when known. A period whose end lies on or
    /// past one of them is read as reaching to the end of that end's year (`AnalyticsLevel.reach`): the buckets
    /// it cuts there hold nothing outside it, so each is read from its one row instead of its weeks and days.
    var recorded: ClosedRange<AnalyticsDay>?

    init(recorded: ClosedRange<AnalyticsDay>? = nil) {
        self.recorded = recorded
    }

    /// The days of `period` as far as they may be read (`recorded`).
    private func reach(_ period: ClosedRange<AnalyticsDay>) -> ClosedRange<Int> {
        AnalyticsLevel.reach(
            period.lowerBound.number...period.upperBound.number,
            recorded: recorded.map { $0.lowerBound.number...$0.upperBound.number }
        )
    }

    /// Events, the sum of their numbers, and (for scored kinds) how many had a score in each band, per bucket
    /// and label (and cohort, when comparing cohorts).
    struct Count: Sendable, Equatable {
        let bucket: Int
        let cohortID: Int64?
        let label: String
        var events: Int64
        var total: Int64
        var scored: Int64 = 0
        var bands: [Int64] = Array(repeating: 0, count: AnalyticsAggregates.scoreBands.count)

        /// Adds another piece's numbers to these (a row with no scores has nothing in its bands).
        mutating func add(_ other: Count) {
            events += other.events
            total += other.total
            guard other.scored > 0 else { return }
            scored += other.scored
            for band in bands.indices { bands[band] += other.bands[band] }
        }
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

    /// `numbers` as ranges of numbers that follow on.
    private func runs(_ numbers: [Int]) -> [(Int, Int)] {
        var ranges: [(Int, Int)] = []
        for number in Set(numbers).sorted() {
            if let last = ranges.last, last.1 + 1 == number { ranges[ranges.count - 1].1 = number } else { ranges.append((number, number)) }
        }
        return ranges
    }

    /// `select` (a SELECT ending in its WHERE clause's conditions) once per run of `numbers` in `column`, as one
    /// UNION ALL: each part reads its own range on the index, and the statement's text is the same whichever
    /// ranges are asked for (so PostgreSQL keeps one prepared statement for it). The pieces of a period never
    /// make more than four runs at one level (days before and after a week or month on each side); an unused
    /// part asks for nothing (1 to 0).
    ///
    /// `groupBy`, when given, ends each part (" GROUP BY …"): each part then sums its own range, the ranges never
    /// share a bucket, and the parts' rows are the answer with no sum over the whole.
    private func union(_ select: SQLQueryString, _ column: String, _ numbers: [Int], groupBy: SQLQueryString = "") -> SQLQueryString {
        var ranges = runs(numbers)
        while ranges.count < 4 { ranges.append((1, 0)) }
        return ranges.map { select + " AND \(ident: column) BETWEEN \(bind: $0.0) AND \(bind: $0.1)" + groupBy }.joined(separator: " UNION ALL ")
    }

    /// The pieces of the aggregates that make up each bucket of `period` (the bucket's days inside the period,
    /// in whole months, weeks and days), by level: each piece's number and the bucket it belongs to.
    private func pieces(
        of period: ClosedRange<AnalyticsDay>,
        by granularity: AnalyticsChoices.Granularity
    ) -> [AnalyticsLevel: [Int: Int]] {
        let level = AnalyticsLevel(rawValue: granularity.rawValue)!
        let span = reach(period)
        var result: [AnalyticsLevel: [Int: Int]] = [:]
        for bucket in level.number(of: period.lowerBound)...level.number(of: period.upperBound) {
            let days = level.days(of: bucket).clamped(to: span)
            for piece in AnalyticsLevel.pieces(days, largest: level) { result[piece.level, default: [:]][piece.number] = bucket }
        }
        return result
    }

    /// The first and last days anything was recorded on ("All time" starts at the first), each the end of an
    /// index by day (one subquery each: SQLite reads a lone MIN or MAX from the index's end, not both at once).
    func recordedDays(on db: any SQLDatabase) async throws -> ClosedRange<AnalyticsDay>? {
        guard
            let row = try await db.raw(
                """
                SELECT (SELECT MIN(day) FROM event_day_counts) AS first, (SELECT MAX(day) FROM event_day_counts) AS last
                """
            ).first(),
            let first = try row.decode(column: "first", as: Int?.self), let last = try row.decode(column: "last", as: Int?.self)
        else { return nil }
        return AnalyticsDay(first)...AnalyticsDay(last)
    }

    /// Per bucket of `granularity` in `period` and label: read from the month, week and day aggregates that
    /// make up each bucket (a month's own row where the whole month is in the period).
    func counts(
        kind: MemberEvent.Kind,
        in period: ClosedRange<AnalyticsDay>,
        by granularity: AnalyticsChoices.Granularity,
        cohortIDs: [Int64],
        perCohort: Bool,
        on db: any SQLDatabase
    ) async throws -> [Count] {
        struct Key: Hashable {
            let bucket: Int
            let cohortID: Int64?
            let label: String
        }
        var counts: [Key: Count] = [:]
        for (level, buckets) in pieces(of: period, by: granularity).sorted(by: { $0.key < $1.key }) {
            let rows = try await levelCounts(
                kind: kind,
                level: level,
                numbers: Array(buckets.keys),
                cohortIDs: cohortIDs,
                perCohort: perCohort,
                on: db
            )
            counts.reserveCapacity(counts.count + rows.count)
            for row in rows {
                guard let bucket = buckets[row.bucket] else { continue }
                let key = Key(bucket: bucket, cohortID: row.cohortID, label: row.label)
                counts[key, default: Count(bucket: bucket, cohortID: row.cohortID, label: row.label, events: 0, total: 0)].add(row)
            }
        }
        return counts.values.sorted { ($0.bucket, $0.cohortID ?? 0, $0.label) < ($1.bucket, $1.cohortID ?? 0, $1.label) }
    }

    private func levelCounts(
        kind: MemberEvent.Kind,
        level: AnalyticsLevel,
        numbers: [Int],
        cohortIDs: [Int64],
        perCohort: Bool,
        on db: any SQLDatabase
    ) async throws -> [Count] {
        let cohortColumn: SQLQueryString = perCohort ? ", cohort_id" : ""
        // A kind without scores keeps 0 in its scored and band columns (`AnalyticsAggregates.Tally`): they are not read.
        let scored = AnalyticsAggregates.scoredKinds.contains(kind.rawValue)
        var sums: SQLQueryString = "CAST(SUM(events) AS BIGINT) AS events, CAST(SUM(total) AS BIGINT) AS total"
        if scored {
            sums += ", CAST(SUM(scored) AS BIGINT) AS scored"
            for band in AnalyticsAggregates.scoreBands.indices {
                sums += ", CAST(SUM(band_\(unsafeRaw: String(band))) AS BIGINT) AS band_\(unsafeRaw: String(band))"
            }
        }
        // Each range summed on its own, in the order of the index it reads (kind, bucket, label: `IndexAnalyticsReads`), so
        // neither engine sorts or hashes the rows: a bucket is in one range only.
        let query = union(
            """
            SELECT \(ident: level.column) AS bucket\(cohortColumn), label, \(sums)
            FROM \(ident: level.countsTable) WHERE kind = \(bind: kind.rawValue)\(cohortFilter(cohortIDs))
            """,
            level.column,
            numbers,
            groupBy: " GROUP BY \(ident: level.column)\(cohortColumn), label"
        )
        return try await db.raw(query).all().map { row in
            Count(
                bucket: try row.decode(column: "bucket", as: Int.self),
                cohortID: perCohort ? try row.decode(column: "cohort_id", as: Int64.self) : nil,
                label: try row.decode(column: "label", as: String.self),
                events: try row.decode(column: "events", as: Int64.self),
                total: try row.decode(column: "total", as: Int64.self),
                scored: scored ? try row.decode(column: "scored", as: Int64.self) : 0,
                bands: scored
                    ? try AnalyticsAggregates.scoreBands.indices.map { try row.decode(column: "band_\($0)", as: Int64.self) }
                    : Array(repeating: 0, count: AnalyticsAggregates.scoreBands.count)
            )
        }
    }

    /// Over the whole period, per label: whole years, months, weeks, then single days.
    func totals(
        kind: MemberEvent.Kind,
        in period: ClosedRange<AnalyticsDay>,
        cohortIDs: [Int64],
        on db: any SQLDatabase
    ) async throws -> [String: Count] {
        var totals: [String: Count] = [:]
        let pieces = AnalyticsLevel.pieces(reach(period), largest: .year)
        for level in AnalyticsLevel.allCases {
            let numbers = pieces.filter { $0.level == level }.map(\.number)
            guard !numbers.isEmpty else { continue } // a level the period has no whole bucket of: nothing to read
            for row in try await levelCounts(kind: kind, level: level, numbers: numbers, cohortIDs: cohortIDs, perCohort: false, on: db) {
                totals[row.label, default: Count(bucket: 0, cohortID: nil, label: row.label, events: 0, total: 0)].add(row)
            }
        }
        return totals
    }

    /// The members' rows (member, opens) of the whole years, months, weeks and days that make up `days`, as one
    /// UNION ALL to read from.
    private func memberRows(_ days: ClosedRange<Int>, largest: AnalyticsLevel, cohortIDs: [Int64]) -> SQLQueryString {
        let pieces = AnalyticsLevel.pieces(days, largest: largest)
        var parts: [SQLQueryString] = []
        for level in AnalyticsLevel.allCases {
            let numbers = pieces.filter { $0.level == level }.map(\.number)
            parts.append(
                union("SELECT member_id, opens FROM \(ident: level.membersTable) WHERE 1 = 1\(cohortFilter(cohortIDs))", level.column, numbers)
            )
        }
        return parts.joined(separator: " UNION ALL ")
    }

    /// Members active (anything recorded for them) in each bucket: a bucket wholly inside the period from the
    /// kept counts; one cut by the period's edge counted from her months, weeks and days inside it.
    func activeMembers(
        in period: ClosedRange<AnalyticsDay>,
        by granularity: AnalyticsChoices.Granularity,
        cohortIDs: [Int64],
        perCohort: Bool,
        on db: any SQLDatabase
    ) async throws -> [Members] {
        let level = AnalyticsLevel(rawValue: granularity.rawValue)!
        let span = reach(period)
        var whole: [Int] = []
        var cut: [(bucket: Int, days: ClosedRange<Int>)] = []
        for bucket in level.number(of: period.lowerBound)...level.number(of: period.upperBound) {
            let days = level.days(of: bucket)
            if span.contains(days.lowerBound) && span.contains(days.upperBound) {
                whole.append(bucket)
            } else {
                cut.append((bucket, days.clamped(to: span)))
            }
        }
        var result: [Members] = []
        let cohortColumn: SQLQueryString = perCohort ? ", cohort_id" : ""
        if !whole.isEmpty {
            // Each range summed on its own in the index's order (level, bucket: `IndexAnalyticsReads`), with no sort.
            let query = union(
                """
                SELECT bucket\(cohortColumn), CAST(SUM(members) AS BIGINT) AS members FROM active_member_counts
                WHERE level = \(bind: level.rawValue)\(cohortFilter(cohortIDs))
                """,
                "bucket",
                whole,
                groupBy: " GROUP BY bucket\(cohortColumn)"
            )
            result += try await db.raw(query).all().map { row in
                Members(
                    bucket: try row.decode(column: "bucket", as: Int.self),
                    cohortID: perCohort ? try row.decode(column: "cohort_id", as: Int64.self) : nil,
                    members: try row.decode(column: "members", as: Int64.self)
                )
            }
        }
        for (bucket, days) in cut {
            let cohorts: [Int64?] = perCohort ? cohortIDs.map { $0 } : [nil]
            for cohort in cohorts {
                let members = try await distinctMembers(days, largest: level, cohortIDs: cohort.map { [$0] } ?? cohortIDs, on: db)
                if members > 0 { result.append(Members(bucket: bucket, cohortID: cohort, members: members)) }
            }
        }
        return result
    }

    private func distinctMembers(_ days: ClosedRange<Int>, largest: AnalyticsLevel, cohortIDs: [Int64], on db: any SQLDatabase) async throws -> Int64
    {
        try await db.raw(
            """
            SELECT COUNT(DISTINCT member_id) AS members FROM (\(memberRows(days, largest: largest, cohortIDs: cohortIDs))) AS active
            """
        ).first()?.decode(column: "members", as: Int64.self) ?? 0
    }

    /// How many different members were active at some time in `period` (of `cohortIDs`; none: all cohorts).
    func activeMemberCount(in period: ClosedRange<AnalyticsDay>, cohortIDs: [Int64] = [], on db: any SQLDatabase) async throws -> Int {
        Int(try await distinctMembers(reach(period), largest: .year, cohortIDs: cohortIDs, on: db))
    }

    /// How many members each cohort has, whatever their status (`AnalyticsCohort.grouped`).
    func memberCounts(on db: any SQLDatabase) async throws -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        for row in try await db.raw("SELECT cohort_id, COUNT(*) AS members FROM members GROUP BY cohort_id").all() {
            guard let cohort = try row.decode(column: "cohort_id", as: Int64?.self) else { continue }
            counts[cohort] = try row.decode(column: "members", as: Int.self)
        }
        return counts
    }

    /// Members active in `period`, by how often they opened the app in it: how many in each of `bands`.
    func opensPerMember(
        in period: ClosedRange<AnalyticsDay>,
        bands: [ClosedRange<Int64>],
        cohortIDs: [Int64],
        on db: any SQLDatabase
    ) async throws -> [Int64] {
        var band: SQLQueryString = "CASE"
        for (index, range) in bands.enumerated() {
            band += " WHEN opens BETWEEN \(literal: range.lowerBound) AND \(literal: range.upperBound) THEN \(literal: index)"
        }
        band += " ELSE -1 END"
        let query: SQLQueryString = """
            SELECT \(band) AS band, COUNT(*) AS members FROM (
                SELECT member_id, SUM(opens) AS opens
                FROM (\(memberRows(reach(period), largest: .year, cohortIDs: cohortIDs))) AS active
                WHERE member_id IS NOT NULL GROUP BY member_id
            ) AS per_member
            GROUP BY \(band)
            """
        var result = Array(repeating: Int64(0), count: bands.count)
        for row in try await db.raw(query).all() {
            let index = try row.decode(column: "band", as: Int.self)
            if result.indices.contains(index) { result[index] = try row.decode(column: "members", as: Int64.self) }
        }
        return result
    }

    /// For members who joined in `period`: how many were active in each week after the week they joined (0 to
    /// `AnalyticsAggregates.retentionWeeks`), of those whose registration week has reached that week by `week`
    /// (the week after joining is over or under way). Read in the index's order (weeks after, then the day
    /// joined), so the sums need no sort.
    func retention(
        joinedIn period: ClosedRange<AnalyticsDay>,
        reachedBy week: Int,
        cohortIDs: [Int64],
        on db: any SQLDatabase
    ) async throws -> [Int: Int64] {
        let query: SQLQueryString = """
            SELECT weeks_after, CAST(SUM(members) AS BIGINT) AS members FROM retention_counts
            WHERE weeks_after IN (\(binds: Array(0...AnalyticsAggregates.retentionWeeks)))
            AND joined_day BETWEEN \(bind: period.lowerBound.number) AND \(bind: period.upperBound.number)\(cohortFilter(cohortIDs))
            AND joined_week + weeks_after <= \(bind: week)
            GROUP BY weeks_after
            """
        var members: [Int: Int64] = [:]
        for row in try await db.raw(query).all() {
            members[try row.decode(column: "weeks_after", as: Int.self)] = try row.decode(column: "members", as: Int64.self)
        }
        return members
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
        from start: Date,
        until end: Date,
        cohortIDs: [Int64],
        on db: any SQLDatabase,
        _ each: ([ExportedEvent]) async throws -> Void
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
            try await each(
                try rows.map { row in
                    ExportedEvent(
                        memberID: try row.decode(column: "member_id", as: Int64?.self),
                        cohortID: try row.decode(column: "cohort_id", as: Int64?.self),
                        kind: try row.decode(column: "kind", as: String.self),
                        occurredAt: Date(millisecondsSince1970: try row.decode(column: "occurred_at", as: Int64.self)),
                        label: try row.decode(column: "label", as: String?.self),
                        number: try row.decode(column: "number", as: Int64?.self)
                    )
                }
            )
        }
    }
}

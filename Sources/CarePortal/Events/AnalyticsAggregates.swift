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
    static func lastDay(ofMonth month: Int) -> AnalyticsDay { AnalyticsDay(firstDay(ofMonth: month + 1).number - 1) }
}

/// The four levels the aggregates are kept at: per day, per week (from Monday), per month and per year, each
/// on the program's clock. A graph reads the coarsest level that fits its buckets, so 18 months by month read
/// 18 rows per series, not 548, and a whole year one row.
enum AnalyticsLevel: String, Sendable, CaseIterable, Comparable {
    case day, week, month, year

    /// The column holding the level's number (day, week, month or year) in its tables.
    var column: String { rawValue }
    /// Events and their numbers per bucket, cohort, kind and label.
    var countsTable: String { "event_\(rawValue)_counts" }
    /// Each member's buckets of activity (one row per member and bucket).
    var membersTable: String { "member_\(rawValue)s" }

    func number(of day: AnalyticsDay) -> Int {
        switch self {
        case .day: day.number
        case .week: day.week
        case .month: day.month
        case .year: day.date.year
        }
    }

    /// The days of bucket `number` at this level.
    func days(of number: Int) -> ClosedRange<Int> {
        switch self {
        case .day: number...number
        case .week: AnalyticsDay.firstDay(ofWeek: number).number...(AnalyticsDay.firstDay(ofWeek: number).number + 6)
        case .month: AnalyticsDay.firstDay(ofMonth: number).number...AnalyticsDay.lastDay(ofMonth: number).number
        case .year: AnalyticsDay.firstDay(ofMonth: number * 12).number...AnalyticsDay.lastDay(ofMonth: number * 12 + 11).number
        }
    }

    private var order: Int { Self.allCases.firstIndex(of: self)! }
    static func < (lhs: AnalyticsLevel, rhs: AnalyticsLevel) -> Bool { lhs.order < rhs.order }

    /// One bucket of the aggregates, whole inside a stretch of days.
    struct Piece: Sendable, Hashable {
        let level: AnalyticsLevel
        let number: Int
    }

    /// `days` covered exactly by whole buckets no larger than `largest`: the years inside it, then the months
    /// inside what is left on either side, then the weeks inside what is left of that, then single days. (A week
    /// can cross the end of a month or year, so it is never taken from inside one.)
    static func pieces(_ days: ClosedRange<Int>, largest: AnalyticsLevel) -> [Piece] {
        func split(_ from: Int, _ to: Int, _ level: AnalyticsLevel) -> [Piece] {
            guard from <= to else { return [] }
            guard level != .day else { return (from...to).map { Piece(level: .day, number: $0) } }
            let smaller = allCases[level.order - 1]
            guard level <= largest else { return split(from, to, smaller) }
            var first = level.number(of: AnalyticsDay(from)), last = level.number(of: AnalyticsDay(to))
            if level.days(of: first).lowerBound != from { first += 1 }
            if level.days(of: last).upperBound != to { last -= 1 }
            guard first <= last else { return split(from, to, smaller) }
            return split(from, level.days(of: first).lowerBound - 1, smaller)
                + (first...last).map { Piece(level: level, number: $0) }
                + split(level.days(of: last).upperBound + 1, to, smaller)
        }
        return split(days.lowerBound, days.upperBound, .year)
    }

    /// `days` reaching, at an end that lies on or past the edge of what was recorded (`recorded`), to the end of
    /// that end's year: nothing was recorded there, so the whole buckets that cover the extra days count exactly
    /// what the days of `days` hold, and a cut month or week is read from its one row instead of its days.
    static func reach(_ days: ClosedRange<Int>, recorded: ClosedRange<Int>?) -> ClosedRange<Int> {
        guard let recorded else { return days }
        let lower =
            days.lowerBound <= recorded.lowerBound ? year.days(of: year.number(of: AnalyticsDay(days.lowerBound))).lowerBound : days.lowerBound
        let upper =
            days.upperBound >= recorded.upperBound ? year.days(of: year.number(of: AnalyticsDay(days.upperBound))).upperBound : days.upperBound
        return lower...upper
    }
}

/// The aggregates the research analytics read, kept in the same transaction as each batch of events and
/// rebuilt from `events` on demand; the only place their SQL is written:
/// - `event_day_counts`, `event_week_counts`, `event_month_counts`, `event_year_counts`: events, the sum of their
///   numbers and, for scored kinds, how many had a score in each band, per bucket, cohort, kind and label;
/// - `member_days`, `member_weeks`, `member_months`, `member_years`: each member's buckets of activity, with her cohort
///   (at her first event in it), the day she joined and her app opens in it;
/// - `active_member_counts`: members active per level, bucket and cohort, raised when a member's first
///   event of a day, week or month is counted, so distinct counts stay exact without scanning;
/// - `retention_counts`: members active N weeks (0 to `retentionWeeks`) after the week they joined, per
///   day they joined and cohort.
struct AnalyticsAggregates: Sendable {
    /// The kinds whose number is a score out of 100, counted in `scoreBands`.
    static let scoredKinds: Set<String> = [MemberEvent.Kind.learningModuleCompleted.rawValue]
    /// The bands a score is counted in (the columns `band_0` to `band_3`), lowest first.
    static let scoreBands: [ClosedRange<Int64>] = [0...49, 50...69, 70...89, 90...100]
    /// How many weeks after joining the retention counts follow a member.
    static let retentionWeeks = 12
    /// Rows per statement when writing many (well under either engine's limit on parameters).
    static let rowsPerStatement = 512

    struct Count: Sendable, Hashable {
        let level: AnalyticsLevel
        let number: Int
        let cohortID: Int64
        let kind: String
        let label: String
    }

    /// Events, the sum of their numbers, how many had a score, and how many scored in each band.
    struct Tally: Sendable, Equatable {
        var events: Int64 = 0
        var total: Int64 = 0
        var scored: Int64 = 0
        var bands: [Int64] = Array(repeating: 0, count: AnalyticsAggregates.scoreBands.count)

        mutating func add(_ event: MemberEvent) {
            events += 1
            total += event.number ?? 0
            guard AnalyticsAggregates.scoredKinds.contains(event.kind.rawValue), let number = event.number else { return }
            scored += 1
            if let band = AnalyticsAggregates.scoreBands.firstIndex(where: { $0.contains(number) }) { bands[band] += 1 }
        }
    }

    struct MemberBucket: Sendable, Hashable {
        let level: AnalyticsLevel
        let memberID: Int64
        let number: Int
    }

    struct MemberValues: Sendable, Hashable {
        let cohortID: Int64
        let joinedDay: Int
        var opens: Int64
    }

    struct Active: Sendable, Hashable {
        let level: AnalyticsLevel
        let number: Int
        let cohortID: Int64
    }

    struct Retained: Sendable, Hashable {
        let joinedDay: Int
        let weeksAfter: Int
        let cohortID: Int64
    }

    /// What the aggregates hold, at every level.
    struct Snapshot: Sendable, Equatable {
        var counts: [Count: Tally] = [:]
        var members: [MemberBucket: MemberValues] = [:]
        var active: [Active: Int64] = [:]
        var retained: [Retained: Int64] = [:]

        /// Counts `event` at every level; her cohort in a bucket is the one of her first event in it.
        mutating func add(_ event: MemberEvent, clock: ProgramClock, joinedAt: Date?) {
            let day = AnalyticsDay(clock.date(of: event.occurredAt))
            for level in AnalyticsLevel.allCases {
                counts[
                    Count(level: level, number: level.number(of: day), cohortID: event.cohortID, kind: event.kind.rawValue, label: event.label ?? ""),
                    default: Tally()
                ]
                .add(event)
            }
            guard let joinedAt else { return }
            let joined = AnalyticsDay(clock.date(of: joinedAt))
            for level in AnalyticsLevel.allCases {
                let key = MemberBucket(level: level, memberID: event.memberID, number: level.number(of: day))
                var values = members[key] ?? MemberValues(cohortID: event.cohortID, joinedDay: joined.number, opens: 0)
                if event.kind == .appOpened { values.opens += 1 }
                if members[key] == nil {
                    active[Active(level: level, number: key.number, cohortID: values.cohortID), default: 0] += 1
                    let after = key.number - joined.week
                    if level == .week, (0...AnalyticsAggregates.retentionWeeks).contains(after) {
                        retained[Retained(joinedDay: joined.number, weeksAfter: after, cohortID: values.cohortID), default: 0] += 1
                    }
                }
                members[key] = values
            }
        }

        /// Only the per-day rows (what the first version of the aggregates kept), for a shorter comparison.
        var memberDays: [MemberBucket: MemberValues] { members.filter { $0.key.level == .day } }
    }

    // MARK: Counting a batch of events as it is recorded

    /// Counts `events`, just recorded, in the caller's transaction: a few statements per table and level for the
    /// whole batch (its rows in slices of a power of two; for a member table, her new buckets, then more opens
    /// in known ones), never one per event.
    func count(_ events: [MemberEvent], clock: ProgramClock, on db: any SQLDatabase) async throws {
        guard !events.isEmpty else { return }
        let memberIDs = Set(events.map(\.memberID)).sorted()
        var joinedAt: [Int64: Date] = [:]
        for row in try await db.raw("SELECT id, created_at FROM members WHERE id IN (\(binds: memberIDs))").all() {
            joinedAt[try row.decode(column: "id", as: Int64.self)] = Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self))
        }
        // The batch's own tallies, in the order its events came (her first event of a bucket sets its cohort).
        var batch = Snapshot()
        for event in events { batch.add(event, clock: clock, joinedAt: joinedAt[event.memberID]) }
        for level in AnalyticsLevel.allCases {
            // Sorted, so that concurrent batches take their rows' locks in the same order.
            let rows = batch.counts.filter { $0.key.level == level }
                .sorted { ($0.key.kind, $0.key.number, $0.key.cohortID, $0.key.label) < ($1.key.kind, $1.key.number, $1.key.cohortID, $1.key.label) }
            try await upsertCounts(rows, level: level, on: db)
        }
        var active: [Active: Int64] = [:]
        var retained: [Retained: Int64] = [:]
        for level in AnalyticsLevel.allCases {
            let keys = batch.members.keys.filter { $0.level == level }.sorted { ($0.memberID, $0.number) < ($1.memberID, $1.number) }
            guard !keys.isEmpty else { continue }
            let rows = keys.map { ($0, batch.members[$0]!) }
            // Her buckets not counted before: inserted with this batch's opens, and counted as active.
            var new: Set<MemberBucket> = []
            for chunk in rows.chunked(Self.rowsPerStatement) {
                let returned = try await db.raw(insertMembers(chunk, level: level) + "\(unsafeRaw: Self.statements[level]!.newMembers)").all()
                for row in returned {
                    new.insert(
                        MemberBucket(
                            level: level,
                            memberID: try row.decode(column: "member_id", as: Int64.self),
                            number: try row.decode(column: "bucket", as: Int.self)
                        )
                    )
                }
            }
            for (key, values) in rows where new.contains(key) {
                active[Active(level: level, number: key.number, cohortID: values.cohortID), default: 0] += 1
                let after = key.number - AnalyticsDay(values.joinedDay).week
                if level == .week, (0...Self.retentionWeeks).contains(after) {
                    retained[Retained(joinedDay: values.joinedDay, weeksAfter: after, cohortID: values.cohortID), default: 0] += 1
                }
            }
            // Buckets she was already active in: only her opens grow.
            let known = rows.filter { !new.contains($0.0) && $0.1.opens > 0 }
            for chunk in known.chunked(Self.rowsPerStatement) {
                try await db.raw(insertMembers(chunk, level: level) + "\(unsafeRaw: Self.statements[level]!.moreOpens)").run()
            }
        }
        try await upsertActive(
            active.sorted { ($0.key.level, $0.key.number, $0.key.cohortID) < ($1.key.level, $1.key.number, $1.key.cohortID) },
            on: db
        )
        try await upsertRetained(
            retained.sorted { ($0.key.joinedDay, $0.key.weeksAfter, $0.key.cohortID) < ($1.key.joinedDay, $1.key.weeksAfter, $1.key.cohortID) },
            on: db
        )
    }

    private func upsertCounts(_ rows: [(key: Count, value: Tally)], level: AnalyticsLevel, on db: any SQLDatabase) async throws {
        for chunk in rows.chunked(Self.rowsPerStatement) {
            try await db.raw(insertCounts(chunk, level: level) + "\(unsafeRaw: Self.statements[level]!.addToCounts)").run()
        }
    }

    private func upsertActive(_ rows: [(key: Active, value: Int64)], on db: any SQLDatabase) async throws {
        for chunk in rows.chunked(Self.rowsPerStatement) {
            let values = chunk.map { row -> SQLQueryString in
                "(\(bind: row.key.level.rawValue), \(bind: row.key.number), \(bind: row.key.cohortID), \(bind: row.value))"
            }
            try await db.raw(
                """
                INSERT INTO active_member_counts (level, bucket, cohort_id, members) VALUES \(values.joined(separator: ", "))
                ON CONFLICT (level, bucket, cohort_id) DO UPDATE SET members = active_member_counts.members + excluded.members
                """
            ).run()
        }
    }

    private func upsertRetained(_ rows: [(key: Retained, value: Int64)], on db: any SQLDatabase) async throws {
        for chunk in rows.chunked(Self.rowsPerStatement) {
            let values = chunk.map { row -> SQLQueryString in
                "(\(bind: row.key.joinedDay), \(bind: AnalyticsDay(row.key.joinedDay).week), \(bind: row.key.weeksAfter), \(bind: row.key.cohortID), \(bind: row.value))"
            }
            try await db.raw(
                """
                INSERT INTO retention_counts (joined_day, joined_week, weeks_after, cohort_id, members) VALUES \(values.joined(separator: ", "))
                ON CONFLICT (joined_day, weeks_after, cohort_id) DO UPDATE SET members = retention_counts.members + excluded.members
                """
            ).run()
        }
    }

    /// The words of a level's statements that never change, with their names quoted once as both engines quote
    /// them (`ColumnList.quoted`): SQLKit quotes every name again each time a statement is written, which was a
    /// tenth of a batch's time. Only names from this file go in, never anything sent.
    private struct LevelStatements: Sendable {
        /// `INSERT INTO` a counts table `(its columns) VALUES `, and what adds a row's numbers to one already there.
        let insertCounts: String
        let addToCounts: String
        /// `INSERT INTO` a members table `(its columns) VALUES `; what leaves her known buckets alone and returns
        /// the new ones; and what adds opens to a known one.
        let insertMembers: String
        let newMembers: String
        let moreOpens: String

        init(_ level: AnalyticsLevel) {
            func name(_ name: String) -> String { ColumnList.quoted(name) }
            let counts = name(level.countsTable), members = name(level.membersTable), bucket = name(level.column)
            insertCounts = "INSERT INTO \(counts) (\(AnalyticsAggregates.countColumns(level).map(name).joined(separator: ", "))) VALUES "
            addToCounts =
                " ON CONFLICT (kind, \(bucket), cohort_id, label) DO UPDATE SET "
                + (["events", "total", "scored"] + AnalyticsAggregates.scoreBands.indices.map { "band_\($0)" })
                .map { "\(name($0)) = \(counts).\(name($0)) + excluded.\(name($0))" }.joined(separator: ", ")
            insertMembers = "INSERT INTO \(members) (\(AnalyticsAggregates.memberColumns(level).map(name).joined(separator: ", "))) VALUES "
            newMembers = " ON CONFLICT (member_id, \(bucket)) DO NOTHING RETURNING member_id, \(bucket) AS bucket"
            moreOpens = " ON CONFLICT (member_id, \(bucket)) DO UPDATE SET opens = \(members).opens + excluded.opens"
        }
    }

    private static let statements = Dictionary(uniqueKeysWithValues: AnalyticsLevel.allCases.map { ($0, LevelStatements($0)) })

    private static func countColumns(_ level: AnalyticsLevel) -> [String] {
        [level.column] + (level == .day ? ["week", "month"] : []) + ["cohort_id", "kind", "label", "events", "total", "scored"]
            + scoreBands.indices.map { "band_\($0)" }
    }

    private static func memberColumns(_ level: AnalyticsLevel) -> [String] {
        switch level {
        case .day: ["member_id", "day", "week", "month", "cohort_id", "joined_day", "joined_week", "opens"]
        case .week: ["member_id", "week", "cohort_id", "joined_day", "joined_week", "opens"]
        case .month, .year: ["member_id", level.column, "cohort_id", "opens"]
        }
    }

    private func insertCounts(_ rows: ArraySlice<(key: Count, value: Tally)>, level: AnalyticsLevel) -> SQLQueryString {
        let values = rows.map { key, tally -> SQLQueryString in
            var binds: [any Encodable & Sendable] = [key.number]
            if level == .day { binds += [AnalyticsDay(key.number).week, AnalyticsDay(key.number).month] }
            binds += [key.cohortID, key.kind, key.label, tally.events, tally.total, tally.scored] as [any Encodable & Sendable]
            binds += tally.bands.map { $0 as any Encodable & Sendable }
            return "(\(binds: binds))"
        }
        return "\(unsafeRaw: Self.statements[level]!.insertCounts)\(values.joined(separator: ", "))"
    }

    private func insertMembers(_ rows: ArraySlice<(MemberBucket, MemberValues)>, level: AnalyticsLevel) -> SQLQueryString {
        let values = rows.map { key, values -> SQLQueryString in
            let day = AnalyticsDay(key.number), joined = AnalyticsDay(values.joinedDay)
            let binds: [any Encodable & Sendable] =
                switch level {
                case .day: [key.memberID, key.number, day.week, day.month, values.cohortID, joined.number, joined.week, values.opens]
                case .week: [key.memberID, key.number, values.cohortID, joined.number, joined.week, values.opens]
                case .month, .year: [key.memberID, key.number, values.cohortID, values.opens]
                }
            return "(\(binds: binds))"
        }
        return "\(unsafeRaw: Self.statements[level]!.insertMembers)\(values.joined(separator: ", "))"
    }

    // MARK: Recounting

    /// What the aggregates would hold if every event were counted afresh on `clock`, in the order recorded.
    func recount(clock: ProgramClock, on db: any SQLDatabase) async throws -> Snapshot {
        var snapshot = Snapshot()
        var after: Int64 = 0
        while true {
            let rows = try await db.raw(
                """
                SELECT e.id, e.kind, e.member_id, e.cohort_id, e.occurred_at, e.number, e.label, m.created_at AS joined_at
                FROM events e LEFT JOIN members m ON m.id = e.member_id
                WHERE e.id > \(bind: after) AND e.kind NOT LIKE 'study.%'
                ORDER BY e.id LIMIT 50000
                """
            ).all()
            guard let last = rows.last else { return snapshot }
            after = try last.decode(column: "id", as: Int64.self)
            for row in rows {
                let memberID = try row.decode(column: "member_id", as: Int64?.self)
                let event = MemberEvent(
                    kind: MemberEvent.Kind(try row.decode(column: "kind", as: String.self)),
                    memberID: memberID ?? 0,
                    cohortID: try row.decode(column: "cohort_id", as: Int64?.self) ?? 0,
                    occurredAt: Date(millisecondsSince1970: try row.decode(column: "occurred_at", as: Int64.self)),
                    number: try row.decode(column: "number", as: Int64?.self),
                    label: try row.decode(column: "label", as: String?.self)
                )
                let joinedAt = try row.decode(column: "joined_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
                snapshot.add(event, clock: clock, joinedAt: memberID == nil ? nil : joinedAt)
            }
        }
    }

    /// What the aggregates hold now. A deleted member's buckets, no longer hers, are left out of the
    /// members' rows; the active and retention counts still count her.
    func stored(on db: any SQLDatabase) async throws -> Snapshot {
        var snapshot = Snapshot()
        for level in AnalyticsLevel.allCases {
            let columns = [level.column, "cohort_id", "kind", "label", "events", "total", "scored"] + Self.scoreBands.indices.map { "band_\($0)" }
            for row in try await db.select().columns(columns).from(level.countsTable).all() {
                let key = Count(
                    level: level,
                    number: try row.decode(column: level.column, as: Int.self),
                    cohortID: try row.decode(column: "cohort_id", as: Int64.self),
                    kind: try row.decode(column: "kind", as: String.self),
                    label: try row.decode(column: "label", as: String.self)
                )
                snapshot.counts[key] = Tally(
                    events: try row.decode(column: "events", as: Int64.self),
                    total: try row.decode(column: "total", as: Int64.self),
                    scored: try row.decode(column: "scored", as: Int64.self),
                    bands: try Self.scoreBands.indices.map { try row.decode(column: "band_\($0)", as: Int64.self) }
                )
            }
            let joined: SQLQueryString = level >= .month ? "NULL AS joined_day" : "joined_day"
            for row in try await db.raw(
                """
                SELECT member_id, \(ident: level.column) AS bucket, cohort_id, \(joined), opens FROM \(ident: level.membersTable) WHERE member_id IS NOT NULL
                """
            ).all() {
                let key = MemberBucket(
                    level: level,
                    memberID: try row.decode(column: "member_id", as: Int64.self),
                    number: try row.decode(column: "bucket", as: Int.self)
                )
                snapshot.members[key] = MemberValues(
                    cohortID: try row.decode(column: "cohort_id", as: Int64.self),
                    joinedDay: try row.decode(column: "joined_day", as: Int?.self) ?? 0,
                    opens: try row.decode(column: "opens", as: Int64.self)
                )
            }
        }
        // The month and year rows do not keep the day she joined: take it from her days.
        let joinedDays = Dictionary(
            snapshot.members.filter { $0.key.level == .day }.map { ($0.key.memberID, $0.value.joinedDay) },
            uniquingKeysWith: { first, _ in first }
        )
        for (key, values) in snapshot.members where key.level >= .month {
            snapshot.members[key] = MemberValues(cohortID: values.cohortID, joinedDay: joinedDays[key.memberID] ?? 0, opens: values.opens)
        }
        for row in try await db.select().columns("level", "bucket", "cohort_id", "members").from("active_member_counts").all() {
            guard let level = AnalyticsLevel(rawValue: try row.decode(column: "level", as: String.self)) else { continue }
            snapshot.active[
                Active(
                    level: level,
                    number: try row.decode(column: "bucket", as: Int.self),
                    cohortID: try row.decode(column: "cohort_id", as: Int64.self)
                )
            ] =
                try row.decode(column: "members", as: Int64.self)
        }
        for row in try await db.select().columns("joined_day", "weeks_after", "cohort_id", "members").from("retention_counts").all() {
            snapshot.retained[
                Retained(
                    joinedDay: try row.decode(column: "joined_day", as: Int.self),
                    weeksAfter: try row.decode(column: "weeks_after", as: Int.self),
                    cohortID: try row.decode(column: "cohort_id", as: Int64.self)
                )
            ] = try row.decode(column: "members", as: Int64.self)
        }
        return snapshot
    }

    /// Counts every event afresh on `clock` (after the program's time zone changed, or to check the counts),
    /// writing the rows hundreds to a statement, at `levels` (every level unless a migration that adds one asks
    /// for it alone). A deleted member's buckets stay counted, no longer hers.
    func rebuild(clock: ProgramClock, levels: [AnalyticsLevel] = AnalyticsLevel.allCases, on db: any SQLDatabase) async throws {
        let snapshot = try await recount(clock: clock, on: db)
        for level in levels {
            try await db.delete(from: level.countsTable).run()
            try await db.delete(from: level.membersTable).where("member_id", .isNot, SQLLiteral.null).run()
            let counts = snapshot.counts.filter { $0.key.level == level }.map { (key: $0.key, value: $0.value) }
            for chunk in counts.chunked(Self.rowsPerStatement) {
                try await db.raw(insertCounts(chunk, level: level)).run()
            }
            let members = snapshot.members.filter { $0.key.level == level }.map { ($0.key, $0.value) }
            for chunk in members.chunked(Self.rowsPerStatement) {
                try await db.raw(insertMembers(chunk, level: level)).run()
            }
            // The distinct counts from the members' rows, a deleted member's included.
            try await db.delete(from: "active_member_counts").where("level", .equal, level.rawValue).run()
            try await db.raw(
                """
                INSERT INTO active_member_counts (level, bucket, cohort_id, members)
                SELECT \(bind: level.rawValue), \(ident: level.column), cohort_id, COUNT(*) FROM \(ident: level.membersTable)
                GROUP BY \(ident: level.column), cohort_id
                """
            ).run()
        }
        guard levels.contains(.week) else { return }
        try await db.delete(from: "retention_counts").run()
        try await db.raw(
            """
            INSERT INTO retention_counts (joined_day, joined_week, weeks_after, cohort_id, members)
            SELECT joined_day, joined_week, week - joined_week, cohort_id, COUNT(*) FROM member_weeks
            WHERE week - joined_week BETWEEN 0 AND \(literal: Self.retentionWeeks)
            GROUP BY joined_day, joined_week, week - joined_week, cohort_id
            """
        ).run()
    }
}

extension Array {
    /// The array in consecutive slices, each of a power of two elements, at most `size`: a statement with one
    /// row of values per element then has one of a few shapes, so PostgreSQL keeps a handful of prepared
    /// statements for them (PreparedSQL.limit), not one per batch size.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        var slices: [ArraySlice<Element>] = []
        var start = 0
        while start < count {
            var length = 1
            while length * 2 <= Swift.min(size, count - start) { length *= 2 }
            slices.append(self[start..<(start + length)])
            start += length
        }
        return slices
    }
}

import PortalPlatform
import SQLKit

/// The analytics' aggregates per week and per month beside per day, so a long range reads a few rows per
/// series; the score bands in their rows, so the learning page's spread needs no events; each member's
/// weeks and months of activity with the counts of active members they raise (exact distinct counts
/// without scanning); and the retention counts by the day members joined. Then every event recorded so
/// far is counted afresh (`AnalyticsAggregates.rebuild`).
struct AddAnalyticsLevels: Migration {
    let version = 33
    let name = "AddAnalyticsLevels"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        // How many of the day's events had a score, and how many scored in each band (AnalyticsAggregates.scoreBands).
        for column in ["scored", "band_0", "band_1", "band_2", "band_3"] {
            try await db.raw("ALTER TABLE event_day_counts ADD COLUMN \(ident: column) BIGINT NOT NULL DEFAULT 0").run()
        }
        for level in [AnalyticsLevel.week, .month] {
            try await AnalyticsLevelTables.createCounts(of: level, on: db)
        }

        try await db.create(table: "member_weeks")
            // A deleted member's weeks stay counted, no longer hers.
            .column("member_id", type: .bigint, .references("members", "id", onDelete: .setNull))
            .column("week", type: .bigint, .notNull)
            .column("cohort_id", type: .bigint, .notNull)
            .column("joined_day", type: .bigint, .notNull)
            .column("joined_week", type: .bigint, .notNull)
            .column("opens", type: .bigint, .notNull)
            .run()
        try await db.create(index: "member_weeks_key").on("member_weeks").column("member_id").column("week").unique().run()
        try await db.create(index: "member_weeks_week").on("member_weeks").column("week").column("cohort_id").column("member_id").column("opens")
            .run()
        try await AnalyticsLevelTables.createMemberPeriods(of: .month, on: db)
        // The members' rows of a range (distinct active members, opens per member) read from these indexes alone,
        // by range of day, week or month, the cohorts filtered inside the index.
        try await db.create(index: "member_days_day_member").on("member_days").column("day").column("cohort_id").column("member_id").column("opens")
            .run()

        // Members active per level ('day', 'week', 'month'), bucket and cohort (at her first event in it).
        try await db.create(table: "active_member_counts")
            .column("level", type: .text, .notNull)
            .column("bucket", type: .bigint, .notNull)
            .column("cohort_id", type: .bigint, .notNull)
            .column("members", type: .bigint, .notNull)
            .run()
        try await db.create(index: "active_member_counts_key").on("active_member_counts")
            .column("level").column("bucket").column("cohort_id").unique().run()

        // Members who joined on `joined_day` and were active `weeks_after` weeks after the week they joined.
        try await db.create(table: "retention_counts")
            .column("joined_day", type: .bigint, .notNull)
            .column("joined_week", type: .bigint, .notNull)
            .column("weeks_after", type: .bigint, .notNull)
            .column("cohort_id", type: .bigint, .notNull)
            .column("members", type: .bigint, .notNull)
            .run()
        try await db.create(index: "retention_counts_key").on("retention_counts")
            .column("joined_day").column("weeks_after").column("cohort_id").unique().run()

        // The levels this step made; the years came later (`AddAnalyticsYears`).
        try await AnalyticsAggregates().rebuild(clock: try await ProgramSettingsRepository().clock(on: db), levels: [.day, .week, .month], on: db)
    }
}

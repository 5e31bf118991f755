import PortalPlatform
import SQLKit

/// The tables an analytics level beyond the day has, as migrations 33 (weeks and months) and 37 (years)
/// make them. Frozen with those migrations: a later change to these tables is a migration of its own.
enum AnalyticsLevelTables {
    /// The events counted per period, cohort, kind and label, with how many had a score and how many
    /// scored in each band (`AnalyticsAggregates.scoreBands`).
    static func createCounts(of level: AnalyticsLevel, on db: any SQLDatabase) async throws {
        try await db.create(table: level.countsTable)
            .column(level.column, type: .bigint, .notNull)
            .column("cohort_id", type: .bigint, .notNull)
            .column("kind", type: .text, .notNull)
            .column("label", type: .text, .notNull)
            .column("events", type: .bigint, .notNull)
            .column("total", type: .bigint, .notNull)
            .column("scored", type: .bigint, .notNull)
            .column("band_0", type: .bigint, .notNull)
            .column("band_1", type: .bigint, .notNull)
            .column("band_2", type: .bigint, .notNull)
            .column("band_3", type: .bigint, .notNull)
            .run()
        try await db.create(index: "\(level.countsTable)_key").on(level.countsTable)
            .column("kind").column(level.column).column("cohort_id").column("label").unique().run()
    }

    /// Each member's opens in each period (the weeks, which carry more, are made by migration 33 itself).
    static func createMemberPeriods(of level: AnalyticsLevel, on db: any SQLDatabase) async throws {
        try await db.create(table: level.membersTable)
            // A deleted member's periods stay counted, no longer hers.
            .column("member_id", type: .bigint, .references("members", "id", onDelete: .setNull))
            .column(level.column, type: .bigint, .notNull)
            .column("cohort_id", type: .bigint, .notNull)
            .column("opens", type: .bigint, .notNull)
            .run()
        try await db.create(index: "\(level.membersTable)_key").on(level.membersTable).column("member_id").column(level.column).unique().run()
        try await db.create(index: "\(level.membersTable)_\(level.column)").on(level.membersTable)
            .column(level.column).column("cohort_id").column("member_id").column("opens").run()
    }
}

import PortalPlatform
import SQLKit

/// The analytics' aggregates per year beside per day, week and month: a range of many months reads a member's
/// year in one row where the whole year is in it, or where the range reaches past what was recorded ("All
/// time", a period that ends today), so opens per member over "All time" read about one row per member and
/// year instead of one per month. The years are counted afresh from the events recorded so far.
struct AddAnalyticsYears: Migration {
    let version = 37
    let name = "AddAnalyticsYears"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        let year = AnalyticsLevel.year
        try await db.create(table: year.countsTable)
            .column(year.column, type: .bigint, .notNull)
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
        try await db.create(index: "\(year.countsTable)_key").on(year.countsTable)
            .column("kind").column(year.column).column("cohort_id").column("label").unique().run()
        // As `IndexAnalyticsReads` made for the other levels: every column a graph reads, in the order it sums them.
        try await db.create(index: "\(year.countsTable)_read").on(year.countsTable)
            .column("kind").column(year.column).column("label").column("cohort_id")
            .column("events").column("total").column("scored").column("band_0").column("band_1").column("band_2").column("band_3")
            .run()
        try await db.create(table: year.membersTable)
            // A deleted member's years stay counted, no longer hers.
            .column("member_id", type: .bigint, .references("members", "id", onDelete: .setNull))
            .column(year.column, type: .bigint, .notNull)
            .column("cohort_id", type: .bigint, .notNull)
            .column("opens", type: .bigint, .notNull)
            .run()
        try await db.create(index: "\(year.membersTable)_key").on(year.membersTable).column("member_id").column(year.column).unique().run()
        try await db.create(index: "\(year.membersTable)_\(year.column)").on(year.membersTable)
            .column(year.column).column("cohort_id").column("member_id").column("opens").run()
        try await AnalyticsAggregates().rebuild(clock: try await ProgramSettingsRepository().clock(on: db), levels: [.year], on: db)
    }
}

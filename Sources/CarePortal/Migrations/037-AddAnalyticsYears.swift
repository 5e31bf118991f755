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
        try await AnalyticsLevelTables.createCounts(of: year, on: db)
        // As `IndexAnalyticsReads` made for the other levels: every column a graph reads, in the order it sums them.
        try await db.create(index: "\(year.countsTable)_read").on(year.countsTable)
            .column("kind").column(year.column).column("label").column("cohort_id")
            .column("events").column("total").column("scored").column("band_0").column("band_1").column("band_2").column("band_3")
            .run()
        try await AnalyticsLevelTables.createMemberPeriods(of: year, on: db)
        try await AnalyticsAggregates().rebuild(clock: try await ProgramSettingsRepository().clock(on: db), levels: [.year], on: db)
    }
}

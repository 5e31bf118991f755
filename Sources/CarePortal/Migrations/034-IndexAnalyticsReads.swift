import PortalPlatform
import SQLKit

/// Indexes the Analytics pages read from alone: each graph's rows come from a range of one of these
/// indexes with every column it reads in it, so no table row is fetched (on SQLite each fetch was a page
/// read; at 18 months by day, tens of thousands of them a graph). The counts are read by kind, bucket and
/// label, the order a graph sums them in, so neither engine sorts them (the cohorts are filtered inside the
/// index); retention by weeks after joining, then the day joined, the order its sums are made in. The first
/// day anything was recorded ("All time") is the first entry of an index by day, not a scan of every
/// daily count.
struct IndexAnalyticsReads: Migration {
    let version = 34
    let name = "IndexAnalyticsReads"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        for level in [AnalyticsLevel.day, .week, .month] { // the years' come with their tables (`AddAnalyticsYears`)
            try await db.create(index: "\(level.countsTable)_read").on(level.countsTable)
                .column("kind").column(level.column).column("label").column("cohort_id")
                .column("events").column("total").column("scored").column("band_0").column("band_1").column("band_2").column("band_3")
                .run()
        }
        try await db.create(index: "event_day_counts_day").on("event_day_counts").column("day").run()
        try await db.create(index: "active_member_counts_read").on("active_member_counts")
            .column("level").column("bucket").column("cohort_id").column("members").run()
        try await db.create(index: "retention_counts_read").on("retention_counts")
            .column("weeks_after").column("joined_day").column("cohort_id").column("joined_week").column("members").run()
    }
}

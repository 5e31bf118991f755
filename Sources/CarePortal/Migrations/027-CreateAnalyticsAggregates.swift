import PortalPlatform
import SQLKit

/// What the research analytics read instead of scanning `events`: counts per day, cohort, kind and label,
/// and each member's days of activity, both kept in the same transaction as each event (`MemberEvents`).
/// Days, weeks and months are on the program's clock, as day numbers (days since 1 January 1970), week
/// numbers (weeks since the Monday before it) and month numbers (year × 12 + month − 1).
struct CreateAnalyticsAggregates: Migration {
    let version = 27
    let name = "CreateAnalyticsAggregates"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "event_day_counts")
            .column("day", type: .bigint, .notNull)
            .column("week", type: .bigint, .notNull)
            .column("month", type: .bigint, .notNull)
            // 0 for an event of no cohort.
            .column("cohort_id", type: .bigint, .notNull)
            .column("kind", type: .text, .notNull)
            // The event's code (a mood, a section), or '' for none.
            .column("label", type: .text, .notNull)
            .column("events", type: .bigint, .notNull)
            // The sum of the events' numbers (seconds in a section, a score, points).
            .column("total", type: .bigint, .notNull)
            .run()
        try await db.create(index: "event_day_counts_key").on("event_day_counts")
            .column("kind").column("day").column("cohort_id").column("label").unique().run()

        try await db.create(table: "member_days")
            // A deleted member's days stay counted, no longer hers.
            .column("member_id", type: .bigint, .references("members", "id", onDelete: .setNull))
            .column("day", type: .bigint, .notNull)
            .column("week", type: .bigint, .notNull)
            .column("month", type: .bigint, .notNull)
            .column("cohort_id", type: .bigint, .notNull)
            // The day and week she registered, for retention by registration week.
            .column("joined_day", type: .bigint, .notNull)
            .column("joined_week", type: .bigint, .notNull)
            .column("opens", type: .bigint, .notNull)
            .run()
        try await db.create(index: "member_days_key").on("member_days").column("member_id").column("day").unique().run()
        try await db.create(index: "member_days_day").on("member_days").column("day").column("cohort_id").run()
        try await db.create(index: "member_days_joined").on("member_days").column("joined_week").column("week").run()
        // Events recorded before the aggregates existed are counted by step 33, which keeps them at every level.
    }
}

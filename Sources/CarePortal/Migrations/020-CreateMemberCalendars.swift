import PortalPlatform
import SQLKit

/// Members' own calendars: appointments, medication times and anything else, with reminders.
struct CreateMemberCalendars: Migration {
    let version = 20
    let name = "CreateMemberCalendars"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "calendar_events")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            // Her calendar goes with her account.
            .column("member_id", type: .bigint, .notNull, .references("members", "id", onDelete: .cascade))
            .column("kind", type: .text, .notNull)
            .column("title", type: .text, .notNull)
            .column("note", type: .text)
            // The first day, `YYYY-MM-DD`, and the times of day, `HH:MM,HH:MM`, in the program's time zone.
            .column("starts_on", type: .text, .notNull)
            .column("times", type: .text, .notNull)
            .column("repeats", type: .text, .notNull)
            .column("ends_on", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            // The next occurrence not yet reminded of; null once there is none.
            .column("next_occurrence_at", type: .bigint)
            .run()
        try await db.create(index: "calendar_events_member").on("calendar_events").column("member_id").column("id").run()
        try await db.create(index: "calendar_events_next").on("calendar_events").column("next_occurrence_at").run()
    }
}

import PortalPlatform
import SQLKit

/// How many feed entries were written about each subject (a broadcast, a survey, …) and how many of them
/// have been read, kept as the entries are written, read and removed (`Notifications`), rather than counted
/// from the entries each time a list shows them: the broadcasts' first page counted every member's entry
/// for each of its 25 broadcasts. The counts of the entries already there are taken here, and the index of
/// the entries by subject (migration 39), which only those counts read, goes.
struct KeepNotificationReach: Migration {
    let version = 45
    let name = "KeepNotificationReach"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "notification_reach")
            .column("subject_type", type: .text, .notNull)
            .column("subject_id", type: .bigint, .notNull)
            .column("written_count", type: .bigint, .notNull)
            .column("read_count", type: .bigint, .notNull)
            .primaryKey("subject_type", "subject_id")
            .run()
        try await Notifications.countReach(on: db)
        try await db.drop(index: "notifications_subject_read").run()
    }
}

import PortalPlatform
import SQLKit

/// How many members read each broadcast on a page of the list, counted from the subject's index alone. The
/// count reads every entry about each broadcast (one for each member it reached, thousands each), and with
/// `read_at` only in the table each entry was a table row read; with it in the index, none is. The index
/// replaces `notifications_subject`, whose columns it begins with.
struct CountNotificationReadersFromTheIndex: Migration {
    let version = 39
    let name = "CountNotificationReadersFromTheIndex"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(index: "notifications_subject_read").on("notifications").column("subject_type").column("subject_id").column("read_at")
            .run()
        try await db.drop(index: "notifications_subject").run()
    }
}

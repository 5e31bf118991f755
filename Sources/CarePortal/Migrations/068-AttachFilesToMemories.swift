import PortalPlatform
import SQLKit

/// Files a care receiver attaches to her memories (pictures and PDFs), and her contacts' photos: the bytes in
/// the platform's uploads (use `care`), sealed under her key when the memory is secured; here what each is.
struct AttachFilesToMemories: Migration {
    let version = 68
    let name = "AttachFilesToMemories"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "care_files")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("receiver_id", type: .bigint, .notNull, .references("care_accounts", "id", onDelete: .cascade))
            // One of the two: the memory it is attached to, or the contact it is the photo of.
            .column("memory_id", type: .bigint)
            .column("contact_id", type: .bigint)
            // Her file's name; sealed with the bytes on a secured memory.
            .column("name", type: .text, .notNull)
            .column("content_type", type: .text, .notNull)
            .column("size", type: .bigint, .notNull)
            .column("stored_name", type: .text, .notNull)
            .column("sealed", type: .int, .notNull, .default(0))
            .column("created_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "care_files_memory").on("care_files").column("receiver_id").column("memory_id").column("id").run()
        try await db.create(index: "care_files_contact").on("care_files").column("receiver_id").column("contact_id").run()
    }
}

import PortalPlatform
import SQLKit

/// Uploaded files in the database (`DatabaseUploads`), where they live on PostgreSQL so that every server
/// behind a load balancer serves every file: a file's row, and its bytes in numbered parts. On SQLite the
/// tables stay empty; files stay under DATA_DIR.
struct KeepUploadsInTheDatabase: Migration {
    let version = 67
    let name = "KeepUploadsInTheDatabase"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "uploaded_files")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("folder", type: .text, .notNull)
            // Known once the first bytes are in; with its size and checksum set when the last part is written.
            .column("type", type: .text)
            .column("size", type: .bigint, .notNull, .default(0))
            .column("sha256", type: .text)
            .column("part_size", type: .int, .notNull)
            .column("started_at", type: .bigint, .notNull)
            .column("finished_at", type: .bigint)
            .run()
        try await db.create(index: "uploaded_files_started").on("uploaded_files").column("started_at").run()
        try await db.create(table: "uploaded_file_parts")
            .column("file_id", type: .text, .notNull)
            .column("part", type: .int, .notNull)
            .column("bytes", type: engine == .postgres ? .custom(SQLRaw("BYTEA")) : .blob, .notNull)
            .primaryKey("file_id", "part")
            .run()
        if engine == .postgres {
            // Out of line and not compressed: videos and pictures are compressed already, and a part read
            // for a byte range is then copied, not inflated.
            try await db.raw("ALTER TABLE uploaded_file_parts ALTER COLUMN bytes SET STORAGE EXTERNAL").run()
        }
    }
}

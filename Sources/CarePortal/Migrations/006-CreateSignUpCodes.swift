import PortalPlatform
import SQLKit

struct CreateSignUpCodes: Migration {
    let version = 6
    let name = "CreateSignUpCodes"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "sign_up_codes")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("code_hash", type: .text, .notNull, .unique)
            .column("note", type: .text, .notNull)
            .column("created_by", type: .bigint, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .column("used_at", type: .bigint)
            .column("used_by_member_id", type: .bigint)
            .column("revoked_at", type: .bigint)
            .column("revoked_by", type: .bigint)
            .run()
        try await db.create(index: "sign_up_codes_created").on("sign_up_codes").column("created_at").run()
    }
}

import PortalPlatform
import SQLKit

/// Outbox bodies rest sealed (`sealed_body`) and go once delivered. A migration has no key, so the
/// bodies still waiting move to `plain_body`, which the server seals and clears when it starts
/// (`Outbox.sealPlainBodies`); delivered messages' bodies are dropped here.
struct SealOutboxBodies: Migration {
    let version = 55
    let name = "SealOutboxBodies"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.alter(table: "outbox").column("sealed_body", type: .text).run()
        try await db.alter(table: "outbox").column("plain_body", type: .text).run()
        try await db.update("outbox")
            .set(SQLColumn("plain_body"), to: SQLColumn("body"))
            .where("status", .notEqual, OutboxMessage.Status.sent.rawValue)
            .run()
        try await db.raw("ALTER TABLE outbox DROP COLUMN body").run()
    }
}

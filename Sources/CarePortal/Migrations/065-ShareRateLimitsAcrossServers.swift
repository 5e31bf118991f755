import PortalPlatform
import SQLKit

/// Per-account rate limits kept where every server sees them (`SharedRateLimit`): a bucket's name, what is
/// left of its allowance, and when that was worked out. Chat's posting limit was kept in each server's
/// memory, so a member spread over two servers could post at twice the rate.
struct ShareRateLimitsAcrossServers: Migration {
    let version = 65
    let name = "ShareRateLimitsAcrossServers"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "rate_buckets")
            .column("bucket", type: .text, .primaryKey(autoIncrement: false))
            // DOUBLE PRECISION on both engines (REAL affinity in SQLite).
            .column("tokens", type: .custom(SQLRaw("DOUBLE PRECISION")), .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "rate_buckets_updated").on("rate_buckets").column("updated_at").run()
    }
}

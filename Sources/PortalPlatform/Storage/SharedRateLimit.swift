import Foundation
import SQLKit

/// A limit on how fast one account may do something (post in a chat room): a burst, then a steady rate. Its
/// allowance lives in the database (`rate_buckets`), taken in the same statement that checks it, so every
/// server behind a load balancer counts against the same allowance and two requests at once cannot both
/// take its last one.
package struct SharedRateLimit: Sendable {
    /// The kind of thing limited, before each account's key: `chat-post`.
    package let name: String
    package let burst: Double
    package let perSecond: Double

    package init(name: String, burst: Double, perSecond: Double) {
        self.name = name
        self.burst = burst
        self.perSecond = perSecond
    }

    /// Takes one from `key`'s allowance, in the caller's transaction: nil when it may go ahead, else the moment
    /// it may try again (nothing taken).
    package func take(_ key: String, now: Date, on db: any SQLDatabase) async throws -> Date? {
        let bucket = "\(name):\(key)"
        let at = now.millisecondsSince1970
        let perMillisecond = perSecond / 1_000
        // Her allowance now: what was left, refilled since, never more than the burst.
        let refilled = SQLQueryString("(rate_buckets.tokens + (\(bind: at) - rate_buckets.updated_at) * \(bind: perMillisecond))")
        let taken = try await db.raw(
            """
            INSERT INTO rate_buckets (bucket, tokens, updated_at) VALUES (\(bind: bucket), \(bind: burst - 1), \(bind: at))
            ON CONFLICT (bucket) DO UPDATE
            SET tokens = (CASE WHEN \(refilled) > \(bind: burst) THEN \(bind: burst) ELSE \(refilled) END) - 1, updated_at = \(bind: at)
            WHERE \(refilled) >= 1
            RETURNING tokens
            """
        ).first()
        guard taken == nil else { return nil }
        let row = try await db.select().columns("tokens", "updated_at").from("rate_buckets").where("bucket", .equal, bucket).first()
        let tokens = try row?.decode(column: "tokens", as: Double.self) ?? 0
        let since = Double(at - (try row?.decode(column: "updated_at", as: Int64.self) ?? at)) / 1_000
        let left = min(burst, tokens + since * perSecond)
        return now.addingTimeInterval(max(0, 1 - left) / perSecond)
    }

    /// Allowances full again by `now` are the same as none: their rows go.
    package func forgetFull(now: Date, on db: any SQLDatabase) async throws {
        let full = now.addingTimeInterval(-burst / perSecond).millisecondsSince1970
        try await db.delete(from: "rate_buckets").where("bucket", .like, "\(name):%").where("updated_at", .lessThan, full).run()
    }
}

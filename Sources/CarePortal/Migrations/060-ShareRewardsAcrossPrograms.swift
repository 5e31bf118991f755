import PortalPlatform
import SQLKit

/// Rewards and their redemption become one part every program with points uses (the pharmacy's vouchers
/// at the till, the perinatal program's gift cards that staff send): the pharmacy's catalogue becomes
/// `rewards` (each with its program, how it is handed over, and an optional stock), and its vouchers become
/// `redemptions`, whose account is any app account (its role and id) rather than a pharmacy customer. Every
/// row keeps its id, so codes, points lines and audit entries still name the same things.
struct ShareRewardsAcrossPrograms: Migration {
    let version = 60
    let name = "ShareRewardsAcrossPrograms"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.raw("ALTER TABLE pharmacy_rewards RENAME TO rewards").run()
        try await db.raw("ALTER TABLE rewards RENAME COLUMN cashier_gives TO gives").run()
        try await db.raw("ALTER TABLE rewards ADD COLUMN program TEXT NOT NULL DEFAULT 'pharmacy'").run()
        try await db.raw("ALTER TABLE rewards ADD COLUMN description TEXT NOT NULL DEFAULT ''").run()
        // `voucher`: she shows a code at the till; `sent`: staff send it to her (a gift card's code, or posted).
        try await db.raw("ALTER TABLE rewards ADD COLUMN handed_over TEXT NOT NULL DEFAULT 'voucher'").run()
        // How many are left to redeem; null when there is no limit.
        try await db.raw("ALTER TABLE rewards ADD COLUMN stock BIGINT").run()
        try await db.create(index: "rewards_program").on("rewards").column("program").column("points_cost").column("id").run()

        try await db.create(table: "redemptions")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("program", type: .text, .notNull)
            .column("account_role", type: .text, .notNull)
            .column("account_id", type: .bigint, .notNull)
            .column("reward_id", type: .bigint, .notNull, .references("rewards", "id"))
            .column("code", type: .text, .notNull)
            .column("points_cost", type: .bigint, .notNull)
            .column("redeemed_at", type: .bigint, .notNull)
            // A voucher's five minutes at the till, and its use.
            .column("activated_at", type: .bigint)
            .column("expires_at", type: .bigint)
            .column("used_at", type: .bigint)
            // A sent reward: when staff sent it, who, and what they sent (a gift card's code, sealed), if anything.
            .column("sent_at", type: .bigint)
            .column("sent_by", type: .bigint)
            .column("sent_note", type: .text)
            .run()
        try await db.raw(
            """
            INSERT INTO redemptions (id, program, account_role, account_id, reward_id, code, points_cost, redeemed_at, activated_at, expires_at, used_at)
            SELECT id, 'pharmacy', 'pharmacy_customer', customer_id, reward_id, code, points_cost, redeemed_at, activated_at, expires_at, used_at
            FROM pharmacy_vouchers
            """
        ).run()
        if engine == .postgres {
            try await db.raw("SELECT setval(pg_get_serial_sequence('redemptions', 'id'), COALESCE((SELECT MAX(id) FROM redemptions), 0) + 1, false)")
                .run()
        }
        try await db.drop(table: "pharmacy_vouchers").run()
        try await db.create(index: "redemptions_code").on("redemptions").column("code").unique().run()
        try await db.create(index: "redemptions_account").on("redemptions").column("account_role").column("account_id").column("id").run()
        try await db.create(index: "redemptions_waiting").on("redemptions").column("program").column("sent_at").column("id").run()
    }
}

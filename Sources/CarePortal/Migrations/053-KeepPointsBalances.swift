import PortalPlatform
import SQLKit

/// Each app account's balance over all time, kept beside the points ledger as its lines are written
/// (`PointsLedger`), rather than summed from her lines by every spend and every home page: a regular
/// customer's ledger grows by a line or two a week for years, and one redeeming often has thousands. The
/// balances of the lines already there are summed here, and the index that served those sums (migration
/// 35) goes.
struct KeepPointsBalances: Migration {
    let version = 53
    let name = "KeepPointsBalances"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "points_balances")
            .column("account_role", type: .text, .notNull)
            .column("account_id", type: .bigint, .notNull)
            .column("balance", type: .bigint, .notNull)
            .primaryKey("account_role", "account_id")
            .run()
        try await PointsLedger.keepBalances(on: db)
        try await db.drop(index: "points_ledger_balance").run()
    }
}

import PortalPlatform
import SQLKit

/// A balance is the sum of an account's ledger lines (`PointsLedger`), summed again by every spend while
/// her balance is locked. With the amount in the index, the sum reads her lines from the index alone,
/// not one table row per line: a regular customer's ledger grows by a line or two a week for years.
struct IndexPointsBalances: Migration {
    let version = 35
    let name = "IndexPointsBalances"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(index: "points_ledger_balance").on("points_ledger")
            .column("account_role").column("account_id").column("amount").run()
    }
}

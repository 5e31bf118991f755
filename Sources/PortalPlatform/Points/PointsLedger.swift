import Foundation
import SQLKit

/// How often the same activity can earn points: once a day (a daily sign-in) or once a month (a module,
/// a video, a survey), counted on the program's clock.
package enum PointsPeriod: String, Sendable {
    case day, month
}

/// What an activity earns.
package struct PointsAward: Sendable, Equatable {
    /// Why: `daily_sign_in`, `module_completed`, … (stored; never change one).
    package let reason: String
    /// Which one: a module's id, a video's id; the day for a daily sign-in.
    package let reference: String
    package let amount: Int
    package let period: PointsPeriod

    package init(reason: String, reference: String, amount: Int, period: PointsPeriod) {
        self.reason = reason
        self.reference = reference
        self.amount = amount
        self.period = period
    }
}

/// One line of the ledger.
package struct PointsEntry: Sendable, Equatable {
    package let id: Int64
    package let amount: Int
    package let reason: String
    package let reference: String
    /// `YYYY-MM-DD` and `YYYY-MM` on the program's clock when it was earned.
    package let day: String
    package let month: String
    package let earnedAt: Date
}

/// The points app accounts earn and spend: an append-only ledger, one line per award or spend (a negative
/// line), never changed or deleted while the account exists. "Points reset each month" is the sum of this
/// month's lines, so nothing is lost at the boundary. The balance over all time, which a spend checks and
/// every home page shows, is kept beside the ledger in `points_balances`, one row per account: changed here
/// alone, by each line's amount, in the transaction that writes the line, so it is always the sum of her
/// lines (`PointsLedgerTests` recounts it) without reading a line that a customer of ten years has
/// thousands of. Shared by the learning center and the pharmacy. The only place the ledger's SQL lives.
package struct PointsLedger: Sendable {
    package init() {}

    /// Adds `award` to the account's ledger unless the same reason and reference already earned points in
    /// the same day or month (whichever server asks, however often); true when it was added.
    @discardableResult
    package func award(
        _ award: PointsAward,
        to account: AppAccountRef,
        at now: Date,
        clock: ProgramClock,
        on db: any SQLDatabase
    ) async throws -> Bool {
        guard award.amount != 0 else { return false }
        let day = clock.date(of: now)
        let period = award.period == .day ? day.iso : String(day.iso.prefix(7))
        let added =
            try await line(award.amount, reason: award.reason, reference: award.reference, period: period, of: account, on: day, at: now, db)
            .ignoringConflicts(with: ["account_role", "account_id", "reason", "reference", "period"])
            .returning("id").first() != nil
        if added {
            try await db.raw(
                """
                INSERT INTO points_balances (account_role, account_id, balance) VALUES (\(bind: account.role), \(bind: account.accountID), \(bind: award.amount))
                ON CONFLICT (account_role, account_id) DO UPDATE SET balance = points_balances.balance + excluded.balance
                """
            ).run()
        }
        return added
    }

    /// The account's points in `month` (`YYYY-MM`): the sum of that month's lines.
    package func balance(of account: AppAccountRef, month: String, on db: any SQLDatabase) async throws -> Int {
        // PostgreSQL sums bigints as numeric: the cast keeps the total a whole number on both engines.
        try await db.raw(
            """
            SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS total FROM points_ledger
            WHERE account_role = \(bind: account.role) AND account_id = \(bind: account.accountID) AND month = \(bind: month)
            """
        ).first()?.decode(column: "total", as: Int.self) ?? 0
    }

    /// The account's points over all time: the sum of every line, spending included.
    package func allTimeBalance(of account: AppAccountRef, on db: any SQLDatabase) async throws -> Int {
        try await db.raw("SELECT \(allTimeBalanceExpression(of: account)) AS total").first()?.decode(column: "total", as: Int.self) ?? 0
    }

    /// The all-time balance as a subquery, for a page that reads it beside the account in one statement.
    package func allTimeBalanceExpression(of account: AppAccountRef) -> SQLQueryString {
        """
        COALESCE((SELECT balance FROM points_balances \
        WHERE account_role = \(bind: account.role) AND account_id = \(bind: account.accountID)), 0)
        """
    }

    /// Spends `amount` points of the account's all-time balance as one negative line, in the caller's
    /// transaction, and answers the balance left; nil, with nothing written, when the balance is smaller.
    /// One statement checks and takes the points from her kept balance, and only then is the line written.
    /// Two spends of one account never both see the same balance: SQLite runs one writing transaction at a
    /// time, and on PostgreSQL the update locks her balance's row until the transaction ends, so a second
    /// spend waits and then checks its condition against the balance the first left. Call it last in the
    /// transaction, after writes that need no lock. `reference` names what was bought, once (a voucher's code).
    package func spend(
        _ amount: Int,
        reason: String,
        reference: String,
        from account: AppAccountRef,
        at now: Date,
        clock: ProgramClock,
        on db: any SQLDatabase
    ) async throws -> Int? {
        precondition(amount > 0, "a spend is a positive number of points")
        guard
            let left = try await db.raw(
                """
                UPDATE points_balances SET balance = balance - \(bind: amount)
                WHERE account_role = \(bind: account.role) AND account_id = \(bind: account.accountID) AND balance >= \(bind: amount)
                RETURNING balance
                """
            ).first()?.decode(column: "balance", as: Int.self)
        else { return nil }
        try await line(-amount, reason: reason, reference: reference, period: reference, of: account, on: clock.date(of: now), at: now, db).run()
        return left
    }

    /// The insert of one line, earned or spent at `now` on `day` (the program's date then); `period` is what
    /// the same reason and reference may earn once in (a day, a month, or for a spend its own reference).
    private func line(
        _ amount: Int,
        reason: String,
        reference: String,
        period: String,
        of account: AppAccountRef,
        on day: CalendarDate,
        at now: Date,
        _ db: any SQLDatabase
    ) -> SQLInsertBuilder {
        db.insert(into: "points_ledger")
            .columns("account_role", "account_id", "amount", "reason", "reference", "period", "day", "month", "earned_at")
            .values(
                SQLBind(account.role),
                SQLBind(account.accountID),
                SQLBind(amount),
                SQLBind(reason),
                SQLBind(reference),
                SQLBind(period),
                SQLBind(day.iso),
                SQLBind(String(day.iso.prefix(7))),
                SQLBind(now.millisecondsSince1970)
            )
    }

    /// Every account's balance summed from its lines, into an empty `points_balances` (migration 53).
    package static func keepBalances(on db: any SQLDatabase) async throws {
        // PostgreSQL sums bigints as numeric: the cast keeps the total a whole number on both engines.
        try await db.raw(
            """
            INSERT INTO points_balances (account_role, account_id, balance)
            SELECT account_role, account_id, CAST(SUM(amount) AS BIGINT) FROM points_ledger GROUP BY account_role, account_id
            """
        ).run()
    }

    /// Her lines, newest first.
    package func history(of account: AppAccountRef, page: PageRequest, on db: any SQLDatabase) async throws -> PageOf<PointsEntry> {
        try await db.seek(
            page,
            order: ListOrder("id", keys: [.integer("id")], descending: true),
            columns: ["id", "amount", "reason", "reference", "day", "month", "earned_at"].map { SQLColumn($0) },
            rows: { $0.from("points_ledger").where("account_role", .equal, account.role).where("account_id", .equal, account.accountID) },
            decode: { row in
                PointsEntry(
                    id: try row.decode(column: "id", as: Int64.self),
                    amount: try row.decode(column: "amount", as: Int.self),
                    reason: try row.decode(column: "reason", as: String.self),
                    reference: try row.decode(column: "reference", as: String.self),
                    day: try row.decode(column: "day", as: String.self),
                    month: try row.decode(column: "month", as: String.self),
                    earnedAt: Date(millisecondsSince1970: try row.decode(column: "earned_at", as: Int64.self))
                )
            }
        )
    }

    /// Every line of an account, for when the account itself is deleted.
    package func forget(_ account: AppAccountRef, on db: any SQLDatabase) async throws {
        try await db.delete(from: "points_ledger")
            .where("account_role", .equal, account.role).where("account_id", .equal, account.accountID).run()
        try await db.delete(from: "points_balances")
            .where("account_role", .equal, account.role).where("account_id", .equal, account.accountID).run()
    }
}

import Foundation
import PortalPlatform
import SQLKit

/// The only place the rewards' and redemptions' SQL lives: each instance reads and writes one program's
/// catalogue and the redemptions made from it.
struct RewardsRepository: Sendable {
    /// The `Program.id` whose catalogue this is.
    let program: String

    // MARK: The catalogue

    private static let rewardColumns = ColumnList(["id", "title", "points_cost", "gives", "description", "handed_over", "stock", "retired_at"])

    private func decodeReward(_ row: any SQLRow) throws -> Reward {
        Reward(
            id: try row.decode(column: "id", as: Int64.self),
            title: try row.decode(column: "title", as: String.self),
            pointsCost: try row.decode(column: "points_cost", as: Int.self),
            gives: try row.decode(column: "gives", as: String.self),
            description: try row.decode(column: "description", as: String.self),
            handedOver: Reward.HandedOver(rawValue: try row.decode(column: "handed_over", as: String.self)) ?? .voucher,
            stock: try row.decode(column: "stock", as: Int?.self),
            isRetired: try row.decode(column: "retired_at", as: Int64?.self) != nil
        )
    }

    /// The catalogue: offered rewards by cost (and, with `includingRetired`, the retired ones after them).
    func rewards(includingRetired: Bool, on db: any SQLDatabase) async throws -> [Reward] {
        let query = db.select().column(Self.rewardColumns).from("rewards").where("program", .equal, program)
        if !includingRetired { query.where("retired_at", .is, SQLLiteral.null) }
        return try await query.orderBy("points_cost").orderBy("id").all().map(decodeReward)
            .sorted { ($0.isRetired ? 1 : 0, $0.pointsCost, $0.id) < ($1.isRetired ? 1 : 0, $1.pointsCost, $1.id) }
    }

    func reward(id: Int64, on db: any SQLDatabase) async throws -> Reward? {
        try await db.select().column(Self.rewardColumns).from("rewards").where("id", .equal, id).where("program", .equal, program)
            .first().map(decodeReward)
    }

    func addReward(_ draft: RewardDraft, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        try await db.insert(into: "rewards")
            .columns("program", "title", "points_cost", "gives", "description", "handed_over", "stock", "created_at")
            .values(
                SQLBind(program),
                SQLBind(draft.title),
                SQLBind(draft.pointsCost),
                SQLBind(draft.gives),
                SQLBind(draft.description),
                SQLBind(draft.handedOver.rawValue),
                SQLBind(draft.stock),
                SQLBind(now.millisecondsSince1970)
            )
            .returning("id").first()!.decode(column: "id", as: Int64.self)
    }

    /// Sets how many are left (nil: no limit); false when the reward is not this program's or is retired.
    func restock(id: Int64, stock: Int?, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("rewards").set("stock", to: SQLBind(stock))
            .where("id", .equal, id).where("program", .equal, program).where("retired_at", .is, SQLLiteral.null)
            .returning("id").first() != nil
    }

    func retireReward(id: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("rewards").set("retired_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("program", .equal, program).where("retired_at", .is, SQLLiteral.null)
            .returning("id").first() != nil
    }

    /// Takes one from the reward's stock, in the redemption's transaction; false, with nothing changed, when
    /// none is left. A reward without a limit always has one. On PostgreSQL the update locks the reward's row,
    /// so two redemptions of the last one cannot both take it.
    func takeOne(of rewardID: Int64, on db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            UPDATE rewards SET stock = CASE WHEN stock IS NULL THEN NULL ELSE stock - 1 END
            WHERE id = \(bind: rewardID) AND program = \(bind: program) AND (stock IS NULL OR stock > 0)
            RETURNING id
            """
        ).first() != nil
    }

    // MARK: Redemptions

    private static let redemptionColumns = ColumnList([
        "id", "account_role", "account_id", "reward_id", "code", "points_cost", "redeemed_at", "activated_at", "expires_at", "used_at",
        "sent_at", "sent_note"
    ])

    /// A redemption as stored; `open` opens what staff sent from its seal (nil: not read, as for a voucher).
    private func decodeRedemption(_ row: any SQLRow, open: ((String) throws -> String)?) throws -> Redemption {
        func time(_ column: String) throws -> Date? { try row.decode(column: column, as: Int64?.self).map(Date.init(millisecondsSince1970:)) }
        return Redemption(
            id: try row.decode(column: "id", as: Int64.self),
            account: AppAccountRef(
                role: try row.decode(column: "account_role", as: String.self),
                accountID: try row.decode(column: "account_id", as: Int64.self)
            ),
            rewardID: try row.decode(column: "reward_id", as: Int64.self),
            code: try row.decode(column: "code", as: String.self),
            pointsCost: try row.decode(column: "points_cost", as: Int.self),
            redeemedAt: try time("redeemed_at")!,
            activatedAt: try time("activated_at"),
            expiresAt: try time("expires_at"),
            usedAt: try time("used_at"),
            sentAt: try time("sent_at"),
            sentNote: try open.flatMap { open in try row.decode(column: "sent_note", as: String?.self).map(open) }
        )
    }

    /// A new redemption; nil, with nothing written, when another already has this code.
    func addRedemption(by account: AppAccountRef, of reward: Reward, code: String, now: Date, on db: any SQLDatabase) async throws -> Redemption? {
        guard
            let row = try await db.insert(into: "redemptions")
                .columns("program", "account_role", "account_id", "reward_id", "code", "points_cost", "redeemed_at")
                .values(
                    SQLBind(program),
                    SQLBind(account.role),
                    SQLBind(account.accountID),
                    SQLBind(reward.id),
                    SQLBind(code),
                    SQLBind(reward.pointsCost),
                    SQLBind(now.millisecondsSince1970)
                )
                .ignoringConflicts(with: ["code"])
                .returning("id").first()
        else { return nil }
        return Redemption(
            id: try row.decode(column: "id", as: Int64.self),
            account: account,
            rewardID: reward.id,
            code: code,
            pointsCost: reward.pointsCost,
            redeemedAt: now
        )
    }

    func redemption(id: Int64, of account: AppAccountRef, sealer: Sealer? = nil, on db: any SQLDatabase) async throws -> Redemption? {
        try await db.select().column(Self.redemptionColumns).from("redemptions")
            .where("id", .equal, id).where("program", .equal, program)
            .where("account_role", .equal, account.role).where("account_id", .equal, account.accountID)
            .first().map { try decodeRedemption($0, open: opener(sealer)) }
    }

    func redemption(id: Int64, sealer: Sealer? = nil, on db: any SQLDatabase) async throws -> Redemption? {
        try await db.select().column(Self.redemptionColumns).from("redemptions").where("id", .equal, id).where("program", .equal, program)
            .first().map { try decodeRedemption($0, open: opener(sealer)) }
    }

    func redemption(code: String, sealer: Sealer? = nil, on db: any SQLDatabase) async throws -> Redemption? {
        try await db.select().column(Self.redemptionColumns).from("redemptions").where("code", .equal, code).where("program", .equal, program)
            .first().map { try decodeRedemption($0, open: opener(sealer)) }
    }

    /// Her redemptions, newest first.
    func redemptions(of account: AppAccountRef, limit: Int, sealer: Sealer? = nil, on db: any SQLDatabase) async throws -> [Redemption] {
        try await db.select().column(Self.redemptionColumns).from("redemptions")
            .where("account_role", .equal, account.role).where("account_id", .equal, account.accountID).where("program", .equal, program)
            .orderBy("id", .descending).limit(limit).all().map { try decodeRedemption($0, open: opener(sealer)) }
    }

    /// The redemptions staff still have to send, oldest first.
    func waiting(page: PageRequest, sealer: Sealer? = nil, on db: any SQLDatabase) async throws -> PageOf<Redemption> {
        try await db.seek(
            page,
            order: ListOrder("id", keys: [.integer("id")], descending: false),
            columns: [Self.redemptionColumns],
            rows: { $0.from("redemptions").where("program", .equal, program).where("sent_at", .is, SQLLiteral.null) },
            decode: { try decodeRedemption($0, open: opener(sealer)) }
        )
    }

    /// Marks a redemption sent, once, with what was sent (sealed); false when it was already sent or is not this program's.
    func markSent(id: Int64, note: String?, by staffID: Int64, now: Date, sealer: Sealer, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("redemptions")
            .set("sent_at", to: now.millisecondsSince1970).set("sent_by", to: staffID)
            .set("sent_note", to: SQLBind(try note.map { try sealer.seal($0, for: .rewardNote) }))
            .where("id", .equal, id).where("program", .equal, program).where("sent_at", .is, SQLLiteral.null)
            .returning("id").first() != nil
    }

    /// Starts a voucher's minutes, once: the redemption as it now is, or nil when it is not hers or was
    /// already activated or used.
    func activate(id: Int64, of account: AppAccountRef, lifetime: TimeInterval, now: Date, on db: any SQLDatabase) async throws -> Redemption? {
        let expires = now.millisecondsSince1970 + Int64(lifetime * 1000)
        return try await db.update("redemptions")
            .set("activated_at", to: now.millisecondsSince1970).set("expires_at", to: expires)
            .where("id", .equal, id).where("program", .equal, program)
            .where("account_role", .equal, account.role).where("account_id", .equal, account.accountID)
            .where("activated_at", .is, SQLLiteral.null).where("used_at", .is, SQLLiteral.null)
            .returning(Self.redemptionColumns).first().map { try decodeRedemption($0, open: nil) }
    }

    /// Marks an active voucher used, once; false when it is not active (any more).
    func use(id: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("redemptions").set("used_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("program", .equal, program)
            .where("used_at", .is, SQLLiteral.null).where("expires_at", .greaterThan, now.millisecondsSince1970)
            .returning("id").first() != nil
    }

    /// Every redemption of an account, for when the account itself is deleted.
    func forget(_ account: AppAccountRef, on db: any SQLDatabase) async throws {
        try await db.delete(from: "redemptions").where("account_role", .equal, account.role).where("account_id", .equal, account.accountID).run()
    }

    private func opener(_ sealer: Sealer?) -> ((String) throws -> String)? {
        sealer.map { sealer in { try sealer.open($0, for: .rewardNote) } }
    }
}

extension RewardsRepository {
    /// The column that holds what staff sent, sealed under the sealing key.
    static let sealedColumn = SealedColumn(table: "redemptions", key: "id", column: "sent_note", purpose: .rewardNote)
}

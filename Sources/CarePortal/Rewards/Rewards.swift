import Foundation
import PortalPlatform
import SQLKit

/// One program's rewards: redeeming one for points, whichever program's people spend them. Its cost leaves
/// her balance in the same transaction that records the redemption and takes one from the stock, and never
/// takes the balance below zero, however many redemptions arrive at once.
struct Rewards: Sendable {
    let portal: Portal
    let program: Program
    let repository: RewardsRepository
    let ledger = PointsLedger()

    init(portal: Portal, program: Program) {
        self.portal = portal
        self.program = program
        repository = RewardsRepository(program: program.id)
    }

    /// How a redemption is audited in its program, and what she is told when her points fall short.
    struct Record: Sendable {
        let action: AuditAction
        let recordType: String
        /// The end of "This reward costs 50 points and you have 20." — how to earn more.
        let earnMore: String
    }

    /// Redeems a reward for `account`.
    ///
    /// The reward and the program's clock are read before the writing transaction; in it, the redemption,
    /// its audit entry and the stock are written first and the points spent last, by one statement that
    /// checks her kept balance and answers what is left, so her balance is locked (SQLite's one writer,
    /// PostgreSQL's lock on her balance's row) for as short a time as can be. Not enough points, or none left
    /// in stock: the whole transaction is rolled back.
    func redeem(rewardID: Int64, by account: AppAccountRef, record: Record, origin: AuditOrigin) async throws -> (Redemption, Reward, balance: Int) {
        let now = portal.now
        let randomBytes = portal.dependencies.randomBytes
        let (reward, clock) = try await portal.database.read { db in
            guard let reward = try await repository.reward(id: rewardID, on: db), !reward.isRetired else {
                throw APIError.validation(["reward_id": "Choose one of the rewards offered"])
            }
            return (reward, try await ProgramSettingsRepository().clock(on: db))
        }
        struct NotEnoughPoints: Error {}
        struct NoneLeft: Error {}
        do {
            let (redemption, balance) = try await portal.database.transaction { db in
                var redemption = try await repository.addRedemption(by: account, of: reward, code: RewardRules.code(randomBytes), now: now, on: db)
                // A code already taken (one in about a trillion): another one.
                while redemption == nil {
                    redemption = try await repository.addRedemption(by: account, of: reward, code: RewardRules.code(randomBytes), now: now, on: db)
                }
                let made = redemption!
                try await portal.audit.record(
                    AuditEvent(
                        actor: AuditActor(accountID: account.accountID, role: account.role, name: nil),
                        action: record.action,
                        recordType: record.recordType,
                        recordID: "\(made.id)",
                        origin: origin,
                        detail: "\(reward.pointsCost) points"
                    ),
                    on: db
                )
                guard try await repository.takeOne(of: reward.id, on: db) else { throw NoneLeft() }
                guard
                    let left = try await ledger.spend(
                        reward.pointsCost,
                        reason: RewardRules.spendReason,
                        reference: made.code,
                        from: account,
                        at: now,
                        clock: clock,
                        on: db
                    )
                else { throw NotEnoughPoints() }
                return (made, left)
            }
            return (redemption, reward, balance)
        } catch is NotEnoughPoints {
            let balance = try await portal.database.read { db in try await ledger.allTimeBalance(of: account, on: db) }
            throw APIError(
                status: .conflict,
                code: "not_enough_points",
                message: "This reward costs \(reward.pointsCost) points and you have \(balance). \(record.earnMore)"
            )
        } catch is NoneLeft {
            throw APIError(status: .conflict, code: "out_of_stock", message: "None of these are left. Choose another reward.")
        }
    }
}

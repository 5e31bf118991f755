import Foundation
import PortalPlatform
import SQLKit

/// Members spend their points on rewards (DR6: gift cards): administrators keep the catalogue (the shared
/// rewards part's page) and send each redeemed reward, and the member is told in her feed. The pharmacy's
/// vouchers are the same part, with the pharmacy's catalogue (`RewardCatalogue.pharmacy`).
struct RewardsFeature: PortalFeature {
    static let program: Program? = .perinatalCommunity
    static let navigation = [
        NavigationItem(title: "Rewards for members", path: SiteURL.rewards.path, access: RewardCatalogue.members.access, group: .community)
    ]
    static let auditActions: [AuditAction] = [.rewardAdded, .rewardRetired, .rewardRestocked, .rewardRedeemed, .rewardSent]
    static let templates: [TemplateName] = [.rewardCatalogue, .rewardRedemptions, .appMemberRewards, .appRedeemReward]
    static let notificationKinds: [NotificationKind] = [.rewardSent]
    static let sealedColumns = [RewardsRepository.sealedColumn]

    let portal: Portal

    init(portal: Portal) {
        self.portal = portal
    }

    func addRoutes(to routes: inout PortalRoutes) {
        RewardCatalogueController(portal: portal, catalogue: .members).addRoutes(to: &routes)
        RedemptionsController(portal: portal).addRoutes(to: &routes)
        MemberRewardsAPIController(portal: portal).addRoutes(to: &routes)
        MemberRewardsAppController(portal: portal).addRoutes(to: &routes)
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        try await MemberRewards.seedDemo(demo, on: db)
    }
}

extension RewardCatalogue {
    static let members = RewardCatalogue(
        program: .perinatalCommunity,
        access: .administrators,
        introduction:
            "Members spend their points on these in the app. Each redemption waits under Redeemed rewards until you send it; she is told in her feed when you do.",
        emptyText: "The catalogue is empty: members can collect points but have nothing to spend them on yet. Add a gift card below.",
        givesLabel: "The gift card",
        givesHint: "What she receives, like $10 grocery gift card",
        handedOver: .sent,
        listURL: .rewards,
        redemptionsURL: .rewardRedemptions,
        retireURL: SiteURL.rewardRetire,
        stockURL: SiteURL.rewardStock,
        added: .rewardAdded,
        retired: .rewardRetired,
        restocked: .rewardRestocked,
        recordType: "reward"
    )
}

extension AuditAction {
    static let rewardAdded = AuditAction("reward_added", title: "Reward added to the members' catalogue")
    static let rewardRetired = AuditAction("reward_retired", title: "Reward no longer offered to members")
    static let rewardRestocked = AuditAction("reward_restocked", title: "How many of a reward are left changed")
    static let rewardRedeemed = AuditAction("reward_redeemed", title: "Member redeemed a reward")
    static let rewardSent = AuditAction("reward_sent", title: "Redeemed reward sent to the member")
}

extension NotificationKind {
    static let rewardSent = NotificationKind("reward_sent", title: "Your redeemed rewards, when they are sent", for: "member")
}

extension TemplateName {
    static let rewardRedemptions = TemplateName("rewards/redemptions")
    static let appMemberRewards = TemplateName("app/rewards/list")
}

/// What members do with rewards, each change in one transaction with its audit entry.
struct MemberRewards: Sendable {
    let portal: Portal
    var rewards: Rewards { Rewards(portal: portal, program: .perinatalCommunity) }
    var repository: RewardsRepository { rewards.repository }

    static let record = Rewards.Record(
        action: .rewardRedeemed,
        recordType: "redemption",
        earnMore: "Earn more by checking in, reading modules and watching videos."
    )

    func redeem(rewardID: Int64, memberID: Int64, origin: AuditOrigin) async throws -> (Redemption, Reward, balance: Int) {
        try await rewards.redeem(rewardID: rewardID, by: .member(memberID), record: Self.record, origin: origin)
    }

    /// Staff sent a redeemed reward: recorded once (with the gift card's code, sealed, if they typed one),
    /// and she is told in her feed. False when it was already sent or is not the program's.
    func send(redemptionID: Int64, note: String?, staff: StaffAccount, actor: AuditActor, origin: AuditOrigin) async throws -> Bool {
        let now = portal.now
        let sealer = portal.sealer
        let sent = try await portal.database.transaction { db -> Redemption? in
            guard let redemption = try await repository.redemption(id: redemptionID, sealer: sealer, on: db),
                try await repository.markSent(id: redemptionID, note: note, by: staff.id, now: now, sealer: sealer, on: db)
            else { return nil }
            let title = try await repository.reward(id: redemption.rewardID, on: db)?.title ?? "your reward"
            try await portal.audit.record(
                AuditEvent(
                    actor: actor,
                    action: .rewardSent,
                    recordType: "redemption",
                    recordID: "\(redemptionID)",
                    origin: origin,
                    detail: note == nil ? "sent" : "sent with a code"
                ),
                on: db
            )
            try await portal.notifications.write(
                NewNotification(
                    kind: .rewardSent,
                    message: "\(title) is on its way. Open Rewards to see it.",
                    subject: NotificationSubject("redemption", id: redemptionID)
                ),
                to: redemption.account,
                on: db
            )
            return redemption
        }
        guard let sent else { return false }
        await portal.announceNotifications(to: .members([sent.account.accountID]))
        return true
    }

    /// Two clearly marked demo gift cards, and one redemption waiting to be sent by the first demo member,
    /// given 100 demo points for it (their ledger line says so: `demo_points`).
    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        let repository = RewardsRepository(program: Program.perinatalCommunity.id)
        let grocery = try await repository.addReward(
            RewardDraft(
                title: "Grocery gift card (demo)",
                pointsCost: 60,
                gives: "$10 grocery gift card",
                description: "Demo reward: sent by email within a week.",
                handedOver: .sent,
                stock: 20
            ),
            now: demo.now,
            on: db
        )
        _ = try await repository.addReward(
            RewardDraft(
                title: "Baby store gift card (demo)",
                pointsCost: 120,
                gives: "$20 baby store gift card",
                description: "Demo reward: sent by post.",
                handedOver: .sent,
                stock: nil
            ),
            now: demo.now,
            on: db
        )
        let ledger = PointsLedger()
        let clock = ProgramSettings.defaults(programName: "CarePortal").clock
        guard let reward = try await repository.reward(id: grocery, on: db) else { return }
        guard let first = try await db.select().column("id").from("members").orderBy("id").limit(1).first() else { return }
        let member = AppAccountRef.member(try first.decode(column: "id", as: Int64.self))
        try await ledger.award(
            PointsAward(reason: "demo_points", reference: "demo", amount: 100, period: .month),
            to: member,
            at: demo.now,
            clock: clock,
            on: db
        )
        let code = RewardRules.code(demo.dependencies.randomBytes)
        guard let made = try await repository.addRedemption(by: member, of: reward, code: code, now: demo.now, on: db),
            try await repository.takeOne(of: reward.id, on: db)
        else { return }
        _ = try await ledger.spend(
            reward.pointsCost,
            reason: RewardRules.spendReason,
            reference: made.code,
            from: member,
            at: demo.now,
            clock: clock,
            on: db
        )
    }
}

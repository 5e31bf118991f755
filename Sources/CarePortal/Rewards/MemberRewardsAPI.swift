import Foundation
import Hummingbird
import PortalPlatform

/// The member app's rewards: the catalogue with her points, redeeming one, and her redeemed rewards with
/// whether they are sent (and the gift card's code once they are).
enum MemberRewardsAPI {
    struct Reward: Encodable, Sendable {
        let id: Int64
        let title: String
        let gives: String
        let description: String
        let pointsCost: Int
        /// How many are left; absent when there is no limit.
        let left: Int?
        let affordable: Bool

        init(_ reward: CarePortal.Reward, points: Int) {
            (id, title, gives, description, pointsCost, left) = (
                reward.id, reward.title, reward.gives, reward.description, reward.pointsCost, reward.stock
            )
            affordable = reward.isAffordable(with: points)
        }
    }

    struct Catalogue: Encodable, Sendable {
        /// Her points to spend: every point earned, less those spent.
        let points: Int
        let rewards: [Reward]
    }

    struct NewRedemption: Decodable, Sendable {
        var rewardId: Int64?
    }

    struct Redemption: Encodable, Sendable {
        let id: Int64
        let rewardId: Int64
        let title: String
        let gives: String
        let pointsCost: Int
        /// `waiting` (staff will send it) or `sent`.
        let status: String
        let redeemedAt: Date
        let sentAt: Date?
        /// The gift card's code, once sent with one.
        let giftCardCode: String?

        init(_ redemption: CarePortal.Redemption, reward: CarePortal.Reward?) {
            id = redemption.id
            rewardId = redemption.rewardID
            title = reward?.title ?? "Reward"
            gives = reward?.gives ?? ""
            pointsCost = redemption.pointsCost
            status = redemption.isSent ? "sent" : "waiting"
            redeemedAt = redemption.redeemedAt
            sentAt = redemption.sentAt
            giftCardCode = redemption.sentNote
        }
    }

    struct Redeemed: Encodable, Sendable {
        let redemption: Redemption
        let points: Int
    }

    struct Redemptions: Encodable, Sendable {
        let redemptions: [Redemption]
    }
}

extension MemberRewards {
    /// Her points to spend and the rewards offered, by cost.
    func catalogue(memberID: Int64) async throws -> (points: Int, rewards: [Reward]) {
        try await portal.database.read { db in
            (try await rewards.ledger.allTimeBalance(of: .member(memberID), on: db), try await repository.rewards(includingRetired: false, on: db))
        }
    }

    /// Her redeemed rewards, newest first, each with its reward (retired ones too).
    func redemptions(memberID: Int64) async throws -> [(Redemption, Reward?)] {
        let sealer = portal.sealer
        return try await portal.database.read { db in
            let redemptions = try await repository.redemptions(of: .member(memberID), limit: 100, sealer: sealer, on: db)
            let rewards = Dictionary(uniqueKeysWithValues: try await repository.rewards(includingRetired: true, on: db).map { ($0.id, $0) })
            return redemptions.map { ($0, rewards[$0.rewardID]) }
        }
    }
}

struct MemberRewardsAPIController {
    let portal: Portal
    var rewards: MemberRewards { MemberRewards(portal: portal) }

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.apiRewards.pattern, access: .member, catalogue)
        routes.get(SiteURL.apiRewardRedemptions.pattern, access: .member, redemptions)
        routes.post(SiteURL.apiRewardRedemptions.pattern, access: .member, redeem)
    }

    /// `GET /api/v1/rewards`
    @Sendable func catalogue(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try context.requireMember().accountID
        let (points, offered) = try await rewards.catalogue(memberID: memberID)
        return .json(MemberRewardsAPI.Catalogue(points: points, rewards: offered.map { MemberRewardsAPI.Reward($0, points: points) }))
    }

    /// `GET /api/v1/rewards/redemptions`
    @Sendable func redemptions(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try context.requireMember().accountID
        return .json(
            MemberRewardsAPI.Redemptions(redemptions: try await rewards.redemptions(memberID: memberID).map(MemberRewardsAPI.Redemption.init))
        )
    }

    /// `POST /api/v1/rewards/redemptions`: the cost leaves her points in the transaction that records it.
    @Sendable func redeem(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try context.requireMember().accountID
        let body = try await request.json(MemberRewardsAPI.NewRedemption.self)
        guard let rewardID = body.rewardId else { throw APIError.validation(["reward_id": "Choose one of the rewards offered"]) }
        let (redemption, reward, balance) = try await rewards.redeem(
            rewardID: rewardID,
            memberID: memberID,
            origin: portal.origin(of: request, context: context)
        )
        return .json(
            MemberRewardsAPI.Redeemed(redemption: MemberRewardsAPI.Redemption(redemption, reward: reward), points: balance),
            status: .created
        )
    }
}

import Foundation
import Hummingbird
import PortalPlatform

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

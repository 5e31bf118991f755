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

import Foundation
import PortalPlatform

extension TemplateName {
    static let appRedeemReward = TemplateName("app/rewards/redeem")
}

/// "Redeem …?" in the people's web app, for every program with rewards: what it costs, what she will have
/// left, how it reaches her, and why not when her points fall short or none is left.
struct RedeemPage: Page {
    /// How the reward reaches her, as the page says it.
    enum Handover {
        /// The pharmacy's voucher, shown at the till.
        case voucherAtTheTill
        /// A member's gift card, sent by the program's staff.
        case sentToMember

        var text: String {
            switch self {
            case .voucherAtTheTill: "You get a voucher. Start it only when you are at the till: it then works for 5 minutes."
            case .sentToMember: "The program sends it to you; you are told here when it is on its way. Points spent cannot be given back."
            }
        }

        /// Where the page's "No, back to rewards" goes.
        var rewardsURL: SiteURL {
            switch self {
            case .voucherAtTheTill: .appPharmacyRewards
            case .sentToMember: .appMemberRewards
            }
        }

        func action(_ rewardID: Int64) -> SiteURL {
            switch self {
            case .voucherAtTheTill: .appPharmacyReward(rewardID)
            case .sentToMember: .appMemberReward(rewardID)
            }
        }
    }

    static let template = TemplateName.appRedeemReward
    let layout: Layout
    let title: String
    /// What she receives, for a reward sent to her; a voucher's is told at the till.
    let gives: String?
    let costText: String
    let afterText: String?
    let handoverText: String
    let problem: String?
    let action: String
    let cancelPath: String

    init(layout: Layout, reward: Reward, points: Int, handover: Handover, problem: String? = nil) {
        self.layout = layout
        title = reward.title
        gives = handover == .sentToMember ? reward.gives : nil
        let phrase = RewardRules.pointsPhrase
        let covered = reward.pointsCost <= points
        costText = "This costs \(phrase(reward.pointsCost)). You have \(phrase(points))."
        afterText = covered ? "Afterwards you will have \(phrase(points - reward.pointsCost))." : nil
        handoverText = handover.text
        self.problem =
            problem
            ?? (reward.isOutOfStock
                ? "None of these are left. Choose another reward."
                : covered ? nil : "You need \(phrase(reward.pointsCost - points)) more for this reward.")
        action = handover.action(reward.id).path
        cancelPath = handover.rewardsURL.path
    }
}

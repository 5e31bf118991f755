import Foundation
import Hummingbird
import PortalPlatform

/// Rewards in the member's part of the web app, over the same domain code as the member API: her points,
/// the gift cards offered, redeeming one after asking, and her redeemed rewards with their codes once sent.
struct MemberRewardsAppController {
    let portal: Portal
    var rewards: MemberRewards { MemberRewards(portal: portal) }

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.appMemberRewards.pattern, access: .memberPages, list)
        routes.get(SiteURL.pattern(SiteURL.appMemberReward), access: .memberPages, confirm)
        routes.post(SiteURL.pattern(SiteURL.appMemberReward), access: .memberPages, redeem)
    }

    private func memberID(_ context: PortalContext) throws -> Int64 {
        guard let holder = context.appAccount, holder.kind == .member else { throw HTTPError(.notFound) }
        return holder.accountID
    }

    private func layout(_ title: String, _ context: PortalContext) -> Layout {
        portal.appLayout(title, context: context, navigation: .member, currentPath: SiteURL.appMemberRewards.path)
    }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try memberID(context)
        let (points, offered) = try await rewards.catalogue(memberID: memberID)
        let redeemed = try await rewards.redemptions(memberID: memberID)
        return portal.pages.response(
            MemberRewardsPage(
                layout: layout("Rewards", context),
                points: points,
                rewards: offered,
                redemptions: redeemed,
                clock: portal.programSettings.current.clock,
                notice: request.query("redeemed") == "1" ? "Redeemed. The program will send it to you soon." : nil
            )
        )
    }

    /// The reward offered and her points; not found when it is not offered any more.
    private func offered(_ rewardID: Int64, memberID: Int64) async throws -> (Reward, Int) {
        let (points, offered) = try await rewards.catalogue(memberID: memberID)
        guard let reward = offered.first(where: { $0.id == rewardID }) else { throw HTTPError(.notFound) }
        return (reward, points)
    }

    @Sendable func confirm(request: Request, context: PortalContext) async throws -> Response {
        let (reward, points) = try await offered(try context.parameters.recordID(), memberID: try memberID(context))
        return portal.pages.response(RedeemPage(layout: layout("Redeem a reward", context), reward: reward, points: points, handover: .sentToMember))
    }

    @Sendable func redeem(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try memberID(context)
        let rewardID = try context.parameters.recordID()
        do {
            _ = try await rewards.redeem(rewardID: rewardID, memberID: memberID, origin: portal.origin(of: request, context: context))
            return seeOther("\(SiteURL.appMemberRewards.path)?redeemed=1")
        } catch let error as APIError where error.status == .conflict {
            let (reward, points) = try await offered(rewardID, memberID: memberID)
            return portal.pages.response(
                RedeemPage(
                    layout: layout("Redeem a reward", context),
                    reward: reward,
                    points: points,
                    handover: .sentToMember,
                    problem: error.message
                ),
                status: .conflict
            )
        } catch let error as APIError where error.status == .unprocessableContent {
            throw HTTPError(.notFound)
        }
    }
}

struct MemberRewardsPage: Page {
    static let template = TemplateName.appMemberRewards

    struct Offer: Encodable, Sendable {
        let title: String
        let gives: String
        let description: String?
        let costText: String
        let path: String?
        let shortText: String?
    }

    struct Redeemed: Encodable, Sendable {
        let title: String
        let statusText: String
        let tag: String
        let whenText: String
        let code: String?
    }

    let layout: Layout
    let notice: String?
    let pointsText: String
    let rewards: [Offer]
    let redemptions: [Redeemed]

    init(layout: Layout, points: Int, rewards: [Reward], redemptions: [(Redemption, Reward?)], clock: ProgramClock, notice: String?) {
        self.layout = layout
        self.notice = notice
        pointsText = "You have \(RewardRules.pointsPhrase(points)) to spend."
        self.rewards = rewards.map { reward in
            let affordable = reward.isAffordable(with: points)
            return Offer(
                title: reward.title,
                gives: reward.gives,
                description: reward.description.isEmpty ? nil : reward.description,
                costText: RewardRules.pointsPhrase(reward.pointsCost),
                path: affordable ? SiteURL.appMemberReward(reward.id).path : nil,
                shortText: reward.isOutOfStock
                    ? "None left at the moment."
                    : affordable ? nil : "You need \(RewardRules.pointsPhrase(reward.pointsCost - points)) more."
            )
        }
        self.redemptions = redemptions.map { redemption, reward in
            Redeemed(
                title: reward?.title ?? "Reward",
                statusText: redemption.isSent ? "Sent" : "Waiting to be sent",
                tag: redemption.isSent ? "tag--green" : "tag--blue",
                whenText: redemption.sentAt.map { "Sent \(clock.dateTime($0))." }
                    ?? "Redeemed \(clock.dateTime(redemption.redeemedAt)) for \(RewardRules.pointsPhrase(redemption.pointsCost)).",
                code: redemption.sentNote
            )
        }
    }
}

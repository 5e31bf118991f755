import Foundation
import PortalPlatform
import SQLKit

/// A member's points as administrators see them on her page: the balance she can spend, her latest
/// ledger lines in words, and the rewards she redeemed with whether each is sent.
struct MemberPointsSummary: Sendable, Encodable {
    struct Line: Sendable, Encodable {
        let when: String
        let what: String
        let points: String
    }

    struct Redeemed: Sendable, Encodable {
        let when: String
        let reward: String
        let points: String
        let status: String
    }

    let balanceText: String
    let lines: [Line]
    let redemptions: [Redeemed]

    static let lineCount = 20

    /// What each reason for a line means, in her words.
    static func title(of reason: String) -> String {
        switch reason {
        case MemberPoints.dailySignInReason: "Used the app"
        case LearningCenter.moduleCompletedReason: "Completed a learning module"
        case LearningCenter.videoWatchedReason: "Watched a video"
        case Surveys.pointsReason: "Answered a survey"
        case RewardRules.spendReason: "Redeemed a reward"
        case "demo_points": "Demo points"
        default: reason.replacingOccurrences(of: "_", with: " ").capitalized
        }
    }

    static func load(memberID: Int64, clock: ProgramClock, on db: any SQLDatabase) async throws -> MemberPointsSummary {
        let ledger = PointsLedger(), account = AppAccountRef.member(memberID)
        let rewards = RewardsRepository(program: Program.perinatalCommunity.id)
        let balance = try await ledger.allTimeBalance(of: account, on: db)
        let lines = try await ledger.history(of: account, page: PageRequest(number: 1, size: lineCount), on: db).items
        let redeemed = try await rewards.redemptions(of: account, limit: lineCount, on: db)
        let titles = Dictionary(uniqueKeysWithValues: try await rewards.rewards(includingRetired: true, on: db).map { ($0.id, $0.title) })
        return MemberPointsSummary(
            balanceText: "\(RewardRules.pointsPhrase(balance)) to spend",
            lines: lines.map {
                Line(when: clock.dateTime($0.earnedAt), what: title(of: $0.reason), points: $0.amount > 0 ? "+\($0.amount)" : "\($0.amount)")
            },
            redemptions: redeemed.map {
                Redeemed(
                    when: clock.dateTime($0.redeemedAt),
                    reward: titles[$0.rewardID] ?? "Reward",
                    points: "\($0.pointsCost)",
                    status: $0.sentAt.map { "Sent \(clock.dateTime($0))" } ?? "Waiting to be sent"
                )
            }
        )
    }
}

import Foundation
import Hummingbird
import PortalPlatform

/// The member app's points and "your baby this week".
enum LearningAPI {
    struct PointsLine: Encodable, Sendable {
        let amount: Int
        let reason: String
        let day: String
        let earnedAt: Date
    }

    struct Points: Encodable, Sendable {
        /// `YYYY-MM` on the program's clock; the balance counts only this month's points.
        let month: String
        let balance: Int
        /// When this month's points stop counting: the first moment of next month on the program's clock.
        let resetsAt: Date
        /// One page of the history; the page's position is sent beside it (`APIPage`).
        let history: [PointsLine]
    }

    struct Week: Encodable, Sendable {
        let week: Int
        let trimester: Int
        let size: String
        let mother: String
        let baby: String
        /// Her own week today, from her due date (absent when `?week=` asked for another).
        let dueDate: String?
        let daysToGo: Int?
    }
}

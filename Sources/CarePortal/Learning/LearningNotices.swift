import Foundation
import PortalPlatform
import SQLKit

extension NotificationKind {
    static let learningNewModule = NotificationKind("learning_new_module", title: "New learning modules for your stage of pregnancy", for: "member")
}

extension NotificationSubject {
    static let learningModuleType = "learning_module"
    static func learningModule(_ id: Int64) -> NotificationSubject { NotificationSubject(learningModuleType, id: id) }
}

/// Telling members about the learning center, in the transaction that publishes what it tells of.
struct LearningNotices: Sendable {
    let notifications: Notifications

    /// Tells every active member whose week of pregnancy today is in `stage` that a module is published for
    /// her; returns how many were told. Her week comes from her due date (`LearningStage.memberWeek`), so the
    /// stage is a range of due dates: week ≥ a when due ≤ today + 280 − 7(a − 1), week ≤ b when due ≥ today + 281 − 7b.
    @discardableResult
    func newModule(id: Int64, stage: LearningStage, today: CalendarDate, on db: any SQLDatabase) async throws -> Int {
        var accounts: SQLQueryString = "SELECT m.id FROM members m WHERE m.status = \(bind: Member.Status.active.rawValue)"
        let weeks = stage.weeks
        if weeks.lowerBound > LearningStage.memberWeeks.lowerBound {
            accounts += " AND m.due_date <= \(bind: today.adding(days: 280 - 7 * (weeks.lowerBound - 1)).iso)"
        }
        if weeks.upperBound < LearningStage.memberWeeks.upperBound {
            accounts += " AND m.due_date >= \(bind: today.adding(days: 281 - 7 * weeks.upperBound).iso)"
        }
        let entry = NewNotification(
            kind: .learningNewModule,
            message: "A new learning module is ready for you.",
            subject: .learningModule(id),
            onceKey: "learning_module:\(id)"
        )
        return try await notifications.writeToMany(entry, accounts: accounts, on: db)
    }
}

import Foundation
import Hummingbird
import PortalPlatform

struct LearningAPIController {
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.apiPoints.pattern, access: .member, points)
        routes.get(SiteURL.apiBabyWeek.pattern, access: .member, babyWeek)
    }

    /// `GET /api/v1/points`: this month's balance and every line she earned, newest first.
    @Sendable func points(request: Request, context: PortalContext) async throws -> Response {
        let account = AppAccountRef.member(try context.requireMember().accountID)
        let pageRequest = try request.apiPage()
        let clock = portal.programSettings.current.clock
        let today = clock.date(of: portal.now)
        let month = String(today.iso.prefix(7))
        let ledger = PointsLedger()
        let (balance, history) = try await portal.database.read { db in
            (try await ledger.balance(of: account, month: month, on: db), try await ledger.history(of: account, page: pageRequest, on: db))
        }
        let firstOfNext = CalendarDate(year: today.year, month: today.month, day: 1)!.adding(months: 1)
        return .json(
            APIPage(
                LearningAPI.Points(
                    month: month,
                    balance: balance,
                    resetsAt: clock.instant(startOf: firstOfNext),
                    history: history.items.map { LearningAPI.PointsLine(amount: $0.amount, reason: $0.reason, day: $0.day, earnedAt: $0.earnedAt) }
                ),
                APIPagePosition(history)
            )
        )
    }

    /// `GET /api/v1/baby-week`: this week of her pregnancy from her due date, or `?week=N` (4 to 40).
    @Sendable func babyWeek(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try context.requireMember().accountID
        var asked: Int?
        if let text = request.query("week") {
            guard let week = Int(text), BabyWeek.weeks.contains(week) else {
                throw APIError.invalidQuery(["week": "Give a week from \(BabyWeek.weeks.lowerBound) to \(BabyWeek.weeks.upperBound)"])
            }
            asked = week
        }
        let today = portal.programSettings.current.clock.date(of: portal.now)
        let (member, found) = try await portal.database.read { db -> (Member?, BabyWeek?) in
            let member = try await MemberRepository().find(id: memberID, on: db)
            let own = member.map { BabyWeek.week(dueDate: $0.dueDate, today: today) }
            let week = asked ?? min(max(own ?? BabyWeek.weeks.lowerBound, BabyWeek.weeks.lowerBound), BabyWeek.weeks.upperBound)
            return (member, try await BabyWeekRepository().find(week: week, on: db))
        }
        guard let member, let found else { throw APIError.notFound }
        return .json(
            LearningAPI.Week(
                week: found.week,
                trimester: found.trimester,
                size: found.size,
                mother: found.mother,
                baby: found.baby,
                dueDate: asked == nil ? member.dueDate.iso : nil,
                daysToGo: asked == nil ? member.dueDate.dayNumber - today.dayNumber : nil
            )
        )
    }
}

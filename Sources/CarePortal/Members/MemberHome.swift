import Foundation
import PortalPlatform
import SQLKit

/// What a member's home in the web app shows, read in one go: this week of her pregnancy, her points
/// this month, her unread notifications and the next entries of her calendar.
struct MemberHome: Sendable {
    struct Upcoming: Sendable {
        let title: String
        let at: Date
    }

    let member: Member
    let week: BabyWeek?
    let daysToGo: Int
    let points: Int
    let unreadNotifications: Int
    let upcoming: [Upcoming]

    /// How far ahead the home looks for calendar entries, and how many it shows.
    static let upcomingDays = 14
    static let upcomingCount = 3

    static func load(memberID: Int64, portal: Portal) async throws -> MemberHome? {
        let clock = portal.programSettings.current.clock
        let now = portal.now
        let today = clock.date(of: now)
        let account = AppAccountRef.member(memberID)
        return try await portal.database.read { db in
            guard let member = try await MemberRepository().find(id: memberID, on: db) else { return nil }
            let weekNumber = min(max(BabyWeek.week(dueDate: member.dueDate, today: today), BabyWeek.weeks.lowerBound), BabyWeek.weeks.upperBound)
            let events = try await CalendarRepository().events(memberID: memberID, on: db)
            let until = clock.instant(startOf: today.adding(days: upcomingDays + 1))
            let upcoming = MemberCalendar.occurrences(of: events, from: now, until: until, clock: clock, limit: upcomingCount)
                .prefix(upcomingCount)
                .map { Upcoming(title: $0.event.title, at: $0.at) }
            return MemberHome(
                member: member,
                week: try await BabyWeekRepository().find(week: weekNumber, on: db),
                daysToGo: member.dueDate.dayNumber - today.dayNumber,
                points: try await PointsLedger().balance(of: account, month: String(today.iso.prefix(7)), on: db),
                unreadNotifications: try await portal.notifications.unreadCount(of: account, on: db),
                upcoming: Array(upcoming)
            )
        }
    }
}

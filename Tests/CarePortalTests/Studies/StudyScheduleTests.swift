import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The one computation of to-do outcomes the pages, the API and the exports share.
@Suite struct StudyScheduleTests {
    static let start = CalendarDate(iso: "2027-03-01")!
    static let exercise = StudyTodoItem(
        id: 1,
        title: "Exercise",
        startsOn: CalendarDate(iso: "1970-01-01")!,
        endsOn: nil,
        position: 1,
        replacesID: nil
    )
    static let folate = StudyTodoItem(
        id: 2,
        title: "Folate",
        startsOn: CalendarDate(iso: "1970-01-01")!,
        endsOn: CalendarDate(iso: "2027-03-03")!,
        position: 2,
        replacesID: nil
    )

    static func marks(_ days: [(Int64, Int)]) -> Set<StudyMark> {
        Set(days.map { StudyMark(itemID: $0.0, dayNumber: start.dayNumber + $0.1) })
    }

    @Test func theStreakRunsBackFromYesterdayAndCountsTodayOnceItIsDone() {
        let schedule = StudySchedule(items: [Self.folate, Self.exercise])
        let today = Self.start.adding(days: 5)
        let days = Self.start.dayNumber...today.dayNumber
        // Day 0 all done, day 1 only exercise, days 2 to 4 all done (folate ends after day 2), today not yet.
        var marks = Self.marks([(1, 0), (2, 0), (1, 1), (1, 2), (2, 2), (1, 3), (1, 4)])
        var figures = schedule.statistics(days: days, today: today, marks: marks)
        #expect(figures.closedDays == 5)
        #expect(figures.allDoneDays == 4)
        #expect(figures.currentStreak == 3)
        #expect(figures.items.map(\.item.title) == ["Exercise", "Folate"], "in their order, whatever order they were read in")
        #expect(figures.items.map(\.offeredDays) == [5, 3])
        #expect(figures.items.map(\.doneDays) == [5, 2])
        marks.insert(StudyMark(itemID: 1, dayNumber: today.dayNumber))
        figures = schedule.statistics(days: days, today: today, marks: marks)
        #expect(figures.currentStreak == 4)
        #expect(figures.closedDays == 5, "today is still open")
    }

    @Test func aWithdrawnParticipantsDaysEndTheDayBefore() {
        let participant = StudyParticipant(
            id: 1,
            studyCode: "NU-1",
            arm: nil,
            email: nil,
            enrolledOn: Self.start,
            withdrawnOn: Self.start.adding(days: 3),
            status: .withdrawn,
            username: "nu-1",
            mustChangePassword: false,
            lastActiveAt: nil,
            createdAt: Date()
        )
        #expect(participant.days(through: Self.start.adding(days: 10)) == Self.start.dayNumber...(Self.start.dayNumber + 2))
        #expect(participant.days(through: Self.start.adding(days: -1)) == nil)
    }

    @Test func oneTimePasswordsComeFromTheInjectedRandomnessAndPassThePasswordRule() {
        let fixed: @Sendable (Int) -> [UInt8] = { count in (0..<count).map { UInt8(($0 * 37 + 11) % 256) } }
        let password = StudyRules.oneTimePassword(fixed)
        #expect(password == StudyRules.oneTimePassword(fixed))
        #expect(password.wholeMatch(of: /[a-z2-9]{3}(-[a-z2-9]{3}){3}/) != nil)
        #expect(PasswordPolicy.standard.problem(with: password, username: "nu-017") == nil)
        #expect(StudyRules.oneTimePassword(Dependencies.systemRandomBytes) != StudyRules.oneTimePassword(Dependencies.systemRandomBytes))
    }
}

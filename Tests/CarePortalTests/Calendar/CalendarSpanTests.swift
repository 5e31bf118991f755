import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct CalendarSpanTests {
    let today = CalendarDate(iso: "2027-03-10")!

    @Test func withoutDaysTheSpanIsTheNextSevenDaysFromToday() {
        // MUT
        let (span, problems) = CalendarSpan.asked(from: nil, to: nil, today: today)
        // validate
        #expect(problems.isEmpty)
        #expect(span == CalendarSpan(from: today, to: CalendarDate(iso: "2027-03-16")!))
    }

    @Test func aDayThatIsNotADateIsRefusedByItsParameter() {
        let (span, problems) = CalendarSpan.asked(from: "10/03/2027", to: "2027-03-12", today: today)
        #expect(span == nil)
        #expect(problems == ["from": "Give the day as YYYY-MM-DD"])
    }

    @Test func aLastDayBeforeTheFirstOrTooFarOnIsRefused() {
        let backwards = CalendarSpan.asked(from: "2027-03-10", to: "2027-03-09", today: today)
        #expect(backwards.0 == nil)
        #expect(backwards.problems["to"] == "Give a last day on or after the first, at most 62 days on")
        let tooLong = CalendarSpan.asked(from: "2027-03-10", to: CalendarDate(iso: "2027-03-10")!.adding(days: 62).iso, today: today)
        #expect(tooLong.0 == nil)
        let longest = CalendarSpan.asked(from: "2027-03-10", to: CalendarDate(iso: "2027-03-10")!.adding(days: 61).iso, today: today)
        #expect(longest.problems.isEmpty)
    }
}

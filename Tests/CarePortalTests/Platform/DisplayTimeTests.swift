import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct DisplayTimeTests {
    @Test func dateTimeAgreesWithFoundationsFormatterAcrossCenturiesAndLeapDays() {
        let reference = DateFormatter()
        reference.locale = Locale(identifier: "en_US_POSIX")
        reference.timeZone = TimeZone(identifier: "UTC")
        reference.dateFormat = "d MMM yyyy, HH:mm 'UTC'"
        // Whole seconds from 1900 to 2100, a step that lands on every time of day; plus fractions after 1970.
        var instants: [TimeInterval] = [0, 951_782_400, 1_709_208_300, 4_107_542_399, -86_400, 1_795_000_000.999]
        instants += stride(from: -2_208_988_800, to: 4_102_444_800, by: 3_155_713).map(TimeInterval.init)
        for seconds in instants {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(DisplayTime.dateTime(date) == reference.string(from: date), "\(seconds)")
        }
        #expect(DisplayTime.dateTime(Date(timeIntervalSince1970: 1_709_208_300)) == "29 Feb 2024, 12:05 UTC")
    }

    @Test func calendarDatesWriteZeroPaddedISODatesAndMonths() throws {
        let early = try #require(CalendarDate(year: 987, month: 3, day: 4))
        #expect(early.iso == "0987-03-04")
        #expect(early.monthKey == "0987-03")
        let late = try #require(CalendarDate(year: 2026, month: 11, day: 22))
        #expect(late.iso == "2026-11-22")
        #expect(late.monthKey == "2026-11")
        #expect(CalendarDate(iso: late.iso) == late)
    }
}

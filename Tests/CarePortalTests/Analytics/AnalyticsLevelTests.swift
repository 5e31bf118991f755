import Testing
@testable import CarePortal
@testable import PortalPlatform

/// How a stretch of days is cut into the aggregates' buckets, and how far a period may be read.
@Suite struct AnalyticsLevelTests {
    static func day(_ iso: String) -> Int { CalendarDate(iso: iso)!.dayNumber }

    @Test func theBucketsOfAnyStretchCoverEachOfItsDaysOnceAndNoOther() {
        // Stretches starting every 11 days from December 2024 to February 2027, from one day to over two years long,
        // so every kind of edge (a week across a month's or year's end, a leap day) comes up.
        for start in stride(from: Self.day("2024-12-01"), through: Self.day("2027-02-01"), by: 11) {
            for length in stride(from: 0, through: 800, by: 23) {
                let days = start...(start + length)
                for largest in AnalyticsLevel.allCases {
                    var covered: [Int: Int] = [:]
                    for piece in AnalyticsLevel.pieces(days, largest: largest) {
                        #expect(piece.level <= largest)
                        for day in piece.level.days(of: piece.number) { covered[day, default: 0] += 1 }
                    }
                    #expect(
                        covered.count == days.count && covered.keys.allSatisfy(days.contains) && covered.values.allSatisfy { $0 == 1 },
                        "\(CalendarDate(dayNumber: days.lowerBound).iso) to \(CalendarDate(dayNumber: days.upperBound).iso) up to \(largest)"
                    )
                }
            }
        }
    }

    @Test func aWholeYearIsReadFromItsOneBucketAndItsCutEndsFromMonthsWeeksAndDays() {
        let pieces = AnalyticsLevel.pieces(Self.day("2025-11-28")...Self.day("2027-01-05"), largest: .year)
        #expect(pieces.filter { $0.level == .year }.map(\.number) == [2026])
        #expect(pieces.filter { $0.level == .month }.map(\.number) == [2025 * 12 + 11])
        // 28 November 2025 is a Friday: 28 to 30 November are single days, as are Friday 1 to Tuesday 5 January 2027.
        #expect(pieces.filter { $0.level == .day }.count == 3 + 5)
        #expect(pieces.filter { $0.level == .week }.isEmpty, "no whole week lies between the cut ends and the months beside them")
        #expect(AnalyticsLevel.year.days(of: 2024).count == 366 && AnalyticsLevel.year.days(of: 2026).count == 365)
    }

    @Test func aPeriodReachesToTheEndOfItsYearOnlyWhereItEndsOnOrPastWhatWasRecorded() {
        let recorded = Self.day("2025-03-10")...Self.day("2026-11-18")
        func reach(_ from: String, _ to: String) -> [String] {
            let days = AnalyticsLevel.reach(Self.day(from)...Self.day(to), recorded: recorded)
            return [CalendarDate(dayNumber: days.lowerBound).iso, CalendarDate(dayNumber: days.upperBound).iso]
        }
        #expect(reach("2025-03-10", "2026-11-18") == ["2025-01-01", "2026-12-31"], "All time reaches both ways")
        #expect(reach("2024-06-01", "2026-12-02") == ["2024-01-01", "2026-12-31"])
        #expect(reach("2025-03-11", "2026-11-17") == ["2025-03-11", "2026-11-17"], "inside what was recorded: as it is")
        #expect(reach("2026-10-01", "2026-11-18") == ["2026-10-01", "2026-12-31"], "a period ending on the last day recorded")
        #expect(
            AnalyticsLevel.reach(Self.day("2026-10-01")...Self.day("2026-11-18"), recorded: nil) == Self.day("2026-10-01")...Self.day("2026-11-18")
        )
    }
}

import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The schedule and adherence arithmetic every page, chart, report and the app share.
@Suite struct AdherenceTests {
    static let start = CalendarDate(year: 2026, month: 2, day: 26)!

    static func prescription(id: Int64, times: Int, every: Int, from: CalendarDate = start, until: CalendarDate? = nil) -> Prescription {
        Prescription(
            id: id,
            patientID: 1,
            kind: id.isMultiple(of: 2) ? .exercise : .medication,
            itemID: id,
            name: "Item \(id)",
            description: "",
            dose: "1",
            amountID: nil,
            frequencyID: nil,
            frequencyName: "f",
            timesPerDay: times,
            everyDays: every,
            note: "",
            position: Int(id),
            startsOn: from,
            endsOn: until,
            createdAt: Date(),
            createdBy: nil,
            hasIllustration: false
        )
    }

    @Test func dayNumbersRoundTripAcrossLeapYearsAndKnowTheWeekday() {
        #expect(CalendarDate(year: 1970, month: 1, day: 1)!.dayNumber == 0)
        #expect(CalendarDate(year: 2000, month: 3, day: 1)!.dayNumber == 11_017)
        var day = CalendarDate(year: 1999, month: 12, day: 25)!
        for _ in 0..<2_000 {
            #expect(CalendarDate(dayNumber: day.dayNumber) == day)
            #expect(day.adding(days: 1) == day.nextDay)
            day = day.nextDay
        }
        #expect(CalendarDate(year: 2026, month: 11, day: 23)!.weekdayFromMonday == 0, "23 November 2026 is a Monday")
        #expect(CalendarDate(year: 2024, month: 2, day: 29)!.adding(days: 1) == CalendarDate(year: 2024, month: 3, day: 1)!)
    }

    @Test func frequenciesScheduleTheirDaysFromTheFirstDayAndStopOnTheLast() {
        let weekly = Self.prescription(id: 1, times: 1, every: 7)
        let everyOtherDay = Self.prescription(id: 2, times: 2, every: 2)
        let ended = Self.prescription(id: 3, times: 3, every: 1, until: Self.start.adding(days: 3))
        let days = (0..<15).map { Self.start.adding(days: $0) }
        #expect(days.filter(weekly.isDue).map { $0.dayNumber - Self.start.dayNumber } == [0, 7, 14])
        #expect(days.filter(everyOtherDay.isDue).count == 8)
        #expect(days.filter(ended.isDue).count == 3, "not due on the day it ended")
        #expect(!weekly.isDue(on: Self.start.adding(days: -7)), "never before it started")
        let entries = Schedule.entries(
            on: Self.start.adding(days: 2),
            prescriptions: [weekly, everyOtherDay, ended],
            logs: [
                AdherenceLog(prescriptionID: 3, day: Self.start.adding(days: 2), slot: 2, status: .missed, loggedAt: Date())
            ]
        )
        #expect(entries.map(\.entryID) == ["3-1", "3-2", "3-3", "2-1", "2-2"], "medications first, each dose in order")
        #expect(entries.map(\.status) == [nil, .missed, nil, nil, nil])
    }

    @Test func adherenceIsDoneOutOfScheduledRoundedHalfUp() {
        #expect(AdherenceCount.percent(done: 1, scheduled: 8) == 13, "12.5% rounds up")
        #expect(AdherenceCount.percent(done: 1, scheduled: 3) == 33)
        #expect(AdherenceCount.percent(done: 2, scheduled: 3) == 67)
        #expect(AdherenceCount.percent(done: 0, scheduled: 0) == nil)
        #expect(AdherenceCount(scheduled: 4, done: 1, missed: 2).notLogged == 1)
    }

    @Test func theListsCountOfScheduledDosesAgreesWithTheFullSummary() {
        let prescriptions = [
            Self.prescription(id: 1, times: 3, every: 1, until: Self.start.adding(days: 20)),
            Self.prescription(id: 2, times: 1, every: 7),
            Self.prescription(id: 3, times: 2, every: 2, from: Self.start.adding(days: 5))
        ]
        let from = Self.start.adding(days: -3), through = Self.start.adding(days: 40)
        let summary = AdherenceSummary(prescriptions: prescriptions, logs: [], from: from, through: through)
        #expect(AdherenceSummary.scheduled(prescriptions.map(\.schedule), from: from, through: through) == summary.total.scheduled)
        #expect(summary.total.scheduled == 20 * 3 + 6 + 18 * 2)
        #expect(summary.items.map(\.name) == ["Item 1", "Item 3", "Item 2"], "medications first")
        #expect(summary.itemDays.count == 20 + 6 + 18)
    }

    @Test func theChartsDrawEachDaysAndEachItemsShareOnAPercentScale() {
        let prescriptions = [Self.prescription(id: 1, times: 2, every: 2), Self.prescription(id: 2, times: 1, every: 1)]
        let logs = [
            AdherenceLog(prescriptionID: 1, day: Self.start, slot: 1, status: .done, loggedAt: nil),
            AdherenceLog(prescriptionID: 2, day: Self.start, slot: 1, status: .done, loggedAt: nil),
            AdherenceLog(prescriptionID: 2, day: Self.start.adding(days: 1), slot: 1, status: .done, loggedAt: nil)
        ]
        let summary = AdherenceSummary(
            prescriptions: prescriptions,
            logs: logs,
            from: Self.start.adding(days: -1),
            through: Self.start.adding(days: 2)
        )

        let daily = AdherenceFigures.dailyChart(summary).figure
        #expect(daily.id == "daily" && daily.title.hasPrefix("Daily adherence, "))
        let days = Self.start.adding(days: -1)
        // Day 0: 2 of 3 done; day 1: 1 of 1; day 2: 0 of 3 (no column); the day before: nothing due.
        #expect(
            daily.boxes.compactMap(\.tooltip) == [
                "\(Self.start.weekdayAndDay): 67% (2 of 3 done)", "\(Self.start.adding(days: 1).weekdayAndDay): 100% (1 of 1 done)"
            ]
        )
        #expect(daily.labels.filter { $0.text == "–" }.map(\.fullText) == ["\(days.weekdayAndDay): nothing due"])
        let heights = daily.boxes.map(\.height)
        #expect(abs(heights[0] / 67 - heights[1] / 100) < 0.01, "heights in proportion to the percentages")

        let items = AdherenceFigures.itemChart(summary).figure
        #expect(items.boxes.compactMap(\.tooltip) == ["Item 1: 25% (1 of 4)", "Item 2: 67% (2 of 3)"])
        #expect(items.labels.contains { $0.text == "100" }, "the scale runs to 100%")
    }
}

import Foundation
import PortalPlatform

/// What the patient logged for one scheduled dose or exercise session.
public struct AdherenceLog: Sendable, Equatable {
    public enum Status: String, Sendable, Codable, CaseIterable {
        case done, missed
    }

    public var prescriptionID: Int64
    public var day: CalendarDate
    /// Which of the day's doses or sessions, from 1.
    public var slot: Int
    public var status: Status
    /// When she logged it; nil where only the outcome was read (summaries need no more).
    public var loggedAt: Date?
}

/// One dose or exercise session due on a day, and what the patient logged for it.
struct ScheduleEntry: Sendable {
    let prescription: Prescription
    let day: CalendarDate
    /// From 1 to the prescription's times a day.
    let slot: Int
    let status: AdherenceLog.Status?

    /// How the app names this entry when it logs it: prescription and slot.
    var entryID: String { "\(prescription.id)-\(slot)" }

    static func parse(entryID: String) -> (prescriptionID: Int64, slot: Int)? {
        let parts = entryID.split(separator: "-")
        guard parts.count == 2, let id = Int64(parts[0]), let slot = Int(parts[1]), id > 0, slot > 0 else { return nil }
        return (id, slot)
    }
}

/// The day's doses and sessions, worked out from the prescriptions in force that day.
enum Schedule {
    static func entries(on day: CalendarDate, prescriptions: [Prescription], logs: [AdherenceLog]) -> [ScheduleEntry] {
        let logged = LogIndex(logs)
        return
            prescriptions
            .filter { $0.isDue(on: day) }
            .sorted { ($0.kind == .medication ? 0 : 1, $0.position, $0.id) < ($1.kind == .medication ? 0 : 1, $1.position, $1.id) }
            .flatMap { prescription in
                (1...max(1, prescription.timesPerDay)).map { slot in
                    ScheduleEntry(
                        prescription: prescription,
                        day: day,
                        slot: slot,
                        status: logged.status(prescription.id, day.dayNumber, slot)
                    )
                }
            }
    }
}

/// Logs found by prescription, day and slot.
private struct LogIndex {
    private var statuses: [Key: AdherenceLog.Status] = [:]

    private struct Key: Hashable {
        let prescriptionID: Int64
        let day: Int
        let slot: Int
    }

    init(_ logs: [AdherenceLog]) {
        for log in logs { statuses[Key(prescriptionID: log.prescriptionID, day: log.day.dayNumber, slot: log.slot)] = log.status }
    }

    func status(_ prescriptionID: Int64, _ day: Int, _ slot: Int) -> AdherenceLog.Status? {
        statuses[Key(prescriptionID: prescriptionID, day: day, slot: slot)]
    }
}

/// Scheduled doses and sessions and what became of them.
struct AdherenceCount: Sendable, Equatable, Encodable {
    var scheduled = 0
    var done = 0
    var missed = 0

    var notLogged: Int { scheduled - done - missed }

    /// Done out of scheduled, as a whole percentage rounded half up; nil when nothing was scheduled.
    var percent: Int? { Self.percent(done: done, scheduled: scheduled) }

    static func percent(done: Int, scheduled: Int) -> Int? {
        scheduled == 0 ? nil : (done * 200 + scheduled) / (scheduled * 2)
    }

    /// "85%", or "—" when nothing was scheduled.
    var percentText: String { percent.map { "\($0)%" } ?? "—" }

    static func + (lhs: AdherenceCount, rhs: AdherenceCount) -> AdherenceCount {
        AdherenceCount(scheduled: lhs.scheduled + rhs.scheduled, done: lhs.done + rhs.done, missed: lhs.missed + rhs.missed)
    }
}

/// A patient's adherence over a span of days: by day, by medication or exercise, and by prescription and day.
///
/// Adherence is the share of scheduled doses and sessions the patient logged as done. Every figure on
/// the patient page, in the charts, the reports and the app comes from here.
struct AdherenceSummary: Sendable {
    struct Day: Sendable {
        let day: CalendarDate
        let count: AdherenceCount
    }

    struct Item: Sendable, Encodable {
        let kind: Prescription.Kind
        let itemID: Int64
        let name: String
        let count: AdherenceCount
    }

    /// One row of the report: one prescription on one day it was due.
    struct ItemDay: Sendable {
        let day: CalendarDate
        let prescription: Prescription
        let count: AdherenceCount
    }

    let from: CalendarDate
    let through: CalendarDate
    let days: [Day]
    let items: [Item]
    let itemDays: [ItemDay]
    let total: AdherenceCount

    init(prescriptions: [Prescription], logs: [AdherenceLog], from: CalendarDate, through: CalendarDate) {
        self.from = from
        self.through = through
        let logged = LogIndex(logs)
        let ordered = prescriptions.sorted {
            ($0.kind == .medication ? 0 : 1, $0.position, $0.id) < ($1.kind == .medication ? 0 : 1, $1.position, $1.id)
        }
        var days: [Day] = []
        var itemDays: [ItemDay] = []
        // Medications first, then exercises, each in the order the physician listed them.
        var byItem: [String: (kind: Prescription.Kind, itemID: Int64, name: String, count: AdherenceCount, order: [Int64])] = [:]
        var total = AdherenceCount()
        if from <= through {
            for dayNumber in from.dayNumber...through.dayNumber {
                let day = CalendarDate(dayNumber: dayNumber)
                var dayCount = AdherenceCount()
                for prescription in ordered where prescription.isDue(onDayNumber: dayNumber) {
                    var count = AdherenceCount(scheduled: prescription.timesPerDay)
                    for slot in 1...max(1, prescription.timesPerDay) {
                        switch logged.status(prescription.id, dayNumber, slot) {
                        case .done: count.done += 1
                        case .missed: count.missed += 1
                        case nil: break
                        }
                    }
                    itemDays.append(ItemDay(day: day, prescription: prescription, count: count))
                    dayCount = dayCount + count
                    let key = "\(prescription.kind.rawValue):\(prescription.itemID)"
                    let existing = byItem[key]
                    let order: [Int64] = [prescription.kind == .medication ? 0 : 1, Int64(prescription.position), prescription.id]
                    byItem[key] = (
                        prescription.kind, prescription.itemID, prescription.name,
                        (existing?.count ?? AdherenceCount()) + count,
                        existing.map { $0.order.lexicographicallyPrecedes(order) ? $0.order : order } ?? order
                    )
                }
                days.append(Day(day: day, count: dayCount))
                total = total + dayCount
            }
        }
        self.days = days
        self.itemDays = itemDays
        self.items = byItem.values.sorted { $0.order.lexicographicallyPrecedes($1.order) }
            .map { Item(kind: $0.kind, itemID: $0.itemID, name: $0.name, count: $0.count) }
        self.total = total
    }

    /// Scheduled doses and sessions of one patient, for lists that fetch only the done counts from storage.
    static func scheduled(_ schedules: [DoseSchedule], from: CalendarDate, through: CalendarDate) -> Int {
        guard from <= through else { return 0 }
        var scheduled = 0
        for schedule in schedules {
            let start = max(from.dayNumber, schedule.startsOn)
            let end = min(through.dayNumber, (schedule.endsOn ?? Int.max) - 1)
            guard start <= end else { continue }
            for day in start...end where schedule.isDue(onDayNumber: day) { scheduled += schedule.timesPerDay }
        }
        return scheduled
    }
}

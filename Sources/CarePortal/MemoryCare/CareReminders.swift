import Foundation
import PortalPlatform
import SQLKit

/// When a memory's reminder falls due: its local time (`2026-03-03T09:00`) on the days its recurrence
/// names, in the program's time zone, so 09:00 stays 09:00 across the daylight-saving changes.
enum ReminderSchedule {
    /// The first occurrence after `instant`; nil when there is none (a one-off reminder already past).
    static func next(reminderAt: String, recurrence: Recurrence, days: [String], after instant: Date, clock: ProgramClock) -> Date? {
        guard let local = MemoryRules.localDateTime(reminderAt), let start = CalendarDate(year: local.year!, month: local.month!, day: local.day!)
        else {
            return nil
        }
        let minute = local.hour! * 60 + local.minute!
        let first = clock.instant(on: start, atMinute: minute)
        if recurrence == .none { return first > instant ? first : nil }
        let weekdays = Set(days.compactMap { Weekday(rawValue: $0) }.compactMap { Weekday.allCases.firstIndex(of: $0) })
        // From the later of her first day and the day before `instant` (a time skipped by the clocks can land
        // an hour on either side), day by day: two months reach every monthly and weekly occurrence.
        var date = max(start.dayNumber, clock.date(of: instant).dayNumber - 1)
        let last = date + 62
        while date <= last {
            let day = CalendarDate(dayNumber: date)
            let matches =
                switch recurrence {
                case .none: false
                case .daily: true
                case .weekly: weekdays.contains(day.weekdayFromMonday)
                // The same day each month; in a shorter month, its last day.
                case .monthly: day.day == min(start.day, day.lastDayOfMonth)
                }
            if matches {
                let occurrence = clock.instant(on: day, atMinute: minute)
                if occurrence > instant { return occurrence }
            }
            date += 1
        }
        return nil
    }
}

extension CalendarDate {
    fileprivate var lastDayOfMonth: Int {
        let next = month == 12 ? CalendarDate(year: year + 1, month: 1, day: 1)! : CalendarDate(year: year, month: month + 1, day: 1)!
        return next.dayNumber - firstOfMonth.dayNumber
    }
}

/// Reminders falling due: each goes to her feed (and her phones) once, by whichever server gets there
/// first; an appointment or to-do still open two hours after its reminder tells the caregivers who see her
/// reminders.
struct CareReminders: Sendable {
    let portal: Portal
    var repository: CareRepository { CareRepository() }

    /// A reminder more than this late (the server was down) is moved on without being sent.
    static let lateness: TimeInterval = 6 * 3_600
    /// How long after its reminder an appointment or to-do may stay open before caregivers are told.
    static let followUpWindow: TimeInterval = 2 * 3_600

    /// Sends every reminder due by now and every follow-up; returns how many entries were written.
    @discardableResult
    func sendDue() async throws -> Int {
        let now = portal.now
        let clock = portal.programSettings.current.clock
        var receivers: Set<Int64> = []
        var caregivers: Set<Int64> = []
        while true {
            let due = try await portal.database.read { db in try await repository.dueReminders(now: now, limit: 100, on: db) }
            var moved = 0
            for item in due {
                let written = try await portal.database.transaction { db -> Bool? in
                    let (recurrence, days) = CareRepository.splitRecurrence(item.recurrence)
                    let next = item.reminderAt.flatMap {
                        ReminderSchedule.next(reminderAt: $0, recurrence: recurrence, days: days, after: item.occurrence, clock: clock)
                    }
                    let followUp = item.type.isPlan && !item.secured ? item.occurrence.addingTimeInterval(Self.followUpWindow) : nil
                    guard try await repository.advanceReminder(id: item.id, from: item.occurrence, to: next, followUpAt: followUp, on: db) else {
                        return nil
                    }
                    guard item.occurrence > now.addingTimeInterval(-Self.lateness) else { return false }
                    return try await portal.notifications.write(
                        NewNotification(
                            kind: .careReminder,
                            message: item.secured ? "A reminder about one of your secured memories" : "Reminder: \(item.title)",
                            subject: .careMemory(item.id),
                            onceKey: "care-reminder:\(item.id):\(item.occurrence.millisecondsSince1970)"
                        ),
                        to: .careReceiver(item.receiverID),
                        on: db
                    )
                }
                if written != nil { moved += 1 }
                if written == true { receivers.insert(item.receiverID) }
            }
            if due.count < 100 || moved == 0 { break }
        }
        while true {
            let due = try await portal.database.read { db in try await repository.dueFollowUps(now: now, limit: 100, on: db) }
            var moved = 0
            for item in due {
                let told = try await portal.database.transaction { db -> [Int64]? in
                    guard try await repository.clearFollowUp(id: item.id, from: item.occurrence, on: db) else { return nil }
                    guard item.isOpen, item.occurrence > now.addingTimeInterval(-Self.lateness - Self.followUpWindow) else { return [] }
                    var told: [Int64] = []
                    for caregiver in try await repository.caregivers(seeingRemindersOf: item.receiverID, on: db) {
                        let written = try await portal.notifications.write(
                            NewNotification(
                                kind: .careStillOpen,
                                message: "\(item.receiverName) has not marked “\(item.title)” done yet",
                                subject: .careMemory(item.id),
                                onceKey: "care-still-open:\(item.id):\(item.occurrence.millisecondsSince1970)"
                            ),
                            to: .caregiver(caregiver),
                            on: db
                        )
                        if written { told.append(caregiver) }
                    }
                    return told
                }
                if let told { moved += 1; caregivers.formUnion(told) }
            }
            if due.count < 100 || moved == 0 { break }
        }
        if !receivers.isEmpty {
            await portal.announceNotifications(to: NotificationAudience(role: AppAccountKind.careReceiver.role, accountIDs: receivers.sorted()))
        }
        if !caregivers.isEmpty {
            await portal.announceNotifications(to: NotificationAudience(role: AppAccountKind.caregiver.role, accountIDs: caregivers.sorted()))
        }
        return receivers.count + caregivers.count
    }
}

extension NotificationKind {
    static let careReminder = NotificationKind(
        "care_reminder",
        title: "Reminders of your memories, appointments and to-dos",
        for: AppAccountKind.careReceiver.role
    )
    static let careStillOpen = NotificationKind(
        "care_still_open",
        title: "An appointment or to-do of someone you help is still open after its reminder",
        for: AppAccountKind.caregiver.role
    )
}

extension NotificationSubject {
    static let careMemoryType = "care_memory"
    static func careMemory(_ id: Int64) -> NotificationSubject { NotificationSubject(careMemoryType, id: id) }
}

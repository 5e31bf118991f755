import Foundation
import PortalPlatform

/// Emails patients who asked for reminders, as often as they chose, while something is still to do
/// that day. Runs every minute in every server (a background job of `PatientsFeature`); a reminder is
/// claimed with a conditional update, so two servers sharing a database never send one twice.
struct PatientReminders: Sendable {
    let portal: Portal
    static let interval: Duration = .seconds(60)
    let accounts = PatientAccountRepository()
    let regimens = RegimenRepository()

    /// Queues every reminder that is due at the portal's clock and moves each on; returns how many emails were queued.
    @discardableResult
    func sendDue() async throws -> Int {
        let now = portal.now
        let today = CalendarDate(now)
        var queued = 0
        while true {
            let due = try await portal.database.read { db in try await accounts.dueReminders(now: now, limit: 100, on: db) }
            guard !due.isEmpty else { return queued }
            for reminder in due {
                // The next one after now, however long the server was down: missed reminders are not sent in a burst.
                let step = TimeInterval(reminder.hours * 3600)
                let behind = max(0, now.timeIntervalSince(reminder.dueAt))
                let next = reminder.dueAt.addingTimeInterval((behind / step).rounded(.down) * step + step)
                let sent = try await portal.database.transaction { db -> Bool in
                    guard try await accounts.advanceReminder(reminder, to: next, on: db) else { return false }
                    let prescriptions = try await regimens.prescriptions(patientID: reminder.patientID, on: db)
                    let logs = try await regimens.logs(patientID: reminder.patientID, from: today, through: today, on: db)
                    let toDo = Schedule.entries(on: today, prescriptions: prescriptions, logs: logs).filter { $0.status == nil }.count
                    guard toDo > 0 else { return false }
                    try await portal.outbox.enqueue(
                        .reminder(
                            to: reminder.email,
                            firstName: reminder.firstName,
                            toDo: toDo,
                            settings: portal.settings,
                            frequency: ReminderSettings.Frequency(hours: reminder.hours) ?? .daily
                        ),
                        on: db
                    )
                    return true
                }
                if sent { queued += 1 }
            }
        }
    }
}

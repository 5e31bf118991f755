import Foundation
import PortalPlatform
import SQLKit

/// One day of a patient's schedule as she sees it, and logging a dose or session of it: the patient
/// app's API and the web app both work through this.
struct PatientDay: Sendable {
    let day: CalendarDate
    let today: CalendarDate
    let entries: [ScheduleEntry]

    var previous: CalendarDate { day.adding(days: -1) }
    /// Nil on today: she looks no further ahead than the day being lived.
    var next: CalendarDate? { day < today ? day.adding(days: 1) : nil }
    /// A day still to come cannot be logged.
    var canLog: Bool { day <= today }

    static func load(patientID: Int64, day: CalendarDate, today: CalendarDate, on db: any SQLDatabase) async throws -> PatientDay {
        let regimens = RegimenRepository()
        let prescriptions = try await regimens.prescriptions(patientID: patientID, on: db)
        let logs = try await regimens.logs(patientID: patientID, from: day, through: day, on: db)
        return PatientDay(day: day, today: today, entries: Schedule.entries(on: day, prescriptions: prescriptions, logs: logs))
    }

    /// Why an entry could not be logged.
    enum LogRefusal: Error {
        /// Nothing of hers is due on that day under that name.
        case noSuchEntry
        /// The day is still to come.
        case dayToCome
    }

    /// Logs one dose or session as done or missed, audited. Sending the same again changes nothing, so a
    /// retried request never counts twice; a different answer for the same slot replaces the earlier one.
    static func log(
        patientID: Int64,
        day: CalendarDate,
        entryID: String,
        status: AdherenceLog.Status,
        actor: AuditActor,
        origin: AuditOrigin,
        portal: Portal
    ) async throws -> ScheduleEntry {
        guard let (prescriptionID, slot) = ScheduleEntry.parse(entryID: entryID) else { throw LogRefusal.noSuchEntry }
        guard day <= CalendarDate(portal.now) else { throw LogRefusal.dayToCome }
        let now = portal.now
        let regimens = RegimenRepository()
        return try await portal.database.transaction { db -> ScheduleEntry in
            let prescriptions = try await regimens.prescriptions(patientID: patientID, on: db)
            guard let prescription = prescriptions.first(where: { $0.id == prescriptionID }), prescription.isDue(on: day),
                (1...prescription.timesPerDay).contains(slot)
            else { throw LogRefusal.noSuchEntry }
            let existing = try await regimens.logs(patientID: patientID, from: day, through: day, on: db)
                .first { $0.prescriptionID == prescriptionID && $0.slot == slot }
            if existing?.status != status {
                try await regimens.log(
                    AdherenceLog(prescriptionID: prescriptionID, day: day, slot: slot, status: status, loggedAt: now),
                    patientID: patientID,
                    now: now,
                    on: db
                )
                try await PatientRepository().markActivity(id: patientID, at: now, on: db)
                try await portal.audit.record(
                    AuditEvent(
                        actor: actor,
                        action: .adherenceLogged,
                        recordType: "patient",
                        recordID: "\(patientID)",
                        origin: origin,
                        detail: "prescription \(prescriptionID), \(day.iso), \(slot): \(status.rawValue)"
                    ),
                    on: db
                )
            }
            return ScheduleEntry(prescription: prescription, day: day, slot: slot, status: status)
        }
    }

    /// Changes her reminder settings, audited.
    static func changeReminders(_ settings: ReminderSettings, patientID: Int64, actor: AuditActor, origin: AuditOrigin, portal: Portal) async throws {
        let now = portal.now
        try await portal.database.transaction { db in
            try await PatientAccountRepository().setReminders(patientID: patientID, settings, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: actor,
                    action: .patientRemindersChanged,
                    recordType: "patient",
                    recordID: "\(patientID)",
                    origin: origin,
                    detail: "\(settings.frequency.rawValue), email \(settings.email ? "on" : "off")"
                ),
                on: db
            )
        }
    }
}

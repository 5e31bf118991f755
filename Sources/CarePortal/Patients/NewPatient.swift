import Foundation
import PortalPlatform

/// A patient the add-patient wizard finishes, checked: her contact details and what she is prescribed.
struct NewPatient: Sendable {
    let contact: PatientContact
    let medications: [PrescribedItem]
    let exercises: [PrescribedItem]
    /// The wizard's draft, forgotten once she is added.
    let draftID: Int64

    static let medicalNumberTaken =
        "You already have a patient with this medical number. Check the number, or find her in your list of patients"

    /// What the physician is told once she is added and her claim token emailed.
    static func added(_ patient: Patient) -> String {
        "\(patient.fullName) has been added. Her claim token for the app has been emailed to \(patient.contact.email); it works for \(PatientAccount.claimLifetimeDays) days."
    }

    /// Adds her in one transaction: her record, her prescriptions from today, her app account with `token`
    /// (emailed to her through the outbox), the audit of both, and the draft forgotten. Throws
    /// `MedicalNumberTaken` when the physician already has a patient with her medical number.
    func add(by physicianID: Int64, token: ClaimToken, actor: AuditActor, origin: AuditOrigin, now: Date, portal: Portal) async throws -> Patient {
        let regimens = RegimenRepository()
        return try await portal.database.transaction { db in
            let patient = try await PatientRepository().create(contact, physicianID: physicianID, now: now, on: db)
            try await regimens.add(medications + exercises, patientID: patient.id, startsOn: CalendarDate(now), by: physicianID, now: now, on: db)
            try await PatientAccountRepository().create(patientID: patient.id, token: token, now: now, on: db)
            let expiresAt = now.addingTimeInterval(PatientAccount.claimLifetime)
            try await portal.outbox.enqueue(.claimToken(patient: patient, token: token, expiresAt: expiresAt, settings: portal.settings), on: db)
            let record = (type: "patient", id: "\(patient.id)")
            let detail = "\(medications.count) medications, \(exercises.count) exercises"
            try await portal.audit.record(
                AuditEvent(actor: actor, action: .patientCreated, recordType: record.type, recordID: record.id, origin: origin, detail: detail),
                on: db
            )
            try await portal.audit.record(
                AuditEvent(actor: actor, action: .claimTokenSent, recordType: record.type, recordID: record.id, origin: origin),
                on: db
            )
            try await regimens.deleteDraft(id: draftID, physicianID: physicianID, on: db)
            return patient
        }
    }
}

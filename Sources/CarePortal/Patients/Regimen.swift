import Foundation
import PortalPlatform
import SQLKit

/// When a prescription is due, and nothing else of it: all a count of scheduled doses needs.
struct DoseSchedule: Sendable, Equatable {
    let patientID: Int64
    /// Day numbers (see `CalendarDate.dayNumber`); `endsOn` is the first day it no longer applies.
    let startsOn: Int
    let endsOn: Int?
    let timesPerDay: Int
    let everyDays: Int

    /// True on the days it applies and is due (every `everyDays` days from its first day).
    func isDue(onDayNumber day: Int) -> Bool {
        guard day >= startsOn else { return false }
        if let endsOn, day >= endsOn { return false }
        return (day - startsOn) % max(1, everyDays) == 0
    }
}

/// One prescribed medication or exercise, in force over a span of days.
///
/// Prescriptions are never changed in place: a change ends the old one and starts a new one the same
/// day, so the history shows what applied on each day.
public struct Prescription: Sendable, Hashable, Identifiable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case medication, exercise

        var title: String { self == .medication ? "Medication" : "Exercise" }
    }

    public var id: Int64
    public var patientID: Int64
    public var kind: Kind
    /// The catalogue entry: a medication or an exercise.
    public var itemID: Int64
    /// Its name and description as the catalogue has them now.
    public var name: String
    public var description: String
    /// The dose of a medication or the amount of an exercise, as prescribed.
    public var dose: String
    public var amountID: Int64?
    public var frequencyID: Int64?
    public var frequencyName: String
    public var timesPerDay: Int
    public var everyDays: Int
    public var note: String
    public var position: Int
    public var startsOn: CalendarDate
    /// The first day it no longer applies; nil while it is current.
    public var endsOn: CalendarDate?
    public var createdAt: Date
    public var createdBy: Int64?
    public var hasIllustration: Bool

    /// True on the days it applies and is due (every `everyDays` days from its first day).
    public func isDue(on day: CalendarDate) -> Bool {
        isDue(onDayNumber: day.dayNumber)
    }

    func isDue(onDayNumber day: Int) -> Bool {
        schedule.isDue(onDayNumber: day)
    }

    var schedule: DoseSchedule {
        DoseSchedule(patientID: patientID, startsOn: startsOn.dayNumber, endsOn: endsOn?.dayNumber, timesPerDay: timesPerDay, everyDays: everyDays)
    }

    func isInForce(on day: CalendarDate) -> Bool {
        day >= startsOn && (endsOn.map { day < $0 } ?? true)
    }

    /// "25/100 mg tablet, Three times daily".
    public var summary: String { "\(dose), \(frequencyName)" }

    /// The same prescription as the wizard and edit pages hold it.
    var row: RegimenRow {
        RegimenRow(
            prescriptionID: id,
            itemID: itemID,
            dose: kind == .medication ? dose : "",
            amountID: amountID,
            frequencyID: frequencyID,
            note: note
        )
    }
}

/// One row of the medications or exercises step as typed: catalogue choices by id, and the note.
struct RegimenRow: Sendable, Equatable, Codable {
    /// The prescription this row shows when editing an existing patient; nil for a new row.
    var prescriptionID: Int64?
    var itemID: Int64?
    /// The medication's dose, as text from its catalogue entry (medications only).
    var dose: String
    /// The exercise's amount (exercises only).
    var amountID: Int64?
    var frequencyID: Int64?
    var note: String

    static let empty = RegimenRow(prescriptionID: nil, itemID: nil, dose: "", amountID: nil, frequencyID: nil, note: "")

    var isBlank: Bool { itemID == nil && dose.isEmpty && amountID == nil && frequencyID == nil && note.isEmpty }
}

/// A row checked against the catalogue: ready to become a prescription.
struct PrescribedItem: Sendable, Equatable {
    var prescriptionID: Int64?
    var kind: Prescription.Kind
    var itemID: Int64
    var dose: String
    var amountID: Int64?
    var frequency: CatalogueFrequency
    var note: String

    /// Whether the prescription `existing` says the same thing, so an edit can leave it alone.
    func sameAs(_ existing: Prescription) -> Bool {
        existing.kind == kind && existing.itemID == itemID && existing.dose == dose && existing.amountID == amountID
            && existing.frequencyID == frequency.id && existing.frequencyName == frequency.name
            && existing.timesPerDay == frequency.timesPerDay && existing.everyDays == frequency.everyDays && existing.note == note
    }
}

enum RegimenRules {
    /// Checks the rows of one step against the catalogue. Blank rows are dropped; every other row must be complete.
    /// Problems are keyed by the field to correct, such as `medication_2`.
    static func check(
        _ rows: [RegimenRow],
        kind: Prescription.Kind,
        catalogue: Catalogue
    ) -> (items: [PrescribedItem], problems: [(field: String, message: String)]) {
        var items: [PrescribedItem] = []
        var problems: [(String, String)] = []
        let noun = kind == .medication ? "medication" : "exercise"
        for (index, row) in rows.enumerated() where !row.isBlank {
            let number = index + 1
            var complete = true
            var chosenMedication: CatalogueMedication?
            if kind == .medication {
                chosenMedication = catalogue.medication(row.itemID)
                if chosenMedication == nil {
                    problems.append(("\(noun)_\(index)", "Choose the medication for row \(number)"))
                    complete = false
                }
                if row.dose.isEmpty {
                    problems.append(("dose_\(index)", "Choose the dose for row \(number)"))
                    complete = false
                } else if let chosenMedication, !chosenMedication.doses.contains(row.dose) {
                    problems.append(("dose_\(index)", "Choose one of the doses of \(chosenMedication.name) for row \(number)"))
                    complete = false
                }
            } else {
                if catalogue.exercise(row.itemID) == nil {
                    problems.append(("\(noun)_\(index)", "Choose the exercise for row \(number)"))
                    complete = false
                }
                if catalogue.amount(row.amountID) == nil {
                    problems.append(("amount_\(index)", "Choose the amount for row \(number)"))
                    complete = false
                }
            }
            let frequency = catalogue.frequency(row.frequencyID)
            if frequency == nil {
                problems.append(("frequency_\(index)", "Choose how often for row \(number)"))
                complete = false
            }
            if row.note.count > PatientRules.noteMaximumLength {
                problems.append(("note_\(index)", "The note for row \(number) must be \(PatientRules.noteMaximumLength) characters or fewer"))
                complete = false
            }
            guard complete, let itemID = row.itemID, let frequency else { continue }
            items.append(
                PrescribedItem(
                    prescriptionID: row.prescriptionID,
                    kind: kind,
                    itemID: itemID,
                    dose: kind == .medication ? row.dose : catalogue.amount(row.amountID)!.name,
                    amountID: kind == .exercise ? row.amountID : nil,
                    frequency: frequency,
                    note: row.note
                )
            )
        }
        return (items, problems)
    }

    /// Reads the rows of a medications or exercises form: `medication_0`, `dose_0`, `frequency_0`, `note_0`…
    static func rows(from form: [String: String], kind: Prescription.Kind) -> [RegimenRow] {
        let count = min(Int(form["rows"] ?? "") ?? 0, PatientRules.maximumRows)
        let itemField = kind == .medication ? "medication" : "exercise"
        return (0..<count).map { index in
            RegimenRow(
                prescriptionID: form["prescription_\(index)"].flatMap { Int64($0) },
                itemID: form["\(itemField)_\(index)"].flatMap { Int64($0) },
                dose: kind == .medication ? (form["dose_\(index)"]?.trimmed ?? "") : "",
                amountID: kind == .exercise ? form["amount_\(index)"].flatMap { Int64($0) } : nil,
                frequencyID: form["frequency_\(index)"].flatMap { Int64($0) },
                note: form["note_\(index)"]?.trimmed ?? ""
            )
        }
    }
}

extension RegimenRules {
    /// What the physician is told once she saved a patient's medications or exercises.
    static func saved(_ kind: Prescription.Kind, of patient: Patient, changes: Int) -> String {
        let noun = kind == .medication ? "medications" : "exercises"
        return changes == 0
            ? "Nothing changed in \(patient.fullName)’s \(noun)."
            : "\(patient.fullName)’s \(noun) are saved. The changes apply from today; her history keeps what applied before."
    }
}

extension RegimenRepository {
    /// Makes `items` her current prescriptions of `kind` from `day`: one the same as a current one keeps it
    /// (moved to its new place in the list), the others start that day, and the current ones left out end.
    /// Returns how many started and how many ended.
    func replace(
        _ kind: Prescription.Kind,
        with items: [PrescribedItem],
        patientID: Int64,
        from day: CalendarDate,
        by accountID: Int64?,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> (started: Int, ended: Int) {
        let current = try await prescriptions(patientID: patientID, on: db).filter { $0.kind == kind && $0.endsOn == nil }
        var kept: Set<Int64> = []
        var added: [PrescribedItem] = []
        for (position, item) in items.enumerated() {
            if let id = item.prescriptionID, let existing = current.first(where: { $0.id == id }), !kept.contains(id), item.sameAs(existing) {
                kept.insert(id)
                if existing.position != position { try await setPosition(id: id, position, on: db) }
            } else {
                added.append(item)
            }
        }
        let ended = current.filter { !kept.contains($0.id) }.map(\.id)
        try await end(ids: ended, patientID: patientID, on: day, by: accountID, now: now, on: db)
        try await add(added, patientID: patientID, startsOn: day, by: accountID, now: now, on: db)
        return (added.count, ended.count)
    }
}

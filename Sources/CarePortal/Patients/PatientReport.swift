import Foundation
import PortalPlatform

/// One patient's prescriptions and adherence over a span of days: what the report page shows and the
/// CSV and PDF exports hold, row for row.
struct PatientReport: Sendable {
    let patient: Patient
    let physicianName: String
    let summary: AdherenceSummary
    /// Prescriptions in force on at least one day of the span.
    let prescriptions: [Prescription]
    let producedAt: Date

    /// The longest span one report covers.
    static let maximumDays = 731

    init(
        patient: Patient,
        physicianName: String,
        prescriptions: [Prescription],
        logs: [AdherenceLog],
        from: CalendarDate,
        through: CalendarDate,
        producedAt: Date
    ) {
        self.patient = patient
        self.physicianName = physicianName
        self.producedAt = producedAt
        summary = AdherenceSummary(prescriptions: prescriptions, logs: logs, from: from, through: through)
        self.prescriptions =
            prescriptions
            .filter { $0.startsOn <= through && ($0.endsOn.map { $0 > from } ?? true) && $0.startsOn != $0.endsOn }
            .sorted {
                ($0.kind == .medication ? 0 : 1, $0.startsOn, $0.position, $0.id) < ($1.kind == .medication ? 0 : 1, $1.startsOn, $1.position, $1.id)
            }
    }

    /// The table's columns, on the page and in the CSV alike.
    static let columns = [
        "Date", "Type", "Medication or exercise", "Dose or amount", "Frequency", "Scheduled", "Done", "Missed", "Not logged", "Adherence"
    ]

    /// One row per prescription per day it was due, with the numbers as text.
    var rows: [[String]] {
        summary.itemDays.map { row in
            [
                row.day.iso, row.prescription.kind.title, row.prescription.name, row.prescription.dose, row.prescription.frequencyName,
                "\(row.count.scheduled)", "\(row.count.done)", "\(row.count.missed)", "\(row.count.notLogged)", row.count.percentText
            ]
        }
    }

    /// "85% (1,234 of 1,450 scheduled doses and sessions done)".
    var overallText: String {
        let total = summary.total
        guard let percent = total.percent else { return "Nothing was scheduled in this period." }
        return
            "\(percent)% — \(total.done) of \(total.scheduled) scheduled doses and sessions done, \(total.missed) missed, \(total.notLogged) not logged."
    }

    var periodText: String { "\(summary.from.displayed) to \(summary.through.displayed)" }

    /// The CSV export: a header, then the rows, escaped by the CSV library.
    func csv() throws -> [UInt8] {
        try CSVExport.bytes(rows: [Self.columns] + rows)
    }

    /// Names the patient by number only: file names travel where the record does not.
    var fileName: String { "patient-\(patient.id)-report-\(summary.from.iso)-to-\(summary.through.iso)" }
}

import Foundation
import PortalPlatform
import SQLKit

extension PatientDetails {
    /// What the patient page reads of her record, in one read.
    struct Record: Sendable {
        let account: PatientAccount?
        let prescriptions: [Prescription]
        /// Where her charts for these days are kept, and what was kept there (nil: they are drawn again).
        let chartsKey: AdherenceKey<PatientCharts.Question>
        let keptCharts: PatientCharts?
        /// Her logs over the span and the month, read only when the charts are drawn again.
        let logs: [AdherenceLog]
        let recent: [AdherenceLog]
        let physicianName: String?
        /// Every physician, for an administrator to move her to another; empty for a physician.
        let physicians: [(id: Int64, name: String)]
    }

    static func load(
        _ patient: Patient,
        days: PatientCharts.Days,
        withPhysicians: Bool,
        charts: PatientChartsCache,
        on db: any SQLDatabase
    ) async throws -> Record {
        let regimens = RegimenRepository(), patients = PatientRepository()
        let prescriptions = try await regimens.prescriptions(patientID: patient.id, on: db)
        // The charts are drawn again only when her logs or prescriptions changed since they were
        // last drawn for these days (her version was read above, before her logs are).
        let chartsKey = AdherenceKey(patient, PatientCharts.Question(prescriptions: prescriptions, days: days))
        let keptCharts = charts.value(for: chartsKey)
        return Record(
            account: try await PatientAccountRepository().find(patientID: patient.id, on: db),
            prescriptions: prescriptions,
            chartsKey: chartsKey,
            keptCharts: keptCharts,
            logs: keptCharts == nil ? try await regimens.logs(patientID: patient.id, from: days.firstRead, through: days.lastRead, on: db) : [],
            recent: try await regimens.recentLogs(patientID: patient.id, limit: 10, on: db),
            physicianName: try await patients.physicianNames(ids: [patient.physicianID], on: db)[patient.physicianID],
            physicians: withPhysicians ? try await patients.physicians(on: db) : []
        )
    }
}

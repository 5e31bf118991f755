import Foundation
import PortalPlatform

extension PatientCharts {
    /// Her charts for `days`, drawn from her prescriptions and her logs over them; the calendar's month
    /// links keep the span as the address at `path` gave it.
    init(_ days: Days, prescriptions: [Prescription], logs: [AdherenceLog], path: String, pages: PageRenderer) {
        let summary = AdherenceSummary(prescriptions: prescriptions, logs: logs, from: days.range.from, through: days.range.through)
        let month = days.month
        let monthSummary = AdherenceSummary(
            prescriptions: prescriptions,
            logs: logs,
            from: month.firstOfMonth,
            through: min(month.lastOfMonth, days.today)
        )
        func monthPath(_ date: CalendarDate) -> String {
            ListAddress(path: path, parameters: [("from", days.requestedFrom), ("to", days.requestedTo), ("month", date.monthKey)]).string
        }
        self.init(
            adherence: AdherenceFigures(summary, pages: pages),
            calendar: pages.html(
                AdherenceCalendar(
                    month: month,
                    summary: monthSummary,
                    today: days.today,
                    previousPath: monthPath(month.adding(months: -1)),
                    nextPath: month.adding(months: 1) <= days.today ? monthPath(month.adding(months: 1)) : nil
                )
            ),
            overall: summary.total.percent.map { "\($0)% of \(summary.total.scheduled) scheduled doses and sessions done" } ?? "Nothing was due"
        )
    }
}

extension PatientDetails {
    /// What the claim of her app account has come to, in words for the physician.
    static func claimDetail(_ claim: ClaimStatus, account: PatientAccount?) -> String {
        switch claim {
        case .claimed: "Claimed \(account?.claimedAt.map(DisplayTime.dateTime) ?? "") with the username \(account?.username ?? "")."
        case .waiting:
            "Token emailed \(account?.claimSentAt.map(DisplayTime.dateTime) ?? ""); it works until \(account?.claimExpiresAt.map(DisplayTime.dateTime) ?? "")."
        case .expired:
            "The token emailed \(account?.claimSentAt.map(DisplayTime.dateTime) ?? "") expired \(account?.claimExpiresAt.map(DisplayTime.dateTime) ?? ""). Send a new one."
        case .revoked: "No claim token works now. Send a new one when she is ready to use the app."
        }
    }

    /// The page of `patient` as `role` sees it: a physician may change her prescriptions, an
    /// administrator may move her to another physician.
    init(
        _ patient: Patient,
        record: Record,
        charts: PatientCharts,
        days: PatientCharts.Days,
        role: StaffRole?,
        csrfToken: String,
        now: Date
    ) {
        let claim = record.account?.claimStatus(at: now) ?? .revoked
        let current = record.prescriptions.filter { $0.endsOn == nil }
        let byID = Dictionary(uniqueKeysWithValues: record.prescriptions.map { ($0.id, $0) })
        let canPrescribe = role == .physician, isAdministrator = role == .administrator
        let range = days.range
        self.init(
            csrfToken: csrfToken,
            name: patient.fullName,
            contact: [
                .init(key: "Medical number", value: patient.contact.medicalNumber),
                .init(key: "Email address", value: patient.contact.email),
                .init(key: "Phone number", value: patient.contact.phone),
                .init(key: "Address", value: patient.contact.address),
                .init(key: "Added", value: DisplayTime.dateTime(patient.createdAt)),
                .init(key: "Last activity", value: patient.lastActivityAt.map(DisplayTime.dateTime) ?? "None yet")
            ],
            physician: record.physicianName ?? "Unknown",
            claimStatus: claim.title,
            claimTag: claim.tagClass,
            claimDetail: Self.claimDetail(claim, account: record.account),
            resendPath: claim == .claimed ? nil : SiteURL.patientClaimResend(patient.id).path,
            revokePath: claim == .waiting ? SiteURL.patientClaimRevoke(patient.id).path : nil,
            medications: current.filter { $0.kind == .medication }.map(PrescriptionView.init),
            exercises: current.filter { $0.kind == .exercise }.map(PrescriptionView.init),
            adherence: charts.adherence,
            calendar: charts.calendar,
            rangeFrom: range.from.iso,
            rangeTo: range.through.iso,
            rangeError: range.error,
            overall: charts.overall,
            activity: record.recent.map { log in
                let prescription = byID[log.prescriptionID]
                return ActivityRow(
                    when: log.loggedAt.map(DisplayTime.dateTime) ?? "",
                    day: log.day.displayed,
                    what: prescription.map { "\($0.name), \($0.dose) (\(log.slot) of \($0.timesPerDay))" } ?? "An ended prescription",
                    status: log.status == .done ? "Done" : "Missed"
                )
            },
            editContactPath: SiteURL.editPatientContact(patient.id).path,
            editMedicationsPath: canPrescribe ? SiteURL.editPatientMedications(patient.id).path : nil,
            editExercisesPath: canPrescribe ? SiteURL.editPatientExercises(patient.id).path : nil,
            historyPath: SiteURL.patientHistory(patient.id).path,
            reportPath: ListAddress(path: SiteURL.patientReport(patient.id).path, parameters: [("from", range.from.iso), ("to", range.through.iso)])
                .string,
            removePath: SiteURL.patientRemove(patient.id).path,
            reassignPath: isAdministrator ? SiteURL.patientReassign(patient.id).path : nil,
            physicianOptions: record.physicians.map { SelectOption(value: "\($0.id)", title: $0.name, isSelected: $0.id == patient.physicianID) },
            path: SiteURL.patient(patient.id).path
        )
    }
}

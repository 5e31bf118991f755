import Foundation
import PortalPlatform
import SQLKit

/// Physicians' patients: the list, the three-step wizard, the patient page with its charts and
/// reports, the patient app's API, and the reminder emails. Holds the patients' caches.
struct PatientsFeature: PortalFeature {
    static let program: Program? = .physiciansPractice
    static let navigation = [
        NavigationItem(title: "Patients", path: SiteURL.patients.path, access: PatientsController.access, group: .clinical)
    ]
    static let auditActions: [AuditAction] = [
        .patientCreated, .patientViewed, .patientContactChanged, .patientRegimenChanged, .patientReassigned, .patientRemoved, .patientReportExported,
        .claimTokenSent, .claimTokenRevoked, .patientAccountClaimed, .adherenceLogged, .patientRemindersChanged
    ]
    static let templates: [TemplateName] = [
        .patients, .patientRow, .patientContact, .patientRegimen, .patientCancelDraft, .patient, .patientDetails, .patientChartCalendar,
        .patientHistory, .patientRemove, .patientReport, .appPatientDay, .appPatientProgress,
        .appPatientReminders, .appPatientDoctor, .appPatientClaim, .appPatientClaimAccount
    ]
    static let appAccounts: [AppAccountKind] = [.patient]
    static let appParts = [
        AppPart(
            kind: .patient,
            title: "Patients of a physician",
            summary: "Your medicines and exercises for today, what you have done, and your reminders.",
            demoIdentifier: "demo.patient1"
        )
    ]
    let portal: Portal
    let caches = PatientCaches()

    func addRoutes(to routes: inout PortalRoutes) throws {
        try ReportFonts.check()
        PatientsController(portal: portal, caches: caches).addRoutes(to: &routes)
        PatientWizardController(portal: portal).addRoutes(to: &routes)
        PatientAPIController(portal: portal).addRoutes(to: &routes)
        PatientAppController(portal: portal).addRoutes(to: &routes)
    }

    var jobs: [BackgroundJob] {
        let reminders = PatientReminders(portal: portal)
        return [BackgroundJob("Patient reminders", every: PatientReminders.interval) { try await reminders.sendDue() }]
    }

    static func homeCards(for staff: StaffAccount, portal: Portal) async throws -> [HomeCard] {
        switch staff.role {
        case .physician:
            try await portal.database.read { db in
                let patients = try await PatientRepository().count(physicianID: staff.id, on: db)
                let drafts = try await RegimenRepository().draftCount(physicianID: staff.id, on: db)
                return [
                    HomeCard(
                        title: "Patients",
                        path: SiteURL.patients.path,
                        body: "See your patients, add a new patient and download their reports.",
                        figures: [
                            HomeFigure(label: "Your patients", value: patients),
                            HomeFigure(
                                label: "New patients not finished",
                                value: drafts,
                                detail: drafts == 0 ? nil : "Drafts you started are listed on the Patients page.",
                                needsAttention: drafts > 0
                            )
                        ]
                    )
                ]
            }
        case .administrator:
            [
                HomeCard(
                    title: "Patients",
                    path: SiteURL.patients.path,
                    body: "See every physician's patients and move a patient to another physician."
                )
            ]
        default:
            []
        }
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        guard let physician = demo.account(.physician) else { return }
        try await demo.seedPatients(physicianID: physician.id, on: db)
    }
}

/// The patients' caches, each kept under a version the database raises whenever a patient's logs or prescriptions change.
struct PatientCaches: Sendable {
    let recentAdherence = RecentAdherenceCache(budget: 20_000)
    let charts = PatientChartsCache(budget: 2_000)
}

extension TemplateName {
    static let patients = TemplateName("patients/list")
    static let patientRow = TemplateName("patients/row")
    static let patientContact = TemplateName("patients/contact")
    static let patientRegimen = TemplateName("patients/regimen")
    static let patientCancelDraft = TemplateName("patients/cancel-draft")
    static let patient = TemplateName("patients/patient")
    static let patientDetails = TemplateName("patients/patient-details")
    static let patientChartCalendar = TemplateName("patients/chart-calendar")
    static let patientHistory = TemplateName("patients/history")
    static let patientRemove = TemplateName("patients/remove")
    static let patientReport = TemplateName("patients/report")
}

extension AuditAction {
    static let patientCreated = AuditAction("patient_created", title: "Patient added")
    static let patientViewed = AuditAction("patient_viewed", title: "Patient record viewed")
    static let patientContactChanged = AuditAction("patient_contact_changed", title: "Patient contact details changed")
    static let patientRegimenChanged = AuditAction("patient_regimen_changed", title: "Patient prescriptions changed")
    static let patientReassigned = AuditAction("patient_reassigned", title: "Patient moved to another physician")
    static let patientRemoved = AuditAction("patient_removed", title: "Patient removed")
    static let patientReportExported = AuditAction("patient_report_exported", title: "Patient report exported")
    static let claimTokenSent = AuditAction("claim_token_sent", title: "App claim token emailed")
    static let claimTokenRevoked = AuditAction("claim_token_revoked", title: "App claim token revoked")
    static let patientAccountClaimed = AuditAction("patient_account_claimed", title: "Patient app account claimed")
    static let adherenceLogged = AuditAction("adherence_logged", title: "Patient logged a dose or exercise")
    static let patientRemindersChanged = AuditAction("patient_reminders_changed", title: "Patient reminder settings changed")
}

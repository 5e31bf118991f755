import Foundation
import PortalPlatform

/// One patient in the list.
struct PatientRow: Fragment {
    static let template = TemplateName.patientRow

    let fullName: String
    let lastName: String
    let firstName: String
    let medicalNumber: String
    let lastActivity: String
    let adherence: String
    let physician: String?
    let viewPath: String
    let editPath: String
    let removePath: String
}

/// A draft of the add-patient wizard waiting to be finished.
struct DraftLink: Sendable, Encodable {
    let name: String
    let step: String
    let saved: String
    let path: String
    let discardPath: String
}

struct PatientsPage: Page {
    static let template = TemplateName.patients
    let layout: Layout
    let isAdministrator: Bool
    let search: String
    let lastNameHeader: SortableHeader
    let numberHeader: SortableHeader
    /// The rendered `PatientRow`s.
    let rows: FragmentList
    /// The rendered `PaginationView`.
    let pagination: RenderedHTML
    let isFiltered: Bool
    let drafts: [DraftLink]
    let draftSummary: String?
    let action = SiteURL.patients.path
    let newPatientPath = SiteURL.newPatient.path
}

/// The step indicator: 1 Contact · 2 Medications · 3 Exercises.
struct WizardStep: Sendable, Encodable {
    let number: Int
    let title: String
    let isCurrent: Bool
    let isDone: Bool
    let state: String

    static func all(current: PatientDraft.Step) -> [WizardStep] {
        PatientDraft.Step.allCases.map { step in
            let isCurrent = step == current, isDone = step.number < current.number
            return WizardStep(
                number: step.number,
                title: step.title,
                isCurrent: isCurrent,
                isDone: isDone,
                state: isCurrent ? "current step" : isDone ? "done" : "not started"
            )
        }
    }
}

/// The Contact step of the wizard and the page that changes a patient's contact details.
struct PatientContactPage: Page {
    static let template = TemplateName.patientContact
    let layout: Layout
    let heading: String
    let caption: String
    /// The wizard's steps; empty when changing an existing patient.
    let steps: [WizardStep]
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let addressField: FormField
    let action: String
    let isWizard: Bool
    let cancelPath: String
    let tabs: [EditTab]
}

/// A choice in a select: catalogue entries by id or doses by name.
struct SelectOption: Sendable, Hashable, Encodable {
    let value: String
    let title: String
    let isSelected: Bool
}

/// Doses grouped by their medication, so one select offers each medication's own doses.
struct SelectGroup: Sendable, Encodable {
    let label: String
    let options: [SelectOption]
}

/// A select as the template shows it, with its error beside it.
struct SelectField: Sendable, Encodable {
    let name: String
    let label: String
    let options: [SelectOption]
    let groups: [SelectGroup]
    let error: String?
    let hasError: Bool
    let describedBy: String?

    init(_ name: String, label: String, placeholder: String, options: [SelectOption] = [], groups: [SelectGroup] = [], error: String?) {
        self.name = name
        self.label = label
        let anySelected = options.contains(where: \.isSelected) || groups.contains { $0.options.contains(where: \.isSelected) }
        self.options = [SelectOption(value: "", title: placeholder, isSelected: !anySelected)] + options
        self.groups = groups
        self.error = error
        hasError = error != nil
        describedBy = error == nil ? nil : "\(name)-error"
    }
}

/// One medication or exercise row of the wizard or the edit page.
struct RegimenRowView: Sendable, Encodable {
    let index: Int
    let number: Int
    let prescriptionID: String?
    let item: SelectField
    /// The dose (medications) or amount (exercises).
    let quantity: SelectField
    let frequency: SelectField
    let note: FormField
    let noteIsOpen: Bool
    let removeValue: String
    let kindNoun: String
}

/// The Medications or Exercises step of the wizard, and the pages that change a patient's prescriptions.
struct PatientRegimenPage: Page {
    static let template = TemplateName.patientRegimen
    let layout: Layout
    let heading: String
    let caption: String
    let intro: String
    let steps: [WizardStep]
    let errors: [FormErrors.Item]
    let rows: [RegimenRowView]
    let rowCount: Int
    let addTitle: String
    let action: String
    let isWizard: Bool
    let isLastStep: Bool
    let nextTitle: String
    let cancelPath: String
    let tabs: [EditTab]
    let catalogueIsEmpty: Bool
}

/// The tabs of the edit pages: Contact · Medications · Exercises.
struct EditTab: Sendable, Encodable {
    let title: String
    let path: String
    let isCurrent: Bool

    static func all(patientID: Int64, current: PatientDraft.Step, canPrescribe: Bool) -> [EditTab] {
        [
            EditTab(title: "Contact details", path: SiteURL.editPatientContact(patientID).path, isCurrent: current == .contact)
        ]
            + (canPrescribe
                ? [
                    EditTab(title: "Medications", path: SiteURL.editPatientMedications(patientID).path, isCurrent: current == .medications),
                    EditTab(title: "Exercises", path: SiteURL.editPatientExercises(patientID).path, isCurrent: current == .exercises)
                ] : [])
    }
}

/// "Are you sure?" before a draft is discarded.
struct CancelDraftPage: Page {
    static let template = TemplateName.patientCancelDraft
    let layout: Layout
    let name: String
    let action: String
    let backPath: String
}

/// A prescription as the patient page and history show it.
struct PrescriptionView: Sendable, Hashable, Encodable {
    let kind: String
    let name: String
    let dose: String
    let frequency: String
    /// Nil without a note, so the template shows nothing.
    let note: String?
    let from: String
    let until: String
    let isCurrent: Bool
    let illustrationPath: String?

    init(_ prescription: Prescription) {
        kind = prescription.kind.title
        name = prescription.name
        dose = prescription.dose
        frequency = prescription.frequencyName
        note = prescription.note.isEmpty ? nil : prescription.note
        from = prescription.startsOn.displayed
        until = prescription.endsOn.map { CalendarDate(dayNumber: $0.dayNumber - 1).displayed } ?? "Now"
        isCurrent = prescription.endsOn == nil
        illustrationPath = prescription.hasIllustration ? SiteURL.catalogueIllustration(prescription.itemID).path : nil
    }
}

struct ActivityRow: Sendable, Hashable, Encodable {
    let when: String
    let day: String
    let what: String
    let status: String
}

struct PatientPage: Page {
    static let template = TemplateName.patient
    let layout: Layout
    /// The rendered `PatientDetails`.
    let details: RenderedHTML
}

/// Everything on the patient page below the site header: a fragment, so a page shown again as it
/// was is not rendered again.
struct PatientDetails: Fragment {
    static let template = TemplateName.patientDetails
    /// The signed-in user's form token, for the page's forms.
    let csrfToken: String
    let name: String
    let contact: [SummaryListRow]
    let physician: String
    let claimStatus: String
    let claimTag: String
    let claimDetail: String
    let resendPath: String?
    let revokePath: String?
    let medications: [PrescriptionView]
    let exercises: [PrescriptionView]
    let adherence: AdherenceFigures
    /// The rendered `AdherenceCalendar`.
    let calendar: RenderedHTML
    let rangeFrom: String
    let rangeTo: String
    let rangeError: String?
    let overall: String
    let activity: [ActivityRow]
    let editContactPath: String
    let editMedicationsPath: String?
    let editExercisesPath: String?
    let historyPath: String
    let reportPath: String
    let removePath: String
    let reassignPath: String?
    let physicianOptions: [SelectOption]
    let path: String
    let listPath = SiteURL.patients.path
}

struct RegimenHistoryPage: Page {
    struct Change: Sendable, Encodable {
        let day: String
        let started: [PrescriptionView]
        let ended: [PrescriptionView]
    }

    static let template = TemplateName.patientHistory
    let layout: Layout
    let name: String
    let changes: [Change]
    let patientPath: String
}

struct RemovePatientPage: Page {
    static let template = TemplateName.patientRemove
    let layout: Layout
    let name: String
    let lastName: String
    let errors: [FormErrors.Item]
    let confirmation: FormField
    let action: String
    let patientPath: String
}

struct PatientReportPage: Page {
    struct Row: Sendable, Encodable {
        let date: String
        let kind: String
        let item: String
        let dose: String
        let frequency: String
        let scheduled: Int
        let done: Int
        let missed: Int
        let notLogged: Int
        let adherence: String
    }

    static let template = TemplateName.patientReport
    let layout: Layout
    let name: String
    let rangeFrom: String
    let rangeTo: String
    let rangeError: String?
    let overall: String
    let prescriptions: [PrescriptionView]
    let adherence: AdherenceFigures
    let headers: [String]
    let rows: [Row]
    let csvPath: String
    let pdfPath: String
    let action: String
    let patientPath: String
}

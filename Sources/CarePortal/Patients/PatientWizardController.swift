import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// The add-patient wizard (seed 3.16, 5.1): Contact → Medications → Exercises → Finish, each step its
/// own page, saved on the server as a draft every time a button is pressed.
struct PatientWizardController {
    /// Physicians add their own patients; the new patient is theirs.
    static let access = Access.staff([.physician])
    let portal: Portal
    let regimens = RegimenRepository()
    let catalogue = CatalogueRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.newPatient.pattern, access: Self.access, newContact)
        routes.post(SiteURL.newPatient.pattern, access: Self.access, submitNewContact)
        routes.get(SiteURL.pattern(SiteURL.patientDraftContact), access: Self.access) { try await showStep(.contact, $0, $1) }
        routes.post(SiteURL.pattern(SiteURL.patientDraftContact), access: Self.access, submitContact)
        routes.get(SiteURL.pattern(SiteURL.patientDraftMedications), access: Self.access) { try await showStep(.medications, $0, $1) }
        routes.post(SiteURL.pattern(SiteURL.patientDraftMedications), access: Self.access) { try await submitRegimen(.medications, $0, $1) }
        routes.get(SiteURL.pattern(SiteURL.patientDraftExercises), access: Self.access) { try await showStep(.exercises, $0, $1) }
        routes.post(SiteURL.pattern(SiteURL.patientDraftExercises), access: Self.access) { try await submitRegimen(.exercises, $0, $1) }
        routes.get(SiteURL.pattern(SiteURL.patientDraftCancel), access: Self.access, confirmCancel)
        routes.post(SiteURL.pattern(SiteURL.patientDraftCancel), access: Self.access, cancel)
    }

    private static let title = "Add a new patient"

    private func physician(_ context: PortalContext) throws -> StaffAccount {
        guard let staff = context.staff, staff.role == .physician else { throw AccessDenied() }
        return staff
    }

    /// The physician's own draft; another physician's draft is simply not found.
    private func draft(_ context: PortalContext) async throws -> PatientDraft {
        let id = try context.parameters.recordID()
        let physician = try physician(context)
        guard let draft = try await portal.database.read({ db in try await regimens.draft(id: id, physicianID: physician.id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return draft
    }

    private func save(_ draft: PatientDraft, context: PortalContext) async throws {
        let physician = try physician(context)
        let now = portal.now
        try await portal.database.transaction { db in try await regimens.saveDraft(draft, physicianID: physician.id, now: now, on: db) }
    }

    // MARK: Contact

    @Sendable func newContact(request: Request, context: PortalContext) async throws -> Response {
        contactPage(values: [:], errors: FormErrors(), action: .newPatient, cancel: .patients, context: context)
    }

    /// The draft's contact step again, with what to fix.
    private func contactPage(of draft: PatientDraft, errors: FormErrors, context: PortalContext) -> Response {
        contactPage(
            values: draft.contact,
            errors: errors,
            action: .patientDraftContact(draft.id),
            cancel: .patientDraftCancel(draft.id),
            context: context
        )
    }

    private func contactPage(values: [String: String], errors: FormErrors, action: SiteURL, cancel: SiteURL, context: PortalContext) -> Response {
        let (fields, address) = PatientForms.contactFields(values, errors: errors)
        return portal.pages.response(
            PatientContactPage(
                layout: portal.layout(Self.title, context: context, current: .patients),
                heading: "Contact details",
                caption: Self.title,
                steps: WizardStep.all(current: .contact),
                errors: errors.items,
                fields: fields,
                addressField: address,
                action: action.path,
                isWizard: true,
                cancelPath: cancel.path,
                tabs: []
            ),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    /// The first Next, Back or Cancel makes the draft; nothing is saved before something is typed.
    @Sendable func submitNewContact(request: Request, context: PortalContext) async throws -> Response {
        let physician = try physician(context)
        let form = try await request.formFields(context: context)
        var draft = PatientDraft()
        draft.contact = PatientForms.contactValues(form)
        let action = FormAction(form["action"])
        if draft.isEmpty, action == .back || action == .cancel { return seeOther(.patients) }
        let now = portal.now
        draft.id = try await portal.database.transaction { [draft] db in
            try await regimens.createDraft(physicianID: physician.id, draft, now: now, on: db)
        }
        return try await afterContact(draft, action: action, context: context)
    }

    @Sendable func submitContact(request: Request, context: PortalContext) async throws -> Response {
        var draft = try await draft(context)
        let form = try await request.formFields(context: context)
        draft.contact = PatientForms.contactValues(form)
        try await save(draft, context: context)
        return try await afterContact(draft, action: FormAction(form["action"]), context: context)
    }

    private func afterContact(_ draft: PatientDraft, action: FormAction, context: PortalContext) async throws -> Response {
        switch action {
        case .back:
            try await portal.flash(Flash(.info, "Your new patient is saved as a draft. Carry on from the list of patients."), context: context)
            return seeOther(.patients)
        case .cancel:
            return seeOther(.patientDraftCancel(draft.id))
        default:
            let errors = PatientForms.checkContact(draft.contact)
            guard errors.isEmpty else {
                return contactPage(of: draft, errors: errors, context: context)
            }
            var moved = draft
            moved.step = max(draft.step, .medications)
            try await save(moved, context: context)
            return seeOther(.patientDraftMedications(draft.id))
        }
    }

    // MARK: Medications and exercises

    @Sendable func showStep(_ step: PatientDraft.Step, _ request: Request, _ context: PortalContext) async throws -> Response {
        let draft = try await draft(context)
        if step == .contact {
            return contactPage(of: draft, errors: FormErrors(), context: context)
        }
        let all = try await portal.database.read { db in try await catalogue.all(on: db) }
        return regimenPage(step, draft: draft, catalogue: all, errors: FormErrors(), context: context)
    }

    private func regimenPage(
        _ step: PatientDraft.Step,
        draft: PatientDraft,
        catalogue: Catalogue,
        errors: FormErrors,
        context: PortalContext
    ) -> Response {
        let kind: Prescription.Kind = step == .medications ? .medication : .exercise
        let rows = step == .medications ? draft.medications : draft.exercises
        return portal.pages.response(
            PatientRegimenPage(
                layout: portal.layout(Self.title, context: context, current: .patients),
                heading: step.title,
                caption: "\(Self.title): \(draft.displayName)",
                intro: kind == .medication
                    ? "Choose each medication, its dose and how often she takes it. Leave a row empty to skip it."
                    : "Choose each exercise, how much and how often she does it. Leave a row empty to skip it.",
                steps: WizardStep.all(current: step),
                errors: errors.items,
                rows: PatientForms.rowViews(rows, kind: kind, catalogue: catalogue, errors: errors),
                rowCount: rows.count,
                addTitle: kind == .medication ? "Add another medication" : "Add another exercise",
                action: step.url(draftID: draft.id).path,
                isWizard: true,
                isLastStep: step == .exercises,
                nextTitle: step == .exercises ? "Finish" : "Next",
                cancelPath: SiteURL.patientDraftCancel(draft.id).path,
                tabs: [],
                catalogueIsEmpty: kind == .medication ? catalogue.medications.isEmpty : catalogue.exercises.isEmpty
            ),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    func submitRegimen(_ step: PatientDraft.Step, _ request: Request, _ context: PortalContext) async throws -> Response {
        var draft = try await draft(context)
        let form = try await request.formFields(context: context)
        let kind: Prescription.Kind = step == .medications ? .medication : .exercise
        let action = FormAction(form["action"])
        let rows = PatientForms.apply(action, to: RegimenRules.rows(from: form, kind: kind))
        if step == .medications { draft.medications = rows } else { draft.exercises = rows }
        try await save(draft, context: context)
        switch action {
        case .add, .remove:
            return seeOther(step.url(draftID: draft.id))
        case .back:
            return seeOther(step == .medications ? .patientDraftContact(draft.id) : .patientDraftMedications(draft.id))
        case .cancel:
            return seeOther(.patientDraftCancel(draft.id))
        case .next, .save:
            let all = try await portal.database.read { db in try await catalogue.all(on: db) }
            let (_, problems) = RegimenRules.check(rows, kind: kind, catalogue: all)
            guard problems.isEmpty else {
                return regimenPage(step, draft: draft, catalogue: all, errors: PatientForms.errors(problems), context: context)
            }
            if step == .medications {
                draft.step = max(draft.step, .exercises)
                try await save(draft, context: context)
                return seeOther(.patientDraftExercises(draft.id))
            }
            return try await finish(draft, catalogue: all, request: request, context: context)
        }
    }

    // MARK: Finish

    /// Creates the patient, her prescriptions and her app account, and emails her claim token.
    private func finish(_ draft: PatientDraft, catalogue: Catalogue, request: Request, context: PortalContext) async throws -> Response {
        let physician = try physician(context)
        // Everything is checked again: the draft may be old and the catalogue may have changed.
        let contactErrors = PatientForms.checkContact(draft.contact)
        guard contactErrors.isEmpty else { return contactPage(of: draft, errors: contactErrors, context: context) }
        let medications = RegimenRules.check(draft.medications, kind: .medication, catalogue: catalogue)
        guard medications.problems.isEmpty else {
            return regimenPage(.medications, draft: draft, catalogue: catalogue, errors: PatientForms.errors(medications.problems), context: context)
        }
        let exercises = RegimenRules.check(draft.exercises, kind: .exercise, catalogue: catalogue)
        let new = NewPatient(
            contact: PatientRules.contact(draft.contact),
            medications: medications.items,
            exercises: exercises.items,
            draftID: draft.id
        )
        let (origin, now) = (portal.origin(of: request, context: context), portal.now)
        let token = ClaimToken(randomBytes: portal.dependencies.randomBytes)
        let patient: Patient
        do {
            patient = try await new.add(by: physician.id, token: token, actor: context.auditActor, origin: origin, now: now, portal: portal)
        } catch is MedicalNumberTaken {
            var back = draft
            back.step = .contact
            try await save(back, context: context)
            return contactPage(of: draft, errors: .one("medical_number", NewPatient.medicalNumberTaken), context: context)
        }
        guard portal.deliversMail else {
            return PatientClaimShownOnce(portal: portal).page(
                patient,
                token: token,
                expiresAt: now.addingTimeInterval(PatientAccount.claimLifetime),
                heading: "\(patient.fullName) has been added",
                earlier: nil,
                context: context
            )
        }
        try await portal.flash(Flash(.success, NewPatient.added(patient)), context: context)
        return seeOther(.patient(patient.id))
    }

    // MARK: Cancel

    @Sendable func confirmCancel(request: Request, context: PortalContext) async throws -> Response {
        let draft = try await draft(context)
        return portal.pages.response(
            CancelDraftPage(
                layout: portal.layout("Discard this new patient?", context: context, current: .patients),
                name: draft.displayName,
                action: SiteURL.patientDraftCancel(draft.id).path,
                backPath: draft.step.url(draftID: draft.id).path
            )
        )
    }

    @Sendable func cancel(request: Request, context: PortalContext) async throws -> Response {
        let draft = try await draft(context)
        let physician = try physician(context)
        try await portal.database.transaction { db in try await regimens.deleteDraft(id: draft.id, physicianID: physician.id, on: db) }
        try await portal.flash(
            Flash(.success, "The new patient \(draft.displayName == "No name yet" ? "" : "\(draft.displayName) ")was discarded."),
            context: context
        )
        return seeOther(.patients)
    }
}

extension PatientDraft.Step: Comparable {
    static func < (lhs: Self, rhs: Self) -> Bool { lhs.number < rhs.number }
}

import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import PortalPlatform
import SQLKit

/// Physicians' patients (seed 3.15, 3.17, 3.18): the list, the patient page with adherence charts,
/// changes to contact details and prescriptions kept as a dated history, removal, the app account's
/// claim token, and reports. A physician opens only her own patients; administrators open anyone's
/// and move patients between physicians. Every read and change of a patient's record is audited.
struct PatientsController {
    static let access = Access.staff([.physician, .administrator])
    /// Prescribing is for physicians; administrators see what was prescribed.
    static let prescribingAccess = Access.staff([.physician])
    static let reassignAccess = Access.administrators
    let portal: Portal
    let caches: PatientCaches
    let patients = PatientRepository()
    let accounts = PatientAccountRepository()
    let regimens = RegimenRepository()
    let catalogue = CatalogueRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.patients.pattern, access: Self.access, list)
        routes.get(SiteURL.pattern(SiteURL.patient), access: Self.access, show)
        routes.get(SiteURL.pattern(SiteURL.editPatientContact), access: Self.access, editContact)
        routes.post(SiteURL.pattern(SiteURL.editPatientContact), access: Self.access, saveContact)
        routes.get(SiteURL.pattern(SiteURL.editPatientMedications), access: Self.prescribingAccess) { try await editRegimen(.medication, $0, $1) }
        routes.post(SiteURL.pattern(SiteURL.editPatientMedications), access: Self.prescribingAccess) { try await saveRegimen(.medication, $0, $1) }
        routes.get(SiteURL.pattern(SiteURL.editPatientExercises), access: Self.prescribingAccess) { try await editRegimen(.exercise, $0, $1) }
        routes.post(SiteURL.pattern(SiteURL.editPatientExercises), access: Self.prescribingAccess) { try await saveRegimen(.exercise, $0, $1) }
        routes.get(SiteURL.pattern(SiteURL.patientHistory), access: Self.access, history)
        routes.get(SiteURL.pattern(SiteURL.patientRemove), access: Self.access, confirmRemove)
        routes.post(SiteURL.pattern(SiteURL.patientRemove), access: Self.access, remove)
        routes.post(SiteURL.pattern(SiteURL.patientReassign), access: Self.reassignAccess, reassign)
        routes.post(SiteURL.pattern(SiteURL.patientClaimResend), access: Self.access, resendClaim)
        routes.post(SiteURL.pattern(SiteURL.patientClaimRevoke), access: Self.access, revokeClaim)
        routes.get(SiteURL.pattern(SiteURL.patientReport), access: Self.access, report)
        routes.get(SiteURL.pattern(SiteURL.patientReportCSV), access: Self.access, reportCSV)
        routes.get(SiteURL.pattern(SiteURL.patientReportPDF), access: Self.access, reportPDF)
    }

    // MARK: Who may open a patient

    /// A physician opens her own patients; an administrator anyone's.
    static func may(_ staff: StaffAccount?, open patient: Patient) -> Bool {
        guard let staff else { return false }
        return staff.role == .administrator || (staff.role == .physician && patient.physicianID == staff.id)
    }

    private struct NotYourPatient: Error {}

    /// Audits an attempt on another physician's patient; the person is told only that nothing is there.
    private func refuse(_ id: Int64, request: Request, context: PortalContext) async throws -> Never {
        try await portal.database.write { db in
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .accessDenied,
                    recordType: "patient",
                    recordID: "\(id)",
                    outcome: .denied,
                    origin: portal.origin(of: request, context: context),
                    detail: "not this physician's patient"
                ),
                on: db
            )
        }
        throw HTTPError(.notFound)
    }

    /// The patient the route names, if this person may open her.
    private func openPatient(request: Request, context: PortalContext) async throws -> Patient {
        let id = try context.parameters.recordID()
        guard let patient = try await portal.database.read({ db in try await patients.find(id: id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        guard Self.may(context.staff, open: patient) else { try await refuse(id, request: request, context: context) }
        return patient
    }

    /// Runs `body` in a transaction on the patient the route names, checked again inside it.
    private func changePatient<T: Sendable>(
        request: Request,
        context: PortalContext,
        _ body: @Sendable (Patient, any SQLDatabase) async throws -> T
    ) async throws -> T {
        let id = try context.parameters.recordID()
        do {
            return try await portal.database.transaction { db in
                guard let patient = try await patients.find(id: id, on: db) else { throw HTTPError(.notFound) }
                guard Self.may(context.staff, open: patient) else { throw NotYourPatient() }
                return try await body(patient, db)
            }
        } catch is NotYourPatient {
            try await refuse(id, request: request, context: context)
        }
    }

    private func auditEvent(_ action: AuditAction, patientID: Int64, detail: String?, request: Request, context: PortalContext) -> AuditEvent {
        AuditEvent(
            actor: context.auditActor,
            action: action,
            recordType: "patient",
            recordID: "\(patientID)",
            origin: portal.origin(of: request, context: context),
            detail: detail
        )
    }

    private func audit(
        _ action: AuditAction,
        patientID: Int64,
        detail: String? = nil,
        request: Request,
        context: PortalContext,
        on db: any SQLDatabase
    ) async throws {
        try await portal.audit.record(auditEvent(action, patientID: patientID, detail: detail, request: request, context: context), on: db)
    }

    /// Records a read of the record, committed, before anything of it is shown.
    private func recordView(_ patientID: Int64, detail: String, request: Request, context: PortalContext) async throws {
        try await portal.recordAccess(auditEvent(.patientViewed, patientID: patientID, detail: detail, request: request, context: context))
    }

    private var today: CalendarDate { CalendarDate(portal.now) }

    // MARK: List

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        guard let staff = context.staff else { throw AccessDenied() }
        let isAdministrator = staff.role == .administrator
        var query = PatientListQuery()
        query.physicianID = isAdministrator ? nil : staff.id
        query.search = request.query("q") ?? ""
        query.sort = request.query("sort").flatMap(PatientSort.init(rawValue:)) ?? .lastName
        query.descending = request.query("order") == "desc"
        query.page = try request.pageRequest()
        let today = self.today
        let listing = try await portal.database.read { [query] db in
            try await PatientsPage.load(query, staff: staff, today: today, cache: caches.recentAdherence, on: db)
        }
        let address = ListAddress(
            path: SiteURL.patients.path,
            parameters: [
                ("q", query.search), ("sort", request.query("sort") == nil ? nil : query.sort.rawValue), ("order", request.query("order"))
            ]
        )
        let layout = portal.layout(isAdministrator ? "All patients" : "Your patients", context: context, current: .patients)
        return portal.pages.response(
            PatientsPage(listing, query: query, address: address, isAdministrator: isAdministrator, layout: layout, pages: portal.pages)
        )
    }

    // MARK: Patient page

    /// A span of days chosen with `from` and `to` (ISO dates), at most two years, never past today.
    struct Range: Sendable, Hashable {
        let from: CalendarDate
        let through: CalendarDate
        let error: String?

        init(request: Request, today: CalendarDate, defaultDays: Int = 30) {
            let defaultFrom = today.adding(days: -(defaultDays - 1))
            let fromText = request.query("from"), toText = request.query("to")
            let from = fromText.flatMap(CalendarDate.init(iso:)), to = toText.flatMap(CalendarDate.init(iso:))
            if (fromText != nil && from == nil) || (toText != nil && to == nil) {
                self.init(defaultFrom, today, "Enter the dates as year-month-day, like \(today.iso)")
            } else if let from, let to, from > to {
                self.init(defaultFrom, today, "The first day must be on or before the last day")
            } else {
                let through = min(to ?? today, today)
                let start = from ?? (to.map { $0.adding(days: -(defaultDays - 1)) } ?? defaultFrom)
                if through.dayNumber - start.dayNumber + 1 > PatientReport.maximumDays {
                    self.init(defaultFrom, today, "Choose at most \(PatientReport.maximumDays) days")
                } else {
                    self.init(start, through, nil)
                }
            }
        }

        private init(_ from: CalendarDate, _ through: CalendarDate, _ error: String?) {
            self.from = from
            self.through = through
            self.error = error
        }
    }

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        let patient = try await openPatient(request: request, context: context)
        let today = self.today
        let days = PatientCharts.Days(
            range: Range(request: request, today: today),
            month: request.query("month").flatMap { CalendarDate(iso: "\($0)-01") } ?? today.firstOfMonth,
            today: today,
            requestedFrom: request.query("from"),
            requestedTo: request.query("to")
        )
        let role = context.staff?.role
        try await recordView(patient.id, detail: "patient page", request: request, context: context)
        let now = portal.now
        let record = try await portal.database.read { db in
            try await PatientDetails.load(patient, days: days, withPhysicians: role == .administrator, charts: caches.charts, on: db)
        }
        let charts =
            record.keptCharts
            ?? {
                let path = SiteURL.patient(patient.id).path
                let charts = PatientCharts(days, prescriptions: record.prescriptions, logs: record.logs, path: path, pages: portal.pages)
                caches.charts.remember(charts, for: record.chartsKey)
                return charts
            }()
        let layout = portal.layout(patient.fullName, context: context, current: .patients)
        let details = PatientDetails(patient, record: record, charts: charts, days: days, role: role, csrfToken: layout.csrfToken ?? "", now: now)
        return portal.pages.response(PatientPage(layout: layout, details: portal.pages.html(details)))
    }

    // MARK: Contact details

    private func contactPage(_ patient: Patient, values: [String: String], errors: FormErrors, context: PortalContext) -> Response {
        let (fields, address) = PatientForms.contactFields(values, errors: errors)
        return portal.pages.response(
            PatientContactPage(
                layout: portal.layout("Change \(patient.fullName)’s details", context: context, current: .patients),
                heading: "Contact details",
                caption: patient.fullName,
                steps: [],
                errors: errors.items,
                fields: fields,
                addressField: address,
                action: SiteURL.editPatientContact(patient.id).path,
                isWizard: false,
                cancelPath: SiteURL.patient(patient.id).path,
                tabs: EditTab.all(patientID: patient.id, current: .contact, canPrescribe: context.staff?.role == .physician)
            ),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    @Sendable func editContact(request: Request, context: PortalContext) async throws -> Response {
        let patient = try await openPatient(request: request, context: context)
        try await recordView(patient.id, detail: "contact details form", request: request, context: context)
        return contactPage(patient, values: PatientRules.values(patient.contact), errors: FormErrors(), context: context)
    }

    @Sendable func saveContact(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.formFields(context: context)
        let values = PatientForms.contactValues(form)
        let errors = PatientForms.checkContact(values)
        let contact = PatientRules.contact(values)
        let now = portal.now
        enum Outcome: Sendable { case saved(Patient), invalid(Patient, FormErrors) }
        let outcome = try await changePatient(request: request, context: context) { patient, db -> Outcome in
            guard errors.isEmpty else { return .invalid(patient, errors) }
            do {
                try await patients.updateContact(id: patient.id, contact, physicianID: patient.physicianID, now: now, on: db)
            } catch is MedicalNumberTaken {
                var errors = FormErrors()
                errors.add("medical_number", "This physician already has another patient with this medical number")
                return .invalid(patient, errors)
            }
            let changed = PatientRules.contactFieldNames.filter { PatientRules.values(patient.contact)[$0] != values[$0] }
            try await audit(
                .patientContactChanged,
                patientID: patient.id,
                detail: changed.map { $0.replacingOccurrences(of: "_", with: " ") }.joined(separator: ", "),
                request: request,
                context: context,
                on: db
            )
            return .saved(patient)
        }
        switch outcome {
        case .invalid(let patient, let errors):
            return contactPage(patient, values: values, errors: errors, context: context)
        case .saved(let patient):
            try await portal.flash(Flash(.success, "\(contact.fullName)’s contact details are saved."), context: context)
            return seeOther(.patient(patient.id))
        }
    }

    // MARK: Prescriptions

    private func regimenPage(
        _ patient: Patient,
        kind: Prescription.Kind,
        rows: [RegimenRow],
        catalogue: Catalogue,
        errors: FormErrors,
        context: PortalContext
    ) -> Response {
        let step: PatientDraft.Step = kind == .medication ? .medications : .exercises
        return portal.pages.response(
            PatientRegimenPage(
                layout: portal.layout("Change \(patient.fullName)’s \(step.title.lowercased())", context: context, current: .patients),
                heading: step.title,
                caption: patient.fullName,
                intro: "Changes apply from today, \(today.displayed). What applied before stays in her prescription history and in reports.",
                steps: [],
                errors: errors.items,
                rows: PatientForms.rowViews(rows, kind: kind, catalogue: catalogue, errors: errors),
                rowCount: rows.count,
                addTitle: kind == .medication ? "Add another medication" : "Add another exercise",
                action: (kind == .medication ? SiteURL.editPatientMedications(patient.id) : .editPatientExercises(patient.id)).path,
                isWizard: false,
                isLastStep: false,
                nextTitle: "Save changes",
                cancelPath: SiteURL.patient(patient.id).path,
                tabs: EditTab.all(patientID: patient.id, current: step, canPrescribe: true),
                catalogueIsEmpty: kind == .medication ? catalogue.medications.isEmpty : catalogue.exercises.isEmpty
            ),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    func editRegimen(_ kind: Prescription.Kind, _ request: Request, _ context: PortalContext) async throws -> Response {
        let patient = try await openPatient(request: request, context: context)
        try await recordView(patient.id, detail: "\(kind.rawValue) form", request: request, context: context)
        let (prescriptions, all) = try await portal.database.read { db in
            (try await regimens.prescriptions(patientID: patient.id, on: db), try await catalogue.all(on: db))
        }
        let rows = prescriptions.filter { $0.kind == kind && $0.endsOn == nil }.map(\.row)
        return regimenPage(patient, kind: kind, rows: rows.isEmpty ? [.empty] : rows, catalogue: all, errors: FormErrors(), context: context)
    }

    func saveRegimen(_ kind: Prescription.Kind, _ request: Request, _ context: PortalContext) async throws -> Response {
        let form = try await request.formFields(context: context)
        let action = FormAction(form["action"])
        let rows = PatientForms.apply(action, to: RegimenRules.rows(from: form, kind: kind))
        let all = try await portal.database.read { db in try await catalogue.all(on: db) }
        if action == .add || action.isRemove {
            // Adding or removing a row changes nothing until the physician saves.
            let patient = try await openPatient(request: request, context: context)
            return regimenPage(patient, kind: kind, rows: rows, catalogue: all, errors: FormErrors(), context: context)
        }
        let (items, problems) = RegimenRules.check(rows, kind: kind, catalogue: all)
        let today = self.today, now = portal.now, accountID = context.staff?.id
        enum Outcome: Sendable { case saved(Patient, started: Int, ended: Int), invalid(Patient) }
        let outcome = try await changePatient(request: request, context: context) { patient, db -> Outcome in
            guard problems.isEmpty else { return .invalid(patient) }
            let (added, ended) = try await regimens.replace(kind, with: items, patientID: patient.id, from: today, by: accountID, now: now, on: db)
            if added + ended > 0 {
                let detail = "\(kind.rawValue)s: \(added) started, \(ended) ended"
                try await audit(.patientRegimenChanged, patientID: patient.id, detail: detail, request: request, context: context, on: db)
            }
            return .saved(patient, started: added, ended: ended)
        }
        switch outcome {
        case .invalid(let patient):
            return regimenPage(patient, kind: kind, rows: rows, catalogue: all, errors: PatientForms.errors(problems), context: context)
        case .saved(let patient, let started, let ended):
            try await portal.flash(Flash(.success, RegimenRules.saved(kind, of: patient, changes: started + ended)), context: context)
            return seeOther(.patient(patient.id))
        }
    }

    @Sendable func history(request: Request, context: PortalContext) async throws -> Response {
        let patient = try await openPatient(request: request, context: context)
        try await recordView(patient.id, detail: "prescription history", request: request, context: context)
        let prescriptions = try await portal.database.read { db in try await regimens.prescriptions(patientID: patient.id, on: db) }
        let days = Set(prescriptions.map(\.startsOn) + prescriptions.compactMap(\.endsOn)).sorted(by: >)
        return portal.pages.response(
            RegimenHistoryPage(
                layout: portal.layout("\(patient.fullName)’s prescription history", context: context, current: .patients),
                name: patient.fullName,
                changes: days.map { day in
                    RegimenHistoryPage.Change(
                        day: day.displayed,
                        started: prescriptions.filter { $0.startsOn == day }.map(PrescriptionView.init),
                        ended: prescriptions.filter { $0.endsOn == day }.map(PrescriptionView.init)
                    )
                },
                patientPath: SiteURL.patient(patient.id).path
            )
        )
    }

    // MARK: Removal

    private func removePage(_ patient: Patient, typed: String, errors: FormErrors, context: PortalContext) -> Response {
        var field = FormField(
            "last_name",
            label: "Type her last name, \(patient.contact.lastName), to confirm",
            value: typed,
            autocomplete: "off",
            width: 20
        )
        field.error = errors["last_name"]
        return portal.pages.response(
            RemovePatientPage(
                layout: portal.layout("Remove \(patient.fullName)?", context: context, current: .patients),
                name: patient.fullName,
                lastName: patient.contact.lastName,
                errors: errors.items,
                confirmation: field,
                action: SiteURL.patientRemove(patient.id).path,
                patientPath: SiteURL.patient(patient.id).path
            ),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    @Sendable func confirmRemove(request: Request, context: PortalContext) async throws -> Response {
        let patient = try await openPatient(request: request, context: context)
        try await recordView(patient.id, detail: "removal page", request: request, context: context)
        return removePage(patient, typed: "", errors: FormErrors(), context: context)
    }

    @Sendable func remove(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.formFields(context: context)
        let typed = form["last_name"]?.trimmed ?? ""
        enum Outcome: Sendable { case removed(String), mismatch(Patient) }
        let outcome = try await changePatient(request: request, context: context) { patient, db -> Outcome in
            guard PatientRules.sameName(typed, patient.contact.lastName) else { return .mismatch(patient) }
            try await patients.delete(id: patient.id, on: db)
            // The audit trail keeps that she was removed, by whom and when: her number only, nothing about her health.
            try await audit(
                .patientRemoved,
                patientID: patient.id,
                detail: "physician \(patient.physicianID)",
                request: request,
                context: context,
                on: db
            )
            return .removed(patient.fullName)
        }
        switch outcome {
        case .mismatch(let patient):
            var errors = FormErrors()
            errors.add(
                "last_name",
                typed.isEmpty
                    ? "Type her last name, \(patient.contact.lastName), to confirm"
                    : "The last name you typed does not match. Type \(patient.contact.lastName) to confirm"
            )
            return removePage(patient, typed: typed, errors: errors, context: context)
        case .removed(let name):
            try await portal.flash(Flash(.success, "\(name) has been removed, with her app account."), context: context)
            return seeOther(.patients)
        }
    }

    // MARK: Reassignment

    @Sendable func reassign(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.formFields(context: context)
        let target = form["physician_id"].flatMap { Int64($0) }
        let now = portal.now
        let message = try await changePatient(request: request, context: context) { patient, db -> Flash in
            guard let target, let account = try await StaffAccountRepository().find(id: target, on: db),
                account.role == .physician, account.status == .active
            else { return Flash(.warning, "Choose an active physician.") }
            guard target != patient.physicianID else { return Flash(.info, "\(patient.fullName) already sees that physician.") }
            guard try await patients.reassign(id: patient.id, to: target, now: now, on: db) else {
                return Flash(
                    .warning,
                    "That physician already has a patient with medical number \(patient.contact.medicalNumber), so \(patient.fullName) was not moved."
                )
            }
            try await audit(
                .patientReassigned,
                patientID: patient.id,
                detail: "physician \(patient.physicianID) to \(target)",
                request: request,
                context: context,
                on: db
            )
            let name = try await patients.physicianNames(ids: [target], on: db)[target] ?? account.username
            return Flash(.success, "\(patient.fullName) now sees \(name).")
        }
        try await portal.flash(message, context: context)
        return seeOther(.patient(try context.parameters.recordID()))
    }

    // MARK: Claim token

    @Sendable func resendClaim(request: Request, context: PortalContext) async throws -> Response {
        let now = portal.now
        let token = ClaimToken(randomBytes: portal.dependencies.randomBytes)
        let (message, renewedFor) = try await changePatient(request: request, context: context) { patient, db -> (Flash, Patient?) in
            guard try await accounts.renewClaim(patientID: patient.id, token: token, now: now, on: db) else {
                return (Flash(.warning, "\(patient.fullName) has already claimed her app account."), nil)
            }
            try await portal.outbox.enqueue(
                .claimToken(
                    patient: patient,
                    token: token,
                    expiresAt: now.addingTimeInterval(PatientAccount.claimLifetime),
                    settings: portal.settings
                ),
                on: db
            )
            try await audit(.claimTokenSent, patientID: patient.id, detail: "sent again", request: request, context: context, on: db)
            return (Flash(.success, "A new claim token has been emailed to \(patient.contact.email). The earlier one no longer works."), patient)
        }
        if let patient = renewedFor, !portal.deliversMail {
            return PatientClaimShownOnce(portal: portal).page(
                patient,
                token: token,
                expiresAt: now.addingTimeInterval(PatientAccount.claimLifetime),
                heading: "A new claim token for \(patient.fullName)",
                earlier: "The earlier one no longer works.",
                context: context
            )
        }
        try await portal.flash(message, context: context)
        return seeOther(.patient(try context.parameters.recordID()))
    }

    @Sendable func revokeClaim(request: Request, context: PortalContext) async throws -> Response {
        let now = portal.now
        let message = try await changePatient(request: request, context: context) { patient, db -> Flash in
            guard try await accounts.revokeClaim(patientID: patient.id, now: now, on: db) else {
                return Flash(.warning, "There was no claim token to revoke.")
            }
            try await audit(.claimTokenRevoked, patientID: patient.id, request: request, context: context, on: db)
            return Flash(.success, "\(patient.fullName)’s claim token no longer works. Send a new one when she is ready.")
        }
        try await portal.flash(message, context: context)
        return seeOther(.patient(try context.parameters.recordID()))
    }

    // MARK: Reports

    private func loadReport(_ patient: Patient, range: Range) async throws -> PatientReport {
        let now = portal.now
        let (prescriptions, logs, names) = try await portal.database.read { db in
            (
                try await regimens.prescriptions(patientID: patient.id, on: db),
                try await regimens.logs(patientID: patient.id, from: range.from, through: range.through, on: db),
                try await patients.physicianNames(ids: [patient.physicianID], on: db)
            )
        }
        return PatientReport(
            patient: patient,
            physicianName: names[patient.physicianID] ?? "Unknown",
            prescriptions: prescriptions,
            logs: logs,
            from: range.from,
            through: range.through,
            producedAt: now
        )
    }

    @Sendable func report(request: Request, context: PortalContext) async throws -> Response {
        let patient = try await openPatient(request: request, context: context)
        let range = Range(request: request, today: today)
        try await recordView(patient.id, detail: "report \(range.from.iso) to \(range.through.iso)", request: request, context: context)
        let report = try await loadReport(patient, range: range)
        let parameters: [(String, String?)] = [("from", range.from.iso), ("to", range.through.iso)]
        return portal.pages.response(
            PatientReportPage(
                layout: portal.layout("Report: \(patient.fullName)", context: context, current: .patients),
                name: patient.fullName,
                rangeFrom: range.from.iso,
                rangeTo: range.through.iso,
                rangeError: range.error,
                overall: report.overallText,
                prescriptions: report.prescriptions.map(PrescriptionView.init),
                adherence: AdherenceFigures(report.summary, pages: portal.pages),
                headers: PatientReport.columns,
                rows: report.summary.itemDays.map {
                    PatientReportPage.Row(
                        date: $0.day.iso,
                        kind: $0.prescription.kind.title,
                        item: $0.prescription.name,
                        dose: $0.prescription.dose,
                        frequency: $0.prescription.frequencyName,
                        scheduled: $0.count.scheduled,
                        done: $0.count.done,
                        missed: $0.count.missed,
                        notLogged: $0.count.notLogged,
                        adherence: $0.count.percentText
                    )
                },
                csvPath: ListAddress(path: SiteURL.patientReportCSV(patient.id).path, parameters: parameters).string,
                pdfPath: ListAddress(path: SiteURL.patientReportPDF(patient.id).path, parameters: parameters).string,
                action: SiteURL.patientReport(patient.id).path,
                patientPath: SiteURL.patient(patient.id).path
            )
        )
    }

    private func exportRange(_ request: Request) throws -> Range {
        let range = Range(request: request, today: today)
        guard range.error == nil else { throw HTTPError(.badRequest) }
        return range
    }

    private func recordExport(_ patientID: Int64, format: String, range: Range, request: Request, context: PortalContext) async throws {
        try await portal.recordAccess(
            auditEvent(
                .patientReportExported,
                patientID: patientID,
                detail: "\(format) \(range.from.iso) to \(range.through.iso)",
                request: request,
                context: context
            )
        )
    }

    @Sendable func reportCSV(request: Request, context: PortalContext) async throws -> Response {
        let patient = try await openPatient(request: request, context: context)
        let range = try exportRange(request)
        try await recordExport(patient.id, format: "csv", range: range, request: request, context: context)
        let report = try await loadReport(patient, range: range)
        return Response(
            status: .ok,
            headers: [.contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"\(report.fileName).csv\""],
            body: .init(byteBuffer: ByteBuffer(bytes: try report.csv()))
        )
    }

    @Sendable func reportPDF(request: Request, context: PortalContext) async throws -> Response {
        let patient = try await openPatient(request: request, context: context)
        let range = try exportRange(request)
        try await recordExport(patient.id, format: "pdf", range: range, request: request, context: context)
        let report = try await loadReport(patient, range: range)
        // libharu works synchronously: off the event loop, on the thread pool.
        let bytes = try await NIOThreadPool.singleton.runIfActive { try ReportPDF(report: report).render() }
        return Response(
            status: .ok,
            headers: [.contentType: "application/pdf", .contentDisposition: "attachment; filename=\"\(report.fileName).pdf\""],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}

extension FormAction {
    var isRemove: Bool {
        if case .remove = self { return true }
        return false
    }
}

import Foundation
import Hummingbird
import NIOCore
import PortalPlatform
import SQLKit

/// Administrators keep the catalogue the add-patient wizard offers: medications and their doses,
/// exercises with an illustration, frequencies and exercise amounts.
struct CatalogueController {
    static let access = Access.administrators
    /// Illustrations are shown wherever an exercise is: to administrators and to prescribing physicians.
    static let illustrationAccess = Access.staff([.administrator, .physician])
    let portal: Portal
    let catalogue = CatalogueRepository()

    var illustrations: UploadStore {
        portal.uploads(IllustrationStore.folder)
    }

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.catalogue.pattern, access: Self.access, overview)
        routes.get(SiteURL.newCatalogueMedication.pattern, access: Self.access) { try await showMedication(nil, $1) }
        routes.post(SiteURL.newCatalogueMedication.pattern, access: Self.access) { try await saveMedication(nil, $0, $1) }
        routes.get(SiteURL.pattern(SiteURL.editCatalogueMedication), access: Self.access) { try await showMedication($1.parameters.recordID(), $1) }
        routes.post(SiteURL.pattern(SiteURL.editCatalogueMedication), access: Self.access) {
            try await saveMedication($1.parameters.recordID(), $0, $1)
        }
        routes.get(SiteURL.newCatalogueExercise.pattern, access: Self.access) { try await showExercise(nil, $1) }
        routes.post(SiteURL.newCatalogueExercise.pattern, access: Self.access) { try await saveExercise(nil, $0, $1) }
        routes.get(SiteURL.pattern(SiteURL.editCatalogueExercise), access: Self.access) { try await showExercise($1.parameters.recordID(), $1) }
        routes.post(SiteURL.pattern(SiteURL.editCatalogueExercise), access: Self.access) { try await saveExercise($1.parameters.recordID(), $0, $1) }
        routes.get(SiteURL.pattern(SiteURL.catalogueIllustration), access: Self.illustrationAccess, illustration)
        routes.get(SiteURL.newCatalogueFrequency.pattern, access: Self.access) { try await showFrequency(nil, $1) }
        routes.post(SiteURL.newCatalogueFrequency.pattern, access: Self.access) { try await saveFrequency(nil, $0, $1) }
        routes.get(SiteURL.pattern(SiteURL.editCatalogueFrequency), access: Self.access) { try await showFrequency($1.parameters.recordID(), $1) }
        routes.post(SiteURL.pattern(SiteURL.editCatalogueFrequency), access: Self.access) {
            try await saveFrequency($1.parameters.recordID(), $0, $1)
        }
        routes.get(SiteURL.newCatalogueAmount.pattern, access: Self.access) { try await showAmount(nil, $1) }
        routes.post(SiteURL.newCatalogueAmount.pattern, access: Self.access) { try await saveAmount(nil, $0, $1) }
        routes.get(SiteURL.pattern(SiteURL.editCatalogueAmount), access: Self.access) { try await showAmount($1.parameters.recordID(), $1) }
        routes.post(SiteURL.pattern(SiteURL.editCatalogueAmount), access: Self.access) { try await saveAmount($1.parameters.recordID(), $0, $1) }
        routes.post(SiteURL.pattern(SiteURL.removeCatalogueMedication), access: Self.access) { try await remove(.medications, $0, $1) }
        routes.post(SiteURL.pattern(SiteURL.removeCatalogueExercise), access: Self.access) { try await remove(.exercises, $0, $1) }
        routes.post(SiteURL.pattern(SiteURL.removeCatalogueFrequency), access: Self.access) { try await remove(.frequencies, $0, $1) }
        routes.post(SiteURL.pattern(SiteURL.removeCatalogueAmount), access: Self.access) { try await remove(.amounts, $0, $1) }
    }

    /// Removes an entry no prescription was ever written with; one that was stays, so the history keeps its meaning.
    func remove(_ list: CatalogueRepository.List, _ request: Request, _ context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let exercise = list == .exercises ? try await portal.database.read { db in try await catalogue.exercise(id: id, on: db) } : nil
        let outcome: Flash = try await portal.database.transaction { db in
            guard let name = try await catalogue.name(of: id, in: list, on: db) else { throw HTTPError(.notFound) }
            guard try await !catalogue.isPrescribed(id, in: list, on: db) else {
                return Flash(
                    .warning,
                    "\(name) has been prescribed, so it stays in the catalogue to keep patients’ prescription history. Change it instead."
                )
            }
            try await catalogue.remove(id, from: list, on: db)
            try await record(.catalogueRemoved, type: list.table, id: id, request: request, context: context, on: db)
            return Flash(.success, "\(name) has been removed from the catalogue.")
        }
        if outcome.kind == .success, let picture = exercise?.illustration { try? await illustrations.remove(picture) }
        try await portal.flash(outcome, context: context)
        return seeOther(.catalogue)
    }

    @Sendable func overview(request: Request, context: PortalContext) async throws -> Response {
        let all = try await portal.database.read { db in try await catalogue.all(on: db) }
        return portal.pages.response(CataloguePage(layout: portal.layout("Catalogue", context: context, current: .catalogue), catalogue: all))
    }

    private func entryPage(_ entry: CatalogueEntry, errors: FormErrors, context: PortalContext) -> Response {
        portal.pages.response(
            CatalogueEntryPage(entry, errors: errors, layout: portal.layout(entry.heading, context: context, current: .catalogue)),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    /// Writes an entry in one transaction with its audit record: `change` when `id` names one (404 when it is
    /// gone), `add` otherwise. False when the catalogue already has an entry of that name, and nothing is written.
    private func store(
        _ id: Int64?,
        type: String,
        detail: String? = nil,
        request: Request,
        context: PortalContext,
        change: @escaping @Sendable (Int64, any SQLDatabase) async throws -> Void,
        add: @escaping @Sendable (any SQLDatabase) async throws -> Int64
    ) async throws -> Int64? {
        do {
            return try await portal.database.transaction { db in
                let stored: Int64
                if let id {
                    try await change(id, db)
                    stored = id
                } else {
                    stored = try await add(db)
                }
                try await record(
                    id == nil ? .catalogueAdded : .catalogueChanged,
                    type: type,
                    id: stored,
                    detail: detail,
                    request: request,
                    context: context,
                    on: db
                )
                return stored
            }
        } catch is CatalogueNameTaken {
            return nil
        }
    }

    private func saved(_ name: String, context: PortalContext) async throws -> Response {
        try await portal.flash(Flash(.success, "\(name) is saved in the catalogue."), context: context)
        return seeOther(.catalogue)
    }

    private func record(
        _ action: AuditAction,
        type: String,
        id: Int64,
        detail: String? = nil,
        request: Request,
        context: PortalContext,
        on db: any SQLDatabase
    ) async throws {
        try await portal.audit.record(
            AuditEvent(
                actor: context.auditActor,
                action: action,
                recordType: type,
                recordID: "\(id)",
                origin: portal.origin(of: request, context: context),
                detail: detail
            ),
            on: db
        )
    }

    // MARK: Medications

    func showMedication(_ id: Int64?, _ context: PortalContext) async throws -> Response {
        let medication = try await id.asyncMap { id in try await found(portal.database.read { db in try await catalogue.medication(id: id, on: db) })
        }
        return entryPage(MedicationForm(medication).entry(id: id), errors: FormErrors(), context: context)
    }

    func saveMedication(_ id: Int64?, _ request: Request, _ context: PortalContext) async throws -> Response {
        let form = MedicationForm(sent: try await request.form([String: String].self, context: context))
        let (made, errors) = form.validated(id: id)
        guard let medication = made else { return entryPage(form.entry(id: id), errors: errors, context: context) }
        let now = portal.now
        let stored = try await store(id, type: "catalogue_medication", request: request, context: context) { [catalogue] id, db in
            guard try await catalogue.medication(id: id, on: db) != nil else { throw HTTPError(.notFound) }
            try await catalogue.updateMedication(
                id: id,
                name: medication.name,
                doses: medication.doses,
                description: medication.description,
                now: now,
                on: db
            )
        } add: { [catalogue] db in
            try await catalogue.createMedication(
                name: medication.name,
                doses: medication.doses,
                description: medication.description,
                now: now,
                on: db
            )
        }
        guard stored != nil else {
            return entryPage(form.entry(id: id), errors: .one("name", MedicationForm.nameTaken(medication.name)), context: context)
        }
        return try await saved(medication.name, context: context)
    }

    // MARK: Exercises

    func showExercise(_ id: Int64?, _ context: PortalContext) async throws -> Response {
        let exercise = try await id.asyncMap { id in try await found(portal.database.read { db in try await catalogue.exercise(id: id, on: db) }) }
        return entryPage(ExerciseForm(exercise).entry(id: id, hasIllustration: exercise?.illustration != nil), errors: FormErrors(), context: context)
    }

    func saveExercise(_ id: Int64?, _ request: Request, _ context: PortalContext) async throws -> Response {
        let sent = try await request.multipartForm()
        let form = ExerciseForm(sent: sent.fields)
        let existing = try await id.asyncMap { id in try await found(portal.database.read { db in try await catalogue.exercise(id: id, on: db) }) }
        let file = sent.files["illustration"]?.bytes
        let (accepted, errors) = form.validated(illustration: file)
        let page = form.entry(id: id, hasIllustration: existing?.illustration != nil)
        guard let accepted else { return entryPage(page, errors: errors, context: context) }
        var saving: StoredUpload?
        if let file, let type = accepted.illustration { saving = try await illustrations.save(file, type: type) }
        let picture = saving
        let now = portal.now
        let stored: Int64?
        do {
            stored = try await store(
                id,
                type: "catalogue_exercise",
                detail: picture.map { "illustration \($0.type.rawValue), \(file?.count ?? 0) bytes" },
                request: request,
                context: context
            ) { [catalogue] id, db in
                try await catalogue.updateExercise(id: id, name: accepted.name, description: accepted.description, now: now, on: db)
                if let picture { try await catalogue.setIllustration(exerciseID: id, picture, now: now, on: db) }
            } add: { [catalogue] db in
                let id = try await catalogue.createExercise(name: accepted.name, description: accepted.description, now: now, on: db)
                if let picture { try await catalogue.setIllustration(exerciseID: id, picture, now: now, on: db) }
                return id
            }
        } catch {
            if let picture { try? await illustrations.remove(picture) }
            throw error
        }
        guard stored != nil else {
            if let picture { try? await illustrations.remove(picture) }
            return entryPage(page, errors: .one("name", ExerciseForm.nameTaken(accepted.name)), context: context)
        }
        // The replaced picture goes only once the new one is recorded.
        if picture != nil, let old = existing?.illustration { try? await illustrations.remove(old) }
        return try await saved(accepted.name, context: context)
    }

    /// The picture, with the type its bytes were recognised as when it was uploaded.
    @Sendable func illustration(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let exercise = try await portal.database.read({ db in try await catalogue.exercise(id: id, on: db) }),
            let stored = exercise.illustration,
            let response = try await illustrations.response(for: stored, request: request, context: context, downloadName: "exercise-\(id)")
        else { throw HTTPError(.notFound) }
        return response
    }

    // MARK: Frequencies

    func showFrequency(_ id: Int64?, _ context: PortalContext) async throws -> Response {
        let frequency = try await id.asyncMap { id in try await found(portal.database.read { db in try await catalogue.frequency(id: id, on: db) }) }
        return entryPage(FrequencyForm(frequency).entry(id: id), errors: FormErrors(), context: context)
    }

    func saveFrequency(_ id: Int64?, _ request: Request, _ context: PortalContext) async throws -> Response {
        let form = FrequencyForm(sent: try await request.form([String: String].self, context: context))
        let (made, errors) = form.validated(id: id)
        guard let frequency = made else { return entryPage(form.entry(id: id), errors: errors, context: context) }
        let now = portal.now
        let (name, times, days) = (frequency.name, frequency.timesPerDay, frequency.everyDays)
        let stored = try await store(id, type: "catalogue_frequency", request: request, context: context) { [catalogue] id, db in
            guard try await catalogue.frequency(id: id, on: db) != nil else { throw HTTPError(.notFound) }
            try await catalogue.updateFrequency(id: id, name: name, timesPerDay: times, everyDays: days, now: now, on: db)
        } add: { [catalogue] db in
            try await catalogue.createFrequency(name: name, timesPerDay: times, everyDays: days, now: now, on: db)
        }
        guard stored != nil else { return entryPage(form.entry(id: id), errors: .one("name", FrequencyForm.nameTaken(name)), context: context) }
        return try await saved(name, context: context)
    }

    // MARK: Exercise amounts

    func showAmount(_ id: Int64?, _ context: PortalContext) async throws -> Response {
        let amount = try await id.asyncMap { id in try await found(portal.database.read { db in try await catalogue.amount(id: id, on: db) }) }
        return entryPage(AmountForm(amount).entry(id: id), errors: FormErrors(), context: context)
    }

    func saveAmount(_ id: Int64?, _ request: Request, _ context: PortalContext) async throws -> Response {
        let form = AmountForm(sent: try await request.form([String: String].self, context: context))
        let (made, errors) = form.validated(id: id)
        guard let amount = made else { return entryPage(form.entry(id: id), errors: errors, context: context) }
        let now = portal.now
        let name = amount.name
        let stored = try await store(id, type: "catalogue_exercise_amount", request: request, context: context) { [catalogue] id, db in
            guard try await catalogue.amount(id: id, on: db) != nil else { throw HTTPError(.notFound) }
            try await catalogue.updateAmount(id: id, name: name, now: now, on: db)
        } add: { [catalogue] db in
            try await catalogue.createAmount(name: name, now: now, on: db)
        }
        guard stored != nil else { return entryPage(form.entry(id: id), errors: .one("name", AmountForm.nameTaken(name)), context: context) }
        return try await saved(name, context: context)
    }

    /// The entry read, or a 404 when there is none.
    private func found<Entry>(_ entry: Entry?) throws -> Entry {
        guard let entry else { throw HTTPError(.notFound) }
        return entry
    }
}

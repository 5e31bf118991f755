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

    private func entryPage(
        _ heading: String,
        caption: String,
        intro: String? = nil,
        errors: FormErrors,
        action: SiteURL,
        isUpload: Bool = false,
        fields: [FormField],
        textAreas: [FormField] = [],
        illustrationPath: String? = nil,
        illustrationField: FormField? = nil,
        button: String,
        remove: SiteURL? = nil,
        noun: String,
        context: PortalContext
    ) -> Response {
        var fields = fields, textAreas = textAreas
        errors.apply(to: &fields)
        errors.apply(to: &textAreas)
        var illustrationField = illustrationField
        if let name = illustrationField?.name { illustrationField?.error = errors[name] }
        return portal.pages.response(
            CatalogueEntryPage(
                layout: portal.layout(heading, context: context, current: .catalogue),
                heading: heading,
                caption: caption,
                intro: intro,
                errors: errors.items,
                action: action.path,
                isUpload: isUpload,
                fields: fields,
                textAreas: textAreas,
                illustrationPath: illustrationPath,
                illustrationField: illustrationField,
                buttonTitle: button,
                removePath: remove?.path,
                noun: noun
            ),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
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

    private struct MedicationForm: Decodable {
        var name: String?
        var doses: String?
        var description: String?
    }

    private func medicationPage(_ id: Int64?, values: [String: String], errors: FormErrors, context: PortalContext) -> Response {
        entryPage(
            id == nil ? "Add a medication" : "Change \(values["name"].flatMap { $0.isEmpty ? nil : $0 } ?? "medication")",
            caption: "Catalogue",
            intro: "Physicians choose the medication and one of its doses when they prescribe it. Patients read the description in the app.",
            errors: errors,
            action: id.map(SiteURL.editCatalogueMedication) ?? .newCatalogueMedication,
            fields: [FormField("name", label: "Name", value: values["name"] ?? "", hint: "Such as Levodopa/carbidopa", width: 30)],
            textAreas: [
                FormField(
                    "doses",
                    label: "Doses",
                    value: values["doses"] ?? "",
                    hint: "One per line, as physicians should see them, such as 25/100 mg tablet. Prescriptions already written keep their dose."
                ),
                FormField(
                    "description",
                    label: "Description",
                    value: values["description"] ?? "",
                    hint: "What it is for and how to take it, in plain words for the patient."
                )
            ],
            button: id == nil ? "Add medication" : "Save changes",
            remove: id.map(SiteURL.removeCatalogueMedication),
            noun: "medication",
            context: context
        )
    }

    func showMedication(_ id: Int64?, _ context: PortalContext) async throws -> Response {
        var values: [String: String] = [:]
        if let id {
            guard let medication = try await portal.database.read({ db in try await catalogue.medication(id: id, on: db) }) else {
                throw HTTPError(.notFound)
            }
            values = ["name": medication.name, "doses": medication.doses.joined(separator: "\n"), "description": medication.description]
        }
        return medicationPage(id, values: values, errors: FormErrors(), context: context)
    }

    func saveMedication(_ id: Int64?, _ request: Request, _ context: PortalContext) async throws -> Response {
        let form = try await request.form(MedicationForm.self, context: context)
        let values = ["name": form.name?.trimmed ?? "", "doses": form.doses?.trimmed ?? "", "description": form.description?.trimmed ?? ""]
        var errors = FormErrors()
        if let problem = CatalogueRules.nameProblem(values["name"]!, noun: "medication") { errors.add("name", problem) }
        var doses: [String] = []
        switch CatalogueRules.doses(values["doses"]!) {
        case .success(let parsed): doses = parsed
        case .failure(let problem): errors.add("doses", problem.message)
        }
        if let problem = CatalogueRules.descriptionProblem(values["description"]!, noun: "medication") { errors.add("description", problem) }
        guard errors.isEmpty else { return medicationPage(id, values: values, errors: errors, context: context) }
        let now = portal.now
        do {
            try await portal.database.transaction { db in
                if let id {
                    guard try await catalogue.medication(id: id, on: db) != nil else { throw HTTPError(.notFound) }
                    try await catalogue.updateMedication(
                        id: id,
                        name: values["name"]!,
                        doses: doses,
                        description: values["description"]!,
                        now: now,
                        on: db
                    )
                    try await record(.catalogueChanged, type: "catalogue_medication", id: id, request: request, context: context, on: db)
                } else {
                    let new = try await catalogue.createMedication(
                        name: values["name"]!,
                        doses: doses,
                        description: values["description"]!,
                        now: now,
                        on: db
                    )
                    try await record(.catalogueAdded, type: "catalogue_medication", id: new, request: request, context: context, on: db)
                }
            }
        } catch is CatalogueNameTaken {
            var errors = FormErrors()
            errors.add("name", "The catalogue already has a medication called \(values["name"]!)")
            return medicationPage(id, values: values, errors: errors, context: context)
        }
        try await portal.flash(Flash(.success, "\(values["name"]!) is saved in the catalogue."), context: context)
        return seeOther(.catalogue)
    }

    // MARK: Exercises

    private func exercisePage(
        _ id: Int64?,
        values: [String: String],
        hasIllustration: Bool,
        errors: FormErrors,
        context: PortalContext
    ) -> Response {
        entryPage(
            id == nil ? "Add an exercise" : "Change \(values["name"].flatMap { $0.isEmpty ? nil : $0 } ?? "exercise")",
            caption: "Catalogue",
            intro: "Patients see the description and the illustration in the app, to learn how to do the exercise.",
            errors: errors,
            action: id.map(SiteURL.editCatalogueExercise) ?? .newCatalogueExercise,
            isUpload: true,
            fields: [FormField("name", label: "Name", value: values["name"] ?? "", hint: "Such as Sit-to-stand", width: 30)],
            textAreas: [
                FormField(
                    "description",
                    label: "Description",
                    value: values["description"] ?? "",
                    hint: "How to do it safely, step by step, in plain words for the patient."
                )
            ],
            illustrationPath: id.flatMap { hasIllustration ? SiteURL.catalogueIllustration($0).path : nil },
            illustrationField: FormField(
                "illustration",
                label: hasIllustration ? "Replace the illustration (optional)" : "Illustration (optional)",
                hint: "A PNG, JPEG or WebP picture smaller than \(CatalogueRules.illustrationMaximumSize / 1024 / 1024) MB.",
                type: "file"
            ),
            button: id == nil ? "Add exercise" : "Save changes",
            remove: id.map(SiteURL.removeCatalogueExercise),
            noun: "exercise",
            context: context
        )
    }

    func showExercise(_ id: Int64?, _ context: PortalContext) async throws -> Response {
        guard let id else { return exercisePage(nil, values: [:], hasIllustration: false, errors: FormErrors(), context: context) }
        guard let exercise = try await portal.database.read({ db in try await catalogue.exercise(id: id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return exercisePage(
            id,
            values: ["name": exercise.name, "description": exercise.description],
            hasIllustration: exercise.illustration != nil,
            errors: FormErrors(),
            context: context
        )
    }

    func saveExercise(_ id: Int64?, _ request: Request, _ context: PortalContext) async throws -> Response {
        let form = try await request.multipartForm()
        let values = ["name": form.fields["name"]?.trimmed ?? "", "description": form.fields["description"]?.trimmed ?? ""]
        let existing = try await id.asyncMap { id in
            guard let found = try await portal.database.read({ db in try await catalogue.exercise(id: id, on: db) }) else {
                throw HTTPError(.notFound)
            }
            return found
        }
        var errors = FormErrors()
        if let problem = CatalogueRules.nameProblem(values["name"]!, noun: "exercise") { errors.add("name", problem) }
        if let problem = CatalogueRules.descriptionProblem(values["description"]!, noun: "exercise") { errors.add("description", problem) }
        var upload: (bytes: [UInt8], type: IllustrationType)?
        if let file = form.files["illustration"] {
            switch CatalogueRules.illustration(file.bytes) {
            case .success(let type): upload = (file.bytes, type)
            case .failure(let problem): errors.add("illustration", problem.message)
            }
        }
        let hasIllustration = existing?.illustration != nil
        guard errors.isEmpty else { return exercisePage(id, values: values, hasIllustration: hasIllustration, errors: errors, context: context) }

        let store = illustrations
        let saved = try await upload.asyncMap { try await store.save($0.bytes, type: $0.type) }
        let now = portal.now
        do {
            try await portal.database.transaction { db in
                let exerciseID: Int64
                if let id {
                    try await catalogue.updateExercise(id: id, name: values["name"]!, description: values["description"]!, now: now, on: db)
                    exerciseID = id
                } else {
                    exerciseID = try await catalogue.createExercise(name: values["name"]!, description: values["description"]!, now: now, on: db)
                }
                if let saved { try await catalogue.setIllustration(exerciseID: exerciseID, saved, now: now, on: db) }
                try await record(
                    id == nil ? .catalogueAdded : .catalogueChanged,
                    type: "catalogue_exercise",
                    id: exerciseID,
                    detail: saved == nil ? nil : "illustration \(saved!.type.rawValue), \(upload!.bytes.count) bytes",
                    request: request,
                    context: context,
                    on: db
                )
            }
        } catch {
            if let saved { try? await store.remove(saved) }
            if error is CatalogueNameTaken {
                var errors = FormErrors()
                errors.add("name", "The catalogue already has an exercise called \(values["name"]!)")
                return exercisePage(id, values: values, hasIllustration: hasIllustration, errors: errors, context: context)
            }
            throw error
        }
        // The replaced picture goes only once the new one is recorded.
        if saved != nil, let old = existing?.illustration { try? await store.remove(old) }
        try await portal.flash(Flash(.success, "\(values["name"]!) is saved in the catalogue."), context: context)
        return seeOther(.catalogue)
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

    private struct FrequencyForm: Decodable {
        var name: String?
        var times_per_day: String?
        var every_days: String?
    }

    private func frequencyPage(_ id: Int64?, values: [String: String], errors: FormErrors, context: PortalContext) -> Response {
        entryPage(
            id == nil ? "Add a frequency" : "Change \(values["name"].flatMap { $0.isEmpty ? nil : $0 } ?? "frequency")",
            caption: "Catalogue",
            intro: "The patient’s daily schedule is worked out from the two numbers. Prescriptions already written keep the schedule they had.",
            errors: errors,
            action: id.map(SiteURL.editCatalogueFrequency) ?? .newCatalogueFrequency,
            fields: [
                FormField(
                    "name",
                    label: "Name",
                    value: values["name"] ?? "",
                    hint: "As physicians and patients read it, such as Every 8 hours",
                    width: 30
                ),
                FormField(
                    "times_per_day",
                    label: "Times a day",
                    value: values["times_per_day"] ?? "",
                    hint:
                        "From \(CatalogueFrequency.timesPerDayRange.lowerBound) to \(CatalogueFrequency.timesPerDayRange.upperBound). Every 8 hours is 3.",
                    width: 10
                ),
                FormField(
                    "every_days",
                    label: "Every how many days",
                    value: values["every_days"] ?? "1",
                    hint: "1 for every day, 2 for every other day, 7 for once a week.",
                    width: 10
                )
            ],
            button: id == nil ? "Add frequency" : "Save changes",
            remove: id.map(SiteURL.removeCatalogueFrequency),
            noun: "frequency",
            context: context
        )
    }

    func showFrequency(_ id: Int64?, _ context: PortalContext) async throws -> Response {
        var values: [String: String] = [:]
        if let id {
            guard let frequency = try await portal.database.read({ db in try await catalogue.frequency(id: id, on: db) }) else {
                throw HTTPError(.notFound)
            }
            values = ["name": frequency.name, "times_per_day": "\(frequency.timesPerDay)", "every_days": "\(frequency.everyDays)"]
        }
        return frequencyPage(id, values: values, errors: FormErrors(), context: context)
    }

    func saveFrequency(_ id: Int64?, _ request: Request, _ context: PortalContext) async throws -> Response {
        let form = try await request.form(FrequencyForm.self, context: context)
        let values = [
            "name": form.name?.trimmed ?? "", "times_per_day": form.times_per_day?.trimmed ?? "", "every_days": form.every_days?.trimmed ?? ""
        ]
        var errors = FormErrors()
        if let problem = CatalogueRules.nameProblem(values["name"]!, noun: "frequency") { errors.add("name", problem) }
        let times = Int(values["times_per_day"]!)
        if values["times_per_day"]!.isEmpty {
            errors.add("times_per_day", "Enter how many times a day")
        } else if times.map(CatalogueFrequency.timesPerDayRange.contains) != true {
            errors.add("times_per_day", "Times a day must be a whole number from 1 to 12")
        }
        let days = Int(values["every_days"]!)
        if values["every_days"]!.isEmpty {
            errors.add("every_days", "Enter every how many days, such as 1 for every day")
        } else if days.map(CatalogueFrequency.everyDaysRange.contains) != true {
            errors.add("every_days", "Every how many days must be a whole number from 1 to 28")
        }
        guard errors.isEmpty, let times, let days else { return frequencyPage(id, values: values, errors: errors, context: context) }
        let now = portal.now
        do {
            try await portal.database.transaction { db in
                if let id {
                    guard try await catalogue.frequency(id: id, on: db) != nil else { throw HTTPError(.notFound) }
                    try await catalogue.updateFrequency(id: id, name: values["name"]!, timesPerDay: times, everyDays: days, now: now, on: db)
                    try await record(.catalogueChanged, type: "catalogue_frequency", id: id, request: request, context: context, on: db)
                } else {
                    let new = try await catalogue.createFrequency(name: values["name"]!, timesPerDay: times, everyDays: days, now: now, on: db)
                    try await record(.catalogueAdded, type: "catalogue_frequency", id: new, request: request, context: context, on: db)
                }
            }
        } catch is CatalogueNameTaken {
            var errors = FormErrors()
            errors.add("name", "The catalogue already has a frequency called \(values["name"]!)")
            return frequencyPage(id, values: values, errors: errors, context: context)
        }
        try await portal.flash(Flash(.success, "\(values["name"]!) is saved in the catalogue."), context: context)
        return seeOther(.catalogue)
    }

    // MARK: Exercise amounts

    private struct AmountForm: Decodable {
        var name: String?
    }

    private func amountPage(_ id: Int64?, values: [String: String], errors: FormErrors, context: PortalContext) -> Response {
        entryPage(
            id == nil ? "Add an exercise amount" : "Change \(values["name"].flatMap { $0.isEmpty ? nil : $0 } ?? "exercise amount")",
            caption: "Catalogue",
            errors: errors,
            action: id.map(SiteURL.editCatalogueAmount) ?? .newCatalogueAmount,
            fields: [
                FormField(
                    "name",
                    label: "Amount",
                    value: values["name"] ?? "",
                    hint: "Repetitions or a time, such as 10 repetitions or 15 minutes",
                    width: 20
                )
            ],
            button: id == nil ? "Add amount" : "Save changes",
            remove: id.map(SiteURL.removeCatalogueAmount),
            noun: "amount",
            context: context
        )
    }

    func showAmount(_ id: Int64?, _ context: PortalContext) async throws -> Response {
        var values: [String: String] = [:]
        if let id {
            guard let amount = try await portal.database.read({ db in try await catalogue.amount(id: id, on: db) }) else {
                throw HTTPError(.notFound)
            }
            values = ["name": amount.name]
        }
        return amountPage(id, values: values, errors: FormErrors(), context: context)
    }

    func saveAmount(_ id: Int64?, _ request: Request, _ context: PortalContext) async throws -> Response {
        let form = try await request.form(AmountForm.self, context: context)
        let values = ["name": form.name?.trimmed ?? ""]
        var errors = FormErrors()
        if values["name"]!.isEmpty {
            errors.add("name", "Enter the amount, such as 10 repetitions")
        } else if let problem = CatalogueRules.nameProblem(values["name"]!, noun: "amount") {
            errors.add("name", problem)
        }
        guard errors.isEmpty else { return amountPage(id, values: values, errors: errors, context: context) }
        let now = portal.now
        do {
            try await portal.database.transaction { db in
                if let id {
                    guard try await catalogue.amount(id: id, on: db) != nil else { throw HTTPError(.notFound) }
                    try await catalogue.updateAmount(id: id, name: values["name"]!, now: now, on: db)
                    try await record(.catalogueChanged, type: "catalogue_exercise_amount", id: id, request: request, context: context, on: db)
                } else {
                    let new = try await catalogue.createAmount(name: values["name"]!, now: now, on: db)
                    try await record(.catalogueAdded, type: "catalogue_exercise_amount", id: new, request: request, context: context, on: db)
                }
            }
        } catch is CatalogueNameTaken {
            var errors = FormErrors()
            errors.add("name", "The catalogue already has the amount \(values["name"]!)")
            return amountPage(id, values: values, errors: errors, context: context)
        }
        try await portal.flash(Flash(.success, "\(values["name"]!) is saved in the catalogue."), context: context)
        return seeOther(.catalogue)
    }
}

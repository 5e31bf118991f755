import Foundation
import PortalPlatform

/// What an entry's page asks and says; its form's problems are put beside its fields by `CatalogueEntryPage`.
struct CatalogueEntry: Sendable {
    var heading: String
    var intro: String?
    var action: SiteURL
    var isUpload = false
    var fields: [FormField]
    var textAreas: [FormField] = []
    var illustrationPath: String?
    var illustrationField: FormField?
    var button: String
    var remove: SiteURL?
    var noun: String

    /// "Add a medication" for a new entry, "Change Levodopa" for one being changed (its name as typed, or the noun).
    static func heading(adding: String, changing id: Int64?, name: String?, noun: String) -> String {
        id == nil ? adding : "Change \(name.flatMap { $0.isEmpty ? nil : $0 } ?? noun)"
    }
}

extension CatalogueEntryPage {
    init(_ entry: CatalogueEntry, errors: FormErrors, layout: Layout) {
        var fields = entry.fields, textAreas = entry.textAreas
        errors.apply(to: &fields)
        errors.apply(to: &textAreas)
        var illustrationField = entry.illustrationField
        if let name = illustrationField?.name { illustrationField?.error = errors[name] }
        self.init(
            layout: layout,
            heading: entry.heading,
            caption: "Catalogue",
            intro: entry.intro,
            errors: errors.items,
            action: entry.action.path,
            isUpload: entry.isUpload,
            fields: fields,
            textAreas: textAreas,
            illustrationPath: entry.illustrationPath,
            illustrationField: illustrationField,
            buttonTitle: entry.button,
            removePath: entry.remove?.path,
            noun: entry.noun
        )
    }
}

/// A medication's form: its name, its doses one per line and its description.
struct MedicationForm: Sendable {
    let values: [String: String]

    init(sent: [String: String]) {
        values = ["name": sent["name"]?.trimmed ?? "", "doses": sent["doses"]?.trimmed ?? "", "description": sent["description"]?.trimmed ?? ""]
    }

    init(_ medication: CatalogueMedication?) {
        values = medication.map { ["name": $0.name, "doses": $0.doses.joined(separator: "\n"), "description": $0.description] } ?? [:]
    }

    /// The medication the form describes (numbered `id`, or 0 when new), or nil with each problem by its field.
    func validated(id: Int64?) -> (CatalogueMedication?, FormErrors) {
        var errors = FormErrors()
        let name = values["name"] ?? "", description = values["description"] ?? ""
        if let problem = CatalogueRules.nameProblem(name, noun: "medication") { errors.add("name", problem) }
        var doses: [String] = []
        switch CatalogueRules.doses(values["doses"] ?? "") {
        case .success(let parsed): doses = parsed
        case .failure(let problem): errors.add("doses", problem.message)
        }
        if let problem = CatalogueRules.descriptionProblem(description, noun: "medication") { errors.add("description", problem) }
        guard errors.isEmpty else { return (nil, errors) }
        return (CatalogueMedication(id: id ?? 0, name: name, doses: doses, description: description), errors)
    }

    static func nameTaken(_ name: String) -> String { "The catalogue already has a medication called \(name)" }

    func entry(id: Int64?) -> CatalogueEntry {
        CatalogueEntry(
            heading: CatalogueEntry.heading(adding: "Add a medication", changing: id, name: values["name"], noun: "medication"),
            intro: "Physicians choose the medication and one of its doses when they prescribe it. Patients read the description in the app.",
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
            noun: "medication"
        )
    }
}

/// An exercise's form: its name, its description and, sent apart, its illustration.
struct ExerciseForm: Sendable {
    let values: [String: String]

    init(sent: [String: String]) {
        values = ["name": sent["name"]?.trimmed ?? "", "description": sent["description"]?.trimmed ?? ""]
    }

    init(_ exercise: CatalogueExercise?) {
        values = exercise.map { ["name": $0.name, "description": $0.description] } ?? [:]
    }

    /// The exercise's name and description, and the illustration's type when `illustration` holds a picture
    /// (nil when none was sent); nil with each problem by its field.
    func validated(illustration: [UInt8]?) -> (accepted: (name: String, description: String, illustration: IllustrationType?)?, errors: FormErrors) {
        var errors = FormErrors()
        let name = values["name"] ?? "", description = values["description"] ?? ""
        if let problem = CatalogueRules.nameProblem(name, noun: "exercise") { errors.add("name", problem) }
        if let problem = CatalogueRules.descriptionProblem(description, noun: "exercise") { errors.add("description", problem) }
        var type: IllustrationType?
        if let illustration {
            switch CatalogueRules.illustration(illustration) {
            case .success(let recognised): type = recognised
            case .failure(let problem): errors.add("illustration", problem.message)
            }
        }
        guard errors.isEmpty else { return (nil, errors) }
        return ((name, description, type), errors)
    }

    static func nameTaken(_ name: String) -> String { "The catalogue already has an exercise called \(name)" }

    func entry(id: Int64?, hasIllustration: Bool) -> CatalogueEntry {
        CatalogueEntry(
            heading: CatalogueEntry.heading(adding: "Add an exercise", changing: id, name: values["name"], noun: "exercise"),
            intro: "Patients see the description and the illustration in the app, to learn how to do the exercise.",
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
            noun: "exercise"
        )
    }
}

/// A frequency's form: its name and the two numbers the schedule is worked out from.
struct FrequencyForm: Sendable {
    let values: [String: String]

    init(sent: [String: String]) {
        values = [
            "name": sent["name"]?.trimmed ?? "", "times_per_day": sent["times_per_day"]?.trimmed ?? "",
            "every_days": sent["every_days"]?.trimmed ?? ""
        ]
    }

    init(_ frequency: CatalogueFrequency?) {
        values = frequency.map { ["name": $0.name, "times_per_day": "\($0.timesPerDay)", "every_days": "\($0.everyDays)"] } ?? [:]
    }

    /// The frequency the form describes (numbered `id`, or 0 when new), or nil with each problem by its field.
    func validated(id: Int64?) -> (CatalogueFrequency?, FormErrors) {
        var errors = FormErrors()
        let name = values["name"] ?? "", timesText = values["times_per_day"] ?? "", daysText = values["every_days"] ?? ""
        if let problem = CatalogueRules.nameProblem(name, noun: "frequency") { errors.add("name", problem) }
        let times = Int(timesText)
        if timesText.isEmpty {
            errors.add("times_per_day", "Enter how many times a day")
        } else if times.map(CatalogueFrequency.timesPerDayRange.contains) != true {
            errors.add("times_per_day", "Times a day must be a whole number from 1 to 12")
        }
        let days = Int(daysText)
        if daysText.isEmpty {
            errors.add("every_days", "Enter every how many days, such as 1 for every day")
        } else if days.map(CatalogueFrequency.everyDaysRange.contains) != true {
            errors.add("every_days", "Every how many days must be a whole number from 1 to 28")
        }
        guard errors.isEmpty, let times, let days else { return (nil, errors) }
        return (CatalogueFrequency(id: id ?? 0, name: name, timesPerDay: times, everyDays: days), errors)
    }

    static func nameTaken(_ name: String) -> String { "The catalogue already has a frequency called \(name)" }

    func entry(id: Int64?) -> CatalogueEntry {
        CatalogueEntry(
            heading: CatalogueEntry.heading(adding: "Add a frequency", changing: id, name: values["name"], noun: "frequency"),
            intro: "The patient’s daily schedule is worked out from the two numbers. Prescriptions already written keep the schedule they had.",
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
            noun: "frequency"
        )
    }
}

/// An exercise amount's form: its one line, such as "10 repetitions".
struct AmountForm: Sendable {
    let values: [String: String]

    init(sent: [String: String]) {
        values = ["name": sent["name"]?.trimmed ?? ""]
    }

    init(_ amount: CatalogueExerciseAmount?) {
        values = amount.map { ["name": $0.name] } ?? [:]
    }

    /// The amount the form describes (numbered `id`, or 0 when new), or nil with the problem beside its field.
    func validated(id: Int64?) -> (CatalogueExerciseAmount?, FormErrors) {
        var errors = FormErrors()
        let name = values["name"] ?? ""
        if name.isEmpty {
            errors.add("name", "Enter the amount, such as 10 repetitions")
        } else if let problem = CatalogueRules.nameProblem(name, noun: "amount") {
            errors.add("name", problem)
        }
        guard errors.isEmpty else { return (nil, errors) }
        return (CatalogueExerciseAmount(id: id ?? 0, name: name), errors)
    }

    static func nameTaken(_ name: String) -> String { "The catalogue already has the amount \(name)" }

    func entry(id: Int64?) -> CatalogueEntry {
        CatalogueEntry(
            heading: CatalogueEntry.heading(adding: "Add an exercise amount", changing: id, name: values["name"], noun: "exercise amount"),
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
            noun: "amount"
        )
    }
}

import Foundation
import Hummingbird
import PortalPlatform

extension Request {
    /// Every field of a URL-encoded form by name (the last wins when one is repeated): the wizard's
    /// rows are numbered, so their names are not known in advance.
    func formFields(context: PortalContext) async throws -> [String: String] {
        var copy = self
        let body = String(buffer: try await copy.collectBody(upTo: context.maxUploadSize))
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String? {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = decode(parts[0]) else { throw HTTPError(.badRequest) }
            let value = parts.count > 1 ? decode(parts[1]) : ""
            guard let value else { throw HTTPError(.badRequest) }
            fields[name] = value
        }
        return fields
    }
}

/// The button a wizard or edit form was sent with.
enum FormAction: Equatable {
    case next, back, cancel, add, remove(Int), save

    init(_ value: String?) {
        switch value {
        case "back": self = .back
        case "cancel": self = .cancel
        case "add": self = .add
        case "save": self = .save
        case let value? where value.hasPrefix("remove-"):
            self = Int(value.dropFirst("remove-".count)).map(FormAction.remove) ?? .next
        default: self = .next
        }
    }
}

/// Builds the forms' fields from what was typed, with each error beside its field.
enum PatientForms {
    static func contactFields(_ values: [String: String], errors: FormErrors) -> (fields: [FormField], address: FormField) {
        var fields = [
            FormField("first_name", label: "First name", value: values["first_name"] ?? "", autocomplete: "off", width: 20),
            FormField("middle_name", label: "Middle names (optional)", value: values["middle_name"] ?? "", autocomplete: "off", width: 20),
            FormField("last_name", label: "Last name", value: values["last_name"] ?? "", autocomplete: "off", width: 20),
            FormField(
                "medical_number",
                label: "Medical number",
                value: values["medical_number"] ?? "",
                hint: "Her health care number. She confirms it when she first opens the app.",
                autocomplete: "off",
                width: 20
            ),
            FormField(
                "email",
                label: "Email address",
                value: values["email"] ?? "",
                hint: "Her claim token for the app is sent here.",
                type: "email",
                autocomplete: "off",
                width: 30
            ),
            FormField("phone", label: "Phone number", value: values["phone"] ?? "", type: "tel", autocomplete: "off", width: 20)
        ]
        errors.apply(to: &fields)
        var address = FormField("address", label: "Address", value: values["address"] ?? "")
        address.error = errors["address"]
        return (fields, address)
    }

    static func checkContact(_ values: [String: String]) -> FormErrors {
        var errors = FormErrors()
        for problem in PatientRules.contactProblems(values) { errors.add(problem.field, problem.message) }
        return errors
    }

    /// The contact fields as typed, trimmed.
    static func contactValues(_ form: [String: String]) -> [String: String] {
        var values: [String: String] = [:]
        for name in PatientRules.contactFieldNames { values[name] = form[name]?.trimmed ?? "" }
        return values
    }

    static func rowViews(_ rows: [RegimenRow], kind: Prescription.Kind, catalogue: Catalogue, errors: FormErrors) -> [RegimenRowView] {
        rows.enumerated().map { index, row in
            let number = index + 1
            let noun = kind == .medication ? "medication" : "exercise"
            let item: SelectField
            let quantity: SelectField
            if kind == .medication {
                item = SelectField(
                    "medication_\(index)",
                    label: "Medication",
                    placeholder: "Choose a medication",
                    options: catalogue.medications.map { SelectOption(value: "\($0.id)", title: $0.name, isSelected: $0.id == row.itemID) },
                    error: errors["medication_\(index)"]
                )
                quantity = SelectField(
                    "dose_\(index)",
                    label: "Dose",
                    placeholder: "Choose a dose",
                    groups: catalogue.medications.map { medication in
                        SelectGroup(
                            label: medication.name,
                            options: medication.doses.map {
                                SelectOption(value: $0, title: $0, isSelected: medication.id == row.itemID && $0 == row.dose)
                            }
                        )
                    },
                    error: errors["dose_\(index)"]
                )
            } else {
                item = SelectField(
                    "exercise_\(index)",
                    label: "Exercise",
                    placeholder: "Choose an exercise",
                    options: catalogue.exercises.map { SelectOption(value: "\($0.id)", title: $0.name, isSelected: $0.id == row.itemID) },
                    error: errors["exercise_\(index)"]
                )
                quantity = SelectField(
                    "amount_\(index)",
                    label: "Amount",
                    placeholder: "Choose an amount",
                    options: catalogue.amounts.map { SelectOption(value: "\($0.id)", title: $0.name, isSelected: $0.id == row.amountID) },
                    error: errors["amount_\(index)"]
                )
            }
            let frequency = SelectField(
                "frequency_\(index)",
                label: "How often",
                placeholder: "Choose how often",
                options: catalogue.frequencies.map { SelectOption(value: "\($0.id)", title: $0.name, isSelected: $0.id == row.frequencyID) },
                error: errors["frequency_\(index)"]
            )
            var note = FormField(
                "note_\(index)",
                label: "Note for \(noun) \(number) (optional)",
                value: row.note,
                hint: "Such as take with food. The patient reads it in the app."
            )
            note.error = errors["note_\(index)"]
            return RegimenRowView(
                index: index,
                number: number,
                prescriptionID: row.prescriptionID.map { "\($0)" },
                item: item,
                quantity: quantity,
                frequency: frequency,
                note: note,
                noteIsOpen: !row.note.isEmpty || note.error != nil,
                removeValue: "remove-\(index)",
                kindNoun: noun
            )
        }
    }

    /// Applies an add or remove button to the rows; there is always at least one row to fill in.
    static func apply(_ action: FormAction, to rows: [RegimenRow]) -> [RegimenRow] {
        var rows = rows
        switch action {
        case .add where rows.count < PatientRules.maximumRows: rows.append(.empty)
        case .remove(let index) where rows.indices.contains(index): rows.remove(at: index)
        default: break
        }
        return rows.isEmpty ? [.empty] : rows
    }

    static func errors(_ problems: [(field: String, message: String)]) -> FormErrors {
        var errors = FormErrors()
        for problem in problems { errors.add(problem.field, problem.message) }
        return errors
    }
}

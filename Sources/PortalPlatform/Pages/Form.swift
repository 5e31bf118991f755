/// One input of a form as the template shows it: what the person typed is kept, and the error sits beside it.
///
/// Templates read stored properties only, so everything derived is kept up to date as the field changes.
package struct FormField: Sendable, Encodable {
    package let name: String
    package let label: String
    package var value: String
    package var error: String? { didSet { refresh() } }
    package let hint: String?
    package let type: String
    package let autocomplete: String?
    /// The stylesheet's width class, from a width of 10, 20 or 30 characters.
    package let widthClass: String?
    package private(set) var hasError = false
    package private(set) var describedBy: String?

    package init(
        _ name: String,
        label: String,
        value: String = "",
        hint: String? = nil,
        type: String = "text",
        autocomplete: String? = nil,
        width: Int? = nil
    ) {
        self.name = name
        self.label = label
        self.value = value
        self.hint = hint
        self.type = type
        self.autocomplete = autocomplete
        self.widthClass = width.map { "input--width-\($0)" }
        refresh()
    }

    private mutating func refresh() {
        hasError = error != nil
        let ids = [hint == nil ? nil : "\(name)-hint", error == nil ? nil : "\(name)-error"].compactMap { $0 }
        describedBy = ids.isEmpty ? nil : ids.joined(separator: " ")
    }
}

/// The errors of a submitted form, in the order of its fields.
package struct FormErrors: Sendable {
    package struct Item: Sendable, Encodable {
        package let field: String
        package let message: String

        package init(field: String, message: String) {
            self.field = field
            self.message = message
        }
    }

    package private(set) var items: [Item] = []

    package var isEmpty: Bool { items.isEmpty }

    package mutating func add(_ field: String, _ message: String) {
        guard self[field] == nil else { return }
        items.append(Item(field: field, message: message))
    }

    package subscript(field: String) -> String? { items.first { $0.field == field }?.message }

    /// Puts each error beside its field.
    package func apply(to fields: inout [FormField]) {
        for index in fields.indices { fields[index].error = self[fields[index].name] }
    }

    package init(items: [Item] = []) {
        self.items = items
    }

    /// One problem, beside `field`.
    package static func one(_ field: String, _ message: String) -> FormErrors {
        FormErrors(items: [Item(field: field, message: message)])
    }
}

extension String {
    /// Input with surrounding spaces removed, as forms keep it.
    package var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}

extension FormField {
    /// A new password and the field that confirms it (`<name>` and `<name>_confirmation`), as every form
    /// that sets a password asks for them, with the password rule as its hint.
    package static func newPassword(
        _ name: String = "password",
        label: String = "Password",
        confirmationLabel: String = "Confirm password",
        width: Int? = 20
    ) -> [FormField] {
        [
            FormField(
                name,
                label: label,
                hint: "At least 8 characters. A few random words make a strong password.",
                type: "password",
                autocomplete: "new-password",
                width: width
            ),
            FormField("\(name)_confirmation", label: confirmationLabel, type: "password", autocomplete: "new-password", width: width)
        ]
    }
}

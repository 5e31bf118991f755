/// One input of a form as the template shows it: what the person typed is kept, and the error sits beside it.
///
/// Templates read stored properties only, so everything derived is kept up to date as the field changes.
struct FormField: Sendable, Encodable {
    let name: String
    let label: String
    var value: String
    var error: String? { didSet { refresh() } }
    let hint: String?
    let type: String
    let autocomplete: String?
    /// The stylesheet's width class, from a width of 10, 20 or 30 characters.
    let widthClass: String?
    private(set) var hasError = false
    private(set) var describedBy: String?

    init(
        _ name: String, label: String, value: String = "", hint: String? = nil, type: String = "text",
        autocomplete: String? = nil, width: Int? = nil
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
struct FormErrors: Sendable {
    struct Item: Sendable, Encodable {
        let field: String
        let message: String
    }

    private(set) var items: [Item] = []

    var isEmpty: Bool { items.isEmpty }

    mutating func add(_ field: String, _ message: String) {
        guard self[field] == nil else { return }
        items.append(Item(field: field, message: message))
    }

    subscript(field: String) -> String? { items.first { $0.field == field }?.message }

    /// Puts each error beside its field.
    func apply(to fields: inout [FormField]) {
        for index in fields.indices { fields[index].error = self[fields[index].name] }
    }
}

extension String {
    /// Input with surrounding spaces removed, as forms keep it.
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}

import Foundation
import PortalPlatform

/// The ten templates a care receiver makes memories from (seed 003, §2.3.10–2.3.19). The four secret
/// ones are always secured; any other may be secured by her choice.
enum MemoryType: String, CaseIterable, Sendable, Codable {
    case genericMemory = "generic_memory"
    case interaction
    case simpleMemory = "simple_memory"
    case todoList = "todo_list"
    case simpleTodo = "simple_todo"
    case appointment
    case websitePassword = "website_password"
    case simplePassword = "simple_password"
    case creditCard = "credit_card"
    case bankAccount = "bank_account"

    var title: String {
        switch self {
        case .genericMemory: "Memory"
        case .interaction: "Interaction"
        case .simpleMemory: "Simple memory"
        case .todoList: "To-do list"
        case .simpleTodo: "Simple to-do"
        case .appointment: "Appointment"
        case .websitePassword: "Website password"
        case .simplePassword: "Simple password"
        case .creditCard: "Credit card"
        case .bankAccount: "Bank account"
        }
    }

    /// A secret template: its memories are always secured.
    var isSecret: Bool { !templateFields.isEmpty }

    /// Appointments and to-dos: what a caregiver with the `reminders` scope sees, and with `plans` adds and changes.
    var isPlan: Bool { self == .appointment || self == .todoList || self == .simpleTodo }

    /// The template's own fields, beyond those every memory has (all of them secret).
    var templateFields: [String] {
        switch self {
        case .websitePassword: ["website", "username", "password"]
        case .simplePassword: ["password"]
        case .creditCard: ["cardholder", "number", "expiry", "security_code"]
        case .bankAccount: ["bank", "account_holder", "account_number", "sort_code"]
        default: []
        }
    }
}

/// What a memory is about, from a short fixed list, so a care receiver can share chosen categories with
/// a caregiver and filter her list by them.
enum MemoryCategory: String, CaseIterable, Sendable {
    case family, friends, health, home, money, errands, hobbies, other

    var title: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
}

enum MemoryStatus: String, CaseIterable, Sendable {
    case none, open, done, cancelled
}

/// How a reminder repeats: not at all, every day, on chosen weekdays each week, or on the same day each month.
enum Recurrence: String, CaseIterable, Sendable {
    case none, daily, weekly, monthly
}

enum Weekday: String, CaseIterable, Sendable {
    case mon, tue, wed, thu, fri, sat, sun
}

/// A custom field a care receiver adds to a memory: a title and its content.
struct CustomField: Codable, Sendable, Equatable {
    var title: String
    var content: String
}

/// One line of a to-do list.
struct TodoItem: Codable, Sendable, Equatable {
    var text: String
    var done: Bool
}

/// Everything a memory says, as she gave it; on a secured memory all of it is sealed under her key.
struct MemoryContent: Codable, Sendable, Equatable {
    var title: String
    var category: MemoryCategory.RawValue
    /// When it happens, in her own time (`2026-03-03T10:14`); nil when it has no time.
    var happensAt: String?
    var reminderAt: String?
    var recurrence: Recurrence.RawValue
    var recurrenceDays: [Weekday.RawValue]
    var status: MemoryStatus.RawValue
    var tags: [String]
    var location: String
    var emoji: String
    var description: String
    var customFields: [CustomField]
    /// Her contacts this memory is about, by id.
    var people: [Int64]
    /// The template's own fields (`website`, `password`, …).
    var fields: [String: String]
    /// A to-do list's lines.
    var items: [TodoItem]

    /// The words search reads: title, description and custom fields, lowercased.
    var searchText: String {
        ([title, description] + customFields.flatMap { [$0.title, $0.content] } + items.map(\.text)).joined(separator: "\n").lowercased()
    }
}

/// A memory as kept: its content (nil while it is secured and not opened with her PIN).
struct Memory: Sendable {
    let id: Int64
    let receiverID: Int64
    let clientID: String?
    let type: MemoryType
    let secured: Bool
    let content: MemoryContent?
    /// A secured memory's reminder stays readable, so it can be sent; its words do not.
    let reminderAt: String?
    let recurrence: Recurrence
    let version: Int64
    let changeNumber: Int64
    let createdAt: Date
    let updatedAt: Date
    let changedByCaregiver: Bool
    let deletedAt: Date?

    var isDeleted: Bool { deletedAt != nil }
}

/// One of her contacts (§4.3.1.4).
struct ContactContent: Codable, Sendable, Equatable {
    var name: String
    var phones: [String]
    var email: String
    var address: String
    var company: String

    var searchText: String { [name, email, company, address].joined(separator: "\n").lowercased() }
}

struct CareContact: Sendable {
    let id: Int64
    let receiverID: Int64
    let clientID: String?
    let content: ContactContent
    let version: Int64
    let changeNumber: Int64
    let updatedAt: Date
    let deletedAt: Date?
}

/// The limits and checks of what a care receiver (or a caregiver with the `plans` scope) types.
enum MemoryRules {
    static let titleMaximumLength = 200
    static let textMaximumLength = 10_000
    static let shortMaximumLength = 500
    static let maximumTags = 20
    static let tagMaximumLength = 40
    static let maximumCustomFields = 30
    static let maximumPeople = 50
    static let maximumItems = 100
    static let clientIDMaximumLength = 100

    /// `2026-03-03T10:14` in her own time, or nil when `text` is not one.
    static func localDateTime(_ text: String) -> DateComponents? {
        let parts = text.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count == 2, let date = CalendarDate(iso: String(parts[0])) else { return nil }
        let time = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 2, time[0].count == 2, time[1].count == 2, let hour = Int(time[0]), let minute = Int(time[1]),
            (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return DateComponents(year: date.year, month: date.month, day: date.day, hour: hour, minute: minute)
    }

    /// Every problem with `content` for a memory of `type`, keyed by the JSON field (`title`,
    /// `custom_fields.2.title`); `knownContacts` are her contacts' ids.
    static func problems(with content: MemoryContent, type: MemoryType, knownContacts: Set<Int64>) -> [String: String] {
        var problems: [String: String] = [:]
        if let problem = FieldRules.requiredTextProblem(content.title, name: "a title", maximumLength: titleMaximumLength) {
            problems["title"] = problem
        }
        if MemoryCategory(rawValue: content.category) == nil {
            problems["category"] = "Choose a category: \(MemoryCategory.allCases.map(\.rawValue).joined(separator: ", "))"
        }
        if let happensAt = content.happensAt, localDateTime(happensAt) == nil {
            problems["happens_at"] = "Enter a date and time like 2026-03-03T10:14"
        }
        if let reminderAt = content.reminderAt, localDateTime(reminderAt) == nil {
            problems["reminder_at"] = "Enter a reminder time like 2026-03-03T09:00"
        }
        if let recurrence = Recurrence(rawValue: content.recurrence) {
            if recurrence != .none, content.reminderAt == nil { problems["recurrence"] = "Choose a reminder time for a reminder that repeats" }
            if recurrence == .weekly, content.recurrenceDays.isEmpty { problems["recurrence_days"] = "Choose the days of the week it repeats on" }
            if recurrence != .weekly, !content.recurrenceDays.isEmpty {
                problems["recurrence_days"] = "Days of the week are only for a weekly reminder"
            }
        } else {
            problems["recurrence"] = "Choose how the reminder repeats: none, daily, weekly or monthly"
        }
        if content.recurrenceDays.contains(where: { Weekday(rawValue: $0) == nil })
            || Set(content.recurrenceDays).count != content.recurrenceDays.count
        {
            problems["recurrence_days"] = "Choose each day once, as mon, tue, wed, thu, fri, sat or sun"
        }
        if MemoryStatus(rawValue: content.status) == nil { problems["status"] = "Choose a status: none, open, done or cancelled" }
        if content.tags.count > maximumTags { problems["tags"] = "Use at most \(maximumTags) tags" }
        for (index, tag) in content.tags.enumerated() where tag.trimmed.isEmpty || tag.count > tagMaximumLength {
            problems["tags.\(index)"] = "Enter a tag of 1 to \(tagMaximumLength) characters"
        }
        if content.location.count > shortMaximumLength { problems["location"] = "Enter a location of \(shortMaximumLength) characters or fewer" }
        if content.emoji.count > 1 || content.emoji.unicodeScalars.count > 16 { problems["emoji"] = "Choose one emoji" }
        if content.description.count > textMaximumLength {
            problems["description"] = "Enter a description of \(textMaximumLength) characters or fewer"
        }
        if content.customFields.count > maximumCustomFields { problems["custom_fields"] = "Use at most \(maximumCustomFields) custom fields" }
        for (index, field) in content.customFields.enumerated() {
            if let problem = FieldRules.requiredTextProblem(field.title, name: "the field's title", maximumLength: titleMaximumLength) {
                problems["custom_fields.\(index).title"] = problem
            }
            if field.content.count > textMaximumLength {
                problems["custom_fields.\(index).content"] = "Enter \(textMaximumLength) characters or fewer"
            }
        }
        if content.people.count > maximumPeople { problems["people"] = "Choose at most \(maximumPeople) people" }
        if content.people.contains(where: { !knownContacts.contains($0) }) { problems["people"] = "Choose people from your contacts" }
        let allowed = Set(type.templateFields)
        for (name, value) in content.fields {
            if !allowed.contains(name) {
                problems["fields.\(name)"] =
                    type.templateFields.isEmpty
                    ? "A \(type.title.lowercased()) has no field \(name)"
                    : "A \(type.title.lowercased()) has the fields \(type.templateFields.joined(separator: ", "))"
            } else if value.count > shortMaximumLength {
                problems["fields.\(name)"] = "Enter \(shortMaximumLength) characters or fewer"
            }
        }
        if type != .todoList, !content.items.isEmpty { problems["items"] = "Only a to-do list has lines" }
        if content.items.count > maximumItems { problems["items"] = "Use at most \(maximumItems) lines" }
        for (index, item) in content.items.enumerated() where item.text.trimmed.isEmpty || item.text.count > shortMaximumLength {
            problems["items.\(index).text"] = "Enter a line of 1 to \(shortMaximumLength) characters"
        }
        for (field, text, allowingLines) in texts(of: content) where hasControlCharacters(text, allowingLines: allowingLines) {
            problems[field] = controlCharacterProblem
        }
        return problems
    }

    static func problems(with contact: ContactContent) -> [String: String] {
        var problems: [String: String] = [:]
        if let problem = FieldRules.requiredTextProblem(contact.name, name: "a name", maximumLength: titleMaximumLength) {
            problems["name"] = problem
        }
        if contact.phones.count > 10 { problems["phones"] = "Enter at most 10 phone numbers" }
        for (index, phone) in contact.phones.enumerated() {
            if let problem = phoneProblem(phone) { problems["phones.\(index)"] = problem }
        }
        if !contact.email.isEmpty, let problem = FieldRules.emailProblem(contact.email) { problems["email"] = problem }
        if contact.address.count > shortMaximumLength { problems["address"] = "Enter an address of \(shortMaximumLength) characters or fewer" }
        if contact.company.count > titleMaximumLength { problems["company"] = "Enter a company of \(titleMaximumLength) characters or fewer" }
        let texts =
            [("name", contact.name), ("email", contact.email), ("address", contact.address), ("company", contact.company)]
            + contact.phones.enumerated().map { ("phones.\($0.offset)", $0.element) }
        for (field, text) in texts where hasControlCharacters(text, allowingLines: field == "address") { problems[field] = controlCharacterProblem }
        return problems
    }

    /// A phone number as memory care takes one (hers, a contact's, the program's support line): digits,
    /// spaces and `+ - ( ) .`, at most 40.
    static func phoneProblem(_ phone: String) -> String? {
        let allowed = Set("0123456789 +-().")
        guard phone.trimmed.isEmpty || phone.count > 40 || !phone.allSatisfy(allowed.contains) else { return nil }
        return "Enter a phone number using digits, spaces and + - ( )"
    }

    static func clientIDProblem(_ clientID: String?) -> String? {
        guard let clientID else { return nil }
        if clientID.isEmpty || clientID.count > clientIDMaximumLength || hasControlCharacters(clientID) {
            return "Use a client id of 1 to \(clientIDMaximumLength) characters, without control characters"
        }
        return nil
    }

    /// Control characters (NUL and the like: Unicode's category Cc) have no place in what people type, and
    /// PostgreSQL refuses NUL. Line breaks and tabs are allowed where text may run over lines; the invisible
    /// joiners emoji and names are made with (category Cf) are text like any other.
    static func hasControlCharacters(_ text: String, allowingLines: Bool = false) -> Bool {
        text.unicodeScalars.contains { scalar in
            scalar.properties.generalCategory == .control && !(allowingLines && (scalar == "\n" || scalar == "\r" || scalar == "\t"))
        }
    }

    static func withoutControlCharacters(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }))
    }

    /// Client ids the server makes for records without one (`careportal-memory-12`): an app may not choose them.
    static let reservedClientIDPrefix = "careportal-"

    static func newClientIDProblem(_ clientID: String?) -> String? {
        if let clientID, clientID.hasPrefix(reservedClientIDPrefix) { return "Use a client id that does not start with \(reservedClientIDPrefix)" }
        return clientIDProblem(clientID)
    }

    static let controlCharacterProblem = "Remove the control characters from this field"

    /// Every text of a memory, by its field, for the control-character check.
    private static func texts(of content: MemoryContent) -> [(String, String, Bool)] {
        var texts: [(String, String, Bool)] = [
            ("title", content.title, false), ("category", content.category, false), ("location", content.location, false),
            ("emoji", content.emoji, false), ("description", content.description, true), ("status", content.status, false),
            ("recurrence", content.recurrence, false)
        ]
        texts += content.tags.enumerated().map { ("tags.\($0.offset)", $0.element, false) }
        texts += content.customFields.enumerated().flatMap {
            [
                ("custom_fields.\($0.offset).title", $0.element.title, false),
                ("custom_fields.\($0.offset).content", $0.element.content, true)
            ]
        }
        texts += content.items.enumerated().map { ("items.\($0.offset).text", $0.element.text, false) }
        texts += content.fields.map { ("fields.\($0.key)", $0.key + $0.value, false) }
        return texts
    }
}

import Foundation
import Hummingbird
import PortalPlatform

/// The care receiver's and the caregiver's parts of the people's web app. Each page's model is made from
/// the same domain values the memory-care apps' API answers with; every page says one thing in plain words.
extension TemplateName {
    static let appCareRegister = TemplateName("app/care/register")
    static let appCareMemories = TemplateName("app/care/memories")
    static let appCareMemoryType = TemplateName("app/care/memory-type")
    static let appCareMemoryForm = TemplateName("app/care/memory-form")
    static let appCareMemory = TemplateName("app/care/memory")
    static let appCareConfirm = TemplateName("app/care/confirm")
    static let appCareUnlock = TemplateName("app/care/unlock")
    static let appCarePIN = TemplateName("app/care/pin")
    static let appCareContacts = TemplateName("app/care/contacts")
    static let appCareContact = TemplateName("app/care/contact")
    static let appCareContactForm = TemplateName("app/care/contact-form")
    static let appCareSharing = TemplateName("app/care/sharing")
    static let appCareGrant = TemplateName("app/care/grant")
    static let appCareCode = TemplateName("app/care/code")
    static let appCareAccessLog = TemplateName("app/care/access-log")
    static let appCaregiverPeople = TemplateName("app/caregiver/people")
    static let appCaregiverPerson = TemplateName("app/caregiver/person")
    static let appCaregiverMemory = TemplateName("app/caregiver/memory")

    static let appCareTemplates: [TemplateName] = [
        .appCareRegister, .appCareMemories, .appCareMemoryType, .appCareMemoryForm, .appCareMemory, .appCareConfirm, .appCareUnlock,
        .appCarePIN, .appCareContacts, .appCareContact, .appCareContactForm, .appCareSharing, .appCareGrant, .appCareCode,
        .appCareAccessLog, .appCaregiverPeople, .appCaregiverPerson, .appCaregiverMemory
    ]
}

extension AppNavigation {
    static let careReceiver = AppNavigation(
        .careReceiver,
        links: [
            ("Memories", CareURL.appMemories.path), ("Contacts", CareURL.appContacts.path), ("Sharing", CareURL.appSharing.path),
            ("Notifications", CareURL.appNotifications(.careReceiver).path)
        ]
    )
    static let caregiver = AppNavigation(
        .caregiver,
        links: [
            ("People you help", CareURL.appPeople.path), ("Notifications", CareURL.appNotifications(.caregiver).path)
        ]
    )
}

/// How memory care's pages say a time she gave (`2026-03-03T10:30`) and read one she types.
enum CareAppTime {
    /// "Tue 3 Mar 2026 at 10:30".
    static func text(_ local: String?) -> String? {
        guard let local, let parts = MemoryRules.localDateTime(local), let date = CalendarDate(iso: String(local.prefix(10))) else { return nil }
        return "\(date.weekdayAndDay) \(date.year) at \(String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0))"
    }

    /// "10:30" from `10:30`, `9:30` or `9.30`; nil for anything else.
    static func time(_ typed: String) -> String? {
        let parts = typed.trimmed.split(omittingEmptySubsequences: false) { $0 == ":" || $0 == "." }
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }), let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return String(format: "%02d:%02d", hour, minute)
    }

    /// How a reminder repeats, as a sentence's end: "every day", "every week on Monday and Thursday".
    static func repeats(_ recurrence: String, days: [String]) -> String? {
        switch Recurrence(rawValue: recurrence) {
        case .daily: "every day"
        case .weekly:
            "every week on " + listed(Weekday.allCases.filter { days.contains($0.rawValue) }.map(\.name))
        case .monthly: "every month"
        case .none?, nil: nil
        }
    }

    static func listed(_ items: [String]) -> String {
        items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items.last!
    }
}

extension Weekday {
    var name: String {
        switch self {
        case .mon: "Monday"
        case .tue: "Tuesday"
        case .wed: "Wednesday"
        case .thu: "Thursday"
        case .fri: "Friday"
        case .sat: "Saturday"
        case .sun: "Sunday"
        }
    }
}

extension MemoryType {
    /// What the template is for, under its name where she chooses one.
    var hint: String {
        switch self {
        case .genericMemory: "Anything you want to remember, with as much detail as you like."
        case .interaction: "A conversation or a visit: who, when and what was said."
        case .simpleMemory: "A short note."
        case .todoList: "A list of things to do, ticked off one by one."
        case .simpleTodo: "One thing to do, with a reminder if you like."
        case .appointment: "Somewhere to be at a time, with a reminder."
        case .websitePassword: "A website's address, your username and password. Always secured."
        case .simplePassword: "A password or PIN. Always secured."
        case .creditCard: "A card's details. Always secured."
        case .bankAccount: "A bank account's details. Always secured."
        }
    }

    /// A template field's label.
    static func fieldLabel(_ name: String) -> String {
        switch name {
        case "website": "Website"
        case "username": "Username"
        case "password": "Password"
        case "cardholder": "Name on the card"
        case "number": "Card number"
        case "expiry": "Expiry date"
        case "security_code": "Security code"
        case "bank": "Bank"
        case "account_holder": "Account holder"
        case "account_number": "Account number"
        case "sort_code": "Sort code"
        default: name
        }
    }
}

/// "Newer" and "Older" (or "Previous" and "Next") under a memory-care list read a page at a time, keeping
/// its search and filters.
struct CarePageLinks: Encodable, Sendable {
    let previousPath: String?
    let nextPath: String?

    init(_ url: CareURL, page: Int, hasMore: Bool, keeping parameters: [(String, String?)] = []) {
        let address = ListAddress(path: url.path, parameters: parameters)
        previousPath = page > 1 ? address.with("page", "\(page - 1)").string : nil
        nextPath = hasMore ? address.with("page", "\(page + 1)").string : nil
    }

    /// The page a list's link asks for, from 1.
    static func number(_ request: Request) -> Int { min(max(request.pageNumber, 1), 100_000) }
}

/// A checkbox or radio button of a page: its id (which the label and the error summary name), value and state.
struct CareChoice: Encodable, Sendable {
    let id: String
    let name: String
    let value: String
    let title: String
    let hint: String?
    let isSelected: Bool

    /// One choice per item, the first with the group's own id so the error summary can link to it.
    static func group<T>(
        _ name: String,
        _ items: [T],
        value: (T) -> String,
        title: (T) -> String,
        hint: (T) -> String? = { _ in nil },
        selected: (T) -> Bool
    ) -> [CareChoice] {
        items.enumerated().map { index, item in
            CareChoice(
                id: index == 0 ? name : "\(name)-\(value(item))",
                name: name,
                value: value(item),
                title: title(item),
                hint: hint(item),
                isSelected: selected(item)
            )
        }
    }
}

// MARK: Registration

/// Registering: her name, email address and password, on one page.
struct CareRegistrationPage: Page {
    static let template = TemplateName.appCareRegister
    static let fieldOrder = ["name", "email", "password", "password_confirmation"]

    let layout: Layout
    let errors: [FormErrors.Item]
    let heading: String
    let fields: [FormField]
    let action: String
    let signInPath: String

    init(layout: Layout, kind: CareAccountKind, name: String = "", email: String = "", errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.errors = errors.items
        heading = kind == .careReceiver ? "Create your account" : "Create your caregiver account"
        var fields =
            [
                FormField(
                    "name",
                    label: "Your name",
                    value: name,
                    hint: kind == .careReceiver ? "The people you share with see it." : "The person you help sees it.",
                    autocomplete: "name",
                    width: 20
                ),
                FormField(
                    "email",
                    label: "Email address",
                    value: email,
                    hint: "You sign in with it, and we send a link to it to start.",
                    type: "email",
                    autocomplete: "email",
                    width: 30
                )
            ] + FormField.newPassword()
        errors.apply(to: &fields)
        self.fields = fields
        action = CareURL.appRegister(kind).path
        signInPath = kind.appAccount.signInPagePath
    }
}

// MARK: Her memories

/// One memory in a list: what it is and when, or only that it is secured while her PIN is not entered.
struct CareMemoryCard: Encodable, Sendable {
    let path: String
    let title: String
    let emoji: String?
    let note: String
    let isDone: Bool

    init(_ memory: Memory, path: String) {
        self.path = path
        guard let content = memory.content else {
            title = "Secured \(memory.type.title.lowercased())"
            emoji = "🔒"
            note = "Enter your PIN to see it"
            isDone = false
            return
        }
        title = content.title
        emoji = content.emoji.isEmpty ? (memory.secured ? "🔒" : nil) : content.emoji
        let status = MemoryStatus(rawValue: content.status)
        isDone = status == .done
        let when = CareAppTime.text(content.happensAt) ?? CareAppTime.text(content.reminderAt).map { "Reminder \($0)" }
        note = [memory.type.title, when, status == .done ? "Done" : status == .cancelled ? "Cancelled" : nil].compactMap { $0 }.joined(
            separator: " · "
        )
    }
}

/// Her home: this week's appointments and plans, her memories newest first with search and a category filter.
struct CareMemoriesPage: Page {
    static let template = TemplateName.appCareMemories

    let layout: Layout
    let greeting: String
    let thisWeek: [CareMemoryCard]
    let memories: [CareMemoryCard]
    let query: String
    let categories: [CareChoice]
    let isFiltered: Bool
    let newPath = CareURL.appMemoryNew.path
    let listPath = CareURL.appMemories.path
    let feedbackPath = CareURL.appFeedback(.careReceiver).path
    let passwordPath = CareURL.appPassword(.careReceiver).path
    let unlockPath: String?
    let lockPath: String?
    let openUntilText: String?
    let pages: CarePageLinks
    let notice: String?

    init(
        layout: Layout,
        name: String,
        thisWeek: [Memory],
        memories: [Memory],
        query: String,
        category: String?,
        page: Int,
        hasMore: Bool,
        openUntil: Date?,
        hasSecured: Bool,
        clock: ProgramClock,
        notice: String?
    ) {
        self.layout = layout
        greeting = "Hello, \(name)"
        self.thisWeek = thisWeek.map { CareMemoryCard($0, path: CareURL.appMemory($0.id).path) }
        self.memories = memories.map { CareMemoryCard($0, path: CareURL.appMemory($0.id).path) }
        self.query = query
        categories =
            [CareChoice(id: "category", name: "category", value: "", title: "All categories", hint: nil, isSelected: category == nil)]
            + MemoryCategory.allCases.map {
                CareChoice(
                    id: "category-\($0.rawValue)",
                    name: "category",
                    value: $0.rawValue,
                    title: $0.title,
                    hint: nil,
                    isSelected: category == $0.rawValue
                )
            }
        isFiltered = !query.isEmpty || category != nil
        unlockPath = openUntil == nil && hasSecured ? "\(CareURL.appUnlock.path)?next=\(CareURL.appMemories.path)" : nil
        lockPath = openUntil == nil ? nil : CareURL.appLock.path
        openUntilText = openUntil.map { "Your secured memories are open until \(clock.time($0))." }
        pages = CarePageLinks(.appMemories, page: page, hasMore: hasMore, keeping: [("q", query), ("category", category)])
        self.notice = notice
    }
}

/// Step one of a new memory: which kind of memory it is.
struct CareMemoryTypePage: Page {
    static let template = TemplateName.appCareMemoryType
    let layout: Layout
    let errors: [FormErrors.Item]
    let types: [CareChoice]
    let typeError: String?
    let question: String
    let action: String
    let cancelPath: String

    init(
        layout: Layout,
        question: String = "What kind of memory is it?",
        types: [MemoryType] = MemoryType.allCases,
        action: String = CareURL.appMemoryNew.path,
        cancelPath: String = CareURL.appMemories.path,
        problem: String? = nil
    ) {
        self.layout = layout
        self.question = question
        errors = problem.map { [FormErrors.Item(field: "type", message: $0)] } ?? []
        self.types = CareChoice.group("type", types, value: \.rawValue, title: \.title, hint: \.hint, selected: { _ in false })
        typeError = problem
        self.action = action
        self.cancelPath = cancelPath
    }
}

/// A memory's form as typed: the boxes' text, kept as it was when something is wrong.
struct CareMemoryTyped: Sendable {
    var title = ""
    var category = MemoryCategory.other.rawValue
    var happens = DateInputValue(day: nil, month: nil, year: nil)
    var happensTime = ""
    var reminder = DateInputValue(day: nil, month: nil, year: nil)
    var reminderTime = ""
    var recurrence = Recurrence.none.rawValue
    var recurrenceDays: [String] = []
    var location = ""
    var description = ""
    var tags = ""
    var emoji = ""
    var people: [Int64] = []
    var lines = ""
    var secured = false
    var fields: [String: String] = [:]

    init() {}

    /// The form filled from a memory she has.
    init(_ content: MemoryContent, secured: Bool) {
        func split(_ local: String?) -> (DateInputValue, String) {
            guard let local, let date = CalendarDate(iso: String(local.prefix(10))) else {
                return (DateInputValue(day: nil, month: nil, year: nil), "")
            }
            return (DateInputValue(day: "\(date.day)", month: "\(date.month)", year: "\(date.year)"), String(local.dropFirst(11)))
        }
        title = content.title
        category = content.category
        (happens, happensTime) = split(content.happensAt)
        (reminder, reminderTime) = split(content.reminderAt)
        recurrence = content.recurrence
        recurrenceDays = content.recurrenceDays
        location = content.location
        description = content.description
        tags = content.tags.joined(separator: ", ")
        emoji = content.emoji
        people = content.people
        lines = content.items.map(\.text).joined(separator: "\n")
        self.secured = secured
        fields = content.fields
    }

    /// What is wrong, by the form's field (`happens` for the date, `happens_time` for its time), and the
    /// dates' own problems.
    struct Problems: Sendable {
        var fields: [String: String] = [:]
        var dates: [String: DateInputProblem] = [:]

        var isEmpty: Bool { fields.isEmpty && dates.isEmpty }
    }

    /// `2026-03-03T10:30` from a date and a time, both optional together; the problems otherwise.
    private static func local(_ date: DateInputValue, _ time: String, name: String, field: String, problems: inout Problems) -> String? {
        let noDate = date.day.isEmpty && date.month.isEmpty && date.year.isEmpty
        if noDate, time.trimmed.isEmpty { return nil }
        var day: CalendarDate?
        switch date.date(named: name, missing: "Enter the date as well as the time") {
        case .success(let date): day = date
        case .failure(let problem): problems.dates[field] = problem
        }
        guard let clock = CareAppTime.time(time) else {
            problems.fields["\(field)_time"] = time.trimmed.isEmpty ? "Enter a time as well, like 10:30" : "Enter a time like 10:30 or 14:05"
            return nil
        }
        return day.map { "\($0.iso)T\(clock)" }
    }

    /// The memory it says, over `kept` (what the form does not show: custom fields, to-do lines' ticks,
    /// status), and anything wrong with how it was typed.
    func content(type: MemoryType, kept: MemoryContent?) -> (MemoryContent, Problems) {
        var problems = Problems()
        let happensAt = Self.local(happens, happensTime, name: "The date", field: "happens", problems: &problems)
        let reminderAt = Self.local(reminder, reminderTime, name: "The reminder's date", field: "reminder", problems: &problems)
        let keptItems = kept?.items ?? []
        let items = lines.split(whereSeparator: \.isNewline).map { String($0).trimmed }.filter { !$0.isEmpty }.map { text in
            TodoItem(text: text, done: keptItems.first { $0.text == text }?.done ?? false)
        }
        let content = MemoryContent(
            title: title.trimmed,
            category: category,
            happensAt: happensAt,
            reminderAt: reminderAt,
            recurrence: recurrence,
            recurrenceDays: recurrence == Recurrence.weekly.rawValue ? recurrenceDays : [],
            status: kept?.status ?? (type.isPlan ? MemoryStatus.open.rawValue : MemoryStatus.none.rawValue),
            tags: tags.split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty },
            location: location.trimmed,
            emoji: emoji.trimmed,
            description: description,
            customFields: kept?.customFields ?? [],
            people: people,
            fields: Dictionary(uniqueKeysWithValues: type.templateFields.compactMap { name in fields[name].map { (name, $0) } }),
            items: items
        )
        return (content, problems)
    }

    /// The memory it says and every problem with it: how the boxes were typed, then the domain's rules
    /// (`knownContacts` are the people it may name); an appointment needs its day.
    func checked(type: MemoryType, kept: MemoryContent?, knownContacts: Set<Int64>) -> (MemoryContent, Problems) {
        let (content, typing) = content(type: type, kept: kept)
        var problems = typing
        var found = MemoryRules.problems(with: content, type: type, knownContacts: knownContacts)
        if problems.dates["happens"] != nil || problems.fields["happens_time"] != nil { found["happens_at"] = nil }
        if problems.dates["reminder"] != nil || problems.fields["reminder_time"] != nil {
            found["reminder_at"] = nil
            found["recurrence"] = nil
        }
        Self.add(found, to: &problems)
        if type == .appointment, content.happensAt == nil, problems.dates["happens"] == nil, problems.fields["happens_time"] == nil {
            problems.dates["happens"] = DateInputProblem(message: "Enter the day of the appointment", parts: DateInputValue.Part.allCases)
        }
        return (content, problems)
    }

    /// The domain's problems (by JSON field) in the form's words and fields, added to `problems`.
    static func add(_ found: [String: String], to problems: inout Problems) {
        for (key, message) in found {
            let field: String
            switch key {
            case "happens_at":
                problems.dates["happens"] = problems.dates["happens"] ?? DateInputProblem(message: message, parts: DateInputValue.Part.allCases)
                continue
            case "reminder_at":
                problems.dates["reminder"] = problems.dates["reminder"] ?? DateInputProblem(message: message, parts: DateInputValue.Part.allCases)
                continue
            case _ where key.hasPrefix("tags"): field = "tags"
            case _ where key.hasPrefix("items"): field = "lines"
            case _ where key.hasPrefix("fields."): field = String(key.dropFirst("fields.".count))
            case "category":
                if problems.fields[key] == nil { problems.fields[key] = "Choose what it is about" }
                continue
            case "recurrence_days", "recurrence", "title", "location", "emoji", "description", "people", "secured": field = key
            default: field = "title"
            }
            if problems.fields[field] == nil { problems.fields[field] = message }
        }
    }
}

/// A memory's form as posted: every box by its name (the template's secret fields each their own).
struct CareMemoryForm: Decodable {
    var type: String?
    var version: String?
    var title: String?
    var category: String?
    var happens_day: String?
    var happens_month: String?
    var happens_year: String?
    var happens_time: String?
    var reminder_day: String?
    var reminder_month: String?
    var reminder_year: String?
    var reminder_time: String?
    var recurrence: String?
    var recurrence_days: [String]?
    var location: String?
    var description: String?
    var tags: String?
    var emoji: String?
    var people: [String]?
    var lines: String?
    var secured: String?
    var website: String?
    var username: String?
    var password: String?
    var cardholder: String?
    var number: String?
    var expiry: String?
    var security_code: String?
    var bank: String?
    var account_holder: String?
    var account_number: String?
    var sort_code: String?
    /// Her PIN, when her secured memories closed while she changed one.
    var pin: String?

    var typed: CareMemoryTyped {
        var typed = CareMemoryTyped()
        typed.title = title ?? ""
        typed.category = category ?? ""
        typed.happens = DateInputValue(day: happens_day, month: happens_month, year: happens_year)
        typed.happensTime = happens_time ?? ""
        typed.reminder = DateInputValue(day: reminder_day, month: reminder_month, year: reminder_year)
        typed.reminderTime = reminder_time ?? ""
        typed.recurrence = recurrence ?? Recurrence.none.rawValue
        typed.recurrenceDays = recurrence_days ?? []
        typed.location = location ?? ""
        typed.description = description ?? ""
        typed.tags = tags ?? ""
        typed.emoji = emoji ?? ""
        typed.people = (people ?? []).compactMap(Int64.init)
        typed.lines = lines ?? ""
        typed.secured = secured == "on"
        let secrets: [(String, String?)] = [
            ("website", website), ("username", username), ("password", password), ("cardholder", cardholder), ("number", number),
            ("expiry", expiry), ("security_code", security_code), ("bank", bank), ("account_holder", account_holder),
            ("account_number", account_number), ("sort_code", sort_code)
        ]
        typed.fields = Dictionary(uniqueKeysWithValues: secrets.compactMap { name, value in value.map { (name, $0) } })
        return typed
    }
}

/// Adding or changing a memory (or, for a caregiver, one of her appointments and to-dos): one form whose
/// parts follow the kind of memory.
struct CareMemoryFormPage: Page {
    static let template = TemplateName.appCareMemoryForm

    let layout: Layout
    let heading: String
    let typeTitle: String
    let errors: [FormErrors.Item]
    let conflict: String?
    /// Her PIN's box, when her secured memories closed while she typed.
    let pinFields: [FormField]
    let titleFields: [FormField]
    let hasCategories: Bool
    let categories: [CareChoice]
    let categoryError: String?
    let happens: DateInputField
    let happensTimeFields: [FormField]
    let reminder: DateInputField
    let reminderTimeFields: [FormField]
    let reminderQuestion: String
    let recurrences: [CareChoice]
    let recurrenceError: String?
    let days: [CareChoice]
    let daysError: String?
    let secretFields: [FormField]
    let hasLines: Bool
    let lines: String
    let linesError: String?
    let detailFields: [FormField]
    let description: String
    let descriptionError: String?
    let people: [CareChoice]
    let peopleError: String?
    let offersSecured: Bool
    let secured: Bool
    let securedError: String?
    let needsPIN: Bool
    let pinPath = CareURL.appPIN.path
    let alwaysSecured: Bool
    let action: String
    let type: String
    let version: Int64?
    let submitTitle: String
    let cancelPath: String

    static let fieldOrder =
        [
            "pin", "title", "category", "happens", "happens_time", "reminder", "reminder_time", "recurrence", "recurrence_days"
        ] + MemoryType.allCases.flatMap(\.templateFields).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        + ["lines", "location", "tags", "emoji", "description", "people", "secured"]

    /// - Parameters:
    ///   - forCaregiver: his form for her, named: no category, people, secret or secured parts.
    ///   - contacts: her contacts, to choose the people a memory is about.
    init(
        layout: Layout,
        type: MemoryType,
        typed: CareMemoryTyped,
        problems: CareMemoryTyped.Problems = .init(),
        memoryID: Int64?,
        version: Int64?,
        action: String,
        cancelPath: String,
        forCaregiver receiverName: String? = nil,
        contacts: [CareContact] = [],
        hasPIN: Bool = true,
        conflict: String? = nil,
        askPIN: Bool = false
    ) {
        self.layout = layout
        let forCaregiver = receiverName != nil
        heading = memoryID == nil ? "New \(type.title.lowercased())" + (receiverName.map { " for \($0)" } ?? "") : "Change “\(typed.title)”"
        let whom = receiverName ?? "you"
        typeTitle = type.title
        var errors = FormErrors()
        var dates = problems.dates
        errors.add(problems.fields, in: Self.fieldOrder, dates: &dates, dateFields: ["happens", "reminder"])
        self.errors = errors.items
        self.conflict = conflict
        var pin = [FormField("pin", label: "Your PIN", type: "password", autocomplete: "off", width: 10)]
        errors.apply(to: &pin)
        pinFields = askPIN ? pin : []
        var titleFields = [
            FormField("title", label: "Title", value: typed.title, hint: "A few words \(receiverName ?? "you") will recognise it by.", width: 30)
        ]
        errors.apply(to: &titleFields)
        self.titleFields = titleFields
        hasCategories = !forCaregiver
        categories =
            forCaregiver
            ? []
            : CareChoice.group(
                "category",
                MemoryCategory.allCases,
                value: \.rawValue,
                title: \.title,
                selected: { $0.rawValue == typed.category }
            )
        categoryError = problems.fields["category"]
        let when = type == .appointment ? "When is it?" : "When did it happen, or when is it? (optional)"
        happens = DateInputField("happens", legend: when, hint: "For example, 3 3 2027", value: typed.happens, problem: dates["happens"])
        var happensTime = [FormField("happens_time", label: "Time", value: typed.happensTime, hint: "Like 10:30 or 14:05.", width: 10)]
        errors.apply(to: &happensTime)
        happensTimeFields = happensTime
        reminderQuestion = "How often should it remind \(whom)?"
        reminder = DateInputField(
            "reminder",
            legend: forCaregiver ? "Remind \(whom) on (optional)" : "Remind me on (optional)",
            hint: "The day of the first reminder. For example, 3 3 2027",
            value: typed.reminder,
            problem: dates["reminder"]
        )
        var reminderTime = [FormField("reminder_time", label: "Reminder time", value: typed.reminderTime, hint: "Like 09:00.", width: 10)]
        errors.apply(to: &reminderTime)
        reminderTimeFields = reminderTime
        recurrences = CareChoice.group(
            "recurrence",
            Recurrence.allCases,
            value: \.rawValue,
            title: { recurrence in
                switch recurrence {
                case .none: "Once"
                case .daily: "Every day"
                case .weekly: "Every week, on the days below"
                case .monthly: "Every month"
                }
            },
            selected: { $0.rawValue == typed.recurrence }
        )
        recurrenceError = problems.fields["recurrence"]
        days = CareChoice.group(
            "recurrence_days",
            Weekday.allCases,
            value: \.rawValue,
            title: \.name,
            selected: { typed.recurrenceDays.contains($0.rawValue) }
        )
        .map { CareChoice(id: $0.id, name: "recurrence_days[]", value: $0.value, title: $0.title, hint: nil, isSelected: $0.isSelected) }
        daysError = problems.fields["recurrence_days"]
        var secrets = type.templateFields.map { name in
            FormField(name, label: MemoryType.fieldLabel(name), value: typed.fields[name] ?? "", autocomplete: "off", width: 20)
        }
        errors.apply(to: &secrets)
        secretFields = forCaregiver ? [] : secrets
        hasLines = type == .todoList
        lines = typed.lines
        linesError = problems.fields["lines"]
        var details = [
            FormField("location", label: "Where (optional)", value: typed.location, width: 30),
            FormField(
                "tags",
                label: "Tags (optional)",
                value: typed.tags,
                hint: "Words to find it by, with commas between them: garden, Ruth",
                width: 30
            ),
            FormField("emoji", label: "Emoji (optional)", value: typed.emoji, hint: "One emoji to spot it by, like 🩺", width: 10)
        ]
        if forCaregiver { details = Array(details.prefix(1)) }
        errors.apply(to: &details)
        detailFields = details
        description = typed.description
        descriptionError = problems.fields["description"]
        people =
            forCaregiver
            ? []
            : CareChoice.group("people", contacts, value: { "\($0.id)" }, title: \.content.name, selected: { typed.people.contains($0.id) })
                .map { CareChoice(id: $0.id, name: "people[]", value: $0.value, title: $0.title, hint: nil, isSelected: $0.isSelected) }
        peopleError = problems.fields["people"]
        alwaysSecured = type.isSecret
        offersSecured = !forCaregiver && !type.isSecret && hasPIN
        needsPIN = !forCaregiver && !hasPIN
        secured = typed.secured
        securedError = problems.fields["secured"]
        self.action = action
        self.type = type.rawValue
        self.version = version
        submitTitle = memoryID == nil ? "Save" : "Save changes"
        self.cancelPath = cancelPath
    }
}

/// One labelled line of a memory's page.
struct CareDetail: Encodable, Sendable {
    let label: String
    let value: String
}

/// One of her memories, as she reads it, with what she can do with it.
struct CareMemoryPage: Page {
    static let template = TemplateName.appCareMemory

    struct Line: Encodable, Sendable {
        let index: Int
        let text: String
        let done: Bool
    }

    let layout: Layout
    let title: String
    let emoji: String?
    let typeTitle: String
    let isLocked: Bool
    let unlockPath: String
    let details: [CareDetail]
    let description: [String]
    let lines: [Line]
    let people: [CareDetail]
    let secured: Bool
    let changedByCaregiver: Bool
    let isPlan: Bool
    let isDone: Bool
    let statusPath: String
    let editPath: String
    let deletePath: String
    let notice: String?
    let undoStatus: String?
    let backPath = CareURL.appMemories.path
    /// Its pictures and PDFs, and the form that adds one (an error beside it when one was refused).
    let files: [CareFileLine]
    let upload: CareUploadForm
    let errors: [FormErrors.Item]

    init(
        layout: Layout,
        memory: Memory,
        contacts: [Int64: String],
        notice: String?,
        undoStatus: String?,
        files: [CareFile] = [],
        fileError: String? = nil
    ) {
        self.layout = layout
        self.files = files.map {
            CareFileLine($0, path: CareURL.appMemoryFile(memory.id, $0.id).path, removePath: CareURL.appMemoryFileRemove(memory.id, $0.id).path)
        }
        upload = CareUploadForm(
            action: CareURL.appMemoryFiles(memory.id).path,
            field: "file",
            label: "Add a picture or a PDF",
            hint: "A photo, or a letter or form saved as a PDF, up to 4 MB.\(memory.secured ? " It is secured with this memory." : "")",
            accept: "image/png,image/jpeg,image/webp,application/pdf",
            button: "Add it",
            error: fileError
        )
        var errors = FormErrors()
        if let fileError { errors.add("file", fileError) }
        self.errors = errors.items
        let content = memory.content
        title = content?.title ?? "Secured \(memory.type.title.lowercased())"
        emoji = content.flatMap { $0.emoji.isEmpty ? nil : $0.emoji }
        typeTitle = memory.type.title
        isLocked = content == nil
        unlockPath = "\(CareURL.appUnlock.path)?next=\(CareURL.appMemory(memory.id).path)"
        var details: [CareDetail] = []
        if let content {
            if let category = MemoryCategory(rawValue: content.category) { details.append(CareDetail(label: "Category", value: category.title)) }
            if let when = CareAppTime.text(content.happensAt) { details.append(CareDetail(label: "When", value: when)) }
            if let reminder = CareAppTime.text(content.reminderAt) {
                let repeats = CareAppTime.repeats(content.recurrence, days: content.recurrenceDays).map { ", then \($0)" } ?? ""
                details.append(CareDetail(label: "Reminder", value: reminder + repeats))
            }
            if !content.location.isEmpty { details.append(CareDetail(label: "Where", value: content.location)) }
            for name in memory.type.templateFields {
                if let value = content.fields[name], !value.isEmpty { details.append(CareDetail(label: MemoryType.fieldLabel(name), value: value)) }
            }
            for field in content.customFields { details.append(CareDetail(label: field.title, value: field.content)) }
            if !content.tags.isEmpty { details.append(CareDetail(label: "Tags", value: content.tags.joined(separator: ", "))) }
        }
        self.details = details
        description = content?.description.split(whereSeparator: \.isNewline).map(String.init) ?? []
        lines = content?.items.enumerated().map { Line(index: $0.offset, text: $0.element.text, done: $0.element.done) } ?? []
        people = content?.people.compactMap { id in contacts[id].map { CareDetail(label: CareURL.appContact(id).path, value: $0) } } ?? []
        secured = memory.secured
        changedByCaregiver = memory.changedByCaregiver
        isPlan = memory.type.isPlan
        isDone = content?.status == MemoryStatus.done.rawValue
        statusPath = CareURL.appMemoryStatus(memory.id).path
        editPath = CareURL.appMemoryEdit(memory.id).path
        deletePath = CareURL.appMemoryDelete(memory.id).path
        self.notice = notice
        self.undoStatus = undoStatus
    }
}

/// A picture or PDF as her pages list it: a picture is shown, a PDF is a link that downloads it.
struct CareFileLine: Encodable, Sendable {
    let name: String
    let kind: String
    let size: String
    let path: String
    let removePath: String?
    let isPicture: Bool

    init(_ file: CareFile, path: String, removePath: String?) {
        name = file.name ?? "file"
        isPicture = UploadType.pictures.contains(file.type)
        kind = isPicture ? "picture" : "PDF"
        size = file.sizeText
        self.path = path
        self.removePath = removePath
    }
}

/// The form that sends one file (a memory's picture or PDF, a contact's photo), with its message beside it.
struct CareUploadForm: Encodable, Sendable {
    let action: String
    let field: String
    let label: String
    let hint: String
    let accept: String
    let button: String
    let error: String?
}

/// "Delete …?", "End sharing with …?": a question, what follows, and one button; "No" goes back.
struct CareConfirmPage: Page {
    static let template = TemplateName.appCareConfirm
    let layout: Layout
    let heading: String
    let body: String
    let action: String
    let version: Int64?
    let button: String
    let cancelPath: String
}

/// Her PIN, which opens her secured memories for five minutes.
struct CareUnlockPage: Page {
    static let template = TemplateName.appCareUnlock
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let hasPIN: Bool
    let minutes = Int(MemoryCare.unlockLifetime / 60)
    let action = CareURL.appUnlock.path
    let pinPath = CareURL.appPIN.path
    let next: String?

    init(layout: Layout, hasPIN: Bool, next: String?, errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.errors = errors.items
        var fields = [FormField("pin", label: "Your PIN", type: "password", autocomplete: "off", width: 10)]
        errors.apply(to: &fields)
        self.fields = fields
        self.hasPIN = hasPIN
        self.next = next
    }
}

/// Making or changing her PIN, with her password as the proof.
struct CarePINPage: Page {
    static let template = TemplateName.appCarePIN
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let hasPIN: Bool
    let saved: Bool
    let action = CareURL.appPIN.path

    init(layout: Layout, hasPIN: Bool, saved: Bool = false, errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.errors = errors.items
        var fields = [
            FormField(
                "password",
                label: "Your password",
                hint: "The one you sign in with.",
                type: "password",
                autocomplete: "current-password",
                width: 20
            ),
            FormField(
                "pin",
                label: hasPIN ? "New PIN" : "PIN",
                hint: "4 to 8 digits you will remember, that others will not guess.",
                type: "password",
                autocomplete: "off",
                width: 10
            )
        ]
        errors.apply(to: &fields)
        self.fields = fields
        self.hasPIN = hasPIN
        self.saved = saved
    }
}

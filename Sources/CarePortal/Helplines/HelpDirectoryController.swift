import Foundation
import Hummingbird
import PortalPlatform

/// Administrators keep the directory of help members see in the app and after a low mood.
struct HelpDirectoryController {
    static let access = Access.administrators
    let portal: Portal
    let directory: HelpDirectory

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.helpDirectory.pattern, access: Self.access, list)
        routes.get(SiteURL.newHelpResource.pattern, access: Self.access) { try await form(nil, $1) }
        routes.post(SiteURL.newHelpResource.pattern, access: Self.access) { try await save(nil, $0, $1) }
        routes.get(SiteURL.pattern(SiteURL.editHelpResource), access: Self.access) { try await form($1.parameters.recordID(), $1) }
        routes.post(SiteURL.pattern(SiteURL.editHelpResource), access: Self.access) { try await save($1.parameters.recordID(), $0, $1) }
        routes.get(SiteURL.pattern(SiteURL.deleteHelpResource), access: Self.access, confirmDelete)
        routes.post(SiteURL.pattern(SiteURL.deleteHelpResource), access: Self.access, delete)
    }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        var query = HelpDirectoryQuery()
        query.kind = request.query("kind").flatMap(HelpResource.Kind.init(rawValue:))
        query.state = request.query("state").map { $0.uppercased() }.flatMap { USState.all.contains($0) ? $0 : nil }
        query.search = String((request.query("q") ?? "").prefix(100))
        query.sort = request.query("sort").flatMap(HelpDirectoryQuery.Sort.init(rawValue:)) ?? .name
        query.page = try request.pageRequest()
        let page = try await portal.database.read { db in try await directory.repository.list(query, on: db) }
        let address = ListAddress(path: SiteURL.helpDirectory.path, parameters: [
            ("kind", query.kind?.rawValue), ("state", query.state), ("q", query.search.isEmpty ? nil : query.search),
            ("sort", query.sort == .name ? nil : query.sort.rawValue),
        ])
        let rows = HelpResourceRows.html(page.items)
        return portal.pages.response(HelpDirectoryPage(
            layout: portal.layout("Resources and helplines", context: context, current: .helpDirectory),
            rows: rows.html, hasRows: !rows.isEmpty,
            kinds: FilterOption.html([FilterOption(value: "", title: "All kinds", isSelected: query.kind == nil)]
                + HelpResource.Kind.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == query.kind) }),
            states: FilterOption.html([FilterOption(value: "", title: "Every state", isSelected: query.state == nil)]
                + USState.all.sorted().map { FilterOption(value: $0, title: $0, isSelected: $0 == query.state) }),
            sorts: FilterOption.html([FilterOption(value: "name", title: "Name", isSelected: query.sort == .name),
                                      FilterOption(value: "kind", title: "Kind (crisis lines first)", isSelected: query.sort == .kind)]),
            search: query.search,
            isFiltered: query.kind != nil || query.state != nil || !query.search.isEmpty,
            pagination: portal.pages.html(PaginationView(page, address: address, noun: "entries"))
        ))
    }

    private func form(_ id: Int64?, _ context: PortalContext) async throws -> Response {
        var form = HelpResourceForm()
        if let id {
            guard let resource = try await portal.database.read({ db in try await directory.repository.find(id: id, on: db) }) else {
                throw HTTPError(.notFound)
            }
            form = HelpResourceForm(resource)
        }
        return portal.pages.response(formPage(form, id: id, errors: FormErrors(), context: context))
    }

    private func save(_ id: Int64?, _ request: Request, _ context: PortalContext) async throws -> Response {
        let form = try await request.form(HelpResourceForm.self, context: context)
        let (draft, errors) = form.validated()
        guard let draft, errors.isEmpty else {
            return portal.pages.response(formPage(form, id: id, errors: errors, context: context), status: .unprocessableContent)
        }
        let origin = portal.origin(of: request, context: context)
        if let id {
            guard try await directory.change(id, to: draft, actor: context.auditActor, origin: origin) else { throw HTTPError(.notFound) }
            try await portal.flash(Flash(.success, "\(draft.name) saved."), context: context)
        } else {
            _ = try await directory.add(draft, actor: context.auditActor, origin: origin)
            try await portal.flash(Flash(.success, "\(draft.name) added to the directory."), context: context)
        }
        return seeOther(.helpDirectory)
    }

    @Sendable func confirmDelete(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let resource = try await portal.database.read({ db in try await directory.repository.find(id: id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return portal.pages.response(DeleteHelpResourcePage(
            layout: portal.layout("Delete \(resource.name)", context: context, current: .helpDirectory),
            name: resource.name, action: SiteURL.deleteHelpResource(id).path, backPath: SiteURL.helpDirectory.path
        ))
    }

    @Sendable func delete(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let name = try await directory.delete(id, actor: context.auditActor, origin: portal.origin(of: request, context: context)) else {
            throw HTTPError(.notFound)
        }
        try await portal.flash(Flash(.success, "\(name) deleted from the directory."), context: context)
        return seeOther(.helpDirectory)
    }

    private func formPage(_ form: HelpResourceForm, id: Int64?, errors: FormErrors, context: PortalContext) -> HelpResourceFormPage {
        HelpResourceFormPage(form, errors: errors, action: id.map { SiteURL.editHelpResource($0).path } ?? SiteURL.newHelpResource.path,
                             layout: portal.layout(id == nil ? "Add to the directory" : "Change \(form.name)", context: context, current: .helpDirectory),
                             isNew: id == nil)
    }
}

/// The entry form as typed; every value is kept when it is shown again.
struct HelpResourceForm: Decodable, Sendable {
    var name = ""
    var kind = ""
    var phone = ""
    var textNumber = ""
    var webAddress = ""
    var hours = ""
    var languages = "English"
    var description = ""
    var address = ""
    /// `nationwide` or `states`.
    var reach = ""
    var states = ""

    static let nameMaximumLength = 120
    static let shortMaximumLength = 120
    static let descriptionMaximumLength = 500
    static let addressMaximumLength = 300

    enum CodingKeys: String, CodingKey {
        case name, kind, phone, hours, languages, description, address, reach, states
        case textNumber = "text_number", webAddress = "web_address"
    }

    init() {}

    init(_ resource: HelpResource) {
        name = resource.name
        kind = resource.kind.rawValue
        phone = resource.phone?.display ?? ""
        textNumber = resource.textNumber?.display ?? ""
        webAddress = resource.webAddress ?? ""
        hours = resource.hours
        languages = resource.languages
        description = resource.description
        address = resource.address ?? ""
        reach = resource.isNationwide ? "nationwide" : "states"
        states = resource.states.joined(separator: ", ")
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) throws -> String { (try container.decodeIfPresent(String.self, forKey: key) ?? "").trimmed }
        name = try text(.name)
        kind = try text(.kind)
        phone = try text(.phone)
        textNumber = try text(.textNumber)
        webAddress = try text(.webAddress)
        hours = try text(.hours)
        languages = try text(.languages)
        description = try text(.description)
        address = try text(.address)
        reach = try text(.reach)
        states = try text(.states)
    }

    func validated() -> (HelpResourceDraft?, FormErrors) {
        var errors = FormErrors()
        if let problem = FieldRules.requiredTextProblem(name, name: "the name", maximumLength: Self.nameMaximumLength) { errors.add("name", problem) }
        let kind = HelpResource.Kind(rawValue: kind)
        if kind == nil { errors.add("kind", "Choose what kind of help this is") }
        let phone = phone.isEmpty ? nil : PhoneNumber(phone)
        if !self.phone.isEmpty, phone == nil { errors.add("phone", PhoneNumber.problem) }
        let textNumber = textNumber.isEmpty ? nil : PhoneNumber(textNumber)
        if !self.textNumber.isEmpty, textNumber == nil { errors.add("text_number", PhoneNumber.problem) }
        if !webAddress.isEmpty {
            let url = URLComponents(string: webAddress)
            if webAddress.count > 300 || url?.scheme?.lowercased() != "https" || (url?.host ?? "").isEmpty || webAddress.contains(where: \.isWhitespace) {
                errors.add("web_address", "Enter a web address that starts with https://, like https://988lifeline.org")
            }
        }
        if self.phone.isEmpty, self.textNumber.isEmpty, webAddress.isEmpty {
            errors.add("phone", "Give at least one way to reach it: a phone number, a text number or a web address")
        }
        if let problem = FieldRules.requiredTextProblem(hours, name: "when it is open, like 24 hours, 7 days", maximumLength: Self.shortMaximumLength) {
            errors.add("hours", problem)
        }
        if let problem = FieldRules.requiredTextProblem(languages, name: "the languages it answers in", maximumLength: Self.shortMaximumLength) {
            errors.add("languages", problem)
        }
        if let problem = FieldRules.requiredTextProblem(description, name: "a short description", maximumLength: Self.descriptionMaximumLength) {
            errors.add("description", problem)
        }
        if kind == .careLocation, address.isEmpty { errors.add("address", "Enter the care location's address") }
        if address.count > Self.addressMaximumLength { errors.add("address", "The address must be \(Self.addressMaximumLength) characters or fewer") }
        var chosen: [String] = []
        switch reach {
        case "nationwide": break
        case "states":
            let codes = states.uppercased().split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
            let unknown = codes.filter { !USState.all.contains($0) }
            if codes.isEmpty {
                errors.add("states", "Enter the states it serves, like TN, KY")
            } else if !unknown.isEmpty {
                errors.add("states", "\(unknown.joined(separator: ", ")) \(unknown.count == 1 ? "is not a" : "are not") US state code\(unknown.count == 1 ? "" : "s"): use two letters, like TN")
            }
            chosen = Array(Set(codes)).sorted()
        default: errors.add("reach", "Choose where it applies")
        }
        guard let kind, errors.isEmpty else { return (nil, errors) }
        return (HelpResourceDraft(
            name: name, kind: kind, phone: phone, textNumber: textNumber, webAddress: webAddress.isEmpty ? nil : webAddress,
            hours: hours, languages: languages, description: description, address: address.isEmpty ? nil : address, states: chosen
        ), errors)
    }
}

/// The help directory's rows (`TableRows`): the name with its web address under it, the kind, the phone and
/// text numbers as links that dial them, the hours, where it applies, and links to change or delete it.
enum HelpResourceRows {
    static func html(_ resources: [HelpResource]) -> TableRows {
        TableRows(resources) { resource, cells in
            cells.cell { name in
                name.text(resource.name)
                if let webAddress = resource.webAddress {
                    name.lineBreak()
                    name.link(webAddress, to: webAddress, external: true)
                }
            }
            cells.text(resource.kind.title)
            cells.cell(nowrap: true) { phone in
                if let number = resource.phone { phone.link(number.display, to: "tel:\(number.dialable)") }
            }
            cells.cell(nowrap: true) { text in
                if let number = resource.textNumber { text.link(number.display, to: "sms:\(number.dialable)") }
            }
            cells.text(resource.hours)
            cells.text(resource.whereItApplies)
            cells.cell { actions in
                actions.link("Change", to: SiteURL.editHelpResource(resource.id).path, hidden: " \(resource.name)")
                actions.text(" · ")
                actions.link("Delete", to: SiteURL.deleteHelpResource(resource.id).path, hidden: " \(resource.name)")
            }
        }
    }
}

struct HelpDirectoryPage: Page {
    static let template = TemplateName.helpDirectory
    let layout: Layout
    /// The rendered rows (`HelpResourceRows`).
    let rows: String
    let hasRows: Bool
    /// The filters' options (`FilterOption.html`).
    let kinds: String
    let states: String
    let sorts: String
    let search: String
    let isFiltered: Bool
    let pagination: String
    let action = SiteURL.helpDirectory.path
    let newPath = SiteURL.newHelpResource.path
}

struct HelpResourceFormPage: Page {
    struct Choice: Sendable, Encodable {
        let value: String
        let title: String
        let isSelected: Bool
    }

    static let template = TemplateName.helpResourceForm
    let layout: Layout
    let errors: [FormErrors.Item]
    let nameField: FormField
    let kinds: [Choice]
    let kindError: String?
    let contactFields: [FormField]
    let description: String
    let descriptionError: String?
    let address: String
    let addressError: String?
    let nationwide: Bool
    let inStates: Bool
    let reachError: String?
    let statesField: FormField
    let action: String
    let isNew: Bool
    let backPath = SiteURL.helpDirectory.path
    let descriptionMaximum = HelpResourceForm.descriptionMaximumLength

    init(_ form: HelpResourceForm, errors: FormErrors, action: String, layout: Layout, isNew: Bool) {
        self.layout = layout
        self.errors = errors.items
        self.action = action
        self.isNew = isNew
        func error(_ field: String) -> String? { errors.items.first { $0.field == field }?.message }
        var name = [FormField("name", label: "Name", value: form.name, width: 30)]
        errors.apply(to: &name)
        nameField = name[0]
        kinds = HelpResource.Kind.allCases.map { Choice(value: $0.rawValue, title: $0.title, isSelected: $0.rawValue == form.kind) }
        kindError = error("kind")
        var contact = [
            FormField("phone", label: "Phone number (optional)", value: form.phone, hint: "Like 1-800-662-4357, or a 3-digit number such as 988",
                      type: "tel", autocomplete: "off", width: 20),
            FormField("text_number", label: "Text number (optional)", value: form.textNumber, hint: "Where people can text, if they can",
                      type: "tel", autocomplete: "off", width: 20),
            FormField("web_address", label: "Web address (optional)", value: form.webAddress, hint: "Starting with https://", type: "url", width: 30),
            FormField("hours", label: "Hours", value: form.hours, hint: "Like 24 hours, 7 days, or Monday to Friday, 9am to 5pm", width: 30),
            FormField("languages", label: "Languages", value: form.languages, hint: "Like English and Spanish", width: 30),
        ]
        errors.apply(to: &contact)
        contactFields = contact
        description = form.description
        descriptionError = error("description")
        address = form.address
        addressError = error("address")
        nationwide = form.reach == "nationwide"
        inStates = form.reach == "states"
        reachError = error("reach")
        var states = [FormField("states", label: "States", value: form.states, hint: "Two-letter codes, separated by commas, like TN, KY", width: 20)]
        errors.apply(to: &states)
        statesField = states[0]
    }
}

struct DeleteHelpResourcePage: Page {
    static let template = TemplateName.deleteHelpResource
    let layout: Layout
    let name: String
    let action: String
    let backPath: String
}

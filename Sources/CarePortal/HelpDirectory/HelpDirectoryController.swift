import Foundation
import Hummingbird
import PortalPlatform

/// The staff who keep a program's list in the directory: administrators the perinatal program's resources
/// and helplines, which members see in the app and after a low mood; the study's staff its care locations.
struct HelpDirectoryController {
    let portal: Portal
    let directory: HelpDirectory
    private var list: DirectoryList { directory.list }

    func addRoutes(to routes: inout PortalRoutes) {
        let access = list.access
        routes.get(list.listURL.pattern, access: access, show)
        routes.get(list.newURL.pattern, access: access) { try await form(nil, $1) }
        routes.post(list.newURL.pattern, access: access) { try await save(nil, $0, $1) }
        routes.get(SiteURL.pattern(list.editURL), access: access) { try await form($1.parameters.recordID(), $1) }
        routes.post(SiteURL.pattern(list.editURL), access: access) { try await save($1.parameters.recordID(), $0, $1) }
        routes.get(SiteURL.pattern(list.deleteURL), access: access, confirmDelete)
        routes.post(SiteURL.pattern(list.deleteURL), access: access, delete)
    }

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        let query = try HelpDirectoryQuery(request, list: list)
        let page = try await portal.database.read { db in try await directory.repository.list(query, on: db) }
        let layout = portal.layout(list.title, context: context, current: list.listURL)
        return portal.pages.response(HelpDirectoryPage(query, page: page, list: list, pages: portal.pages, layout: layout))
    }

    private func form(_ id: Int64?, _ context: PortalContext) async throws -> Response {
        var form = HelpResourceForm()
        form.kind = list.defaultKind?.rawValue ?? ""
        if !list.asksStates { form.reach = "nationwide" }
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
        let (draft, errors) = form.validated(for: list)
        guard let draft, errors.isEmpty else {
            return portal.pages.response(formPage(form, id: id, errors: errors, context: context), status: .unprocessableContent)
        }
        let origin = portal.origin(of: request, context: context)
        if let id {
            guard try await directory.change(id, to: draft, actor: context.auditActor, origin: origin) else { throw HTTPError(.notFound) }
            try await portal.flash(Flash(.success, "\(draft.name) saved."), context: context)
        } else {
            _ = try await directory.add(draft, actor: context.auditActor, origin: origin)
            try await portal.flash(Flash(.success, "\(draft.name) added to \(list.noun)."), context: context)
        }
        return seeOther(list.listURL)
    }

    @Sendable func confirmDelete(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let resource = try await portal.database.read({ db in try await directory.repository.find(id: id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return portal.pages.response(
            DeleteHelpResourcePage(
                layout: portal.layout("Delete \(resource.name)", context: context, current: list.listURL),
                name: resource.name,
                readers: list.readers,
                action: list.deleteURL(id).path,
                backPath: list.listURL.path
            )
        )
    }

    @Sendable func delete(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let name = try await directory.delete(id, actor: context.auditActor, origin: portal.origin(of: request, context: context)) else {
            throw HTTPError(.notFound)
        }
        try await portal.flash(Flash(.success, "\(name) deleted from \(list.noun)."), context: context)
        return seeOther(list.listURL)
    }

    private func formPage(_ form: HelpResourceForm, id: Int64?, errors: FormErrors, context: PortalContext) -> HelpResourceFormPage {
        HelpResourceFormPage(
            form,
            errors: errors,
            list: list,
            action: id.map { list.editURL($0).path } ?? list.newURL.path,
            layout: portal.layout(id == nil ? list.addTitle : "Change \(form.name)", context: context, current: list.listURL),
            isNew: id == nil
        )
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
    var latitude = ""
    var longitude = ""
    /// `nationwide` or `states`.
    var reach = ""
    var states = ""

    static let nameMaximumLength = 120
    static let shortMaximumLength = 120
    static let descriptionMaximumLength = 500
    static let addressMaximumLength = 300

    enum CodingKeys: String, CodingKey {
        case name, kind, phone, hours, languages, description, address, latitude, longitude, reach, states
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
        latitude = resource.pin.map { "\($0.latitude)" } ?? ""
        longitude = resource.pin.map { "\($0.longitude)" } ?? ""
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
        latitude = try text(.latitude)
        longitude = try text(.longitude)
        reach = try text(.reach)
        states = try text(.states)
    }

    func validated(for list: DirectoryList) -> (HelpResourceDraft?, FormErrors) {
        var errors = FormErrors()
        if let problem = FieldRules.requiredTextProblem(name, name: "the name", maximumLength: Self.nameMaximumLength) { errors.add("name", problem) }
        let kind = HelpResource.Kind(rawValue: kind).flatMap { list.kinds.contains($0) ? $0 : nil }
        if kind == nil { errors.add("kind", "Choose what kind of help this is") }
        let (phone, textNumber) = checkWaysToReach(kind: kind, errors: &errors)
        checkDescriptions(errors: &errors)
        if kind == .careLocation, address.isEmpty { errors.add("address", "Enter the care location's address") }
        if address.count > Self.addressMaximumLength { errors.add("address", "The address must be \(Self.addressMaximumLength) characters or fewer") }
        let (pin, pinProblems) = MapPin.typed(latitude: latitude, longitude: longitude)
        for problem in pinProblems { errors.add(problem.field, problem.message) }
        let chosen = checkStates(asked: list.asksStates, errors: &errors)
        guard let kind, errors.isEmpty else { return (nil, errors) }
        return (
            HelpResourceDraft(
                name: name,
                kind: kind,
                phone: phone,
                textNumber: textNumber,
                webAddress: webAddress.isEmpty ? nil : webAddress,
                hours: hours,
                languages: languages,
                description: description,
                address: address.isEmpty ? nil : address,
                pin: pin,
                states: chosen
            ), errors
        )
    }

    /// The phone and text numbers, typed; the web address checked; and at least one way to reach it (a
    /// care location may be reached at its address alone).
    private func checkWaysToReach(kind: HelpResource.Kind?, errors: inout FormErrors) -> (phone: PhoneNumber?, textNumber: PhoneNumber?) {
        let phone = phone.isEmpty ? nil : PhoneNumber(phone)
        if !self.phone.isEmpty, phone == nil { errors.add("phone", PhoneNumber.problem) }
        let textNumber = textNumber.isEmpty ? nil : PhoneNumber(textNumber)
        if !self.textNumber.isEmpty, textNumber == nil { errors.add("text_number", PhoneNumber.problem) }
        if !webAddress.isEmpty {
            let url = URLComponents(string: webAddress)
            if webAddress.count > 300 || url?.scheme?.lowercased() != "https" || (url?.host ?? "").isEmpty
                || webAddress.contains(where: \.isWhitespace)
            {
                errors.add("web_address", "Enter a web address that starts with https://, like https://988lifeline.org")
            }
        }
        if self.phone.isEmpty, self.textNumber.isEmpty, webAddress.isEmpty, address.isEmpty || kind != .careLocation {
            errors.add("phone", "Give at least one way to reach it: a phone number, a text number or a web address")
        }
        return (phone, textNumber)
    }

    /// When it is open, its languages and its description: each required, each within its length.
    private func checkDescriptions(errors: inout FormErrors) {
        if let problem = FieldRules.requiredTextProblem(hours, name: "when it is open, like 24 hours, 7 days", maximumLength: Self.shortMaximumLength)
        {
            errors.add("hours", problem)
        }
        if let problem = FieldRules.requiredTextProblem(languages, name: "the languages it answers in", maximumLength: Self.shortMaximumLength) {
            errors.add("languages", problem)
        }
        if let problem = FieldRules.requiredTextProblem(description, name: "a short description", maximumLength: Self.descriptionMaximumLength) {
            errors.add("description", problem)
        }
    }

    /// The states it serves, as sorted two-letter codes; none when it applies nationwide or the list does not ask.
    private func checkStates(asked: Bool, errors: inout FormErrors) -> [String] {
        switch asked ? reach : "nationwide" {
        case "nationwide": return []
        case "states":
            let codes = states.uppercased().split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
            let unknown = codes.filter { !USState.all.contains($0) }
            if codes.isEmpty {
                errors.add("states", "Enter the states it serves, like TN, KY")
            } else if !unknown.isEmpty {
                errors.add(
                    "states",
                    "\(unknown.joined(separator: ", ")) \(unknown.count == 1 ? "is not a" : "are not") US state code\(unknown.count == 1 ? "" : "s"): use two letters, like TN"
                )
            }
            return Array(Set(codes)).sorted()
        default:
            errors.add("reach", "Choose where it applies")
            return []
        }
    }
}

/// The help directory's rows (`TableRows`): the name with its web address under it, the kind, the phone and
/// text numbers as links that dial them, the hours, where it applies, and links to change or delete it.
enum HelpResourceRows {
    static func html(_ resources: [HelpResource], list: DirectoryList) -> TableRows {
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
            if list.asksStates {
                cells.text(resource.whereItApplies)
            } else {
                cells.cell { place in
                    place.text(resource.address ?? "")
                    if let pin = resource.pin {
                        place.lineBreak()
                        place.link("On the map", to: pin.mapAddress, hidden: ": \(resource.name)", external: true)
                    }
                }
            }
            cells.cell { actions in
                actions.link("Change", to: list.editURL(resource.id).path, hidden: " \(resource.name)")
                actions.text(" · ")
                actions.link("Delete", to: list.deleteURL(resource.id).path, hidden: " \(resource.name)")
            }
        }
    }
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
    let pinFields: [FormField]
    let asksStates: Bool
    let nationwide: Bool
    let inStates: Bool
    let reachError: String?
    let statesField: FormField
    let action: String
    let isNew: Bool
    let listTitle: String
    let addTitle: String
    let backPath: String
    let descriptionMaximum = HelpResourceForm.descriptionMaximumLength

    init(_ form: HelpResourceForm, errors: FormErrors, list: DirectoryList, action: String, layout: Layout, isNew: Bool) {
        self.layout = layout
        listTitle = list.title
        addTitle = list.addTitle
        backPath = list.listURL.path
        asksStates = list.asksStates
        self.errors = errors.items
        self.action = action
        self.isNew = isNew
        func error(_ field: String) -> String? { errors.items.first { $0.field == field }?.message }
        var name = [FormField("name", label: "Name", value: form.name, width: 30)]
        errors.apply(to: &name)
        nameField = name[0]
        kinds = list.kinds.map { Choice(value: $0.rawValue, title: $0.title, isSelected: $0.rawValue == form.kind) }
        kindError = error("kind")
        var contact = [
            FormField(
                "phone",
                label: "Phone number (optional)",
                value: form.phone,
                hint: "Like 1-800-662-4357, or a 3-digit number such as 988",
                type: "tel",
                autocomplete: "off",
                width: 20
            ),
            FormField(
                "text_number",
                label: "Text number (optional)",
                value: form.textNumber,
                hint: "Where people can text, if they can",
                type: "tel",
                autocomplete: "off",
                width: 20
            ),
            FormField("web_address", label: "Web address (optional)", value: form.webAddress, hint: "Starting with https://", type: "url", width: 30),
            FormField("hours", label: "Hours", value: form.hours, hint: "Like 24 hours, 7 days, or Monday to Friday, 9am to 5pm", width: 30),
            FormField("languages", label: "Languages", value: form.languages, hint: "Like English and Spanish", width: 30)
        ]
        errors.apply(to: &contact)
        contactFields = contact
        description = form.description
        descriptionError = error("description")
        address = form.address
        addressError = error("address")
        var pin = [
            FormField(
                "latitude",
                label: "Latitude (optional)",
                value: form.latitude,
                hint: "For the pin on the app's map: degrees north, like 36.1627",
                autocomplete: "off",
                width: 10
            ),
            FormField(
                "longitude",
                label: "Longitude (optional)",
                value: form.longitude,
                hint: "Degrees east; west is negative, like -86.7816",
                autocomplete: "off",
                width: 10
            )
        ]
        errors.apply(to: &pin)
        pinFields = pin
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
    let readers: String
    let action: String
    let backPath: String
}

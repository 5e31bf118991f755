import Foundation
import PortalPlatform

/// Sharing by consent in the web app: her side (links, codes, what was seen) and the caregiver's (the people he
/// helps and what each shares).
/// What one link or invitation shares, in her words.
private func sharedSentence(_ grant: CareGrant) -> String {
    let parts = grant.sortedScopes.map { scope in
        scope == .memories ? "see your memories about \(CareAppTime.listed(grant.sortedCategories.map { $0.title.lowercased() }))" : scope.sentence
    }
    return CareAppTime.listed(parts)
}

/// Who she shares with and what, her open codes, and what was seen.
struct CareSharingPage: Page {
    static let template = TemplateName.appCareSharing

    struct Link: Encodable, Sendable {
        let name: String
        let shares: String
        let since: String
        let path: String
    }

    struct Invitation: Encodable, Sendable {
        let shares: String
        let expires: String
        let withdrawPath: String
    }

    let layout: Layout
    let links: [Link]
    let ended: [Link]
    let invitations: [Invitation]
    let invitePath = CareURL.appInvite.path
    let accessLogPath = CareURL.appAccessLog.path
    let pinPath = CareURL.appPIN.path
    let notice: String?

    init(layout: Layout, links: [CareLink], invitations: [CareInvitation], clock: ProgramClock, notice: String?) {
        self.layout = layout
        func card(_ link: CareLink) -> Link {
            Link(
                name: link.caregiverName,
                shares: "Can \(sharedSentence(link.grant)).",
                since: link.revokedAt.map { "Ended \(clock.date(of: $0).short)" } ?? "Since \(clock.date(of: link.createdAt).short)",
                path: CareURL.appLink(link.id).path
            )
        }
        self.links = links.filter(\.isActive).map(card)
        ended = links.filter { !$0.isActive }.map(card)
        self.invitations = invitations.map { invitation in
            Invitation(
                shares: "Lets them \(sharedSentence(invitation.grant)).",
                expires: "Works until \(clock.dateTime(invitation.expiresAt))",
                withdrawPath: CareURL.appInvitationWithdraw(invitation.id).path
            )
        }
        self.notice = notice
    }
}

/// What a code or a link shares: the four things, each on its own, and for memories the categories.
struct CareGrantPage: Page {
    static let template = TemplateName.appCareGrant

    struct Event: Encodable, Sendable {
        let when: String
        let what: String
    }

    let layout: Layout
    let heading: String
    let lead: String
    let errors: [FormErrors.Item]
    let scopes: [CareChoice]
    let scopesError: String?
    let categories: [CareChoice]
    let categoriesError: String?
    let action: String
    let submitTitle: String
    let history: [Event]
    let endPath: String?
    let cancelPath = CareURL.appSharing.path

    init(
        layout: Layout,
        link: CareLink?,
        events: [CareLinkEvent] = [],
        scopes: Set<String>,
        categories: Set<String>,
        problems: [String: String] = [:],
        clock: ProgramClock
    ) {
        self.layout = layout
        heading = link.map { "What \($0.caregiverName) can see" } ?? "Share with someone who helps you"
        lead =
            link == nil
            ? "Choose what they may see or do. You get a code to give them; it works once, for 3 days. You can change this or stop sharing at any time."
            : "Changes take effect straight away."
        var errors = FormErrors()
        for field in ["scopes", "categories"] { if let problem = problems[field] { errors.add(field, problem) } }
        self.errors = errors.items
        self.scopes = CareChoice.group(
            "scopes",
            CareScope.allCases,
            value: \.rawValue,
            title: { "They can " + $0.sentence },
            selected: { scopes.contains($0.rawValue) }
        )
        .map { CareChoice(id: $0.id, name: "scopes[]", value: $0.value, title: $0.title, hint: nil, isSelected: $0.isSelected) }
        scopesError = problems["scopes"]
        self.categories = CareChoice.group(
            "categories",
            MemoryCategory.allCases,
            value: \.rawValue,
            title: \.title,
            selected: { categories.contains($0.rawValue) }
        )
        .map { CareChoice(id: $0.id, name: "categories[]", value: $0.value, title: $0.title, hint: nil, isSelected: $0.isSelected) }
        categoriesError = problems["categories"]
        action = link.map { CareURL.appLink($0.id).path } ?? CareURL.appInvite.path
        submitTitle = link == nil ? "Make a code" : "Save changes"
        history = events.reversed().map { event in
            let who = event.actor.role == AppAccountKind.careReceiver.role ? "You" : event.actor.role == "staff" ? "The program's staff" : "They"
            let what =
                switch event.kind {
                case .granted: "\(who) started sharing: they could \(sharedSentence(event.grant))."
                case .changed: "\(who) changed it: they could \(sharedSentence(event.grant))."
                case .revoked: "\(who) stopped sharing."
                }
            return Event(when: clock.dateTime(event.at), what: what)
        }
        endPath = link.map { CareURL.appLinkEnd($0.id).path }
    }

    /// The grant the boxes ask for, as the API checks one.
    static func grant(scopes: [String]?, categories: [String]?) -> Result<CareGrant, APIError> {
        CareGrant.parse(scopes: scopes ?? [], categories: (scopes ?? []).contains(CareScope.memories.rawValue) ? categories : nil)
    }
}

/// The code, shown once, to read out or write down.
struct CareCodePage: Page {
    static let template = TemplateName.appCareCode
    let layout: Layout
    let code: String
    let shares: String
    let expires: String
    let sharingPath = CareURL.appSharing.path

    init(layout: Layout, code: String, invitation: CareInvitation, clock: ProgramClock) {
        self.layout = layout
        self.code = code
        shares = "It lets them \(sharedSentence(invitation.grant))."
        expires = "It works once, until \(clock.dateTime(invitation.expiresAt))."
    }
}

/// "Ruth saw your appointments on Tue 3 Mar 2026 at 10:14".
struct CareAccessLogPage: Page {
    static let template = TemplateName.appCareAccessLog
    let layout: Layout
    let entries: [String]
    let pages: CarePageLinks
    let sharingPath = CareURL.appSharing.path

    init(layout: Layout, entries: [CareAccessEntry], page: Int, hasMore: Bool, clock: ProgramClock) {
        self.layout = layout
        self.entries = entries.map { "\($0.caregiverName ?? "A caregiver who has left") saw \($0.what.seen) on \(clock.dateTime($0.at))." }
        pages = CarePageLinks(.appAccessLog, page: page, hasMore: hasMore)
    }
}

// MARK: The caregiver's pages

/// The people he helps, and the box for a new code.
struct CaregiverPeoplePage: Page {
    static let template = TemplateName.appCaregiverPeople

    struct Person: Encodable, Sendable {
        let name: String
        let shares: String
        let path: String
    }

    let layout: Layout
    let greeting: String
    let people: [Person]
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let action = CareURL.appCode.path
    let feedbackPath = CareURL.appFeedback(.caregiver).path
    let passwordPath = CareURL.appPassword(.caregiver).path
    let notice: String?

    init(layout: Layout, name: String, links: [CareLink], code: String = "", errors: FormErrors = FormErrors(), notice: String?) {
        self.layout = layout
        greeting = "Hello, \(name)"
        people = links.map { link in
            let shares = link.grant.sortedScopes.map { scope -> String in
                switch scope {
                case .reminders: "reminders and appointments"
                case .plans: "adding appointments and to-dos"
                case .memories: "memories about \(CareAppTime.listed(link.grant.sortedCategories.map { $0.title.lowercased() }))"
                case .location: "where they are"
                }
            }
            return Person(name: link.receiverName, shares: "Shares " + CareAppTime.listed(shares) + ".", path: CareURL.appPerson(link.id).path)
        }
        self.errors = errors.items
        var fields = [
            FormField(
                "code",
                label: "Invitation code",
                value: code,
                hint: "8 letters and numbers, like K7QM-3XPD. Capitals or not, with or without the dash.",
                autocomplete: "off",
                width: 10
            )
        ]
        errors.apply(to: &fields)
        self.fields = fields
        self.notice = notice
    }
}

/// One person he helps: what she shares with him, each part only when she shares it.
struct CaregiverPersonPage: Page {
    static let template = TemplateName.appCaregiverPerson
    let layout: Layout
    let name: String
    let sharesReminders: Bool
    let reminders: [CareMemoryCard]
    let sharesMemories: Bool
    let memories: [CareMemoryCard]
    let query: String
    let searchPath: String
    let location: String?
    let mapPath: String?
    let sharesLocation: Bool
    let addPlanPath: String?
    let leavePath: String
    let notice: String?

    init(
        layout: Layout,
        link: CareLink,
        reminders: [Memory]?,
        memories: [Memory]?,
        query: String,
        location: CareLocation?,
        clock: ProgramClock,
        notice: String?
    ) {
        self.layout = layout
        name = link.receiverName
        sharesReminders = reminders != nil
        self.reminders = (reminders ?? []).map { CareMemoryCard($0, path: CareURL.appPersonMemory(person: link.id, $0.id).path) }
        sharesMemories = memories != nil
        self.memories = (memories ?? []).map { CareMemoryCard($0, path: CareURL.appPersonMemory(person: link.id, $0.id).path) }
        self.query = query
        searchPath = CareURL.appPerson(link.id).path
        sharesLocation = link.grant.allows(.location)
        self.location = location.map { location in
            let accuracy = location.accuracyMetres.map { ", to within \(Int($0.rounded())) metres" } ?? ""
            return String(format: "%.5f, %.5f", location.latitude, location.longitude) + accuracy + ", at \(clock.dateTime(location.at))."
        }
        mapPath = location.map {
            String(
                format: "https://www.openstreetmap.org/?mlat=%.5f&mlon=%.5f#map=17/%.5f/%.5f",
                $0.latitude,
                $0.longitude,
                $0.latitude,
                $0.longitude
            )
        }
        addPlanPath = link.grant.allows(.plans) ? CareURL.appPersonPlanNew(link.id).path : nil
        leavePath = CareURL.appPersonLeave(link.id).path
        self.notice = notice
    }
}

/// One of her memories as he may see it: a shared one whole; a reminder or plan only its time, place and status.
struct CaregiverMemoryPage: Page {
    static let template = TemplateName.appCaregiverMemory
    let layout: Layout
    let title: String
    let emoji: String?
    let typeTitle: String
    let details: [CareDetail]
    let description: [String]
    let lines: [CareMemoryPage.Line]
    let backPath: String
    /// Its pictures and PDFs, when he sees it whole.
    let files: [CareFileLine]

    init(layout: Layout, link: CareLink, memory: CareAPI.SharedMemory, files: [CareFile] = []) {
        self.layout = layout
        self.files = files.map { CareFileLine($0, path: CareURL.appPersonMemoryFile(person: link.id, memory.id, $0.id).path, removePath: nil) }
        title = memory.title
        emoji = memory.emoji.isEmpty ? nil : memory.emoji
        typeTitle = MemoryType(rawValue: memory.type)?.title ?? ""
        var details: [CareDetail] = []
        if let when = CareAppTime.text(memory.happensAt) { details.append(CareDetail(label: "When", value: when)) }
        if let reminder = CareAppTime.text(memory.reminderAt) {
            let repeats = CareAppTime.repeats(memory.recurrence, days: memory.recurrenceDays).map { ", then \($0)" } ?? ""
            details.append(CareDetail(label: "Reminder", value: reminder + repeats))
        }
        if !memory.location.isEmpty { details.append(CareDetail(label: "Where", value: memory.location)) }
        if let status = MemoryStatus(rawValue: memory.status), status == .done || status == .open || status == .cancelled {
            details.append(CareDetail(label: "Status", value: status == .done ? "Done" : status == .open ? "Not done yet" : "Cancelled"))
        }
        for field in memory.customFields ?? [] { details.append(CareDetail(label: field.title, value: field.content)) }
        if let tags = memory.tags, !tags.isEmpty { details.append(CareDetail(label: "Tags", value: tags.joined(separator: ", "))) }
        self.details = details
        description = memory.description?.split(whereSeparator: \.isNewline).map(String.init) ?? []
        lines = (memory.items ?? []).enumerated().map { CareMemoryPage.Line(index: $0.offset, text: $0.element.text, done: $0.element.done) }
        backPath = CareURL.appPerson(link.id).path
    }
}

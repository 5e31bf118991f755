import Foundation
import Hummingbird
import PortalPlatform

/// What administrators need to run the program, and nothing more: the accounts, their links and consent
/// history, disabling, deleting, ending a link, and the support details. Counts only: no page shows a
/// memory, a contact or a location. Every action is audited.
struct CareStaffController {
    let portal: Portal
    var care: MemoryCare { MemoryCare(portal: portal) }
    var repository: CareRepository { CareRepository() }

    func addRoutes(to routes: inout PortalRoutes) {
        for kind in CareAccountKind.allCases {
            routes.get(CareURL.accounts(kind).pattern, access: .careStaff) { request, context in
                try await list(kind, request: request, context: context)
            }
            routes.get(CareURL.pattern { CareURL.account(kind, $0) }, access: .careStaff) { request, context in
                try await show(kind, request: request, context: context)
            }
            routes.post(CareURL.pattern { CareURL.accountDisable(kind, $0) }, access: .careStaff) { request, context in
                try await setStatus(kind, .disabled, request: request, context: context)
            }
            routes.post(CareURL.pattern { CareURL.accountEnable(kind, $0) }, access: .careStaff) { request, context in
                try await setStatus(kind, .active, request: request, context: context)
            }
            routes.get(CareURL.pattern { CareURL.accountDelete(kind, $0) }, access: .careStaff) { request, context in
                try await confirmDelete(kind, request: request, context: context)
            }
            routes.post(CareURL.pattern { CareURL.accountDelete(kind, $0) }, access: .careStaff) { request, context in
                try await delete(kind, request: request, context: context)
            }
        }
        routes.get(CareURL.pattern(CareURL.linkRevoke), access: .careStaff, confirmRevoke)
        routes.post(CareURL.pattern(CareURL.linkRevoke), access: .careStaff, revoke)
        routes.get(CareURL.settings.pattern, access: .careStaff, showSettings)
        routes.post(CareURL.settings.pattern, access: .careStaff, saveSettings)
        routes.get(CareURL.confirm.pattern, access: .everyone, confirmForm)
        routes.post(CareURL.confirm.pattern, access: .everyone, confirm)
    }

    private static func title(_ kind: CareAccountKind) -> String { kind == .careReceiver ? "Care receivers" : "Caregivers" }

    private func account(_ kind: CareAccountKind, _ context: PortalContext) async throws -> CareAccount {
        let id = try context.parameters.recordID()
        guard let account = try await portal.database.read({ db in try await repository.account(id: id, kind: kind, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return account
    }

    func list(_ kind: CareAccountKind, request: Request, context: PortalContext) async throws -> Response {
        let search = (request.query("q") ?? "").trimmed
        let status = request.query("status").flatMap(CareAccount.Status.init(rawValue:))
        let pageRequest = try request.pageRequest()
        let (accounts, total) = try await portal.database.read { db in
            try await repository.accounts(kind: kind, search: search, status: status, limit: pageRequest.size, offset: pageRequest.offset, on: db)
        }
        let address = ListAddress(path: CareURL.accounts(kind).path, parameters: [("q", search), ("status", status?.rawValue)])
        let page = PageOf(items: accounts, totalCount: total, request: pageRequest)
        let clock = portal.programSettings.current.clock
        return portal.pages.response(
            CareAccountsPage(
                layout: portal.layout(Self.title(kind), context: context, current: .care(.accounts(kind))),
                heading: Self.title(kind),
                noun: kind.noun,
                action: CareURL.accounts(kind).path,
                search: search,
                statusOptions: [FilterOption(value: "", title: "All statuses", isSelected: status == nil)]
                    + CareAccount.Status.allCases.map {
                        FilterOption(value: $0.rawValue, title: CareAccountRow.status($0).0, isSelected: $0 == status)
                    },
                rows: accounts.map { CareAccountRow($0, clock: clock) },
                hasRows: !accounts.isEmpty,
                isFiltered: !search.isEmpty || status != nil,
                pagination: portal.pages.html(PaginationView(page, address: address, noun: "accounts"))
            )
        )
    }

    func show(_ kind: CareAccountKind, request: Request, context: PortalContext) async throws -> Response {
        let account = try await account(kind, context)
        let origin = portal.origin(of: request, context: context)
        let (links, counts, contacts) = try await portal.database.transaction { db in
            let links =
                kind == .careReceiver
                ? try await repository.links(receiverID: account.id, on: db)
                : try await repository.links(caregiverID: account.id, on: db)
            var withEvents: [(CareLink, [CareLinkEvent])] = []
            for link in links { withEvents.append((link, try await repository.linkEvents(linkID: link.id, on: db))) }
            let counts = kind == .careReceiver ? try await repository.memoryCount(receiverID: account.id, on: db) : (0, 0)
            let contacts = kind == .careReceiver ? try await repository.contactCount(receiverID: account.id, on: db) : 0
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .careAccountViewed,
                    recordType: kind.rawValue,
                    recordID: "\(account.id)",
                    origin: origin
                ),
                on: db
            )
            return (withEvents, counts, contacts)
        }
        let clock = portal.programSettings.current.clock
        var facts = SummaryRows()
        facts.row("Email address", account.email, wrapsText: true)
        facts.row("Registered", clock.dateTime(account.createdAt))
        facts.row("Email confirmed", account.confirmedAt.map(clock.dateTime) ?? "Not yet")
        facts.row("Last used the app", account.lastActiveAt.map(clock.dateTime) ?? "Not yet")
        if kind == .careReceiver {
            facts.row("PIN for secured memories", account.hasPIN ? "Made" : "Not made yet")
            facts.row("Memories", "\(counts.0) (\(counts.1) secured)")
            facts.row("Contacts", "\(contacts)")
        }
        let (statusTitle, statusTag) = CareAccountRow.status(account.status)
        let views = links.map { CareLinkView($0.0, events: $0.1, viewedFrom: kind, clock: clock) }
        return portal.pages.response(
            CareAccountPage(
                layout: portal.layout(account.name, context: context, current: .care(.accounts(kind))),
                kindTitle: kind == .careReceiver ? "Care receiver" : "Caregiver",
                name: account.name,
                statusTitle: statusTitle,
                statusTag: statusTag,
                listPath: CareURL.accounts(kind).path,
                listTitle: Self.title(kind).lowercased(),
                facts: facts.html,
                links: views,
                hasLinks: !views.isEmpty,
                disablePath: account.status == .active ? CareURL.accountDisable(kind, account.id).path : nil,
                enablePath: account.status == .disabled ? CareURL.accountEnable(kind, account.id).path : nil,
                deletePath: CareURL.accountDelete(kind, account.id).path
            )
        )
    }

    func setStatus(_ kind: CareAccountKind, _ status: CareAccount.Status, request: Request, context: PortalContext) async throws -> Response {
        let account = try await account(kind, context)
        let origin = portal.origin(of: request, context: context)
        let changed = try await portal.database.transaction { db in
            guard try await repository.setStatus(accountID: account.id, kind: kind, to: status, on: db) else { return false }
            if status == .disabled { try await repository.revokeTokens(accountID: account.id, kind: kind, on: db) }
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: status == .disabled ? .careAccountDisabled : .careAccountEnabled,
                    recordType: kind.rawValue,
                    recordID: "\(account.id)",
                    origin: origin
                ),
                on: db
            )
            return true
        }
        try await portal.flash(
            !changed
                ? Flash(.warning, "\(account.name) has not confirmed the email address yet, so the account cannot be changed.")
                : status == .disabled
                    ? Flash(.success, "\(account.name) can no longer use the app, and is signed out everywhere.")
                    : Flash(.success, "\(account.name) can use the app again."),
            context: context
        )
        return seeOther(.care(.account(kind, account.id)))
    }

    func confirmDelete(_ kind: CareAccountKind, request: Request, context: PortalContext) async throws -> Response {
        let account = try await account(kind, context)
        return portal.pages.response(
            CareDeletePage(
                layout: portal.layout("Delete \(account.name)’s account", context: context, current: .care(.accounts(kind))),
                name: account.name,
                kindNoun: kind.noun,
                consequences: kind == .careReceiver
                    ? "Her memories, secured memories, their files, contacts and their photos, invitation codes, links to caregivers, location and access log are deleted, and the app signs her out on every device."
                    : "His links to the people he helps end and are deleted, and the app signs him out on every device. Their access logs no longer name him.",
                action: CareURL.accountDelete(kind, account.id).path,
                accountPath: CareURL.account(kind, account.id).path
            )
        )
    }

    func delete(_ kind: CareAccountKind, request: Request, context: PortalContext) async throws -> Response {
        let account = try await account(kind, context)
        let origin = portal.origin(of: request, context: context)
        let files = try await portal.database.transaction { db in
            // Her files' bytes go once their rows are gone with the account.
            let files = try await CareFileRepository().delete(
                ids: try await CareFileRepository().stored(receiverID: account.id, on: db),
                receiverID: account.id,
                on: db
            )
            guard try await repository.deleteAccount(id: account.id, kind: kind, on: db) else { throw HTTPError(.notFound) }
            // Her feed, her choices about it, her phones' tokens and her feedback go with her.
            try await portal.notifications.forget(AppAccountRef(role: kind.rawValue, accountID: account.id), on: db)
            try await FeedbackRepository.deleteAll(from: AppAccountRef(role: kind.rawValue, accountID: account.id), on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .careAccountDeleted,
                    recordType: kind.rawValue,
                    recordID: "\(account.id)",
                    origin: origin
                ),
                on: db
            )
            return files
        }
        let store = MemoryCare(portal: portal).fileStore
        for file in files { try? await store.remove(file) }
        try await portal.flash(Flash(.success, "\(account.name)’s account has been deleted."), context: context)
        return seeOther(.care(.accounts(kind)))
    }

    func confirmRevoke(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let link = try await portal.database.read({ db in try await repository.link(id: id, on: db) }), link.isActive else {
            throw HTTPError(.notFound)
        }
        return portal.pages.response(
            CareRevokePage(
                layout: portal.layout("End a link", context: context, current: .care(.accounts(.careReceiver))),
                receiverName: link.receiverName,
                caregiverName: link.caregiverName,
                grants: CareLinkView.describe(link.grant),
                action: CareURL.linkRevoke(id).path,
                backPath: CareURL.account(.careReceiver, link.receiverID).path
            )
        )
    }

    func revoke(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let link = try await portal.database.read({ db in try await repository.link(id: id, on: db) }) else { throw HTTPError(.notFound) }
        do {
            try await care.revokeLink(
                id: id,
                by: .staff(context.staff?.id),
                auditActor: context.auditActor,
                origin: portal.origin(of: request, context: context)
            )
        } catch let error as APIError where error.status == .notFound {
            throw HTTPError(.notFound)
        }
        try await portal.flash(
            Flash(.success, "The link between \(link.receiverName) and \(link.caregiverName) has ended. Both have been told by email."),
            context: context
        )
        return seeOther(.care(.account(.careReceiver, link.receiverID)))
    }

    // MARK: Settings

    private struct SettingsForm: Decodable {
        var support_phone: String?
        var support_email: String?
    }

    private func settingsPage(_ settings: CareSettings, errors: FormErrors, context: PortalContext) -> CareSettingsPage {
        var fields = [
            FormField(
                "support_phone",
                label: "Support phone number",
                value: settings.supportPhone,
                hint: "Shown in the apps, for people who need help",
                type: "tel",
                width: 20
            ),
            FormField("support_email", label: "Support email address", value: settings.supportEmail, type: "email", width: 30)
        ]
        errors.apply(to: &fields)
        return CareSettingsPage(
            layout: portal.layout("Memory care settings", context: context, current: .care(.settings)),
            errors: errors.items,
            phoneField: fields[0],
            emailField: fields[1]
        )
    }

    @Sendable func showSettings(request: Request, context: PortalContext) async throws -> Response {
        let settings = try await portal.database.read { db in try await repository.settings(on: db) }
        return portal.pages.response(settingsPage(settings, errors: FormErrors(), context: context))
    }

    @Sendable func saveSettings(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(SettingsForm.self, context: context)
        let settings = CareSettings(supportPhone: form.support_phone?.trimmed ?? "", supportEmail: form.support_email?.trimmed ?? "")
        var errors = FormErrors()
        if settings.supportPhone.isEmpty {
            errors.add("support_phone", "Enter the support phone number")
        } else if let problem = MemoryRules.phoneProblem(settings.supportPhone) {
            errors.add("support_phone", problem)
        }
        if let problem = FieldRules.emailProblem(settings.supportEmail) { errors.add("support_email", problem) }
        guard errors.isEmpty else {
            return portal.pages.response(settingsPage(settings, errors: errors, context: context), status: .unprocessableContent)
        }
        let (now, origin) = (portal.now, portal.origin(of: request, context: context))
        try await portal.database.transaction { db in
            try await repository.saveSettings(settings, by: context.staff?.id, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(actor: context.auditActor, action: .careSettingsChanged, recordType: "care_settings", origin: origin),
                on: db
            )
        }
        try await portal.flash(Flash(.success, "The support details are saved; the apps show them from now on."), context: context)
        return seeOther(.care(.settings))
    }

    // MARK: The emailed confirmation link

    private struct ConfirmForm: Decodable {
        var token: String?
    }

    @Sendable func confirmForm(request: Request, context: PortalContext) async throws -> Response {
        let token = request.query("token") ?? ""
        let usable = try await care.confirmationIsUsable(token: token)
        return try await portal.withFormSession(context: context) { context in
            portal.pages.response(
                CareConfirmEmailPage(
                    layout: portal.layout("Confirm your email address", context: context),
                    token: token,
                    isUsable: usable,
                    isDone: false
                )
            )
        }
    }

    @Sendable func confirm(request: Request, context: PortalContext) async throws -> Response {
        let token = try await request.form(ConfirmForm.self, context: context).token ?? ""
        let done = try await care.confirm(token: token, origin: portal.origin(of: request, context: context))
        return portal.pages.response(
            CareConfirmEmailPage(layout: portal.layout("Confirm your email address", context: context), token: "", isUsable: done, isDone: done),
            status: done ? .ok : .unprocessableContent
        )
    }
}

import Foundation
import Hummingbird
import PortalPlatform

/// The caregiver's pages in the people's web app (`/app/caregiver`), over the same domain code as his
/// app's API: the people he helps, entering a code one of them gave him, and for each only what she
/// shares — her reminders and plans, her memories in the shared categories, where she is, adding an
/// appointment or to-do. Every read goes through the link in force and into her access log.
struct CaregiverAppController {
    let portal: Portal
    var care: MemoryCare { MemoryCare(portal: portal) }

    func addRoutes(to routes: inout PortalRoutes) {
        CareAppAccounts(portal: portal, kind: .caregiver, navigation: .caregiver).addRoutes(to: &routes)
        let access = Access.caregiverPages
        routes.get(CareURL.appPeople.pattern, access: access, people)
        routes.post(CareURL.appCode.pattern, access: access, enterCode)
        routes.get(CareURL.pattern(CareURL.appPerson), access: access, person)
        routes.get(CareURL.pattern { CareURL.appPersonMemory(person: $0, $1) }, access: access, memory)
        routes.get(CareURL.pattern(CareURL.appCaregiverMemory), access: access, notifiedMemory)
        routes.get(CareURL.pattern { CareURL.appPersonMemoryFile(person: $0, $1, $2) }, access: access, file)
        routes.get(CareURL.pattern(CareURL.appPersonPlanNew), access: access, newPlan)
        routes.post(CareURL.pattern(CareURL.appPersonPlanNew), access: access, addPlan)
        routes.get(CareURL.pattern(CareURL.appPersonLeave), access: access, confirmLeave)
        routes.post(CareURL.pattern(CareURL.appPersonLeave), access: access, leave)
    }

    private func layout(_ title: String, _ context: PortalContext) -> Layout {
        portal.appLayout(title, context: context, navigation: .caregiver, currentPath: CareURL.appPeople.path)
    }

    private func caregiver(_ context: PortalContext) throws -> AppAccountHolder {
        guard let holder = context.appAccount, holder.kind == .caregiver else { throw HTTPError(.notFound) }
        return holder
    }

    private var clock: ProgramClock { portal.programSettings.current.clock }

    private func peoplePage(
        _ context: PortalContext,
        _ holder: AppAccountHolder,
        code: String = "",
        errors: FormErrors = FormErrors(),
        notice: String? = nil
    ) async throws -> CaregiverPeoplePage {
        let (account, _) = try await care.account(holder)
        let links = try await care.links(of: holder).map(\.0)
        return CaregiverPeoplePage(
            layout: layout("The people you help", context),
            name: account.name,
            links: links,
            code: code,
            errors: errors,
            notice: notice
        )
    }

    @Sendable func people(request: Request, context: PortalContext) async throws -> Response {
        let holder = try caregiver(context)
        let notice = request.query("done") == "left" ? "You no longer help them here. They have been told by email." : nil
        return portal.pages.response(try await peoplePage(context, holder, notice: notice))
    }

    private struct CodeForm: Decodable {
        var code: String?
    }

    @Sendable func enterCode(request: Request, context: PortalContext) async throws -> Response {
        let holder = try caregiver(context)
        let code = try await request.form(CodeForm.self, context: context).code ?? ""
        do {
            let link = try await care.accept(code: code, holder, origin: portal.origin(of: request, context: context))
            return seeOther("\(CareURL.appPerson(link.id).path)?done=linked")
        } catch let error as APIError {
            var errors = FormErrors()
            errors.add("code", error.pausedPageMessage ?? error.fields["code"] ?? error.message)
            return portal.pages.response(try await peoplePage(context, holder, code: code.trimmed, errors: errors), status: .unprocessableContent)
        }
    }

    /// His link in force by the route's id, allowing `scope`: 404 when there is none or it does not allow it.
    private func link(_ context: PortalContext, allowing scope: CareScope? = nil) async throws -> CareLink {
        let link = try await care.link(try context.parameters.recordID(), for: try caregiver(context), allowing: nil)
        if let scope, !link.grant.allows(scope) { throw HTTPError(.notFound) }
        return link
    }

    @Sendable func person(request: Request, context: PortalContext) async throws -> Response {
        let link = try await link(context)
        let query = MemoryRules.withoutControlCharacters(request.query("q") ?? "").trimmed
        let (reminders, memories, location) = try await care.sharedAtOnce(
            of: link,
            words: query.split(whereSeparator: \.isWhitespace).map(String.init)
        )
        // What the page shows her caregiver, noted in her access log in one write.
        try await care.logAccess(
            link,
            seen: [
                reminders.map { _ in CareAccessEntry.What.reminders }, memories.map { _ in .memories }, location.map { _ in .location }
            ].compactMap { $0 }
        )
        let notice: String? =
            switch request.query("done") {
            case "linked": "You are linked. This is what \(link.receiverName) shares with you."
            case "added": "Added. \(link.receiverName) sees it in her memories."
            default: nil
            }
        return portal.pages.response(
            CaregiverPersonPage(
                layout: layout(link.receiverName, context),
                link: link,
                reminders: reminders,
                memories: memories,
                query: query,
                location: location,
                clock: clock,
                notice: notice
            )
        )
    }

    @Sendable func memory(request: Request, context: PortalContext) async throws -> Response {
        let link = try await link(context)
        let (memory, whole) = try await care.sharedMemory(try context.parameters.secondRecordID(), of: link)
        guard let shared = CareAPI.SharedMemory(memory, whole: whole) else { throw HTTPError(.notFound) }
        let files = whole ? try await care.visibleFiles(ofMemory: memory.id, receiverID: link.receiverID) : []
        return portal.pages.response(CaregiverMemoryPage(layout: layout(shared.title, context), link: link, memory: shared, files: files))
    }

    /// A memory his notifications name: its page through his link in force to her; 404 when there is none.
    @Sendable func notifiedMemory(request: Request, context: PortalContext) async throws -> Response {
        let holder = try caregiver(context)
        let id = try context.parameters.recordID()
        guard let link = try await care.activeLink(of: holder, toOwnerOf: id) else { throw HTTPError(.notFound) }
        return seeOther(CareURL.appPersonMemory(person: link.id, id).path)
    }

    /// A picture or PDF of a memory he sees whole; noted in her access log.
    @Sendable func file(request: Request, context: PortalContext) async throws -> Response {
        let link = try await link(context)
        let fileID = try context.parameters.fileID()
        guard let file = try await care.sharedFiles(ofMemory: try context.parameters.secondRecordID(), of: link).first(where: { $0.id == fileID })
        else {
            throw HTTPError(.notFound)
        }
        return try await care.response(for: file, receiverID: link.receiverID, request: request, context: context)
    }

    private static let planTypes: [MemoryType] = MemoryType.allCases.filter(\.isPlan)

    @Sendable func newPlan(request: Request, context: PortalContext) async throws -> Response {
        let link = try await link(context, allowing: .plans)
        let action = CareURL.appPersonPlanNew(link.id).path
        guard let type = request.query("type").flatMap(MemoryType.init(rawValue:)), type.isPlan else {
            let problem = request.query("chosen") == nil ? nil : "Choose an appointment or a to-do"
            return portal.pages.response(
                CareMemoryTypePage(
                    layout: layout("Add for \(link.receiverName)", context),
                    question: "What do you want to add for \(link.receiverName)?",
                    types: Self.planTypes,
                    action: action,
                    cancelPath: CareURL.appPerson(link.id).path,
                    problem: problem
                ),
                status: problem == nil ? .ok : .unprocessableContent
            )
        }
        return portal.pages.response(planForm(context, link: link, type: type, typed: CareMemoryTyped()))
    }

    private func planForm(
        _ context: PortalContext,
        link: CareLink,
        type: MemoryType,
        typed: CareMemoryTyped,
        problems: CareMemoryTyped.Problems = .init()
    ) -> CareMemoryFormPage {
        CareMemoryFormPage(
            layout: layout("Add for \(link.receiverName)", context),
            type: type,
            typed: typed,
            problems: problems,
            memoryID: nil,
            version: nil,
            action: CareURL.appPersonPlanNew(link.id).path,
            cancelPath: CareURL.appPerson(link.id).path,
            forCaregiver: link.receiverName
        )
    }

    @Sendable func addPlan(request: Request, context: PortalContext) async throws -> Response {
        let link = try await link(context, allowing: .plans)
        let form = try await request.form(CareMemoryForm.self, context: context)
        guard let type = form.type.flatMap(MemoryType.init(rawValue:)), type.isPlan else { throw HTTPError(.badRequest) }
        var typed = form.typed
        // His form has no category, people, secrets or secured box: what he adds is plain, about no one.
        typed.category = MemoryCategory.other.rawValue
        typed.people = []
        typed.fields = [:]
        typed.tags = ""
        typed.emoji = ""
        let (content, found) = typed.checked(type: type, kept: nil, knownContacts: [])
        var problems = found
        if problems.isEmpty {
            do {
                _ = try await care.create(
                    receiverID: link.receiverID,
                    by: .caregiver(link.caregiverID),
                    type: type,
                    secured: false,
                    clientID: nil,
                    content: content,
                    unlocked: false
                )
                return seeOther("\(CareURL.appPerson(link.id).path)?done=added")
            } catch let error as APIError where error.status == .unprocessableContent {
                CareMemoryTyped.add(error.fields, to: &problems)
            }
        }
        return portal.pages.response(planForm(context, link: link, type: type, typed: typed, problems: problems), status: .unprocessableContent)
    }

    @Sendable func confirmLeave(request: Request, context: PortalContext) async throws -> Response {
        let link = try await link(context)
        return portal.pages.response(
            CareConfirmPage(
                layout: layout("Stop helping", context),
                heading: "Stop helping \(link.receiverName) here?",
                body:
                    "You will see nothing more of what \(link.receiverName) shares, and we tell her by email. To help again, ask her for a new code.",
                action: CareURL.appPersonLeave(link.id).path,
                version: nil,
                button: "Yes, stop",
                cancelPath: CareURL.appPerson(link.id).path
            )
        )
    }

    @Sendable func leave(request: Request, context: PortalContext) async throws -> Response {
        let holder = try caregiver(context)
        try await care.revokeLink(
            id: try context.parameters.recordID(),
            by: .caregiver(holder.accountID),
            auditActor: MemoryCare.actor(holder),
            origin: portal.origin(of: request, context: context)
        )
        return seeOther("\(CareURL.appPeople.path)?done=left")
    }
}

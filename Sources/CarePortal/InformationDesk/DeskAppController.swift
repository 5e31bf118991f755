import Foundation
import Hummingbird
import PortalPlatform

/// The information desk in the member's part of the web app (`/app/member/desk`): search and read every
/// thread, ask (anonymously if she wishes), reply and flag — through `InformationDesk`, as the member
/// API does, and shown as the API shows it (`DeskAPI.Thread`), so what is removed or hidden is kept from
/// her alike.
struct DeskAppController {
    let portal: Portal
    let desk: InformationDesk

    static let pageSize = 20

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.appDesk.pattern, access: .memberPages, list)
        routes.get(SiteURL.appDeskAsk.pattern, access: .memberPages, askForm)
        routes.post(SiteURL.appDeskAsk.pattern, access: .memberPages, ask)
        routes.get(SiteURL.pattern(SiteURL.appDeskThread), access: .memberPages, thread)
        routes.post(SiteURL.pattern(SiteURL.appDeskReplies), access: .memberPages, reply)
        routes.get(SiteURL.pattern(SiteURL.appDeskThreadFlag), access: .memberPages) {
            try await flagForm(.question(try $1.parameters.recordID()), $0, $1)
        }
        routes.post(SiteURL.pattern(SiteURL.appDeskThreadFlag), access: .memberPages) {
            try await flag(.question(try $1.parameters.recordID()), $0, $1)
        }
        routes.get(SiteURL.pattern(SiteURL.appDeskReplyFlag), access: .memberPages) {
            try await flagForm(.reply(try $1.parameters.recordID()), $0, $1)
        }
        routes.post(SiteURL.pattern(SiteURL.appDeskReplyFlag), access: .memberPages) { try await flag(.reply(try $1.parameters.recordID()), $0, $1) }
    }

    private func reader(_ context: PortalContext) throws -> Int64 {
        guard let holder = context.appAccount, holder.kind == .member else { throw HTTPError(.notFound) }
        return holder.accountID
    }

    private func layout(_ title: String, _ context: PortalContext) -> Layout {
        portal.appLayout(title, context: context, navigation: .member, currentPath: SiteURL.appDesk.path)
    }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let reader = try reader(context)
        var query = DeskListQuery()
        query.filter = .all
        query.sort = .activity
        query.search = String((request.query("q") ?? "").prefix(200))
        query.page = PageRequest(number: request.pageNumber, size: Self.pageSize)
        let page = try await portal.database.read { [query] db in try await desk.list(query, on: db).page }
        let address = ListAddress(path: SiteURL.appDesk.path, parameters: query.search.isEmpty ? [] : [("q", query.search)])
        return portal.pages.response(
            DeskAppListPage(
                layout: layout("Information desk", context),
                search: query.search,
                threads: page.items.map { DeskAPI.ThreadSummary($0, reader: reader) },
                pagination: portal.pages.html(PaginationView(page, address: address, noun: "questions"))
            )
        )
    }

    private func threadPage(
        _ id: Int64,
        reader: Int64,
        context: PortalContext,
        reply: String = "",
        errors: FormErrors = FormErrors(),
        notice: String? = nil
    ) async throws -> DeskAppThreadPage {
        let shown = try await portal.database.read { db -> DeskAPI.Thread? in
            guard let thread = try await desk.repository.findThread(id: id, on: db) else { return nil }
            return DeskAPI.Thread(thread, replies: try await desk.replies(of: thread, on: db), reader: reader)
        }
        guard let shown else { throw HTTPError(.notFound) }
        return DeskAppThreadPage(
            layout: layout(shown.title, context),
            thread: shown,
            clock: portal.programSettings.current.clock,
            reply: reply,
            errors: errors,
            notice: notice
        )
    }

    @Sendable func thread(request: Request, context: PortalContext) async throws -> Response {
        let notice: String? =
            switch request.query("notice") {
            case "asked": "Your question is on the desk. We tell you when someone replies."
            case "flagged": "Thank you. A moderator will look at it."
            case "replied": "Your reply is posted."
            default: nil
            }
        return portal.pages.response(
            try await threadPage(try context.parameters.recordID(), reader: try reader(context), context: context, notice: notice)
        )
    }

    private struct QuestionForm: Decodable {
        var title: String?
        var body: String?
        var anonymous: String?
    }

    @Sendable func askForm(request: Request, context: PortalContext) async throws -> Response {
        _ = try reader(context)
        return portal.pages.response(DeskAppAskPage(layout: layout("Ask a question", context)))
    }

    @Sendable func ask(request: Request, context: PortalContext) async throws -> Response {
        let reader = try reader(context)
        let form = try await request.form(QuestionForm.self, context: context)
        switch InformationDesk.question(title: form.title ?? "", body: form.body ?? "") {
        case .success(let (title, body)):
            let id = try await desk.ask(memberID: reader, title: title, body: body, isAnonymous: form.anonymous == "on")
            return seeOther("\(SiteURL.appDeskThread(id).path)?notice=asked")
        case .failure(let problems):
            var errors = FormErrors()
            for field in ["title", "body"] { if let problem = problems.fields[field] { errors.add(field, problem) } }
            return portal.pages.response(
                DeskAppAskPage(
                    layout: layout("Ask a question", context),
                    title: form.title ?? "",
                    body: form.body ?? "",
                    anonymous: form.anonymous == "on",
                    errors: errors
                ),
                status: .unprocessableContent
            )
        }
    }

    private struct ReplyForm: Decodable {
        var body: String?
    }

    @Sendable func reply(request: Request, context: PortalContext) async throws -> Response {
        let reader = try reader(context)
        let threadID = try context.parameters.recordID()
        let source = try await request.form(ReplyForm.self, context: context).body ?? ""
        switch InformationDesk.body(source, empty: "Enter your reply") {
        case .success(let text):
            let replyID = try await desk.reply(threadID: threadID, author: .member(id: reader, pseudonym: "", avatar: .memberDefault), body: text)
            return seeOther("\(SiteURL.appDeskThread(threadID).path)?notice=replied#reply-\(replyID)")
        case .failure(let problem):
            var errors = FormErrors()
            errors.add("body", problem.message)
            return portal.pages.response(
                try await threadPage(threadID, reader: reader, context: context, reply: source, errors: errors),
                status: .unprocessableContent
            )
        }
    }

    /// The thread a post is in, and how the flag page names the post; 404 for one she cannot see.
    private func flagged(_ post: DeskPost) async throws -> (threadID: Int64, what: String) {
        let found = try await portal.database.read { db -> (Int64, String)? in
            switch post {
            case .question(let id):
                guard let thread = try await desk.repository.findThread(id: id, on: db), thread.moderation == .visible else { return nil }
                return (thread.id, "the question “\(thread.title)”")
            case .reply(let id):
                guard let reply = try await desk.repository.findReply(id: id, on: db), reply.moderation == .visible else { return nil }
                return (reply.threadID, "a reply")
            }
        }
        guard let found else { throw HTTPError(.notFound) }
        return found
    }

    private func flagForm(_ post: DeskPost, _ request: Request, _ context: PortalContext) async throws -> Response {
        _ = try reader(context)
        let (threadID, what) = try await flagged(post)
        return portal.pages.response(DeskAppFlagPage(layout: layout("Report a post", context), post: post, what: what, threadID: threadID))
    }

    private struct FlagForm: Decodable {
        var reason: String?
    }

    private func flag(_ post: DeskPost, _ request: Request, _ context: PortalContext) async throws -> Response {
        let reader = try reader(context)
        let (threadID, what) = try await flagged(post)
        let reason = (try await request.form(FlagForm.self, context: context).reason ?? "").trimmed
        if let problem = DeskRules.reasonProblem(reason, what: "why this post should be looked at") {
            var errors = FormErrors()
            errors.add("reason", problem)
            return portal.pages.response(
                DeskAppFlagPage(
                    layout: layout("Report a post", context),
                    post: post,
                    what: what,
                    threadID: threadID,
                    reason: reason,
                    errors: errors
                ),
                status: .unprocessableContent
            )
        }
        _ = try await desk.flag(post, memberID: reader, reason: reason)
        return seeOther("\(SiteURL.appDeskThread(threadID).path)?notice=flagged")
    }
}

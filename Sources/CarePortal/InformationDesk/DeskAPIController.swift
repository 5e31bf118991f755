import Foundation
import Hummingbird
import PortalPlatform
import SafeHTML

/// The member app's information desk: read and search every thread, ask (optionally anonymously),
/// reply, flag, and read the feed of what happened to one's own questions.
struct DeskAPIController {
    let portal: Portal
    let desk: InformationDesk

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.apiThreads.pattern, access: .member, list)
        routes.post(SiteURL.apiThreads.pattern, access: .member, ask)
        routes.get(SiteURL.pattern(SiteURL.apiThread), access: .member, thread)
        routes.post(SiteURL.pattern(SiteURL.apiThreadReplies), access: .member, reply)
        routes.post(SiteURL.pattern(SiteURL.apiThreadFlags), access: .member) { try await flag(.question(try $1.parameters.recordID()), $0, $1) }
        routes.post(SiteURL.pattern(SiteURL.apiReplyFlags), access: .member) { try await flag(.reply(try $1.parameters.recordID()), $0, $1) }
    }

    private func memberID(_ context: PortalContext) throws -> Int64 {
        try context.requireMember().accountID
    }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let reader = try memberID(context)
        var query = DeskListQuery()
        var problems: [String: String] = [:]
        if let filter = request.query("filter") {
            if let value = DeskFilter(rawValue: filter) {
                query.filter = value
            } else {
                problems["filter"] = "Use one of: waiting, answered, accepted, all"
            }
        } else {
            query.filter = .all
        }
        if let sort = request.query("sort") {
            if let value = DeskSort(rawValue: sort) { query.sort = value } else { problems["sort"] = "Use one of: oldest, newest, activity" }
        } else {
            query.sort = .activity
        }
        if let number = request.apiPageNumber { query.page = PageRequest(number: number) } else { problems["page"] = Request.apiPageProblem }
        query.search = String((request.query("q") ?? "").prefix(200))
        guard problems.isEmpty else { throw APIError.invalidQuery(problems) }
        let page = try await portal.database.read { [query] db in try await desk.list(query, on: db).page }
        return .json(
            APIPage(DeskAPI.ThreadList(threads: page.items.map { DeskAPI.ThreadSummary($0, reader: reader) }), APIPagePosition(page))
        )
    }

    @Sendable func thread(request: Request, context: PortalContext) async throws -> Response {
        let reader = try memberID(context)
        let id = try context.parameters.apiRecordID()
        return .json(try await threadBody(id: id, reader: reader))
    }

    private func threadBody(id: Int64, reader: Int64) async throws -> DeskAPI.Thread {
        try await portal.database.read { db in
            guard let thread = try await desk.repository.findThread(id: id, on: db) else { throw APIError.notFound }
            let replies = try await desk.replies(of: thread, on: db)
            return DeskAPI.Thread(thread, replies: replies, reader: reader)
        }
    }

    @Sendable func ask(request: Request, context: PortalContext) async throws -> Response {
        let reader = try memberID(context)
        let body = try await request.json(DeskAPI.NewQuestion.self)
        let (title, question): (String, StoredText)
        switch InformationDesk.question(title: body.title ?? "", body: body.body ?? "") {
        case .success(let checked): (title, question) = checked
        case .failure(let problems): throw APIError.validation(problems.fields)
        }
        let id = try await desk.ask(memberID: reader, title: title, body: question, isAnonymous: body.anonymous ?? false)
        var response = Response.json(try await threadBody(id: id, reader: reader), status: .created)
        response.headers[.location] = SiteURL.apiThread(id).path
        return response
    }

    @Sendable func reply(request: Request, context: PortalContext) async throws -> Response {
        let reader = try memberID(context)
        let threadID = try context.parameters.apiRecordID()
        let body = try await request.json(DeskAPI.NewReply.self)
        let text: StoredText
        switch InformationDesk.body(body.body ?? "", empty: "Enter your reply") {
        case .success(let value): text = value
        case .failure(let problem): throw APIError.validation(["body": problem.message])
        }
        let author = DeskAuthor.member(id: reader, pseudonym: "", avatar: .memberDefault)
        let replyID = try await desk.reply(threadID: threadID, author: author, body: text)
        let reply = try await portal.database.read { db -> DeskAPI.Reply in
            guard let thread = try await desk.repository.findThread(id: threadID, on: db),
                let reply = try await desk.repository.findReply(id: replyID, on: db)
            else { throw APIError.notFound }
            return DeskAPI.Reply(reply, in: thread)
        }
        var response = Response.json(reply, status: .created)
        response.headers[.location] = SiteURL.apiThread(threadID).path + "#reply-\(replyID)"
        return response
    }

    private func flag(_ post: DeskPost, _ request: Request, _ context: PortalContext) async throws -> Response {
        let reader = try memberID(context)
        let body = try await request.json(DeskAPI.NewFlag.self)
        let reason = (body.reason ?? "").trimmed
        if let problem = DeskRules.reasonProblem(reason, what: "why this post should be looked at") {
            throw APIError.validation(["reason": problem])
        }
        let isNew = try await desk.flag(post, memberID: reader, reason: reason)
        return .json(
            DeskAPI.Flag(post: post.description, status: isNew ? "received" : "already_flagged"),
            status: isNew ? .created : .ok
        )
    }
}

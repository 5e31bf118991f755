import Foundation
import Hummingbird
import PortalPlatform
import SafeHTML

/// Administrators moderate the desk: hide or remove a post with a reason and restore it, review
/// the flag queue, reveal an anonymous author when there is cause, and read the moderation log.
struct DeskModerationController {
    static let access = Access.administrators
    let portal: Portal
    let desk: InformationDesk

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.pattern(SiteURL.deskThreadModerate), access: Self.access) {
            try await showModerate(.question(try $1.parameters.recordID()), $0, $1)
        }
        routes.post(SiteURL.pattern(SiteURL.deskThreadModerate), access: Self.access) {
            try await moderate(.question(try $1.parameters.recordID()), $0, $1)
        }
        routes.post(SiteURL.pattern(SiteURL.deskThreadRestore), access: Self.access) {
            try await restore(.question(try $1.parameters.recordID()), $0, $1)
        }
        routes.post(SiteURL.pattern(SiteURL.deskThreadKeep), access: Self.access) { try await keep(.question(try $1.parameters.recordID()), $0, $1) }
        routes.get(SiteURL.pattern(SiteURL.deskReplyModerate), access: Self.access) {
            try await showModerate(.reply(try $1.parameters.recordID()), $0, $1)
        }
        routes.post(SiteURL.pattern(SiteURL.deskReplyModerate), access: Self.access) {
            try await moderate(.reply(try $1.parameters.recordID()), $0, $1)
        }
        routes.post(SiteURL.pattern(SiteURL.deskReplyRestore), access: Self.access) {
            try await restore(.reply(try $1.parameters.recordID()), $0, $1)
        }
        routes.post(SiteURL.pattern(SiteURL.deskReplyKeep), access: Self.access) { try await keep(.reply(try $1.parameters.recordID()), $0, $1) }
        routes.get(SiteURL.pattern(SiteURL.deskThreadReveal), access: Self.access, showReveal)
        routes.post(SiteURL.pattern(SiteURL.deskThreadReveal), access: Self.access, reveal)
        routes.get(SiteURL.deskFlags.pattern, access: Self.access, flags)
        routes.get(SiteURL.deskModerationLog.pattern, access: Self.access, moderationLog)
        routes.get(SiteURL.deskModerationLogExport.pattern, access: Self.access, exportModerationLog)
    }

    // MARK: Hide, remove, restore

    struct ModerateForm: Decodable {
        var choice: String?
        var reason: String?
        var returnTo: String?

        enum CodingKeys: String, CodingKey {
            case choice, reason
            case returnTo = "return"
        }
    }

    /// The post being moderated and its thread, for the form's heading and where to go afterwards.
    private func load(_ post: DeskPost) async throws -> (thread: DeskThread, text: String) {
        try await portal.database.read { db in
            switch post {
            case .question(let id):
                guard let thread = try await desk.repository.findThread(id: id, on: db) else { throw HTTPError(.notFound) }
                return (thread, thread.body.text)
            case .reply(let id):
                guard let reply = try await desk.repository.findReply(id: id, on: db),
                    let thread = try await desk.repository.findThread(id: reply.threadID, on: db)
                else { throw HTTPError(.notFound) }
                return (thread, reply.body.text)
            }
        }
    }

    private func showModerate(_ post: DeskPost, _ request: Request, _ context: PortalContext) async throws -> Response {
        let (thread, text) = try await load(post)
        let choice = request.query("choice").flatMap(InformationDesk.ModerationChoice.init(rawValue:))
        return moderatePage(
            post,
            thread: thread,
            text: text,
            context: context,
            choice: choice,
            reason: "",
            returnTo: request.query("return") == "flags" ? "flags" : "thread",
            errors: FormErrors()
        )
    }

    private func moderatePage(
        _ post: DeskPost,
        thread: DeskThread,
        text: String,
        context: PortalContext,
        choice: InformationDesk.ModerationChoice?,
        reason: String,
        returnTo: String,
        errors: FormErrors
    ) -> Response {
        let isQuestion = if case .question = post { true } else { false }
        return portal.pages.response(
            ModeratePostPage(
                layout: portal.layout(isQuestion ? "Take down this question" : "Take down this reply", context: context, current: .desk),
                heading: isQuestion ? "Take down this question" : "Take down this reply",
                excerpt: SanitizedText.excerpt(of: isQuestion ? "\(thread.title) — \(text)" : text, maxCharacters: 300),
                action: isQuestion ? SiteURL.deskThreadModerate(thread.id).path : SiteURL.deskReplyModerate(post.id).path,
                cancelPath: returnTo == "flags" ? SiteURL.deskFlags.path : SiteURL.deskThread(thread.id).path,
                choices: [
                    .init(
                        value: "hide",
                        title: "Hide it while you look into it",
                        hint: "Members see “\(Moderation.placeholder)”. Restore it at any time.",
                        isChosen: choice == .hide
                    ),
                    .init(
                        value: "remove",
                        title: "Remove it",
                        hint: "Members see “\(Moderation.placeholder)”. It is kept, and an administrator can still restore it.",
                        isChosen: choice == .remove
                    )
                ],
                reason: reason,
                returnTo: returnTo,
                errors: errors.items,
                choiceError: errors["choice"],
                reasonError: errors["reason"]
            ),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    private func moderate(_ post: DeskPost, _ request: Request, _ context: PortalContext) async throws -> Response {
        let staff = try context.requireStaff()
        let form = try await request.form(ModerateForm.self, context: context)
        let choice = form.choice.flatMap(InformationDesk.ModerationChoice.init(rawValue:))
        let reason = form.reason?.trimmed ?? ""
        let returnTo = form.returnTo == "flags" ? "flags" : "thread"
        var errors = FormErrors()
        if choice == nil { errors.add("choice", "Choose whether to hide or remove it") }
        if let problem = DeskRules.reasonProblem(reason, what: "the reason; the author is told it") { errors.add("reason", problem) }
        guard let choice, errors.isEmpty else {
            let (thread, text) = try await load(post)
            return moderatePage(
                post,
                thread: thread,
                text: text,
                context: context,
                choice: choice,
                reason: reason,
                returnTo: returnTo,
                errors: errors
            )
        }
        let threadID = try await desk.moderate(post, choice, reason: reason, by: staff, origin: portal.origin(of: request, context: context))
        let done = choice == .hide ? "hidden" : "removed"
        try await portal.flash(Flash(.success, "The \(post.noun) has been \(done). Its author has been told why."), context: context)
        return seeOther(returnTo == "flags" ? SiteURL.deskFlags.path : SiteURL.deskThread(threadID).path)
    }

    private func restore(_ post: DeskPost, _ request: Request, _ context: PortalContext) async throws -> Response {
        let staff = try context.requireStaff()
        let threadID = try await desk.restore(post, by: staff, origin: portal.origin(of: request, context: context))
        try await portal.flash(Flash(.success, "The \(post.noun) has been restored. Everyone can see it again."), context: context)
        return seeOther(.deskThread(threadID))
    }

    private func keep(_ post: DeskPost, _ request: Request, _ context: PortalContext) async throws -> Response {
        let staff = try context.requireStaff()
        _ = try await desk.keep(post, by: staff, origin: portal.origin(of: request, context: context))
        try await portal.flash(Flash(.success, "The flags have been closed and the \(post.noun) stays up."), context: context)
        return seeOther(.deskFlags)
    }

    // MARK: Revealing an anonymous author

    @Sendable func showReveal(request: Request, context: PortalContext) async throws -> Response {
        let thread = try await anonymousThread(context: context)
        return revealPage(thread: thread, context: context, reason: "", errors: FormErrors(), revealed: nil)
    }

    struct RevealForm: Decodable {
        var reason: String?
    }

    @Sendable func reveal(request: Request, context: PortalContext) async throws -> Response {
        let staff = try context.requireStaff()
        let thread = try await anonymousThread(context: context)
        let reason = try await request.form(RevealForm.self, context: context).reason?.trimmed ?? ""
        var errors = FormErrors()
        if let problem = DeskRules.reasonProblem(reason, what: "why you need to know who asked") { errors.add("reason", problem) }
        guard errors.isEmpty else { return revealPage(thread: thread, context: context, reason: reason, errors: errors, revealed: nil) }
        let revealed = try await desk.revealAuthor(
            threadID: thread.id,
            reason: reason,
            by: staff,
            origin: portal.origin(of: request, context: context)
        )
        return revealPage(thread: thread, context: context, reason: reason, errors: errors, revealed: revealed)
    }

    private func anonymousThread(context: PortalContext) async throws -> DeskThread {
        let id = try context.parameters.recordID()
        guard let thread = try await portal.database.read({ db in try await desk.repository.findThread(id: id, on: db) }), thread.isAnonymous else {
            throw HTTPError(.notFound)
        }
        return thread
    }

    private func revealPage(
        thread: DeskThread,
        context: PortalContext,
        reason: String,
        errors: FormErrors,
        revealed: (pseudonym: String, memberID: Int64)?
    ) -> Response {
        portal.pages.response(
            RevealAuthorPage(
                layout: portal.layout("Reveal who asked", context: context, current: .desk),
                threadTitle: thread.title,
                action: SiteURL.deskThreadReveal(thread.id).path,
                threadPath: SiteURL.deskThread(thread.id).path,
                reason: reason,
                errors: errors.items,
                reasonError: errors["reason"],
                pseudonym: revealed?.pseudonym,
                memberPath: revealed.map { SiteURL.member($0.memberID).path }
            ),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    // MARK: Flag queue

    @Sendable func flags(request: Request, context: PortalContext) async throws -> Response {
        let page = try await portal.database.read { db in
            try await desk.repository.flaggedPosts(page: try request.pageRequest(), on: db)
        }
        let clock = portal.programSettings.current.clock
        let rows = page.items.map { flagged in
            let isQuestion = if case .question = flagged.post { true } else { false }
            let id = flagged.post.id
            return FlaggedPostRow(
                kind: isQuestion ? "Question" : "Reply",
                threadTitle: flagged.threadTitle,
                threadPath: SiteURL.deskThread(flagged.threadID).path + (isQuestion ? "" : "#reply-\(id)"),
                excerpt: flagged.excerpt,
                flagCount: flagged.flagCount,
                isHidden: flagged.moderation != .visible,
                reasons: flagged.reasons.map { SummaryListRow(key: clock.dateTime($0.at), value: $0.reason) },
                keepPath: isQuestion ? SiteURL.deskThreadKeep(id).path : SiteURL.deskReplyKeep(id).path,
                removePath: ListAddress(
                    path: isQuestion ? SiteURL.deskThreadModerate(id).path : SiteURL.deskReplyModerate(id).path,
                    parameters: [("choice", "remove"), ("return", "flags")]
                ).string
            )
        }
        return portal.pages.response(
            FlagsPage(
                layout: portal.layout("Flagged posts", context: context, current: .desk),
                rows: FlaggedPostRow.cards(rows, csrfToken: context.session?.csrfToken ?? ""),
                hasRows: !rows.isEmpty,
                pagination: portal.pages.html(
                    PaginationView(page, address: ListAddress(path: SiteURL.deskFlags.path, parameters: []), noun: "flagged posts")
                )
            )
        )
    }

    // MARK: Moderation log

    @Sendable func moderationLog(request: Request, context: PortalContext) async throws -> Response {
        let (moderators, filters, page) = try await portal.database.read { db in
            let moderators = try await desk.repository.moderators(on: db)
            let filters = try ModerationLogFilters(request: request, moderators: moderators)
            let page =
                filters.errors.isEmpty
                ? try await desk.repository.moderationLog(filters.query, on: db)
                : PageOf<ModerationEntry>(items: [], totalCount: 0, request: filters.query.page)
            return (moderators, filters, page)
        }
        return portal.pages.response(
            ModerationLogPage(
                filters,
                moderators: moderators,
                page: page,
                clock: portal.programSettings.current.clock,
                pages: portal.pages,
                layout: portal.layout("Moderation log", context: context, current: .desk)
            ),
            status: filters.errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    static func postName(_ post: DeskPost) -> String {
        switch post {
        case .question(let id): "Question \(id)"
        case .reply(let id): "Reply \(id)"
        }
    }

    static let csvHeader = ["id", "happened_at_utc", "moderator_account_id", "moderator", "action", "post", "thread_id", "reason"]
    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    @Sendable func exportModerationLog(request: Request, context: PortalContext) async throws -> Response {
        let moderators = try await portal.database.read { db in try await desk.repository.moderators(on: db) }
        let filters = try ModerationLogFilters(request: request, moderators: moderators)
        guard filters.errors.isEmpty else { throw HTTPError(.badRequest) }
        let query = filters.query
        let event = AuditEvent(
            actor: context.auditActor,
            action: .moderationLogExported,
            recordType: "moderation_log",
            origin: portal.origin(of: request, context: context)
        )
        let entries = try await portal.database.transaction { db in
            try await portal.audit.record(event, on: db)
            return try await desk.repository.moderationLogEntries(query, on: db)
        }
        let rows =
            [Self.csvHeader]
            + entries.map { entry in
                [
                    "\(entry.id)", Self.timestampStyle.format(entry.happenedAt), entry.actorID.map { "\($0)" } ?? "", entry.actorName,
                    entry.action.rawValue, entry.post.description, "\(entry.threadID)", entry.reason
                ]
            }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8",
                .contentDisposition: "attachment; filename=\"moderation-log-\(DisplayTime.isoDate(portal.now)).csv\""
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: try CSVExport.bytes(rows: rows)))
        )
    }
}

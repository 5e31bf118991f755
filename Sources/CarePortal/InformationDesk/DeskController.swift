import Foundation
import Hummingbird
import PortalPlatform
import SafeHTML

/// The information desk for medical professionals and administrators: the thread list, a thread
/// with its replies, answering with a preview, accepted answers and editing one's own reply.
struct DeskController {
    static let access = Access.staff([.medicalProfessional, .administrator])
    static let emailSettingsAccess = Access.staff([.medicalProfessional])
    let portal: Portal
    let desk: InformationDesk

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.desk.pattern, access: Self.access, list)
        routes.get(SiteURL.pattern(SiteURL.deskThread), access: Self.access, thread)
        routes.post(SiteURL.pattern(SiteURL.deskThreadReplies), access: Self.access, postReply)
        routes.post(SiteURL.pattern(SiteURL.deskReplyAccept), access: Self.access, accept)
        routes.post(SiteURL.pattern(SiteURL.deskThreadClearAccepted), access: Self.access, clearAccepted)
        routes.get(SiteURL.pattern(SiteURL.deskReplyEdit), access: Self.access, showEdit)
        routes.post(SiteURL.pattern(SiteURL.deskReplyEdit), access: Self.access, edit)
        routes.get(SiteURL.deskEmailSettings.pattern, access: Self.emailSettingsAccess, showEmailSettings)
        routes.post(SiteURL.deskEmailSettings.pattern, access: Self.emailSettingsAccess, changeEmailSettings)
    }

    // MARK: The list

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let staff = try context.requireStaff()
        let query = DeskListQuery(request, role: staff.role)
        let now = portal.now
        let clock = portal.programSettings.current.clock
        let reads = try await portal.database.read { db in try await DeskListPage.Reads.load(query, role: staff.role, desk: desk, on: db) }
        return portal.pages.response(
            DeskListPage(
                query,
                reads: reads,
                sortChosen: request.query("sort") != nil,
                role: staff.role,
                now: now,
                clock: clock,
                pages: portal.pages,
                layout: portal.layout("Information desk", context: context, current: .desk)
            )
        )
    }

    // MARK: A thread

    @Sendable func thread(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        return try await threadPage(id: id, context: context, draft: ReplyDraft())
    }

    /// What was typed in the reply box, kept through a preview or an error.
    struct ReplyDraft: Sendable {
        var body = ""
        var error: String?
        var preview: String?
    }

    private func threadPage(id: Int64, context: PortalContext, draft: ReplyDraft) async throws -> Response {
        let staff = try context.requireStaff()
        let isAdministrator = staff.role == .administrator
        let reads = try await portal.database.read { db in
            try await DeskThreadPage.Reads.load(id, isAdministrator: isAdministrator, desk: desk, on: db)
        }
        guard let reads else { throw HTTPError(.notFound) }
        let page = DeskThreadPage(
            reads,
            staff: staff,
            desk: desk,
            draft: draft,
            now: portal.now,
            clock: portal.programSettings.current.clock,
            pages: portal.pages
        ) { portal.layout($0, context: context, current: .desk) }
        return portal.pages.response(page, status: draft.error == nil ? .ok : .unprocessableContent)
    }

    struct ReplyForm: Decodable {
        var body: String?
        var intent: String?
    }

    @Sendable func postReply(request: Request, context: PortalContext) async throws -> Response {
        let staff = try context.requireStaff()
        let id = try context.parameters.recordID()
        let form = try await request.form(ReplyForm.self, context: context)
        let source = form.body ?? ""
        switch InformationDesk.body(source, empty: "Enter your reply") {
        case .failure(let problem):
            return try await threadPage(id: id, context: context, draft: ReplyDraft(body: source, error: problem.message))
        case .success(let body):
            if form.intent == "preview" {
                return try await threadPage(id: id, context: context, draft: ReplyDraft(body: source, preview: body.html))
            }
            let replyID = try await desk.reply(threadID: id, author: staff.deskAuthor, body: body)
            try await portal.flash(Flash(.success, "Your reply has been posted. You can edit it for 15 minutes."), context: context)
            return seeOther(SiteURL.deskThread(id).path + "#reply-\(replyID)")
        }
    }

    @Sendable func accept(request: Request, context: PortalContext) async throws -> Response {
        let replyID = try context.parameters.recordID()
        let threadID = try await desk.accept(replyID: replyID)
        try await portal.flash(Flash(.success, "Marked as the accepted answer. The member who asked has been told."), context: context)
        return seeOther(SiteURL.deskThread(threadID).path + "#reply-\(replyID)")
    }

    @Sendable func clearAccepted(request: Request, context: PortalContext) async throws -> Response {
        let threadID = try context.parameters.recordID()
        try await desk.clearAcceptedAnswer(threadID: threadID)
        try await portal.flash(Flash(.success, "This question no longer has an accepted answer."), context: context)
        return seeOther(.deskThread(threadID))
    }

    // MARK: Editing one's own reply

    @Sendable func showEdit(request: Request, context: PortalContext) async throws -> Response {
        let staff = try context.requireStaff()
        let reply: DeskReply
        do {
            reply = try await editableReply(context: context, staff: staff)
        } catch let closed as EditWindowClosed {
            return try await editWindowClosed(closed, context: context)
        }
        return editPage(reply: reply, context: context, draft: ReplyDraft(body: reply.body.source))
    }

    @Sendable func edit(request: Request, context: PortalContext) async throws -> Response {
        let staff = try context.requireStaff()
        let reply: DeskReply
        do {
            reply = try await editableReply(context: context, staff: staff)
        } catch let closed as EditWindowClosed {
            return try await editWindowClosed(closed, context: context)
        }
        let form = try await request.form(ReplyForm.self, context: context)
        let source = form.body ?? ""
        switch InformationDesk.body(source, empty: "Enter your reply") {
        case .failure(let problem):
            return editPage(reply: reply, context: context, draft: ReplyDraft(body: source, error: problem.message))
        case .success(let body):
            if form.intent == "preview" {
                return editPage(reply: reply, context: context, draft: ReplyDraft(body: source, preview: body.html))
            }
            do {
                _ = try await desk.edit(replyID: reply.id, by: staff, body: body)
            } catch DeskRefusal.editWindowClosed {
                return try await editWindowClosed(EditWindowClosed(threadID: reply.threadID, replyID: reply.id), context: context)
            }
            try await portal.flash(Flash(.success, "Your reply has been changed. The earlier version is kept."), context: context)
            return seeOther(SiteURL.deskThread(reply.threadID).path + "#reply-\(reply.id)")
        }
    }

    private func editableReply(context: PortalContext, staff: StaffAccount) async throws -> DeskReply {
        let id = try context.parameters.recordID()
        guard let reply = try await portal.database.read({ db in try await desk.repository.findReply(id: id, on: db) }),
            reply.author.staffID == staff.id
        else { throw HTTPError(.notFound) }
        guard desk.canEdit(reply, by: staff) else {
            throw EditWindowClosed(threadID: reply.threadID, replyID: reply.id)
        }
        return reply
    }

    private func editWindowClosed(_ closed: EditWindowClosed, context: PortalContext) async throws -> Response {
        try await portal.flash(
            Flash(.warning, "Replies can be changed for 15 minutes after posting, and that time has passed. Post a new reply to add to it."),
            context: context
        )
        return seeOther(SiteURL.deskThread(closed.threadID).path + "#reply-\(closed.replyID)")
    }

    private func editPage(reply: DeskReply, context: PortalContext, draft: ReplyDraft) -> Response {
        var errors = FormErrors()
        if let error = draft.error { errors.add("body", error) }
        let secondsLeft = DeskRules.editWindow - portal.now.timeIntervalSince(reply.createdAt)
        let minutesLeft = max(1, Int((secondsLeft / 60).rounded(.up)))
        return portal.pages.response(
            EditReplyPage(
                layout: portal.layout("Edit your reply", context: context, current: .desk),
                action: SiteURL.deskReplyEdit(reply.id).path,
                threadPath: SiteURL.deskThread(reply.threadID).path + "#reply-\(reply.id)",
                body: draft.body,
                errors: errors.items,
                bodyError: draft.error,
                previewHTML: draft.preview.map(RenderedHTML.init(sanitizedHTML:)),
                timeLeft: minutesLeft == 1 ? "1 more minute" : "\(minutesLeft) more minutes"
            ),
            status: draft.error == nil ? .ok : .unprocessableContent
        )
    }

    // MARK: New-question emails

    @Sendable func showEmailSettings(request: Request, context: PortalContext) async throws -> Response {
        let staff = try context.requireStaff()
        let off = try await portal.database.read { db in try await desk.repository.emailsSwitchedOff(staffID: staff.id, on: db) }
        return portal.pages.response(
            DeskEmailSettingsPage(
                layout: portal.layout("New-question emails", context: context, current: .desk),
                isOn: !off,
                email: staff.email
            )
        )
    }

    struct EmailSettingsForm: Decodable {
        var emails: String?
    }

    @Sendable func changeEmailSettings(request: Request, context: PortalContext) async throws -> Response {
        let staff = try context.requireStaff()
        let form = try await request.form(EmailSettingsForm.self, context: context)
        guard let choice = form.emails, choice == "on" || choice == "off" else { throw HTTPError(.badRequest) }
        let now = portal.now
        try await portal.database.transaction { db in
            try await desk.repository.setEmailsSwitchedOff(choice == "off", staffID: staff.id, now: now, on: db)
        }
        try await portal.flash(
            Flash(.success, choice == "on" ? "You will get an email for each new question." : "You will not get emails about new questions."),
            context: context
        )
        return seeOther(.desk)
    }
}

/// Someone asked to edit a reply after its 15 minutes.
struct EditWindowClosed: Error {
    let threadID: Int64
    let replyID: Int64
}

extension StaffAccount {
    /// This account as the author of a desk post.
    var deskAuthor: DeskAuthor { .staff(id: id, username: username, role: role, avatar: nil) }
}

extension PortalContext {
    /// The signed-in staff account of a route whose access demands one.
    func requireStaff() throws -> StaffAccount {
        guard let staff else { throw HTTPError(.unauthorized) }
        return staff
    }
}

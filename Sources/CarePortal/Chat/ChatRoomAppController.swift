import Foundation
import Hummingbird
import PortalPlatform

extension TemplateName {
    static let appChatRoom = TemplateName("app/chat/room")
    static let appChatMessages = TemplateName("app/chat/messages")
    static let appChatReport = TemplateName("app/chat/report")
}

/// Her cohort's chat room in the member's part of the web app (`/app/member/chat`): the messages in the
/// room's window, oldest first, writing to her group and reporting a message — through `Chat`, as the
/// member API does. New messages appear as they are posted: the page's small script listens on the chat
/// socket (opened with the web app's cookie) and fetches the new messages as this server draws them;
/// without the script, a link reads the room again.
struct ChatRoomAppController {
    let portal: Portal
    let chat: Chat

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.appChat.pattern, access: .memberPages, room)
        routes.post(SiteURL.appChat.pattern, access: .memberPages, post)
        routes.get(SiteURL.appChatMessages.pattern, access: .memberPages, newMessages)
        routes.get(SiteURL.pattern(SiteURL.appChatMessageReport), access: .memberPages, reportForm)
        routes.post(SiteURL.pattern(SiteURL.appChatMessageReport), access: .memberPages, report)
    }

    private func layout(_ title: String, _ context: PortalContext) -> Layout {
        portal.appLayout(title, context: context, navigation: .member, currentPath: SiteURL.appChat.path)
    }

    private func messageList(_ messages: [ChatMessage], for member: Member) -> RenderedHTML {
        portal.pages.html(AppChatMessageList(messages: messages, reader: member.id, clock: portal.programSettings.current.clock, now: portal.now))
    }

    /// The room's page: its newest messages (or those before `?before=`), and the form to write, or why she cannot.
    private func roomPage(
        _ member: Member,
        request: Request,
        context: PortalContext,
        draft: String = "",
        clientID: String? = nil,
        errors: FormErrors = FormErrors()
    ) async throws -> AppChatRoomPage {
        let before = request.query("before").flatMap { Int64($0) }.flatMap { $0 > 0 ? $0 : nil }
        let (room, newestFirst) = try await chat.page(for: member, beforeID: before)
        let mute = try await chat.mute(of: member)
        let clock = portal.programSettings.current.clock
        return AppChatRoomPage(
            layout: layout("Chat with your group", context),
            room: room,
            isEarlierPage: before != nil,
            earlierPath: newestFirst.count == Chat.pageSize ? newestFirst.last.map { "\(SiteURL.appChat.path)?before=\($0.id)" } : nil,
            messages: messageList(newestFirst.reversed(), for: member),
            newestID: newestFirst.first?.id ?? 0,
            mutedText: mute.map { mute in
                "A moderator has paused your posting: you can still read the chat. "
                    + (mute.until.map { "You can write again after \(clock.dateTime($0))." } ?? "A moderator will let you write again.")
            },
            draft: draft,
            clientID: clientID ?? Self.newClientID(),
            errors: errors,
            notice: request.query("notice") == "reported"
        )
    }

    static func newClientID() -> String { UUID().uuidString.lowercased() }

    @Sendable func room(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(try await roomPage(try await chat.member(signedInTo: context), request: request, context: context))
    }

    private struct MessageForm: Decodable {
        var body: String?
        var client_id: String?
    }

    /// Posts her message (once, however often the form is sent) and shows the room at its newest.
    @Sendable func post(request: Request, context: PortalContext) async throws -> Response {
        let member = try await chat.member(signedInTo: context)
        let form = try await request.form(MessageForm.self, context: context)
        let body = form.body ?? "", clientID = form.client_id ?? ""
        var errors = FormErrors()
        if let problem = Chat.bodyProblem(body) {
            errors.add("body", problem)
        } else {
            do {
                _ = try await chat.post(body, clientID: clientID, by: member)
                return seeOther("\(SiteURL.appChat.path)#write")
            } catch let refusal as APIError where refusal.status == .forbidden || refusal.status == .tooManyRequests {
                errors.add("body", refusal.message)
            } catch let refusal as APIError where refusal.fields["client_id"] != nil {
                throw HTTPError(.badRequest)
            }
        }
        let page = try await roomPage(member, request: request, context: context, draft: body, clientID: clientID, errors: errors)
        return portal.pages.response(page, status: .unprocessableContent)
    }

    /// The messages after `?after=` (all in the room's window without it), drawn as the room's page
    /// draws them, for the page's script to add.
    @Sendable func newMessages(request: Request, context: PortalContext) async throws -> Response {
        let member = try await chat.member(signedInTo: context)
        let after =
            try request.query("after").map { value -> Int64 in
                guard let id = Int64(value), id >= 0 else { throw HTTPError(.badRequest) }
                return id
            } ?? Int64(0)
        let (_, messages) = try await chat.since(for: member, afterID: after)
        return Response(
            status: .ok,
            headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: messageList(messages, for: member).markup))
        )
    }

    private func reportPage(
        _ message: ChatMessage,
        context: PortalContext,
        reason: String = "",
        errors: FormErrors = FormErrors()
    ) -> AppChatReportPage {
        AppChatReportPage(layout: layout("Report a message", context), message: message, reason: reason, errors: errors)
    }

    /// A message of her own room that a moderator has not removed, or 404.
    private func reportable(_ context: PortalContext, _ member: Member) async throws -> ChatMessage {
        do {
            let message = try await chat.visibleMessage(try context.parameters.recordID(), to: member)
            guard message.removal == nil, message.author.memberID != member.id else { throw HTTPError(.notFound) }
            return message
        } catch let error as APIError where error.status == .notFound {
            throw HTTPError(.notFound)
        }
    }

    @Sendable func reportForm(request: Request, context: PortalContext) async throws -> Response {
        let member = try await chat.member(signedInTo: context)
        return portal.pages.response(reportPage(try await reportable(context, member), context: context))
    }

    private struct ReportForm: Decodable {
        var reason: String?
    }

    @Sendable func report(request: Request, context: PortalContext) async throws -> Response {
        let member = try await chat.member(signedInTo: context)
        let message = try await reportable(context, member)
        let reason = try await request.form(ReportForm.self, context: context).reason ?? ""
        do {
            try await chat.report(message.id, reason: reason, by: member)
        } catch let refusal as APIError where refusal.fields["reason"] != nil {
            var errors = FormErrors()
            errors.add("reason", refusal.fields["reason"] ?? "")
            return portal.pages.response(reportPage(message, context: context, reason: reason, errors: errors), status: .unprocessableContent)
        }
        return seeOther("\(SiteURL.appChat.path)?notice=reported")
    }
}

/// Her room's messages as she reads them: who wrote each and when, what it says (or that a moderator
/// removed it), and a link to report another member's message. The room's page and its script both
/// draw messages with this, so a message added live looks as it does after a reload.
struct AppChatMessageList: Fragment {
    struct Row: Sendable, Hashable, Encodable {
        let id: Int64
        let pseudonym: String
        let avatarPath: String
        let isMine: Bool
        let time: String
        let bodyHTML: RenderedHTML?
        let moodTitle: String?
        let isRemoved: Bool
        let reportPath: String?
    }

    static let template = TemplateName.appChatMessages
    let rows: [Row]

    init(messages: [ChatMessage], reader: Int64, clock: ProgramClock, now: Date) {
        let today = clock.date(of: now)
        rows = messages.map { message in
            let shown = message.removal == nil
            let isMine = message.author.memberID == reader
            let time = clock.date(of: message.postedAt) == today ? "today at \(clock.time(message.postedAt))" : clock.dateTime(message.postedAt)
            return Row(
                id: message.id,
                pseudonym: message.author.pseudonym,
                avatarPath: message.author.avatar.path,
                isMine: isMine,
                time: time,
                bodyHTML: shown && message.kind == .text ? RenderedHTML(sanitizedHTML: message.bodyHTML) : nil,
                moodTitle: shown ? message.mood?.title.lowercased() : nil,
                isRemoved: !shown,
                reportPath: shown && !isMine ? SiteURL.appChatMessageReport(message.id).path : nil
            )
        }
    }
}

struct AppChatRoomPage: Page {
    static let template = TemplateName.appChatRoom
    let layout: Layout
    let errors: [FormErrors.Item]
    let roomName: String
    let retention: String
    let isEarlierPage: Bool
    /// The page of messages before these, when there are more in the room's window.
    let earlierPath: String?
    /// The rendered `AppChatMessageList`, oldest first.
    let messages: RenderedHTML
    let hasMessages: Bool
    /// The newest message shown (0 for none), after which the script fetches; an earlier page does not update.
    let newestID: Int64
    let newMessagesPath = SiteURL.appChatMessages.path
    let socketPath = SiteURL.apiChatLive.path
    let mutedText: String?
    let draft: String
    /// What she wrote while muted, shown back to her since it was not sent.
    let unsent: String?
    let bodyError: String?
    let clientID: String
    let action = SiteURL.appChat.path
    let refreshPath = "\(SiteURL.appChat.path)#write"
    let newestPath = SiteURL.appChat.path
    let maximumLength = Chat.maximumLength
    let notice: Bool

    init(
        layout: Layout,
        room: ChatRoom,
        isEarlierPage: Bool,
        earlierPath: String?,
        messages: RenderedHTML,
        newestID: Int64,
        mutedText: String?,
        draft: String,
        clientID: String,
        errors: FormErrors,
        notice: Bool
    ) {
        self.layout = layout
        self.errors = errors.items
        roomName = room.cohort.name
        retention = room.retention.title
        self.isEarlierPage = isEarlierPage
        self.earlierPath = earlierPath
        self.messages = messages
        hasMessages = !messages.markup.trimmed.isEmpty
        self.newestID = newestID
        self.mutedText = mutedText
        self.draft = draft
        unsent = mutedText != nil && !draft.trimmed.isEmpty ? draft : nil
        bodyError = errors["body"]
        self.clientID = clientID
        self.notice = notice
    }
}

struct AppChatReportPage: Page {
    static let template = TemplateName.appChatReport
    let layout: Layout
    let errors: [FormErrors.Item]
    let pseudonym: String
    let text: String
    let action: String
    let reason: String
    let reasonError: String?
    let chatPath = SiteURL.appChat.path

    init(layout: Layout, message: ChatMessage, reason: String, errors: FormErrors) {
        self.layout = layout
        self.errors = errors.items
        pseudonym = message.author.pseudonym
        text = message.body
        action = SiteURL.appChatMessageReport(message.id).path
        self.reason = reason
        reasonError = errors["reason"]
    }
}

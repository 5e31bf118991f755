import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOWebSocket
import PortalPlatform
import SQLKit

struct ChatAPIController {
    let portal: Portal
    let chat: Chat

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.apiChat.pattern, access: .member, page)
        routes.post(SiteURL.apiChatMessages.pattern, access: .member, post)
        routes.post(SiteURL.pattern(SiteURL.apiChatMessageReports), access: .member, report)
        routes.get(SiteURL.apiMoods.pattern, access: .member, moods)
        routes.post(SiteURL.apiMoods.pattern, access: .member, shareMood)
        let chat = self.chat
        routes.webSocket(SiteURL.apiChatLive.path, for: .member) { holder, inbound, _, socket, logger in
            try await ChatSocket(chat: chat).run(holder: holder, inbound: inbound, socket: socket, logger: logger)
        }
    }

    private func me(_ context: PortalContext) async throws -> Member {
        try await chat.member(try context.requireMember().accountID)
    }

    /// `GET /api/v1/chat`: the newest page of her room, `?before=ID` for older ones, `?after=ID` to poll.
    @Sendable func page(request: Request, context: PortalContext) async throws -> Response {
        let member = try await me(context)
        func cursor(_ name: String) throws -> Int64? {
            guard let value = request.uri.queryParameters.get(name) else { return nil }
            guard let id = Int64(value), id >= 0 else { throw APIError.validation([name: "Give a message id"]) }
            return id
        }
        let before = try cursor("before"), after = try cursor("after")
        let (room, messages) =
            if let after {
                try await chat.since(for: member, afterID: after)
            } else {
                try await chat.page(for: member, beforeID: before)
            }
        let mute = try await chat.mute(of: member)
        return .json(
            ChatAPI.Page(
                room: ChatAPI.Room(
                    cohortId: room.cohort.id,
                    name: room.cohort.name,
                    retentionHours: room.retention.hours,
                    mutedUntil: mute?.until,
                    muted: mute != nil
                ),
                messages: messages.map(ChatAPI.Message.init),
                olderCursor: after == nil && messages.count == Chat.pageSize ? messages.last?.id : nil,
                newestId: after == nil ? messages.first?.id : messages.last?.id ?? after
            )
        )
    }

    /// `POST /api/v1/chat/messages`: 201 with the message, or 200 with the one already sent under its client id.
    @Sendable func post(request: Request, context: PortalContext) async throws -> Response {
        let body = try await request.json(ChatAPI.NewMessage.self)
        let member = try await me(context)
        let posted = try await chat.post(body.body ?? "", clientID: body.clientId ?? "", by: member)
        return .json(ChatAPI.Message(posted.message), status: posted.isNew ? .created : .ok)
    }

    @Sendable func report(request: Request, context: PortalContext) async throws -> Response {
        let body = try await request.json(ChatAPI.NewReport.self)
        let member = try await me(context)
        try await chat.report(try context.parameters.apiRecordID(), reason: body.reason ?? "", by: member)
        return .noContent
    }

    @Sendable func moods(request: Request, context: PortalContext) async throws -> Response {
        .json(ChatAPI.Moods(moods: Mood.allCases.map(ChatAPI.MoodView.init)))
    }

    /// `POST /api/v1/moods`: records her mood, shares it in her room, and answers with what the app shows next.
    @Sendable func shareMood(request: Request, context: PortalContext) async throws -> Response {
        let body = try await request.json(ChatAPI.NewMood.self)
        var problems: [String: String] = [:]
        let mood = Mood(rawValue: body.mood ?? "")
        if mood == nil { problems["mood"] = "Choose one of \(Mood.allCases.map(\.rawValue).joined(separator: ", "))" }
        if let problem = Chat.clientIDProblem(body.clientId ?? "") { problems["client_id"] = problem }
        guard let mood, problems.isEmpty else { throw APIError.validation(problems) }
        let member = try await me(context)
        let message = try await chat.shareMood(mood, clientID: body.clientId ?? "", by: member)
        return .json(
            ChatAPI.MoodShared(
                mood: ChatAPI.MoodView(mood),
                message: message.map(ChatAPI.Message.init),
                followUp: try await chat.followUp(after: mood, for: member)
            ),
            status: .created
        )
    }
}

/// One member's live connection to her room: every new message, mood and removal as it happens.
/// Her token is checked again every 30 seconds, so a disabled member's socket closes.
struct ChatSocket: Sendable {
    static let recheckInterval: Duration = .seconds(30)
    let chat: Chat

    func run(holder: AppAccountHolder, inbound: WebSocketInboundStream, socket: PushSocket, logger: Logger) async throws {
        let member = try await chat.member(holder.accountID)
        let cohortID = member.cohort.id
        let id = chat.listeners.listen(to: cohortID, as: member.id, on: socket)
        defer { chat.listeners.stop(id, in: cohortID) }
        let portal = chat.portal
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // The app has nothing to say on this socket; reading lets a close arrive.
                for try await _ in inbound.messages(maxSize: 4_096) {}
            }
            group.addTask {
                while (try? await Task.sleep(for: Self.recheckInterval)) != nil {
                    let current = try? await portal.database.read { db in
                        try await holder.kind.bearerTokens.holderInForce(tokenHash: holder.tokenHash, now: portal.now, on: db)
                    }
                    if current != true { return }
                }
            }
            _ = try await group.next()
            group.cancelAll()
        }
    }
}

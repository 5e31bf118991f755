import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// The administrators' chat pages: the rooms, a room's messages updated live, removing a message,
/// muting a member, the reports queue and the retention settings. Every view of a room and every
/// action is audited. Medical professionals and physicians have no part in chat.
struct ChatController {
    static let access = Access.administrators
    let portal: Portal
    let chat: Chat

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.chat.pattern, access: Self.access, rooms)
        routes.get(SiteURL.pattern(SiteURL.chatRoom), access: Self.access, room)
        routes.get(SiteURL.pattern(SiteURL.chatRoomMessages), access: Self.access, roomMessages)
        routes.get(SiteURL.pattern(SiteURL.chatMessageRemove), access: Self.access, showRemove)
        routes.post(SiteURL.pattern(SiteURL.chatMessageRemove), access: Self.access, remove)
        routes.get(SiteURL.pattern(SiteURL.chatMemberMute), access: Self.access, showMute)
        routes.post(SiteURL.pattern(SiteURL.chatMemberMute), access: Self.access, mute)
        routes.post(SiteURL.pattern(SiteURL.chatMemberUnmute), access: Self.access, unmute)
        routes.get(SiteURL.chatReports.pattern, access: Self.access, reports)
        routes.post(SiteURL.pattern(SiteURL.chatReportKeep), access: Self.access, keep)
        routes.get(SiteURL.chatSettings.pattern, access: Self.access, showSettings)
        routes.post(SiteURL.chatSettings.pattern, access: Self.access, saveSettings)
    }

    // MARK: Rooms

    @Sendable func rooms(request: Request, context: PortalContext) async throws -> Response {
        let now = portal.now
        let summaries = try await portal.database.read { db in try await chat.repository.summaries(now: now, on: db) }
        return portal.pages.response(
            ChatRoomsPage(
                layout: portal.layout("Chat", context: context, current: .chat),
                rooms: summaries.map(ChatRoomsPage.Row.init),
                openReports: summaries.reduce(0) { $0 + $1.openReports }
            )
        )
    }

    private func loadRoom(_ context: PortalContext) async throws -> (ChatRoom, [ChatMessage], [Int64: ChatMute]) {
        let cohortID = try context.parameters.recordID()
        let now = portal.now
        let found = try await portal.database.read { db -> (ChatRoom, [ChatMessage], [Int64: ChatMute])? in
            guard let room = try await chat.repository.room(cohortID: cohortID, on: db) else { return nil }
            let messages = try await chat.repository.newest(
                cohortID: cohortID,
                visibleAfter: room.visibleAfter(now),
                beforeID: nil,
                limit: 200,
                on: db
            )
            let mutes = try await chat.repository.mutes(memberIDs: Array(Set(messages.map(\.author.memberID))), now: now, on: db)
            return (room, messages.reversed(), mutes)
        }
        guard let found else { throw HTTPError(.notFound) }
        return found
    }

    private func messageList(_ room: ChatRoom, _ messages: [ChatMessage], _ mutes: [Int64: ChatMute]) -> RenderedHTML {
        portal.pages.html(ChatMessageList(room: room, messages: messages, mutes: mutes, clock: portal.programSettings.current.clock))
    }

    /// A room's messages in its window, oldest first as members read them; audited as a record opened.
    @Sendable func room(request: Request, context: PortalContext) async throws -> Response {
        let (room, messages, mutes) = try await loadRoom(context)
        try await portal.recordAccess(
            AuditEvent(
                actor: context.auditActor,
                action: .chatRoomViewed,
                recordType: "chat_room",
                recordID: "\(room.cohort.id)",
                origin: portal.origin(of: request, context: context)
            )
        )
        return portal.pages.response(
            ChatRoomPage(
                layout: portal.layout("Chat: \(room.cohort.name)", context: context, current: .chat),
                name: room.cohort.name,
                retention: room.retention.title,
                messages: messageList(room, messages, mutes),
                livePath: SiteURL.chatRoomMessages(room.cohort.id).path,
                refreshPath: SiteURL.chatRoom(room.cohort.id).path
            )
        )
    }

    /// The room's message list alone, which the page's script fetches every few seconds to stay current.
    @Sendable func roomMessages(request: Request, context: PortalContext) async throws -> Response {
        let (room, messages, mutes) = try await loadRoom(context)
        return Response(
            status: .ok,
            headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: messageList(room, messages, mutes).markup))
        )
    }

    // MARK: Removing a message

    private struct RemoveForm: Decodable {
        var reason: String?
        var returnTo: String?

        enum CodingKeys: String, CodingKey {
            case reason, returnTo = "return"
        }
    }

    private func message(_ context: PortalContext) async throws -> ChatMessage {
        let id = try context.parameters.recordID()
        guard let message = try await portal.database.read({ db in try await chat.repository.message(id: id, on: db) }),
            message.removal == nil
        else { throw HTTPError(.notFound) }
        return message
    }

    private func removePage(_ message: ChatMessage, reason: String, returnTo: String, errors: FormErrors, context: PortalContext) -> Response {
        portal.pages.response(
            RemoveChatMessagePage(
                layout: portal.layout("Remove this message", context: context, current: .chat),
                author: message.author.pseudonym,
                text: message.body,
                action: SiteURL.chatMessageRemove(message.id).path,
                cancelPath: returnTo == "reports" ? SiteURL.chatReports.path : SiteURL.chatRoom(message.cohortID).path,
                returnTo: returnTo,
                reason: reason,
                errors: errors.items,
                reasonError: errors["reason"]
            ),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    @Sendable func showRemove(request: Request, context: PortalContext) async throws -> Response {
        removePage(
            try await message(context),
            reason: "",
            returnTo: request.query("return") == "reports" ? "reports" : "room",
            errors: FormErrors(),
            context: context
        )
    }

    @Sendable func remove(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(RemoveForm.self, context: context)
        let message = try await message(context)
        let reason = form.reason?.trimmed ?? ""
        let returnTo = form.returnTo == "reports" ? "reports" : "room"
        var errors = FormErrors()
        if reason.isEmpty { errors.add("reason", "Enter the reason; it is kept in the audit log") }
        if reason.count > Chat.reasonMaximumLength { errors.add("reason", "The reason must be \(Chat.reasonMaximumLength) characters or fewer") }
        guard errors.isEmpty else { return removePage(message, reason: reason, returnTo: returnTo, errors: errors, context: context) }
        guard try await chat.remove(message.id, reason: reason, by: context.auditActor, origin: portal.origin(of: request, context: context)) != nil
        else {
            throw HTTPError(.notFound)
        }
        try await portal.flash(Flash(.success, "The message has been removed. Members see “Removed by a moderator”."), context: context)
        return seeOther(returnTo == "reports" ? SiteURL.chatReports.path : SiteURL.chatRoom(message.cohortID).path)
    }

    // MARK: Muting

    /// How long a mute lasts; `nil` hours means until an administrator unmutes her.
    enum MuteLength: String, CaseIterable, Sendable {
        case hour, day, week, untilUnmuted = "until-unmuted"

        var title: String {
            switch self {
            case .hour: "1 hour"
            case .day: "24 hours"
            case .week: "7 days"
            case .untilUnmuted: "Until an administrator unmutes her"
            }
        }

        var duration: TimeInterval? {
            switch self {
            case .hour: 3_600
            case .day: 86_400
            case .week: 7 * 86_400
            case .untilUnmuted: nil
            }
        }
    }

    private struct MuteForm: Decodable {
        var length: String?
        var reason: String?
        var room: String?
    }

    private func member(_ context: PortalContext) async throws -> Member {
        let id = try context.parameters.recordID()
        guard let member = try await portal.database.read({ db in try await MemberRepository().find(id: id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return member
    }

    private func mutePage(_ member: Member, length: MuteLength?, reason: String, errors: FormErrors, context: PortalContext) -> Response {
        portal.pages.response(
            MuteMemberPage(
                layout: portal.layout("Mute \(member.pseudonym) in chat", context: context, current: .chat),
                pseudonym: member.pseudonym,
                action: SiteURL.chatMemberMute(member.id).path,
                cancelPath: SiteURL.chatRoom(member.cohort.id).path,
                lengths: MuteLength.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == length) },
                reason: reason,
                errors: errors.items,
                lengthError: errors["length"],
                reasonError: errors["reason"]
            ),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    @Sendable func showMute(request: Request, context: PortalContext) async throws -> Response {
        mutePage(try await member(context), length: nil, reason: "", errors: FormErrors(), context: context)
    }

    @Sendable func mute(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(MuteForm.self, context: context)
        let member = try await member(context)
        let length = form.length.flatMap(MuteLength.init(rawValue:))
        let reason = form.reason?.trimmed ?? ""
        var errors = FormErrors()
        if length == nil { errors.add("length", "Choose how long she cannot post") }
        if reason.isEmpty { errors.add("reason", "Enter the reason; it is kept in the audit log") }
        if reason.count > Chat.reasonMaximumLength { errors.add("reason", "The reason must be \(Chat.reasonMaximumLength) characters or fewer") }
        guard let length, errors.isEmpty else { return mutePage(member, length: length, reason: reason, errors: errors, context: context) }
        let staff = try context.requireStaff()
        let now = portal.now
        let until = length.duration.map { now.addingTimeInterval($0) }
        try await portal.database.transaction { db in
            try await chat.repository.mute(memberID: member.id, until: until, reason: reason, by: staff.id, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .chatMemberMuted,
                    recordType: "member",
                    recordID: "\(member.id)",
                    origin: portal.origin(of: request, context: context),
                    detail: "\(length.title): \(reason)"
                ),
                on: db
            )
        }
        let untilText = until.map { "until \(portal.programSettings.current.clock.dateTime($0))" } ?? "until you unmute her"
        try await portal.flash(Flash(.success, "\(member.pseudonym) can read the chat but not post \(untilText)."), context: context)
        return seeOther(.chatRoom(member.cohort.id))
    }

    @Sendable func unmute(request: Request, context: PortalContext) async throws -> Response {
        let member = try await member(context)
        let unmuted = try await portal.database.transaction { db -> Bool in
            guard try await chat.repository.unmute(memberID: member.id, on: db) else { return false }
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .chatMemberUnmuted,
                    recordType: "member",
                    recordID: "\(member.id)",
                    origin: portal.origin(of: request, context: context)
                ),
                on: db
            )
            return true
        }
        if unmuted { try await portal.flash(Flash(.success, "\(member.pseudonym) can post in chat again."), context: context) }
        return seeOther(.chatRoom(member.cohort.id))
    }

    // MARK: Reports

    @Sendable func reports(request: Request, context: PortalContext) async throws -> Response {
        let now = portal.now
        let reported = try await portal.database.read { db in
            let rooms = Dictionary(uniqueKeysWithValues: try await chat.repository.rooms(on: db).map { ($0.cohort.id, $0) })
            return try await chat.repository.reported(on: db).compactMap { item -> ChatReportsPage.Row? in
                guard let room = rooms[item.message.cohortID], item.message.postedAt > room.visibleAfter(now) else { return nil }
                return ChatReportsPage.Row(
                    item.message,
                    room: room,
                    reasons: item.reasons,
                    firstReportedAt: item.firstReportedAt,
                    clock: portal.programSettings.current.clock
                )
            }
        }
        return portal.pages.response(ChatReportsPage(layout: portal.layout("Chat reports", context: context, current: .chat), rows: reported))
    }

    @Sendable func keep(request: Request, context: PortalContext) async throws -> Response {
        let message = try await message(context)
        let now = portal.now
        try await portal.database.transaction { db in
            try await chat.repository.resolveReports(messageID: message.id, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .chatReportKept,
                    recordType: "chat_message",
                    recordID: "\(message.id)",
                    origin: portal.origin(of: request, context: context)
                ),
                on: db
            )
        }
        try await portal.flash(Flash(.success, "The message stays. Its reports are closed."), context: context)
        return seeOther(.chatReports)
    }

    // MARK: Settings

    @Sendable func showSettings(request: Request, context: PortalContext) async throws -> Response {
        let (form, rooms) = try await portal.database.read { db in
            let rooms = try await chat.repository.rooms(on: db)
            let reading = try await chat.repository.recommendedReading(on: db)
            return (
                ChatSettingsForm(
                    defaultHours: String(try await chat.repository.defaultRetention(on: db).hours),
                    overrides: Dictionary(uniqueKeysWithValues: rooms.map { ($0.cohort.id, $0.override.map { String($0.hours) } ?? "") }),
                    readingTitle: reading?.title ?? "",
                    readingURL: reading?.url ?? ""
                ),
                rooms
            )
        }
        return settingsPage(form, rooms: rooms, errors: FormErrors(), context: context)
    }

    private func settingsPage(_ form: ChatSettingsForm, rooms: [ChatRoom], errors: FormErrors, context: PortalContext) -> Response {
        portal.pages.response(
            ChatSettingsPage(form, rooms: rooms, errors: errors, layout: portal.layout("Chat settings", context: context, current: .chat)),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    @Sendable func saveSettings(request: Request, context: PortalContext) async throws -> Response {
        let fields = try await request.formFields(context: context)
        let rooms = try await portal.database.read { db in try await chat.repository.rooms(on: db) }
        let form = ChatSettingsForm(fields: fields, rooms: rooms)
        let (validated, errors) = form.validated()
        guard let validated, errors.isEmpty else { return settingsPage(form, rooms: rooms, errors: errors, context: context) }
        let now = portal.now
        try await portal.database.transaction { db in
            let changes = try await validated.save(over: rooms, repository: chat.repository, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .chatSettingsChanged,
                    recordType: "chat_settings",
                    origin: portal.origin(of: request, context: context),
                    detail: changes.isEmpty ? "no change" : changes.joined(separator: "; ")
                ),
                on: db
            )
        }
        try await portal.flash(Flash(.success, "Chat settings saved. Messages older than a room's new window are hidden at once."), context: context)
        return seeOther(.chatSettings)
    }
}

import Foundation
import NIOCore
import PortalPlatform
import SQLKit
import SafeHTML
import Synchronization

/// What happens in the cohorts' chat rooms, shared by the member API, the WebSocket and the
/// administrators' pages: every change in one transaction with its events and audit entries, then a
/// live signal so every server pushes it to the sockets it holds.
struct Chat: Sendable {
    static let maximumLength = 2_000
    static let reasonMaximumLength = 500
    static let clientIDMaximumLength = 64
    static let pageSize = 50
    static let liveTopic = "chat"

    let portal: Portal
    let repository = ChatRepository()
    let listeners: ChatListeners
    private let events = MemberEvents()
    private let members = MemberRepository()
    private var feeds: MemberNotifications { MemberNotifications(notifications: portal.notifications) }
    /// A cohort hears of new chat messages in its feed at most once this often.
    static let activityQuietPeriod: TimeInterval = 3_600

    /// A member who can post here, or the reason she cannot (a 404 when she is gone).
    func member(_ memberID: Int64) async throws -> Member {
        guard let member = try await portal.database.read({ db in try await members.find(id: memberID, on: db) }) else {
            throw APIError.unauthorized
        }
        return member
    }

    func room(of member: Member) async throws -> ChatRoom {
        guard let room = try await portal.database.read({ db in try await repository.room(cohortID: member.cohort.id, on: db) }) else {
            throw APIError.notFound
        }
        return room
    }

    // MARK: Reading

    /// The newest page of her room, or the page older than `beforeID`; never older than the room's window.
    func page(for member: Member, beforeID: Int64?) async throws -> (room: ChatRoom, messages: [ChatMessage]) {
        let now = portal.now
        return try await portal.database.read { db in
            guard let room = try await repository.room(cohortID: member.cohort.id, on: db) else { throw APIError.notFound }
            let messages = try await repository.newest(
                cohortID: room.cohort.id,
                visibleAfter: room.visibleAfter(now),
                beforeID: beforeID,
                limit: Self.pageSize,
                on: db
            )
            return (room, messages)
        }
    }

    /// Messages newer than `afterID`, oldest first, for an app that polls instead of holding a socket.
    func since(for member: Member, afterID: Int64) async throws -> (room: ChatRoom, messages: [ChatMessage]) {
        let now = portal.now
        return try await portal.database.read { db in
            guard let room = try await repository.room(cohortID: member.cohort.id, on: db) else { throw APIError.notFound }
            let messages = try await repository.since(
                cohortID: room.cohort.id,
                afterID: afterID,
                visibleAfter: room.visibleAfter(now),
                limit: 200,
                on: db
            )
            return (room, messages)
        }
    }

    /// A message of her own room that is still in its window; 404 otherwise, whatever the reason.
    func visibleMessage(_ id: Int64, to member: Member) async throws -> ChatMessage {
        let now = portal.now
        let found = try await portal.database.read { db -> ChatMessage? in
            guard let message = try await repository.message(id: id, on: db), message.cohortID == member.cohort.id,
                let room = try await repository.room(cohortID: message.cohortID, on: db), message.postedAt > room.visibleAfter(now)
            else { return nil }
            return message
        }
        guard let found else { throw APIError.notFound }
        return found
    }

    /// Her pause from posting, while a moderator's is in force.
    func mute(of member: Member) async throws -> ChatMute? {
        let now = portal.now
        let mute = try await portal.database.read { db in try await repository.mute(memberID: member.id, on: db) }
        return mute?.isInForce(at: now) == true ? mute : nil
    }

    // MARK: Posting

    static func bodyProblem(_ body: String) -> String? {
        let trimmed = body.trimmed
        if trimmed.isEmpty { return "Write a message" }
        if trimmed.count > maximumLength { return "A message can be up to \(maximumLength) characters" }
        return nil
    }

    static func clientIDProblem(_ clientID: String) -> String? {
        clientID.isEmpty || clientID.count > clientIDMaximumLength || !clientID.allSatisfy({ $0.isASCII && !$0.isWhitespace })
            ? "Send a client_id of 1 to \(clientIDMaximumLength) letters, digits or symbols, the same each time this message is retried"
            : nil
    }

    /// Refuses a member muted by `mute` with the time she may post again.
    private func refuseIfMuted(by mute: ChatMute?, now: Date) throws {
        guard let mute, mute.isInForce(at: now) else { return }
        let until =
            mute.until.map { "You can post again after \(portal.programSettings.current.clock.dateTime($0))." } ?? "A moderator will unmute you."
        throw APIError(status: .forbidden, code: "muted", message: "A moderator has paused your posting in chat: you can still read it. \(until)")
    }

    /// Posts her message, or returns the one she already sent under `clientID`.
    func post(_ text: String, clientID: String, by member: Member) async throws -> (message: ChatMessage, isNew: Bool) {
        var problems: [String: String] = [:]
        if let problem = Self.bodyProblem(text) { problems["body"] = problem }
        if let problem = Self.clientIDProblem(clientID) { problems["client_id"] = problem }
        guard problems.isEmpty else { throw APIError.validation(problems) }
        let now = portal.now
        let body = text.trimmed
        let (existing, mute) = try await portal.database.read { db in
            (try await repository.existing(memberID: member.id, clientID: clientID, on: db), try await repository.mute(memberID: member.id, on: db))
        }
        if let existing { return (existing, false) }
        try refuseIfMuted(by: mute, now: now)
        let html = try SafeHTML.renderPlainText(body).html
        let (posted, told) = try await portal.database.transaction { db -> ((message: ChatMessage, isNew: Bool), Bool) in
            // Taken first: a refusal rolls back before anything is written.
            if let until = try await SharedRateLimit.chatPosts.take("\(member.id)", now: now, on: db) {
                throw APIError(
                    status: .tooManyRequests,
                    code: "too_fast",
                    message: "You are sending messages quickly. Wait a moment and send it again.",
                    retryAfter: max(1, Int(until.timeIntervalSince(now).rounded(.up)))
                )
            }
            let posted = try await repository.post(
                cohortID: member.cohort.id,
                memberID: member.id,
                kind: .text,
                body: body,
                bodyHTML: html,
                mood: nil,
                clientID: clientID,
                now: now,
                on: db
            )
            var told = false
            if posted.isNew {
                try await events.record(
                    MemberEvent(kind: .chatMessagePosted, memberID: member.id, cohortID: member.cohort.id, occurredAt: now),
                    on: db
                )
                told = try await tellCohort(of: member, now: now, on: db)
            }
            return (posted, told)
        }
        if posted.isNew { await announce(.posted, posted.message) }
        if told { try await announceActivity(of: member) }
        return posted
    }

    /// Once a quiet period, the rest of her cohort hears in their feeds (as each chose) that there is
    /// something new in the room; never what. True when anyone was told.
    private func tellCohort(of member: Member, now: Date, on db: any SQLDatabase) async throws -> Bool {
        guard try await repository.claimActivityNotice(cohortID: member.cohort.id, now: now, quietPeriod: Self.activityQuietPeriod, on: db) else {
            return false
        }
        return try await feeds.notifyMembers(
            of: [member.cohort.id],
            except: member.id,
            NewNotification(
                kind: .chatActivity,
                message: "There are new messages in your cohort's chat.",
                subject: .chat(member.cohort.id)
            ),
            on: db
        ) > 0
    }

    /// Nudges the apps of the rest of her cohort (socket and push hand-off) once their feeds were told.
    private func announceActivity(of member: Member) async throws {
        let ids = try await portal.database.read { db in try await feeds.memberIDs(of: [member.cohort.id], except: member.id, on: db) }
        await portal.announceNotifications(to: .members(ids))
    }

    /// Records her mood and, unless she is muted, shares it in her room; returns the room's message.
    func shareMood(_ mood: Mood, clientID: String, by member: Member) async throws -> ChatMessage? {
        let now = portal.now
        let muted = try await mute(of: member) != nil
        let text = mood.roomText
        let shared = try await portal.database.transaction { db -> (message: ChatMessage, isNew: Bool, told: Bool)? in
            try await events.record(
                MemberEvent(
                    kind: .moodRecorded,
                    memberID: member.id,
                    cohortID: member.cohort.id,
                    occurredAt: now,
                    label: mood.rawValue,
                    clientID: "mood:\(clientID)"
                ),
                on: db
            )
            if let followUp = mood.followUpMessage {
                try await feeds.notify(
                    member.id,
                    NewNotification(
                        kind: .moodFollowUp,
                        message: followUp,
                        subject: NotificationSubject(
                            mood.group == .negative ? NotificationSubject.resourcesType : NotificationSubject.readingType,
                            id: nil
                        ),
                        onceKey: "mood:\(clientID)"
                    ),
                    on: db
                )
            }
            guard !muted else { return nil }
            let posted = try await repository.post(
                cohortID: member.cohort.id,
                memberID: member.id,
                kind: .mood,
                body: text,
                bodyHTML: HTMLEscaping.escape(text),
                mood: mood,
                clientID: "mood:\(clientID)",
                now: now,
                on: db
            )
            // A mood shared in the room reaches the cohort as a message does.
            return (posted.message, posted.isNew, posted.isNew ? try await tellCohort(of: member, now: now, on: db) : false)
        }
        if let shared, shared.isNew { await announce(.posted, shared.message) }
        if shared?.told == true { try await announceActivity(of: member) }
        if mood.followUpMessage != nil { await portal.announceNotifications(to: .members([member.id])) }
        return shared?.message
    }

    /// Her report of a message in her room, for the moderators.
    func report(_ messageID: Int64, reason: String, by member: Member) async throws {
        let reason = reason.trimmed
        guard !reason.isEmpty, reason.count <= Self.reasonMaximumLength else {
            throw APIError.validation(["reason": "Say in up to \(Self.reasonMaximumLength) characters what is wrong with this message"])
        }
        let message = try await visibleMessage(messageID, to: member)
        let now = portal.now
        try await portal.database.transaction { db in
            try await repository.report(messageID: message.id, memberID: member.id, reason: reason, now: now, on: db)
            try await events.record(MemberEvent(kind: .chatMessageReported, memberID: member.id, cohortID: member.cohort.id, occurredAt: now), on: db)
        }
    }

    // MARK: Moderation

    /// Removes a message with a reason, audited; members then see "Removed by a moderator".
    func remove(_ messageID: Int64, reason: String, by staff: AuditActor, origin: AuditOrigin) async throws -> ChatMessage? {
        let now = portal.now
        let removed = try await portal.database.transaction { db -> ChatMessage? in
            guard let staffID = staff.accountID,
                try await repository.remove(id: messageID, reason: reason, by: staffID, now: now, on: db),
                let message = try await repository.message(id: messageID, on: db)
            else { return nil }
            try await portal.audit.record(
                AuditEvent(
                    actor: staff,
                    action: .chatMessageRemoved,
                    recordType: "chat_message",
                    recordID: "\(messageID)",
                    origin: origin,
                    detail: "member \(message.author.memberID): \(reason)"
                ),
                on: db
            )
            // She is told why, in her feed.
            try await feeds.notify(
                message.author.memberID,
                NewNotification(
                    kind: .chatMessageRemoved,
                    message: "A moderator removed one of your chat messages.",
                    subject: .chat(message.cohortID),
                    detailID: message.id,
                    reason: reason
                ),
                on: db
            )
            return message
        }
        if let removed {
            await announce(.removed, removed)
            await portal.announceNotifications(to: .members([removed.author.memberID]))
        }
        return removed
    }

    /// Tells every server's sockets in the message's room. The change has committed: a signal that
    /// cannot be sent is logged, not thrown (apps that miss it see the change when they next read the room).
    private func announce(_ change: ChatListeners.Change, _ message: ChatMessage) async {
        do {
            try await portal.live.send(Self.liveTopic, "\(change.rawValue) \(message.cohortID) \(message.id)")
        } catch {
            portal.logger.warning("A chat change could not be signalled", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// Nudges this server's sockets of the members a notifications signal names: their feeds have something new.
    func relayNotifications(_ signal: String) {
        guard let audience = NotificationAudience(signal: signal), audience.role == AppAccountKind.member.role else { return }
        listeners.send(Self.notificationsFrame, toMembers: audience.includes)
    }

    static let notificationsFrame = ByteBuffer(
        bytes: (try? APIJSONWriter.encode(ChatAPI.LiveFrame(type: "notifications", message: nil, messageId: nil))) ?? []
    )

    /// Pushes a change heard from any server (`posted COHORT ID`, `removed COHORT ID`) to this server's
    /// sockets in that room: the message is read and encoded once, whatever the number of sockets.
    func relay(_ signal: String) async {
        let parts = signal.split(separator: " ")
        guard parts.count == 3, let change = ChatListeners.Change(rawValue: String(parts[0])),
            let cohortID = Int64(parts[1]), let messageID = Int64(parts[2]), listeners.hasListeners(in: cohortID)
        else { return }
        let frame: ChatAPI.LiveFrame
        switch change {
        case .posted:
            guard let message = try? await portal.database.read({ db in try await repository.message(id: messageID, on: db) }) else { return }
            frame = ChatAPI.LiveFrame(type: "message", message: ChatAPI.Message(message), messageId: message.id)
        case .removed:
            frame = ChatAPI.LiveFrame(type: "removed", message: nil, messageId: messageID)
        }
        guard let bytes = try? APIJSONWriter.encode(frame) else { return }
        listeners.send(ByteBuffer(bytes: bytes), to: cohortID)
    }

    /// Deletes what has outlived its room's window, and then every trace of it in the database's files;
    /// the background job runs it every 30 seconds.
    @discardableResult
    func purge() async throws -> Int {
        let now = portal.now
        let purged = try await portal.database.transaction { db in try await repository.purge(now: now, on: db) }
        if purged > 0 || portal.database.owesCheckpoint { try await portal.database.checkpointDeletions() }
        return purged
    }
}

extension SharedRateLimit {
    /// Posting in the chat, per member: a burst of 10 messages, then one a second, whichever server she reaches.
    static let chatPosts = SharedRateLimit(name: "chat-post", burst: 10, perSecond: 1)
}

extension Chat {
    /// How many modules a follow-up recommends at most.
    static let recommendedModules = 3

    /// After a neutral mood, the learning modules tagged for such a day and meant for her week (the program's
    /// reading link when none fits); after a negative one, the same and where to find help, from the directory.
    func followUp(after mood: Mood, for member: Member) async throws -> ChatAPI.FollowUp {
        guard mood.group != .positive else { return ChatAPI.FollowUp(kind: "none", message: nil, modules: [], reading: nil, helplines: []) }
        let week = LearningStage.memberWeek(dueDate: member.dueDate, today: portal.programSettings.current.clock.date(of: portal.now))
        let (modules, reading) = try await portal.database.read { db in
            let modules = try await LearningContentRepository().recommended(after: mood.group, week: week, limit: Self.recommendedModules, on: db)
            return (modules, modules.isEmpty ? try await repository.recommendedReading(on: db) : nil)
        }
        let recommended = modules.map { ChatAPI.RecommendedModule(id: $0.id, title: $0.title, summary: $0.summary) }
        let link = reading.map { ChatAPI.Reading(title: $0.title, url: $0.url) }
        guard mood.group == .negative else {
            return ChatAPI.FollowUp(kind: "reading", message: mood.followUpMessage, modules: recommended, reading: link, helplines: [])
        }
        // The directory's crisis lines and helplines for where she lives, crisis lines first (988 whatever it holds).
        let helplines = try await HelpDirectory(portal: portal).helplines(forState: member.usState)
        return ChatAPI.FollowUp(
            kind: "help",
            message: mood.followUpMessage,
            modules: recommended,
            reading: link,
            helplines: helplines.map(ChatAPI.Helpline.init)
        )
    }
}

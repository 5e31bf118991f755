import Foundation
import Hummingbird
import PortalPlatform
import SQLKit
import SafeHTML

/// What people do on the information desk, shared by the staff pages and the member API: every
/// change runs in one transaction with its notifications, emails and log entries.
struct InformationDesk: Sendable {
    let portal: Portal
    let repository: DeskRepository
    let caches: DeskCaches
    let feeds: MemberNotifications

    init(portal: Portal, caches: DeskCaches) {
        self.portal = portal
        self.caches = caches
        feeds = MemberNotifications(notifications: portal.notifications)
        repository = DeskRepository(engine: portal.database.engine)
    }

    /// One page of the list and the counts on its tabs, as kept under the desk's list version if they
    /// were read since it last moved, or read now and kept. The version is read first, so what is read
    /// now is never older than the version it is kept under.
    func list(_ query: DeskListQuery, on db: any SQLDatabase) async throws -> (page: PageOf<DeskThread>, counts: DeskCounts) {
        let version = try await repository.listVersion(on: db)
        let countsKey = DeskListCache.countsKey(query, version: version)
        let counts: DeskCounts
        if let kept = caches.list.counts.value(for: countsKey) {
            counts = kept
        } else {
            counts = try await repository.counts(query, on: db)
            caches.list.counts.remember(counts, for: countsKey)
        }
        let pageKey = DeskListCache.pageKey(query, counts: countsKey)
        if let kept = caches.list.pages.value(for: pageKey) { return (kept, counts) }
        let page = try await repository.list(query, total: counts[query.filter], on: db)
        caches.list.pages.remember(page, for: pageKey)
        return (page, counts)
    }

    /// A thread's replies in the order they were posted, as kept under the thread's `repliesVersion`
    /// if they were read since it last moved, or read now and kept. `thread` must have been read
    /// before the replies would be, so replies read now are never older than the version they are kept under.
    func replies(of thread: DeskThread, on db: any SQLDatabase) async throws -> [DeskReply] {
        let key = DeskRepliesCache.Key(threadID: thread.id, repliesVersion: thread.repliesVersion)
        if let kept = caches.replies.value(for: key) { return kept }
        let replies = try await repository.replies(threadID: thread.id, on: db)
        caches.replies.remember(replies, for: key)
        return replies
    }

    /// Markdown as posted, made safe; the source is kept beside the HTML so a later policy can render it again.
    static func render(_ source: String) throws(SafeHTMLError) -> StoredText {
        let safe = try SafeHTML.renderMarkdown(source)
        return StoredText(source: source, html: safe.html, text: safe.plainText)
    }

    /// The problem with a body, or the body made safe.
    static func body(_ source: String, empty: String) -> Result<StoredText, BodyProblem> {
        if source.trimmed.isEmpty { return .failure(BodyProblem(message: empty)) }
        do {
            let body = try render(source)
            if body.text.trimmed.isEmpty && !body.html.contains("<img") {
                return .failure(BodyProblem(message: empty))
            }
            return .success(body)
        } catch {
            return .failure(BodyProblem(message: error.message))
        }
    }

    struct BodyProblem: Error {
        let message: String
    }

    /// A member's new question, checked: its title and body made safe, or what is wrong by field
    /// (`title`, `body`). The API and the web app's page ask alike.
    static func question(title typed: String, body source: String) -> Result<(title: String, body: StoredText), FieldProblems> {
        var problems: [String: String] = [:]
        let title = typed.trimmed
        if let problem = DeskRules.titleProblem(title) { problems["title"] = problem }
        var question: StoredText?
        switch body(source, empty: "Enter your question") {
        case .success(let text): question = text
        case .failure(let problem): problems["body"] = problem.message
        }
        guard problems.isEmpty, let question else { return .failure(FieldProblems(problems)) }
        return .success((title, question))
    }

    /// What is wrong with a form or request, by field.
    struct FieldProblems: Error {
        let fields: [String: String]
        init(_ fields: [String: String]) { self.fields = fields }
    }

    // MARK: Asking and replying

    /// What a member wrote on the desk, as analytics counts it.
    enum DeskPostKind: String, CaseIterable {
        case question, reply

        var title: String {
            switch self {
            case .question: "Questions asked"
            case .reply: "Replies written"
            }
        }
    }

    /// Starts a thread and queues the new-question email to every medical professional who wants it.
    func ask(memberID: Int64, title: String, body: StoredText, isAnonymous: Bool) async throws -> Int64 {
        let now = portal.now
        let programName = portal.programSettings.current.programName
        let baseURL = portal.settings.baseURL
        let (id, told) = try await portal.database.transaction { db in
            let id = try await repository.insertThread(
                title: title,
                body: body,
                authorMemberID: memberID,
                isAnonymous: isAnonymous,
                now: now,
                on: db
            )
            try await MemberEvents().record(.deskPosted, by: memberID, at: now, label: DeskPostKind.question.rawValue, on: db)
            for recipient in try await repository.newQuestionRecipients(on: db) {
                try await portal.outbox.enqueue(
                    .newQuestion(recipient: recipient, threadID: id, title: title, body: body, programName: programName, baseURL: baseURL),
                    on: db
                )
            }
            // Members who asked to hear of new questions; the feed names the thread, never its words.
            let told = try await feeds.notifyMembers(
                of: nil,
                except: memberID,
                NewNotification(
                    kind: .deskNewQuestion,
                    message: "Someone asked a new question at the information desk.",
                    subject: .thread(id)
                ),
                on: db
            )
            return (id, told)
        }
        if told > 0 { await portal.announceNotifications(to: .everyMember) }
        return id
    }

    /// Adds a reply to a thread that shows; tells the asker unless she wrote it herself.
    func reply(threadID: Int64, author: DeskAuthor, body: StoredText) async throws -> Int64 {
        let now = portal.now
        let (id, told) = try await portal.database.transaction { db in
            guard let thread = try await repository.findThread(id: threadID, on: db), thread.moderation == .visible else {
                throw DeskRefusal.notFound
            }
            let id = try await repository.insertReply(threadID: threadID, author: author, body: body, now: now, on: db)
            if let memberID = author.memberID {
                try await MemberEvents().record(.deskPosted, by: memberID, at: now, label: DeskPostKind.reply.rawValue, on: db)
            }
            guard let asker = thread.author.memberID, asker != author.memberID else { return (id, Int64?.none) }
            let told = try await feeds.notify(
                asker,
                NewNotification(
                    kind: .deskReply,
                    message: "Someone replied to your question.",
                    subject: .thread(threadID),
                    detailID: id
                ),
                on: db
            )
            return (id, told ? asker : nil)
        }
        if let told { await portal.announceNotifications(to: .members([told])) }
        return id
    }

    /// Marks a reply as the thread's accepted answer, replacing any earlier one, and tells the asker.
    func accept(replyID: Int64) async throws -> Int64 {
        let now = portal.now
        let (threadID, told) = try await portal.database.transaction { db in
            guard let reply = try await repository.findReply(id: replyID, on: db), reply.moderation == .visible,
                let thread = try await repository.findThread(id: reply.threadID, on: db), thread.moderation == .visible
            else { throw DeskRefusal.notFound }
            guard thread.acceptedReplyID != replyID else { return (thread.id, Int64?.none) }
            try await repository.setAcceptedReply(threadID: thread.id, replyID: replyID, now: now, on: db)
            guard let asker = thread.author.memberID else { return (thread.id, nil) }
            let told = try await feeds.notify(
                asker,
                NewNotification(
                    kind: .deskAcceptedAnswer,
                    message: "Your question has an accepted answer.",
                    subject: .thread(thread.id),
                    detailID: replyID
                ),
                on: db
            )
            return (thread.id, told ? asker : nil)
        }
        if let told { await portal.announceNotifications(to: .members([told])) }
        return threadID
    }

    func clearAcceptedAnswer(threadID: Int64) async throws {
        let now = portal.now
        try await portal.database.transaction { db in
            guard try await repository.findThread(id: threadID, on: db) != nil else { throw DeskRefusal.notFound }
            try await repository.setAcceptedReply(threadID: threadID, replyID: nil, now: now, on: db)
        }
    }

    /// Whether `staff` may still edit this reply: her own, visible, and within the edit window.
    func canEdit(_ reply: DeskReply, by staff: StaffAccount) -> Bool {
        reply.author.staffID == staff.id && reply.moderation == .visible
            && portal.now.timeIntervalSince(reply.createdAt) <= DeskRules.editWindow
    }

    /// Replaces the body of one's own reply within the edit window; the earlier version is kept.
    func edit(replyID: Int64, by staff: StaffAccount, body: StoredText) async throws -> DeskReply {
        let now = portal.now
        return try await portal.database.transaction { db in
            guard let reply = try await repository.findReply(id: replyID, on: db) else { throw DeskRefusal.notFound }
            guard canEdit(reply, by: staff) else { throw DeskRefusal.editWindowClosed }
            guard reply.body.source != body.source else { return reply }
            try await repository.editReply(id: replyID, previous: reply.body, body: body, now: now, on: db)
            try await repository.reindex(threadID: reply.threadID, on: db)
            return reply
        }
    }

    // MARK: Flags

    /// Records a member's flag; the third member's flag hides the post until an administrator reviews it.
    /// Returns false when she had flagged it before.
    func flag(_ post: DeskPost, memberID: Int64, reason: String) async throws -> Bool {
        let now = portal.now
        return try await portal.database.transaction { db in
            let (threadID, moderation) = try await locate(post, on: db)
            guard moderation == .visible else { throw DeskRefusal.notFound }
            try await repository.lock(threadID: threadID, on: db)
            guard try await repository.addFlag(post, threadID: threadID, memberID: memberID, reason: reason, now: now, on: db) else {
                return false
            }
            if try await repository.openFlagCount(post, on: db) >= DeskRules.flagsToHide {
                try await repository.setModeration(
                    post,
                    threadID: threadID,
                    to: .hidden,
                    reason: "Flagged by members, waiting for review",
                    byFlags: true,
                    on: db
                )
                try await repository.logModeration(
                    actorID: nil,
                    actorName: "Automatic",
                    action: .hiddenByFlags,
                    post: post,
                    threadID: threadID,
                    reason: "\(DeskRules.flagsToHide) members flagged it",
                    now: now,
                    on: db
                )
            }
            return true
        }
    }

    // MARK: Moderation

    enum ModerationChoice: String, Sendable, CaseIterable {
        case hide
        case remove

        var moderation: Moderation { self == .hide ? .hidden : .removed }
        var logAction: ModerationEntry.Action { self == .hide ? .hidden : .removed }
        var auditAction: AuditAction { self == .hide ? .deskPostHidden : .deskPostRemoved }
    }

    /// Hides or removes a post with a reason, closes its flags and tells its author why.
    func moderate(_ post: DeskPost, _ choice: ModerationChoice, reason: String, by staff: StaffAccount, origin: AuditOrigin) async throws -> Int64 {
        let now = portal.now
        let programName = portal.programSettings.current.programName
        let (threadID, told) = try await portal.database.transaction { db in
            let (threadID, _) = try await locate(post, on: db)
            try await repository.setModeration(post, threadID: threadID, to: choice.moderation, reason: reason, byFlags: false, on: db)
            try await repository.resolveFlags(post, now: now, on: db)
            try await record(
                choice.logAction,
                choice.auditAction,
                post: post,
                threadID: threadID,
                reason: reason,
                by: staff,
                origin: origin,
                now: now,
                on: db
            )
            // The author hears why: a member in her feed, a member of staff by email.
            switch try await author(of: post, on: db) {
            case .member(let id, _, _):
                let told = try await feeds.notify(
                    id,
                    NewNotification(
                        kind: .deskPostRemoved,
                        message: "A moderator removed one of your posts.",
                        subject: .thread(threadID),
                        detailID: post.replyID,
                        reason: reason
                    ),
                    on: db
                )
                return (threadID, told ? id : nil)
            case .staff(let id, _, _, _):
                if let account = try await StaffAccountRepository().find(id: id, on: db), let email = account.email, !email.isEmpty {
                    try await portal.outbox.enqueue(.postRemoved(recipient: email, post: post, reason: reason, programName: programName), on: db)
                }
                return (threadID, Int64?.none)
            }
        }
        if let told { await portal.announceNotifications(to: .members([told])) }
        return threadID
    }

    /// Shows a hidden or removed post again.
    func restore(_ post: DeskPost, by staff: StaffAccount, origin: AuditOrigin) async throws -> Int64 {
        let now = portal.now
        return try await portal.database.transaction { db in
            let (threadID, moderation) = try await locate(post, on: db)
            guard moderation != .visible else { return threadID }
            try await repository.setModeration(post, threadID: threadID, to: .visible, reason: nil, byFlags: false, on: db)
            try await repository.resolveFlags(post, now: now, on: db)
            try await record(
                .restored,
                .deskPostRestored,
                post: post,
                threadID: threadID,
                reason: "Restored",
                by: staff,
                origin: origin,
                now: now,
                on: db
            )
            return threadID
        }
    }

    /// An administrator reviewed the flags and keeps the post: the flags close, and a post the flags hid shows again.
    func keep(_ post: DeskPost, by staff: StaffAccount, origin: AuditOrigin) async throws -> Int64 {
        let now = portal.now
        return try await portal.database.transaction { db in
            let (threadID, _) = try await locate(post, on: db)
            let hiddenByFlags: Bool =
                switch post {
                case .question(let id): try await repository.findThread(id: id, on: db)?.hiddenByFlags ?? false
                case .reply(let id): try await repository.findReply(id: id, on: db)?.hiddenByFlags ?? false
                }
            if hiddenByFlags {
                try await repository.setModeration(post, threadID: threadID, to: .visible, reason: nil, byFlags: false, on: db)
            }
            try await repository.resolveFlags(post, now: now, on: db)
            try await record(
                .flagsDismissed,
                .deskFlagsDismissed,
                post: post,
                threadID: threadID,
                reason: "Reviewed and kept",
                by: staff,
                origin: origin,
                now: now,
                on: db
            )
            return threadID
        }
    }

    /// Tells an administrator who asked an anonymous question, recording who asked to know, when and why.
    func revealAuthor(
        threadID: Int64,
        reason: String,
        by staff: StaffAccount,
        origin: AuditOrigin
    ) async throws -> (pseudonym: String, memberID: Int64) {
        let now = portal.now
        return try await portal.database.transaction { db in
            guard let thread = try await repository.findThread(id: threadID, on: db), thread.isAnonymous,
                case .member(let memberID, let pseudonym, _) = thread.author
            else { throw DeskRefusal.notFound }
            try await repository.recordReveal(threadID: threadID, by: staff, reason: reason, now: now, on: db)
            try await record(
                .authorRevealed,
                .deskAuthorRevealed,
                post: thread.post,
                threadID: threadID,
                reason: reason,
                by: staff,
                origin: origin,
                now: now,
                on: db
            )
            return (pseudonym, memberID)
        }
    }

    private func record(
        _ action: ModerationEntry.Action,
        _ auditAction: AuditAction,
        post: DeskPost,
        threadID: Int64,
        reason: String,
        by staff: StaffAccount,
        origin: AuditOrigin,
        now: Date,
        on db: any SQLDatabase
    ) async throws {
        try await repository.logModeration(
            actorID: staff.id,
            actorName: staff.username,
            action: action,
            post: post,
            threadID: threadID,
            reason: reason,
            now: now,
            on: db
        )
        try await portal.audit.record(
            AuditEvent(
                actor: AuditActor(accountID: staff.id, role: staff.role.rawValue, name: staff.username),
                action: auditAction,
                recordType: "desk_\(post.noun)",
                recordID: "\(post.id)",
                origin: origin,
                detail: reason
            ),
            on: db
        )
    }

    /// The thread a post belongs to and whether it shows.
    private func locate(_ post: DeskPost, on db: any SQLDatabase) async throws -> (threadID: Int64, moderation: Moderation) {
        switch post {
        case .question(let id):
            guard let thread = try await repository.findThread(id: id, on: db) else { throw DeskRefusal.notFound }
            return (id, thread.moderation)
        case .reply(let id):
            guard let reply = try await repository.findReply(id: id, on: db),
                let thread = try await repository.findThread(id: reply.threadID, on: db)
            else { throw DeskRefusal.notFound }
            // A reply in a hidden thread is as hidden as the thread.
            return (reply.threadID, thread.moderation == .visible ? reply.moderation : thread.moderation)
        }
    }

    private func author(of post: DeskPost, on db: any SQLDatabase) async throws -> DeskAuthor {
        switch post {
        case .question(let id):
            guard let thread = try await repository.findThread(id: id, on: db) else { throw DeskRefusal.notFound }
            return thread.author
        case .reply(let id):
            guard let reply = try await repository.findReply(id: id, on: db) else { throw DeskRefusal.notFound }
            return reply.author
        }
    }

}

/// Why a desk action was refused.
/// What the desk refuses. Each carries the status it is answered with (a page, or the API's error), so a
/// handler that has nothing more to say lets it go.
enum DeskRefusal: StatusRefusal, Equatable {
    /// No such post, or one the person may not see.
    case notFound
    /// The reply is not hers, or the 15 minutes have passed.
    case editWindowClosed

    var status: HTTPResponse.Status {
        switch self {
        case .notFound: .notFound
        case .editWindowClosed: .forbidden
        }
    }
}

extension Mail {
    /// The email medical professionals get for each new question: the title and an excerpt, never who asked.
    static func newQuestion(recipient: String, threadID: Int64, title: String, body: StoredText, programName: String, baseURL: String) -> Mail {
        Mail(
            recipient: recipient,
            subject: "New question on the \(programName) information desk",
            body: """
                A member has asked a new question on the information desk.

                \(title)

                \(SanitizedText.excerpt(of: body.text, maxCharacters: DeskRules.excerptLength))

                Read it and answer:
                \(baseURL)\(SiteURL.deskThread(threadID).path)

                You get these emails because you answer questions on \(programName). To stop them, switch them off at:
                \(baseURL)\(SiteURL.deskEmailSettings.path)
                """
        )
    }

    /// Tells a member of staff that a moderator took down one of her posts, and why.
    static func postRemoved(recipient: String, post: DeskPost, reason: String, programName: String) -> Mail {
        Mail(
            recipient: recipient,
            subject: "Your \(post.noun) on the \(programName) information desk was taken down",
            body: """
                A moderator took down your \(post.noun) on the information desk. Members now see "\(Moderation.placeholder)" in its place.

                The reason given: \(reason)

                If you think this was a mistake, ask an administrator; it can be restored.
                """
        )
    }
}

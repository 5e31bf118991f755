import Foundation
import PortalPlatform
import SQLKit

extension DeskThreadPage {
    /// What a thread's page reads: the thread, its replies and, for administrators, each reply's earlier
    /// versions and who revealed an anonymous asker.
    struct Reads: Sendable {
        let thread: DeskThread
        let replies: [DeskReply]
        let versions: [Int64: [(html: String, replacedAt: Date)]]
        let reveals: [AuthorReveal]

        /// Nil when there is no such thread.
        static func load(_ id: Int64, isAdministrator: Bool, desk: InformationDesk, on db: any SQLDatabase) async throws -> Reads? {
            guard let thread = try await desk.repository.findThread(id: id, on: db) else { return nil }
            let replies = try await desk.replies(of: thread, on: db)
            let versions = isAdministrator ? try await desk.repository.versions(replyIDs: replies.map(\.id), on: db) : [:]
            let reveals = isAdministrator ? try await desk.repository.reveals(threadID: id, on: db) : []
            return Reads(thread: thread, replies: replies, versions: versions, reveals: reveals)
        }
    }

    /// A thread as `staff` see it: a question taken down shows only its placeholder except to administrators,
    /// who also see why, every earlier version and each reveal; nobody answers it. `draft` is the reply box.
    init(
        _ reads: Reads,
        staff: StaffAccount,
        desk: InformationDesk,
        draft: DeskController.ReplyDraft,
        now: Date,
        clock: ProgramClock,
        pages: PageRenderer,
        layout: (String) -> Layout
    ) {
        let thread = reads.thread, id = reads.thread.id
        let isAdministrator = staff.role == .administrator
        let isTakenDown = thread.moderation != .visible
        let canSee = !isTakenDown || isAdministrator
        let question = DeskPostView(
            anchor: "question",
            isListItem: false,
            byline: DeskByline(thread.author, in: thread),
            posted: clock.dateTime(thread.createdAt),
            edited: nil,
            html: canSee ? RenderedHTML(sanitizedHTML: thread.body.html) : nil,
            moderationTitle: isTakenDown ? thread.moderation.title : nil,
            moderationReason: isAdministrator ? thread.moderationReason : nil,
            isAccepted: false,
            acceptPath: nil,
            clearAcceptedPath: nil,
            editPath: nil,
            moderatePath: isAdministrator && !isTakenDown ? SiteURL.deskThreadModerate(id).path : nil,
            restorePath: isAdministrator && isTakenDown ? SiteURL.deskThreadRestore(id).path : nil,
            versions: [],
            versionsTitle: nil
        )
        let replies = canSee ? reads.replies.map { Self.replyView($0, reads: reads, staff: staff, desk: desk, clock: clock) } : []
        let status = thread.status(now: now)
        var errors = FormErrors()
        if let error = draft.error { errors.add("body", error) }
        let title = canSee ? thread.title : Moderation.placeholder
        self.init(
            layout: layout(title),
            title: title,
            isTakenDown: isTakenDown,
            question: pages.html(question),
            status: status.0,
            statusTag: status.1,
            acceptedAnchor: canSee ? thread.acceptedReplyID.map { "reply-\($0)" } : nil,
            replies: pages.list(replies),
            replyAction: isTakenDown ? nil : SiteURL.deskThreadReplies(id).path,
            errors: errors.items,
            body: draft.body,
            bodyError: draft.error,
            previewHTML: draft.preview.map(RenderedHTML.init(sanitizedHTML:)),
            revealPath: isAdministrator && thread.isAnonymous ? SiteURL.deskThreadReveal(id).path : nil,
            reveals: reads.reveals.map {
                Reveal(text: "\($0.revealedByName) revealed who asked on \(clock.dateTime($0.revealedAt)). Reason: \($0.reason)")
            }
        )
    }

    /// One reply as `staff` see it, with what they may do to it.
    private static func replyView(
        _ reply: DeskReply,
        reads: Reads,
        staff: StaffAccount,
        desk: InformationDesk,
        clock: ProgramClock
    )
        -> DeskPostView
    {
        let thread = reads.thread
        let isAdministrator = staff.role == .administrator
        let canAnswer = thread.moderation == .visible
        let replyTakenDown = reply.moderation != .visible
        let earlier = reads.versions[reply.id] ?? []
        let isAccepted = thread.acceptedReplyID == reply.id
        return DeskPostView(
            anchor: "reply-\(reply.id)",
            isListItem: true,
            byline: DeskByline(reply.author, in: thread),
            posted: clock.dateTime(reply.createdAt),
            edited: reply.editedAt.map(clock.dateTime),
            html: replyTakenDown && !isAdministrator ? nil : RenderedHTML(sanitizedHTML: reply.body.html),
            moderationTitle: replyTakenDown ? reply.moderation.title : nil,
            moderationReason: isAdministrator ? reply.moderationReason : nil,
            isAccepted: isAccepted,
            acceptPath: canAnswer && !replyTakenDown && !isAccepted ? SiteURL.deskReplyAccept(reply.id).path : nil,
            clearAcceptedPath: canAnswer && isAccepted ? SiteURL.deskThreadClearAccepted(thread.id).path : nil,
            editPath: desk.canEdit(reply, by: staff) && canAnswer ? SiteURL.deskReplyEdit(reply.id).path : nil,
            moderatePath: isAdministrator && !replyTakenDown ? SiteURL.deskReplyModerate(reply.id).path : nil,
            restorePath: isAdministrator && replyTakenDown ? SiteURL.deskReplyRestore(reply.id).path : nil,
            versions: earlier.map { .init(html: RenderedHTML(sanitizedHTML: $0.html), replacedAt: clock.dateTime($0.replacedAt)) },
            versionsTitle: earlier.isEmpty ? nil : "Earlier versions (\(earlier.count))"
        )
    }
}

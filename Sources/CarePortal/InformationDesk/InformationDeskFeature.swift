import Foundation
import PortalPlatform
import SQLKit

/// The information desk: members' questions and the answers of medical professionals, its moderation,
/// and the member API's threads; its replies, answers and removals reach members' feeds. Holds the desk's caches.
struct InformationDeskFeature: PortalFeature {
    static let program: Program? = .perinatalCommunity
    static let navigation = [
        NavigationItem(title: "Information desk", path: SiteURL.desk.path, access: DeskController.access, group: .community)
    ]
    static let auditActions: [AuditAction] = [
        .deskPostHidden, .deskPostRemoved, .deskPostRestored, .deskFlagsDismissed, .deskAuthorRevealed, .moderationLogExported, .contentResanitized
    ]
    static let templates: [TemplateName] =
        [
            .desk, .deskThreadRow, .deskListControls, .deskPost, .deskThread, .deskEditReply, .deskModerate, .deskReveal, .deskFlags,
            .deskModerationLog, .deskEmailSettings
        ]
        + TemplateName.appDeskTemplates
    static let notificationKinds: [NotificationKind] = [.deskReply, .deskAcceptedAnswer, .deskPostRemoved, .deskNewQuestion]
    static let notificationSubjects = [
        NotificationSubjectTitles(type: NotificationSubject.threadType) { ids, db in try await DeskRepository.threadTitles(ids, on: db) }
    ]
    let portal: Portal
    /// What the desk's pages and the member API share, with the desk's caches.
    let desk: InformationDesk

    init(portal: Portal) {
        self.portal = portal
        desk = InformationDesk(portal: portal, caches: DeskCaches())
    }

    func addRoutes(to routes: inout PortalRoutes) {
        DeskController(portal: portal, desk: desk).addRoutes(to: &routes)
        DeskModerationController(portal: portal, desk: desk).addRoutes(to: &routes)
        DeskAPIController(portal: portal, desk: desk).addRoutes(to: &routes)
        DeskAppController(portal: portal, desk: desk).addRoutes(to: &routes)
    }

    static func homeCards(for staff: StaffAccount, portal: Portal) async throws -> [HomeCard] {
        guard staff.role == .administrator else { return [] }
        let repository = DeskRepository(engine: portal.database.engine)
        let (waiting, flagged) = try await portal.database.read { db in
            (try await repository.waitingQuestions(on: db), try await repository.openFlagTotal(on: db))
        }
        return [
            HomeCard(
                title: "Information desk",
                path: SiteURL.desk.path,
                body: "Read members' questions and the answers, and review flagged posts.",
                figures: [
                    HomeFigure(
                        label: "Questions waiting for an answer",
                        value: waiting.count,
                        detail: waiting.oldest.map { "The oldest has waited \(DeskAge.text(since: $0, now: portal.now))." },
                        needsAttention: waiting.count > 0
                    ),
                    HomeFigure(label: "Flagged posts waiting for review", value: flagged, path: SiteURL.deskFlags.path, needsAttention: flagged > 0)
                ]
            )
        ]
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        try await demo.seedDesk(on: db)
    }

    /// A deleted member's open flags and replies go with her account. Once they have gone, the moderation queue
    /// counts each of her flagged posts down, and each question she replied to counts its replies, its first
    /// answer and its accepted answer again.
    static func deletingMember(_ memberID: Int64, portal: Portal, on db: any SQLDatabase) async throws -> Contributions.AfterMemberDeletion? {
        let desk = DeskRepository(engine: portal.database.engine)
        let flagged = try await desk.postsWithOpenFlags(byMember: memberID, on: db)
        let replied = try await desk.threadsWithReplies(byMember: memberID, on: db)
        guard !flagged.isEmpty || !replied.isEmpty else { return nil }
        return { db in
            try await desk.uncountFlags(on: flagged, on: db)
            for threadID in replied { try await desk.refreshSummary(threadID: threadID, on: db) }
        }
    }
}

/// The desk's caches, each kept under a version the database raises, so they are right through any server.
struct DeskCaches: Sendable {
    let list = DeskListCache()
    let replies = DeskRepliesCache.make()
}

extension TemplateName {
    static let desk = TemplateName("desk/list")
    static let deskThreadRow = TemplateName("desk/thread-row")
    static let deskListControls = TemplateName("desk/list-controls")
    static let deskPost = TemplateName("desk/post")
    static let deskThread = TemplateName("desk/thread")
    static let deskEditReply = TemplateName("desk/edit-reply")
    static let deskModerate = TemplateName("desk/moderate")
    static let deskReveal = TemplateName("desk/reveal")
    static let deskFlags = TemplateName("desk/flags")
    static let deskModerationLog = TemplateName("desk/moderation-log")
    static let deskEmailSettings = TemplateName("desk/email-settings")
}

extension AuditAction {
    static let deskPostHidden = AuditAction("desk_post_hidden", title: "Information desk post hidden")
    static let deskPostRemoved = AuditAction("desk_post_removed", title: "Information desk post removed")
    static let deskPostRestored = AuditAction("desk_post_restored", title: "Information desk post restored")
    static let deskFlagsDismissed = AuditAction("desk_flags_dismissed", title: "Flags reviewed, post kept")
    static let deskAuthorRevealed = AuditAction("desk_author_revealed", title: "Anonymous author revealed")
    static let moderationLogExported = AuditAction("moderation_log_exported", title: "Moderation log exported")
    static let contentResanitized = AuditAction("content_resanitized", title: "Posts sanitized again")
}

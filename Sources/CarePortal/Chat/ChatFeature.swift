import Foundation
import PortalPlatform
import SQLKit

/// The cohorts' chat rooms: members talk and share moods in the app (live over a WebSocket, or by
/// polling), administrators moderate and choose how long messages stay visible. Messages older than
/// a room's window are never shown and are deleted within a minute.
struct ChatFeature: PortalFeature {
    static let program: Program? = .perinatalCommunity
    static let navigation = [
        NavigationItem(title: "Chat", path: SiteURL.chat.path, access: ChatController.access, group: .community)
    ]
    static let auditActions: [AuditAction] = [
        .chatRoomViewed, .chatMessageRemoved, .chatMemberMuted, .chatMemberUnmuted, .chatReportKept, .chatSettingsChanged
    ]
    static let notificationKinds: [NotificationKind] = [.chatMessageRemoved, .chatActivity, .moodFollowUp]
    static let templates: [TemplateName] = [
        .chatRooms, .chatRoom, .chatMessages, .chatRemoveMessage, .chatMuteMember, .chatReports, .chatSettings, .appMood, .appMoodShared,
        .appChatRoom, .appChatMessages, .appChatReport
    ]
    /// How often expired messages are deleted: well within the minute the retention promise allows.
    static let purgeInterval: Duration = .seconds(30)

    let portal: Portal
    let chat: Chat

    init(portal: Portal) {
        self.portal = portal
        let chat = Chat(portal: portal, listeners: ChatListeners())
        self.chat = chat
        portal.live.on(Chat.liveTopic) { signal in await chat.relay(signal) }
        portal.live.on(Notifications.liveTopic) { signal in chat.relayNotifications(signal) }
    }

    func addRoutes(to routes: inout PortalRoutes) {
        ChatController(portal: portal, chat: chat).addRoutes(to: &routes)
        ChatAPIController(portal: portal, chat: chat).addRoutes(to: &routes)
        ChatAppController(portal: portal, chat: chat).addRoutes(to: &routes)
        ChatRoomAppController(portal: portal, chat: chat).addRoutes(to: &routes)
    }

    var jobs: [BackgroundJob] {
        let chat = self.chat
        let portal = self.portal
        return [
            BackgroundJob("Chat purge", every: Self.purgeInterval) { try await chat.purge() },
            BackgroundJob("Chat posting allowances", every: BackgroundJob.housekeepingInterval) {
                try await portal.database.write { db in try await SharedRateLimit.chatPosts.forgetFull(now: portal.now, on: db) }
            }
        ]
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        try await demo.seedChat(on: db)
    }

    static func homeCards(for staff: StaffAccount, portal: Portal) async throws -> [HomeCard] {
        guard staff.role == .administrator else { return [] }
        let reported = try await portal.database.read { db in try await ChatRepository().openReportCount(on: db) }
        return [
            HomeCard(
                title: "Chat",
                path: SiteURL.chat.path,
                body: "Moderate the cohorts' chat rooms and choose how long messages stay.",
                figures: [
                    HomeFigure(
                        label: "Reported messages waiting for review",
                        value: reported,
                        path: SiteURL.chatReports.path,
                        needsAttention: reported > 0
                    )
                ]
            )
        ]
    }
}

extension TemplateName {
    static let chatRooms = TemplateName("chat/rooms")
    static let chatRoom = TemplateName("chat/room")
    static let chatMessages = TemplateName("chat/messages")
    static let chatRemoveMessage = TemplateName("chat/remove")
    static let chatMuteMember = TemplateName("chat/mute")
    static let chatReports = TemplateName("chat/reports")
    static let chatSettings = TemplateName("chat/settings")
}

extension AuditAction {
    static let chatRoomViewed = AuditAction("chat_room_viewed", title: "Chat room read")
    static let chatMessageRemoved = AuditAction("chat_message_removed", title: "Chat message removed")
    static let chatMemberMuted = AuditAction("chat_member_muted", title: "Member muted in chat")
    static let chatMemberUnmuted = AuditAction("chat_member_unmuted", title: "Member unmuted in chat")
    static let chatReportKept = AuditAction("chat_report_kept", title: "Chat report reviewed, message kept")
    static let chatSettingsChanged = AuditAction("chat_settings_changed", title: "Chat settings changed")
}

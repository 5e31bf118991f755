import Foundation
import Hummingbird
import PortalPlatform

/// The member app's notification feed, her choices about it, and the phones pushes go to.
enum NotificationsAPI {
    /// One entry. The desk's entries keep every field they had before the feed carried other kinds
    /// (`thread_id`, `thread_title`, `reply_id`); other kinds leave those out.
    struct Entry: Encodable, Sendable {
        let id: Int64
        let kind: String
        let message: String
        let body: String?
        let reason: String?
        let subject: Subject?
        let threadId: Int64?
        let threadTitle: String?
        let replyId: Int64?
        let createdAt: Date
        let read: Bool
        let readAt: Date?
    }

    struct Subject: Encodable, Sendable {
        let type: String
        let id: Int64?
        let title: String?
    }

    /// A page of the feed, sent as an `APIPage`, with how many of the whole feed are unread.
    struct List: Encodable, Sendable {
        let notifications: [Entry]
        let unreadCount: Int
    }

    struct UnreadCount: Encodable, Sendable {
        let unreadCount: Int
    }

    struct ReadAll: Decodable, Sendable {
        var upToId: Int64?
    }

    struct Marked: Encodable, Sendable {
        let marked: Int
        let unreadCount: Int
    }

    struct KindChoice: Codable, Sendable {
        var kind: String?
        var title: String?
        var on: Bool?
    }

    /// Her choices. The reminders' settings are a member's only: a pharmacy customer's answer leaves them out.
    struct Preferences: Encodable, Sendable {
        let kinds: [KindChoice]
        let reminderLeadMinutes: Int?
        let reminderLeadChoices: [Int]?
        /// `HH:MM` in the program's time zone.
        let checkInTime: String?
        let timeZone: String?
    }

    struct NewPreferences: Decodable, Sendable {
        var kinds: [KindChoice]?
        var reminderLeadMinutes: Int?
        var checkInTime: String?
    }

    struct NewPushToken: Decodable, Sendable {
        var token: String?
        var platform: String?
    }

    struct PushToken: Encodable, Sendable {
        let token: String
        let platform: String
    }
}

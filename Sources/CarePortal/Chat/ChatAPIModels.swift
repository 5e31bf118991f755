import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOWebSocket
import PortalPlatform
import SQLKit

/// The member app's chat: her cohort's room, posting, reporting, moods, and the live socket.
/// Described in `api/openapi.json` and docs/member-api.md.
enum ChatAPI {
    struct Author: Encodable, Sendable {
        let memberId: Int64
        let pseudonym: String
        let avatarUrl: String
    }

    struct MoodView: Encodable, Sendable {
        let name: String
        let title: String
        let group: String

        init(_ mood: Mood) {
            name = mood.rawValue
            title = mood.title
            group = mood.group.rawValue
        }
    }

    struct Message: Encodable, Sendable {
        let id: Int64
        let kind: String
        let author: Author
        /// Nil once a moderator removed it.
        let bodyHtml: String?
        let bodyText: String?
        let mood: MoodView?
        let postedAt: Date
        let removed: Bool
        let removedNotice: String?

        init(_ message: ChatMessage) {
            id = message.id
            kind = message.kind.rawValue
            author = Author(memberId: message.author.memberID, pseudonym: message.author.pseudonym, avatarUrl: message.author.avatar.path)
            let shown = message.removal == nil
            bodyHtml = shown ? message.bodyHTML : nil
            bodyText = shown ? message.body : nil
            mood = shown ? message.mood.map(MoodView.init) : nil
            postedAt = message.postedAt
            removed = !shown
            removedNotice = shown ? nil : "Removed by a moderator"
        }
    }

    struct Room: Encodable, Sendable {
        let cohortId: Int64
        let name: String
        let retentionHours: Int
        let mutedUntil: Date?
        let muted: Bool
    }

    struct Page: Encodable, Sendable {
        let room: Room
        let messages: [Message]
        /// Pass as `before` for the next, older page; absent on the oldest.
        let olderCursor: Int64?
        /// Pass as `after` to poll for what comes next.
        let newestId: Int64?
    }

    struct NewMessage: Decodable, Sendable {
        var body: String?
        var clientId: String?
    }

    struct NewReport: Decodable, Sendable {
        var reason: String?
    }

    struct NewMood: Decodable, Sendable {
        var mood: String?
        var clientId: String?
    }

    struct Moods: Encodable, Sendable {
        let moods: [MoodView]
    }

    struct Reading: Encodable, Sendable {
        let title: String
        let url: String
    }

    struct FollowUp: Encodable, Sendable {
        /// `none` after a positive mood, `reading` after a neutral one, `help` after a negative one.
        let kind: String
        let message: String?
        /// Published learning modules chosen for the mood and her week; empty after a positive mood or when none fits.
        let modules: [RecommendedModule]
        /// The program's reading link, only when no module fits.
        let reading: Reading?
        let helplines: [Helpline]
    }

    struct RecommendedModule: Encodable, Sendable {
        let id: Int64
        let title: String
        let summary: String
    }

    struct Helpline: Encodable, Sendable {
        let name: String
        /// `crisis_line` or `helpline`.
        let kind: String
        let phone: String?
        let phoneDial: String?
        let text: String?
        let textDial: String?
        let url: String?
        let hours: String?

        init(_ resource: HelpResource) {
            name = resource.name
            kind = resource.kind.rawValue
            phone = resource.phone?.display
            phoneDial = resource.phone?.dialable
            text = resource.textNumber?.display
            textDial = resource.textNumber?.dialable
            url = resource.webAddress
            hours = resource.hours
        }
    }

    struct MoodShared: Encodable, Sendable {
        let mood: MoodView
        /// The room's mood message; absent while she is muted (the mood is still recorded).
        let message: Message?
        let followUp: FollowUp
    }

    /// What the socket sends: `message` for a new message or mood, `removed` when a moderator removed one,
    /// `notifications` when her feed has something new (the app then reads it; the frame says no more).
    struct LiveFrame: Encodable, Sendable {
        let type: String
        let message: Message?
        let messageId: Int64?
    }
}

import Foundation
import Hummingbird
import PortalPlatform
import SafeHTML

/// What the member app sends to and receives from the information desk; described in `api/openapi.json`.
enum DeskAPI {
    /// Who wrote a post, as the app shows it. An anonymous asker has kind "anonymous" and no ids.
    struct Author: Encodable, Sendable {
        let kind: String
        let name: String
        let role: String
        let avatarUrl: String?
        let memberId: Int64?
        let staffId: Int64?

        init(_ byline: DeskByline) {
            kind = byline.isAnonymous ? "anonymous" : byline.isStaff ? "staff" : "member"
            name = byline.name
            role = byline.roleTitle
            avatarUrl = byline.avatarPath
            memberId = byline.memberID
            staffId = byline.staffID
        }
    }

    struct ThreadSummary: Encodable, Sendable {
        let id: Int64
        let title: String
        let excerpt: String
        let author: Author
        let askedByYou: Bool
        let createdAt: Date
        let lastActivityAt: Date
        let replyCount: Int
        let isAnswered: Bool
        let hasAcceptedAnswer: Bool

        init(_ thread: DeskThread, reader: Int64) {
            id = thread.id
            title = thread.title
            excerpt = SanitizedText.excerpt(of: thread.body.text, maxCharacters: DeskRules.excerptLength)
            author = Author(DeskByline(thread.author, in: thread))
            askedByYou = thread.author.memberID == reader
            createdAt = thread.createdAt
            lastActivityAt = thread.lastActivityAt
            replyCount = thread.replyCount
            isAnswered = thread.answeredAt != nil
            hasAcceptedAnswer = thread.acceptedReplyID != nil
        }
    }

    /// A page of threads, sent as an `APIPage`.
    struct ThreadList: Encodable, Sendable {
        let threads: [ThreadSummary]
    }

    /// A reply; one taken down by a moderator keeps its place with `removed` set and nothing else of it.
    struct Reply: Encodable, Sendable {
        let id: Int64
        let removed: Bool
        let removedText: String?
        let author: Author?
        let bodyHtml: String?
        let createdAt: Date
        let editedAt: Date?
        let isAccepted: Bool

        init(_ reply: DeskReply, in thread: DeskThread) {
            id = reply.id
            removed = reply.moderation != .visible
            removedText = removed ? Moderation.placeholder : nil
            author = removed ? nil : Author(DeskByline(reply.author, in: thread))
            bodyHtml = removed ? nil : reply.body.html
            createdAt = reply.createdAt
            editedAt = removed ? nil : reply.editedAt
            isAccepted = !removed && thread.acceptedReplyID == reply.id
        }
    }

    /// A whole thread; a question taken down shows only that it was removed.
    struct Thread: Encodable, Sendable {
        let id: Int64
        let removed: Bool
        let title: String
        let author: Author?
        let askedByYou: Bool
        let bodyHtml: String?
        let createdAt: Date
        let lastActivityAt: Date
        let isAnswered: Bool
        let acceptedReplyId: Int64?
        let replies: [Reply]

        init(_ thread: DeskThread, replies: [DeskReply], reader: Int64) {
            id = thread.id
            removed = thread.moderation != .visible
            title = removed ? Moderation.placeholder : thread.title
            author = removed ? nil : Author(DeskByline(thread.author, in: thread))
            askedByYou = thread.author.memberID == reader
            bodyHtml = removed ? nil : thread.body.html
            createdAt = thread.createdAt
            lastActivityAt = thread.lastActivityAt
            isAnswered = !removed && thread.answeredAt != nil
            acceptedReplyId = removed ? nil : thread.acceptedReplyID
            self.replies = removed ? [] : replies.map { Reply($0, in: thread) }
        }
    }

    struct Flag: Encodable, Sendable {
        let post: String
        let status: String
    }

    struct NewQuestion: Decodable, Sendable {
        var title: String?
        var body: String?
        var anonymous: Bool?
    }

    struct NewReply: Decodable, Sendable {
        var body: String?
    }

    struct NewFlag: Decodable, Sendable {
        var reason: String?
    }
}

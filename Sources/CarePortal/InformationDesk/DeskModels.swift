import Foundation
import PortalPlatform

/// Whether a post shows, and why not. Hidden and removed posts are kept and can be restored;
/// members and medical professionals see "Removed by a moderator" in their place.
enum Moderation: String, Sendable, CaseIterable, Codable {
    case visible
    /// Hidden by a moderator, or by three members' flags until an administrator reviews it.
    case hidden
    /// Removed by a moderator.
    case removed

    var title: String {
        switch self {
        case .visible: "Visible"
        case .hidden: "Hidden"
        case .removed: "Removed"
        }
    }

    static let placeholder = "Removed by a moderator"
}

/// Who wrote a post, as stored. What a reader is shown comes from `DeskAuthorView`.
enum DeskAuthor: Sendable, Equatable {
    case member(id: Int64, pseudonym: String, avatar: Avatar)
    case staff(id: Int64, username: String, role: StaffRole, avatar: Avatar?)

    var memberID: Int64? {
        if case .member(let id, _, _) = self { return id }
        return nil
    }

    var staffID: Int64? {
        if case .staff(let id, _, _, _) = self { return id }
        return nil
    }
}

/// A member's question and what the desk knows about it.
struct DeskThread: Sendable {
    let id: Int64
    var title: String
    var body: StoredText
    /// The real author, kept even when the question was asked anonymously; never shown then.
    let author: DeskAuthor
    let isAnonymous: Bool
    let createdAt: Date
    var lastActivityAt: Date
    var answeredAt: Date?
    var replyCount: Int
    var acceptedReplyID: Int64?
    var moderation: Moderation
    var moderationReason: String?
    var hiddenByFlags: Bool
    /// Raised by the database whenever anything the thread's replies show changes (`DeskRepliesCache`).
    var repliesVersion: Int64

    var post: DeskPost { .question(id) }
}

/// One reply in a thread.
struct DeskReply: Sendable {
    let id: Int64
    let threadID: Int64
    let author: DeskAuthor
    var body: StoredText
    let createdAt: Date
    var editedAt: Date?
    var moderation: Moderation
    var moderationReason: String?
    var hiddenByFlags: Bool

    var post: DeskPost { .reply(id) }
}

/// A body as written and as shown: the Markdown source, the sanitized HTML and its plain words.
struct StoredText: Sendable, Equatable {
    var source: String
    var html: String
    var text: String

    /// What keeping it in memory costs, in bytes of text (the caches' budgets).
    var byteCount: Int { source.utf8.count + html.utf8.count + text.utf8.count }
}

/// A question or a reply, as flags, moderation and the moderation log name it.
enum DeskPost: Sendable, Hashable, CustomStringConvertible {
    case question(Int64)
    case reply(Int64)

    /// "question:12" or "reply:40", as stored.
    var description: String {
        switch self {
        case .question(let id): "question:\(id)"
        case .reply(let id): "reply:\(id)"
        }
    }

    init?(_ stored: String) {
        let parts = stored.split(separator: ":")
        guard parts.count == 2, let id = Int64(parts[1]) else { return nil }
        switch parts[0] {
        case "question": self = .question(id)
        case "reply": self = .reply(id)
        default: return nil
        }
    }

    var noun: String {
        switch self {
        case .question: "question"
        case .reply: "reply"
        }
    }

    /// The question's thread id or the reply's id.
    var id: Int64 {
        switch self {
        case .question(let id), .reply(let id): id
        }
    }

    /// The reply's id; nil for a question.
    var replyID: Int64? {
        if case .reply(let id) = self { return id }
        return nil
    }
}

/// Who is reading the desk; decides what is shown of anonymous and moderated posts.
enum DeskReader: Sendable, Equatable {
    case member(Int64)
    case staff(id: Int64, role: StaffRole)

    var isAdministrator: Bool {
        if case .staff(_, .administrator) = self { return true }
        return false
    }

    var isStaff: Bool {
        if case .staff = self { return true }
        return false
    }

    /// Administrators see hidden and removed posts (marked as such) so they can review and restore them.
    var seesModeratedPosts: Bool { isAdministrator }
}

/// The list's filters, in the order the tabs show them.
enum DeskFilter: String, Sendable, CaseIterable {
    case waiting
    case answered
    case accepted
    case all

    var title: String {
        switch self {
        case .waiting: "Waiting for an answer"
        case .answered: "Answered"
        case .accepted: "Has an accepted answer"
        case .all: "All questions"
        }
    }
}

enum DeskSort: String, Sendable, CaseIterable {
    case oldestWaiting = "oldest"
    case newest
    case activity

    var title: String {
        switch self {
        case .oldestWaiting: "Oldest first"
        case .newest: "Newest first"
        case .activity: "Most recent activity"
        }
    }

    /// Waiting questions are answered oldest first; other lists show what moved last.
    static func defaultSort(for filter: DeskFilter) -> DeskSort {
        filter == .waiting ? .oldestWaiting : .activity
    }
}

struct DeskListQuery: Sendable {
    var filter: DeskFilter = .waiting
    var sort: DeskSort = .oldestWaiting
    var search = ""
    var page = PageRequest(number: 1)
    /// Only the administrators' lists include hidden and removed questions.
    var includeModerated = false
}

/// How many questions each filter holds, for the tabs.
struct DeskCounts: Sendable, Equatable {
    var waiting = 0
    var answered = 0
    var accepted = 0
    var all = 0

    subscript(filter: DeskFilter) -> Int {
        switch filter {
        case .waiting: waiting
        case .answered: answered
        case .accepted: accepted
        case .all: all
        }
    }
}

/// A flagged post awaiting an administrator, with every open flag's reason.
struct FlaggedPost: Sendable {
    let post: DeskPost
    let threadID: Int64
    let threadTitle: String
    let excerpt: String
    let moderation: Moderation
    let reasons: [(reason: String, at: Date)]
    var flagCount: Int { reasons.count }
}

/// One line of the moderation log.
struct ModerationEntry: Sendable {
    enum Action: String, Sendable, CaseIterable {
        case hidden
        case removed
        case restored
        case hiddenByFlags = "hidden_by_flags"
        case flagsDismissed = "flags_dismissed"
        case authorRevealed = "author_revealed"

        var title: String {
            switch self {
            case .hidden: "Hidden"
            case .removed: "Removed"
            case .restored: "Restored"
            case .hiddenByFlags: "Hidden by three flags"
            case .flagsDismissed: "Flags reviewed, post kept"
            case .authorRevealed: "Anonymous author revealed"
            }
        }
    }

    let id: Int64
    let happenedAt: Date
    let actorID: Int64?
    let actorName: String
    let action: Action
    let post: DeskPost
    let threadID: Int64
    let reason: String
}

struct ModerationLogQuery: Sendable {
    /// Whose entries the log shows: the automatic hiding by members' flags, or one moderator's account.
    enum Moderator: Sendable, Equatable {
        case automatic
        case account(Int64)

        /// The value of the filter's option.
        var value: String {
            switch self {
            case .automatic: "automatic"
            case .account(let id): "\(id)"
            }
        }

        /// The filter a chosen option, or an older link's moderator name (one of `known`, in any case), asks
        /// for; nil when the text names no moderator. An account must be one of `known`: its number is
        /// written into the statement (`valueFromClosedSet`), so only those with entries may be.
        init?(choice: String, among known: [Known]) {
            if choice == "automatic" {
                self = .automatic
            } else if let id = Int64(choice), known.contains(where: { $0.id == id }) {
                self = .account(id)
            } else {
                let named = known.filter { $0.name.lowercased() == choice.lowercased() }
                guard named.count == 1 else { return nil }
                self = .account(named[0].id)
            }
        }
    }

    /// A moderator with entries in the log, under the name her latest entry gives.
    struct Known: Sendable, Equatable {
        let id: Int64
        let name: String
    }

    var action: ModerationEntry.Action?
    var moderator: Moderator?
    var threadID: Int64?
    var page = PageRequest(number: 1)
}

/// An administrator's reveal of an anonymous author, shown on the thread to administrators.
struct AuthorReveal: Sendable {
    let revealedByName: String
    let reason: String
    let revealedAt: Date
}

/// Rules for what people post on the desk.
enum DeskRules {
    static let titleMaximumLength = 150
    static let reasonMaximumLength = 500
    /// A medical professional or administrator may edit her own reply for this long after posting it.
    static let editWindow: TimeInterval = 15 * 60
    /// Flags from this many different members hide a post until an administrator reviews it.
    static let flagsToHide = 3
    static let excerptLength = 200

    static func titleProblem(_ title: String) -> String? {
        if title.isEmpty { return "Enter a title for your question" }
        if title.count > titleMaximumLength { return "Title must be \(titleMaximumLength) characters or fewer" }
        return nil
    }

    static func reasonProblem(_ reason: String, what: String = "a reason") -> String? {
        if reason.isEmpty { return "Enter \(what)" }
        if reason.count > reasonMaximumLength { return "Reason must be \(reasonMaximumLength) characters or fewer" }
        return nil
    }
}

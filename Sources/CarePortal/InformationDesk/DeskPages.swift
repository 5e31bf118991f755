import Foundation
import PortalPlatform
import SafeHTML

/// Who wrote a post, as a reader is shown it. An anonymous asker is "Anonymous" to everyone, in her
/// question and in her own replies to it; nothing here then carries her pseudonym, avatar or id.
struct DeskByline: Sendable, Hashable, Encodable {
    let name: String
    let avatarPath: String?
    let roleTitle: String
    let roleTag: String
    let isAnonymous: Bool
    let isStaff: Bool
    let memberID: Int64?
    let staffID: Int64?

    static let anonymousName = "Anonymous"

    init(_ author: DeskAuthor, in thread: DeskThread) {
        let isAnonymousAsker = thread.isAnonymous && author.memberID != nil && author.memberID == thread.author.memberID
        switch author {
        case .member(let id, let pseudonym, let avatar):
            if isAnonymousAsker {
                (name, avatarPath, memberID) = (Self.anonymousName, nil, nil)
            } else {
                (name, avatarPath, memberID) = (pseudonym, avatar.path, id)
            }
            (roleTitle, roleTag, isStaff, staffID) = ("Member", "tag--grey", false, nil)
        case .staff(let id, let username, let role, let avatar):
            (name, avatarPath, memberID, staffID) = (username, avatar?.path, nil, id)
            (roleTitle, roleTag, isStaff) = (role.title, role == .administrator ? "tag--purple" : "tag--blue", true)
        }
        isAnonymous = isAnonymousAsker
    }
}

/// "5 min", "3 h", "4 days": how long ago, in the fewest words.
enum DeskAge {
    static func text(since date: Date, now: Date) -> String {
        let minutes = max(0, Int(now.timeIntervalSince(date) / 60))
        if minutes < 1 { return "under a minute" }
        if minutes < 60 { return "\(minutes) min" }
        let hours = minutes / 60
        if hours < 48 { return "\(hours) h" }
        return "\(hours / 24) days"
    }
}

extension DeskThread {
    /// The tag staff see on a question: its accepted answer, that it is answered, or how long it has waited.
    func status(now: Date) -> (title: String, tagClass: String) {
        if acceptedReplyID != nil { return ("Accepted answer", "tag--green") }
        if answeredAt != nil { return ("Answered", "tag--blue") }
        return ("Waiting \(DeskAge.text(since: createdAt, now: now))", "tag--yellow")
    }
}

/// A row of the staff thread list.
struct DeskThreadRow: Fragment {
    static let template = TemplateName.deskThreadRow

    let title: String
    let path: String
    let excerpt: Excerpt
    let askedBy: String
    let asked: String
    let replies: String
    let statusTitle: String
    let statusTag: String
    /// For answered questions, how long since anything happened; a waiting one shows its wait in the tag.
    let age: String?
    let moderationTitle: String?

    init(_ thread: DeskThread, now: Date, clock: ProgramClock) {
        title = thread.title
        path = SiteURL.deskThread(thread.id).path
        excerpt = Excerpt(text: thread.body.text, maxCharacters: 160)
        askedBy = DeskByline(thread.author, in: thread).name
        asked = clock.dateTime(thread.createdAt)
        replies = thread.replyCount == 1 ? "1 reply" : "\(thread.replyCount) replies"
        (statusTitle, statusTag) = thread.status(now: now)
        age = thread.answeredAt == nil ? nil : "Active \(DeskAge.text(since: thread.lastActivityAt, now: now)) ago"
        moderationTitle = thread.moderation == .visible ? nil : thread.moderation.title
    }
}

/// The start of a text, as a list shows it. Holds the whole text and shortens it only when rendered,
/// so a row that is already remembered (see `Fragment`) costs a hash of the text, not a walk through it.
struct Excerpt: Sendable, Hashable, Encodable {
    let text: String
    let maxCharacters: Int

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(SanitizedText.excerpt(of: text, maxCharacters: maxCharacters))
    }
}

struct DeskTab: Sendable, Hashable, Encodable {
    let title: String
    let count: Int
    let path: String
    let isCurrent: Bool
}

/// The search form, the sort and the tabs with their counts above the thread list.
struct DeskListControls: Fragment {
    static let template = TemplateName.deskListControls
    let tabs: [DeskTab]
    let search: String
    let filter: String
    let sortOptions: [FilterOption]
    let isSearching: Bool
    let action = SiteURL.desk.path
}

struct DeskListPage: Page {
    static let template = TemplateName.desk
    let layout: Layout
    let heading: String
    /// The rendered `DeskListControls`.
    let controls: RenderedHTML
    /// The rendered `DeskThreadRow`s.
    let rows: FragmentList
    /// The rendered `PaginationView`.
    let pagination: RenderedHTML
    let isSearching: Bool
    let action = SiteURL.desk.path
    /// Administrators' links to the flag queue and moderation log.
    let flagsPath: String?
    let openFlags: Int
    let moderationLogPath: String?
    let emailSettingsPath: String?
    /// Medical professionals start on the desk, not Home: their way to their password and second factor.
    let changePasswordPath = SiteURL.changePassword.path
    let twoFactorPath = SiteURL.twoFactor.path
}

/// One post (the question or a reply) as the thread page shows it.
struct DeskPostView: Fragment {
    struct Version: Sendable, Hashable, Encodable {
        let html: RenderedHTML
        let replacedAt: String
    }

    let anchor: String
    /// A reply, shown as an item of the thread's list of replies.
    let isListItem: Bool
    let byline: DeskByline
    let posted: String
    let edited: String?
    /// The sanitized HTML, or nil when the post is taken down and this reader may not see it.
    let html: RenderedHTML?
    let moderationTitle: String?
    let moderationReason: String?
    let isAccepted: Bool
    let acceptPath: String?
    let clearAcceptedPath: String?
    let editPath: String?
    let moderatePath: String?
    let restorePath: String?
    let versions: [Version]
    /// "Earlier versions (2)", for administrators when the reply was edited.
    let versionsTitle: String?

    static let template = TemplateName.deskPost
}

struct DeskThreadPage: Page {
    struct Reveal: Sendable, Encodable {
        let text: String
    }

    static let template = TemplateName.deskThread
    let layout: Layout
    let title: String
    let isTakenDown: Bool
    /// The rendered `DeskPostView` of the question, then of each reply.
    let question: RenderedHTML
    let status: String
    let statusTag: String
    let acceptedAnchor: String?
    let replies: FragmentList
    let replyAction: String?
    let errors: [FormErrors.Item]
    let body: String
    let bodyError: String?
    let previewHTML: RenderedHTML?
    let revealPath: String?
    let reveals: [Reveal]
    let listPath = SiteURL.desk.path
}

struct EditReplyPage: Page {
    static let template = TemplateName.deskEditReply
    let layout: Layout
    let action: String
    let threadPath: String
    let body: String
    let errors: [FormErrors.Item]
    let bodyError: String?
    let previewHTML: RenderedHTML?
    /// "7 minutes": how much of the edit window is left.
    let timeLeft: String
}

struct ModeratePostPage: Page {
    struct Choice: Sendable, Encodable {
        let value: String
        let title: String
        let hint: String
        let isChosen: Bool
    }

    static let template = TemplateName.deskModerate
    let layout: Layout
    let heading: String
    let excerpt: String
    let action: String
    let cancelPath: String
    let choices: [Choice]
    let reason: String
    let returnTo: String
    let errors: [FormErrors.Item]
    let choiceError: String?
    let reasonError: String?
}

struct RevealAuthorPage: Page {
    static let template = TemplateName.deskReveal
    let layout: Layout
    let threadTitle: String
    let action: String
    let threadPath: String
    let reason: String
    let errors: [FormErrors.Item]
    let reasonError: String?
    /// Set once revealed: shown on this response only.
    let pseudonym: String?
    let memberPath: String?
}

struct FlaggedPostRow: Sendable {
    let kind: String
    let threadTitle: String
    let threadPath: String
    let excerpt: String
    let flagCount: Int
    let isHidden: Bool
    let reasons: [SummaryListRow]
    let keepPath: String
    let removePath: String
}

extension FlaggedPostRow {
    /// The flagged posts' cards, written in Swift as `TableRows` writes a table's rows (a template section costs the
    /// engine a lookup and several run-time casts for each value): what was flagged and in which question, how many
    /// flags it has and whether they hid it, an excerpt, the reasons given with their times, and the buttons to keep
    /// or remove it. Every text is escaped; the form carries the session's CSRF token as `partials/csrf` writes it.
    static func cards(_ rows: [FlaggedPostRow], csrfToken: String) -> RenderedHTML {
        var html = ""
        html.reserveCapacity(rows.count * 1_200)
        for row in rows {
            html += #"<li class="card flagged"><h2 class="heading-s">"#
            html += HTMLEscaping.escape(row.kind)
            html += #" in <a class="link" href=""#
            html += HTMLEscaping.escape(row.threadPath)
            html += #"">"#
            html += HTMLEscaping.escape(row.threadTitle)
            html += #"</a></h2><p class="body-s"><strong class="tag tag--red">"#
            html += row.flagCount == 1 ? "1 flag" : "\(row.flagCount) flags"
            if row.isHidden { html += ", hidden until reviewed" }
            html += #"</strong></p><div class="inset"><p class="body">"#
            html += HTMLEscaping.escape(row.excerpt)
            html += #"</p></div><h3 class="heading-s">Reasons given</h3><dl class="summary-list">"#
            var reasons = SummaryRows()
            for reason in row.reasons { reasons.row(reason.key, reason.value) }
            html += reasons.html.markup
            html += #"</dl><div class="button-group"><form class="inline-form" method="post" action=""#
            html += HTMLEscaping.escape(row.keepPath)
            html += #""><input type="hidden" name="csrf_token" value=""#
            html += HTMLEscaping.escape(csrfToken)
            html += #""><button class="button button--secondary" type="submit">Keep it</button></form><a class="button button--warning" href=""#
            html += HTMLEscaping.escape(row.removePath)
            html += #"">Remove it</a></div></li>"#
            html += "\n"
        }
        return RenderedHTML(writtenWithEscapedText: html)
    }
}

struct FlagsPage: Page {
    static let template = TemplateName.deskFlags
    let layout: Layout
    /// The rendered cards (`FlaggedPostRow.cards`).
    let rows: RenderedHTML
    let hasRows: Bool
    /// The rendered `PaginationView`.
    let pagination: RenderedHTML
    let deskPath = SiteURL.desk.path
    let flagsToHide = DeskRules.flagsToHide
}

/// The moderation log's rows (`TableRows`): when, who, what, the post (linking to its question) and why.
enum ModerationLogRows {
    static func html(_ entries: [ModerationEntry], clock: ProgramClock) -> TableRows {
        TableRows(entries) { entry, cells in
            cells.text(clock.dateTime(entry.happenedAt))
            cells.text(entry.actorName)
            cells.text(entry.action.title)
            cells.link(DeskModerationController.postName(entry.post), to: SiteURL.deskThread(entry.threadID).path)
            cells.text(entry.reason)
        }
    }
}

struct ModerationLogPage: Page {
    static let template = TemplateName.deskModerationLog
    let layout: Layout
    let errors: [FormErrors.Item]
    /// The action filter's options (`FilterOption.html`).
    let actionOptions: RenderedHTML
    /// The moderator filter's options: anyone, the automatic hiding, and each moderator with entries.
    let moderatorOptions: RenderedHTML
    let moderatorError: String?
    let thread: String
    /// The rendered rows (`ModerationLogRows`).
    let rows: RenderedHTML
    let hasRows: Bool
    /// The rendered `PaginationView`.
    let pagination: RenderedHTML
    let isFiltered: Bool
    let action = SiteURL.deskModerationLog.path
    let exportPath: String
}

struct DeskEmailSettingsPage: Page {
    static let template = TemplateName.deskEmailSettings
    let layout: Layout
    let action = SiteURL.deskEmailSettings.path
    let isOn: Bool
    let email: String?
    let deskPath = SiteURL.desk.path
}

import Foundation
import PortalPlatform

/// The information desk's pages in the member's part of the web app, made from what the member API
/// answers (`DeskAPI.ThreadSummary`, `DeskAPI.Thread`), so they show exactly what the app would.
extension TemplateName {
    static let appDesk = TemplateName("app/desk/list")
    static let appDeskThread = TemplateName("app/desk/thread")
    static let appDeskAsk = TemplateName("app/desk/ask")
    static let appDeskFlag = TemplateName("app/desk/flag")

    static let appDeskTemplates: [TemplateName] = [.appDesk, .appDeskThread, .appDeskAsk, .appDeskFlag]
}

/// Who wrote a post, as the member sees it.
struct DeskAppByline: Encodable, Sendable {
    let name: String
    let role: String?
    let avatarPath: String?

    init(_ author: DeskAPI.Author) {
        name = author.name
        role = author.kind == "staff" ? author.role : nil
        avatarPath = author.avatarUrl
    }
}

struct DeskAppListPage: Page {
    static let template = TemplateName.appDesk

    struct Thread: Encodable, Sendable {
        let title: String
        let path: String
        let excerpt: String
        let byline: DeskAppByline
        let askedByYou: Bool
        let repliesText: String
        let statusText: String?
        let statusTag: String?
    }

    let layout: Layout
    let search: String
    let isSearching: Bool
    let threads: [Thread]
    let pagination: RenderedHTML
    let action = SiteURL.appDesk.path
    let askPath = SiteURL.appDeskAsk.path

    init(layout: Layout, search: String, threads: [DeskAPI.ThreadSummary], pagination: RenderedHTML) {
        self.layout = layout
        self.search = search
        isSearching = !search.isEmpty
        self.pagination = pagination
        self.threads = threads.map { thread in
            let status: (String, String)? =
                thread.hasAcceptedAnswer
                ? ("Answer accepted", "tag--green")
                : thread.isAnswered ? ("Answered", "tag--blue") : nil
            return Thread(
                title: thread.title,
                path: SiteURL.appDeskThread(thread.id).path,
                excerpt: thread.excerpt,
                byline: DeskAppByline(thread.author),
                askedByYou: thread.askedByYou,
                repliesText: thread.replyCount == 1 ? "1 reply" : "\(thread.replyCount) replies",
                statusText: status?.0,
                statusTag: status?.1
            )
        }
    }
}

struct DeskAppThreadPage: Page {
    static let template = TemplateName.appDeskThread

    struct Reply: Encodable, Sendable {
        let anchor: String
        let removedText: String?
        let byline: DeskAppByline?
        let bodyHTML: RenderedHTML?
        let time: String
        let isAccepted: Bool
        let flagPath: String?
    }

    let layout: Layout
    let errors: [FormErrors.Item]
    let notice: String?
    let title: String
    let removed: Bool
    let byline: DeskAppByline?
    let askedByYou: Bool
    let bodyHTML: RenderedHTML?
    let time: String
    let replies: [Reply]
    let flagPath: String?
    let replyAction: String
    let reply: String
    let replyError: String?
    let deskPath = SiteURL.appDesk.path

    init(layout: Layout, thread: DeskAPI.Thread, clock: ProgramClock, reply: String, errors: FormErrors, notice: String?) {
        self.layout = layout
        self.errors = errors.items
        self.notice = notice
        title = thread.title
        removed = thread.removed
        byline = thread.author.map(DeskAppByline.init)
        askedByYou = thread.askedByYou
        bodyHTML = thread.bodyHtml.map(RenderedHTML.init(sanitizedHTML:))
        time = clock.dateTime(thread.createdAt)
        replies = thread.replies.map { reply in
            Reply(
                anchor: "reply-\(reply.id)",
                removedText: reply.removedText,
                byline: reply.author.map(DeskAppByline.init),
                bodyHTML: reply.bodyHtml.map(RenderedHTML.init(sanitizedHTML:)),
                time: clock.dateTime(reply.createdAt),
                isAccepted: reply.isAccepted,
                flagPath: reply.removed ? nil : SiteURL.appDeskReplyFlag(reply.id).path
            )
        }
        flagPath = thread.removed || thread.askedByYou ? nil : SiteURL.appDeskThreadFlag(thread.id).path
        replyAction = SiteURL.appDeskReplies(thread.id).path
        self.reply = reply
        replyError = errors["body"]
    }
}

struct DeskAppAskPage: Page {
    static let template = TemplateName.appDeskAsk
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let body: String
    let bodyError: String?
    let anonymous: Bool
    let action = SiteURL.appDeskAsk.path
    let titleMaximumLength = DeskRules.titleMaximumLength

    init(layout: Layout, title: String = "", body: String = "", anonymous: Bool = false, errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.errors = errors.items
        var fields = [
            FormField(
                "title",
                label: "Your question in a few words",
                value: title,
                hint: "Up to \(DeskRules.titleMaximumLength) characters. Everyone on the desk can read it.",
                width: 30
            )
        ]
        errors.apply(to: &fields)
        self.fields = fields
        self.body = body
        bodyError = errors["body"]
        self.anonymous = anonymous
    }
}

struct DeskAppFlagPage: Page {
    static let template = TemplateName.appDeskFlag
    let layout: Layout
    let errors: [FormErrors.Item]
    let what: String
    let reason: String
    let reasonError: String?
    let action: String
    let threadPath: String

    init(layout: Layout, post: DeskPost, what: String, threadID: Int64, reason: String = "", errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.errors = errors.items
        self.what = what
        self.reason = reason
        reasonError = errors["reason"]
        action =
            switch post {
            case .question(let id): SiteURL.appDeskThreadFlag(id).path
            case .reply(let id): SiteURL.appDeskReplyFlag(id).path
            }
        threadPath = SiteURL.appDeskThread(threadID).path
    }
}

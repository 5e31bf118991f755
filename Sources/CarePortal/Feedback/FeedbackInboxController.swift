import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// One program's feedback inbox: what its people sent from the app, newest first, each message marked
/// handled by staff. The study and memory care each have one; the program says who may open it, where it
/// lives and how its senders are named.
struct FeedbackInbox: Sendable {
    /// Who sent a message, as the inbox names them, and the staff page about them, if any.
    struct Author: Sendable {
        let name: String
        let path: String?
    }

    let program: Program
    let access: Access
    let page: SiteURL
    let handled: @Sendable (Int64) -> SiteURL
    /// Who the program's senders are, for the empty inbox: "participant".
    let sender: String
    let auditAction: AuditAction
    /// The senders of a page's messages, by account.
    let authors: @Sendable ([AppAccountRef], any SQLDatabase) async throws -> [AppAccountRef: Author]

    var repository: FeedbackRepository { FeedbackRepository(program: program) }
}

struct FeedbackInboxController {
    let portal: Portal
    let inbox: FeedbackInbox

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(inbox.page.pattern, access: inbox.access, list)
        routes.post(SiteURL.pattern(inbox.handled), access: inbox.access, markHandled)
    }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let showAll = request.uri.queryParameters.get("show") == "all"
        let pageRequest = try request.pageRequest()
        let (messages, authors) = try await portal.database.read { db in
            let messages = try await inbox.repository.page(pageRequest, unhandledOnly: !showAll, on: db)
            return (messages, try await inbox.authors(Array(Set(messages.items.map(\.author))), db))
        }
        let address = ListAddress(path: inbox.page.path, parameters: showAll ? [("show", "all")] : [])
        return portal.pages.response(
            FeedbackInboxPage(
                layout: portal.layout("Feedback", context: context, current: inbox.page),
                programTitle: inbox.program.title,
                sender: inbox.sender,
                rows: FeedbackInboxItems.html(messages.items, authors: authors, handled: inbox.handled, clock: portal.programSettings.current.clock),
                hasRows: !messages.items.isEmpty,
                pagination: portal.pages.html(PaginationView(messages, address: address, noun: "messages")),
                showingAll: showAll,
                togglePath: showAll ? inbox.page.path : ListAddress(path: inbox.page.path, parameters: [("show", "all")]).string
            )
        )
    }

    @Sendable func markHandled(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let staff = context.staff else { throw HTTPError(.forbidden) }
        let origin = portal.origin(of: request, context: context)
        let now = portal.now
        try await portal.database.transaction { db in
            guard try await inbox.repository.exists(id: id, on: db) else { throw HTTPError(.notFound) }
            guard let author = try await inbox.repository.markHandled(id: id, by: staff.id, now: now, on: db) else { return }
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: inbox.auditAction,
                    recordType: author.role,
                    recordID: "\(author.accountID)",
                    origin: origin,
                    detail: "feedback \(id)"
                ),
                on: db
            )
        }
        try await portal.flash(Flash(.success, "Feedback marked handled."), context: context)
        return seeOther(inbox.page)
    }
}

extension TemplateName {
    static let feedbackInbox = TemplateName("feedback/inbox")
}

/// The inbox's messages as list items, written in Swift as the lists' rows are: each with its sender, time,
/// kind and text (escaped), and a "Mark handled" button while it waits.
enum FeedbackInboxItems {
    static func html(
        _ messages: [FeedbackMessage],
        authors: [AppAccountRef: FeedbackInbox.Author],
        handled: (Int64) -> SiteURL,
        clock: ProgramClock
    ) -> RenderedHTML {
        var html = ""
        html.reserveCapacity(messages.count * 600)
        for message in messages {
            let when = clock.dateTime(message.submittedAt)
            let author = authors[message.author] ?? FeedbackInbox.Author(name: "A deleted account", path: nil)
            html += #"<li class="study-feedback__item"><p class="body-s">"#
            if let path = author.path {
                html += #"<a class="link" href=""# + HTMLEscaping.escape(path) + #"">"# + HTMLEscaping.escape(author.name) + "</a>"
            } else {
                html += HTMLEscaping.escape(author.name)
            }
            html += " · " + HTMLEscaping.escape(when)
            if message.kind != .feedback { html += " · " + HTMLEscaping.escape(message.kind.title) }
            if let handledAt = message.handledAt {
                html += " · " + HTMLEscaping.escape("Handled \(clock.dateTime(handledAt))")
            }
            html += #"</p><p class="body study-feedback__body">"# + HTMLEscaping.escape(message.body) + "</p>"
            if message.handledAt == nil {
                html += #"<button class="button button--secondary" type="submit" form="feedback-actions" formaction=""#
                html += HTMLEscaping.escape(handled(message.id).path)
                html += #"">Mark handled<span class="visually-hidden"> ("# + HTMLEscaping.escape(author.name) + ", " + HTMLEscaping.escape(when)
                html += ")</span></button>"
            }
            html += "</li>\n"
        }
        return RenderedHTML(writtenWithEscapedText: html)
    }
}

struct FeedbackInboxPage: Page {
    static let template = TemplateName.feedbackInbox
    let layout: Layout
    let programTitle: String
    let sender: String
    /// The rendered messages (`FeedbackInboxItems`).
    let rows: RenderedHTML
    let hasRows: Bool
    let pagination: RenderedHTML
    let showingAll: Bool
    let togglePath: String
}

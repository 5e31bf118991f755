import Foundation
import Hummingbird
import PortalPlatform

/// Administrators read the mail the portal has written, and send again what could not be delivered.
struct OutboxController {
    static let access = Access.administrators
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.outbox.pattern, access: Self.access, list)
        routes.get(SiteURL.pattern(SiteURL.outboxMessage), access: Self.access, show)
        routes.post(SiteURL.pattern(SiteURL.outboxRetry), access: Self.access, retry)
    }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let status = request.query("status").flatMap(OutboxMessage.Status.init(rawValue:))
        let pageRequest = try request.pageRequest()
        let page = try await portal.database.read { db in try await portal.outbox.list(status: status, page: pageRequest, on: db) }
        let address = ListAddress(path: SiteURL.outbox.path, parameters: [("status", status?.rawValue)])
        return portal.pages.response(
            OutboxPage(
                layout: portal.layout("Outbox", context: context, current: .outbox),
                deliveryConfigured: portal.deliversMail,
                statusOptions: FilterOption.html(
                    [FilterOption(value: "", title: "All messages", isSelected: status == nil)]
                        + OutboxMessage.Status.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == status) }
                ),
                rows: OutboxRow.html(page.items, clock: portal.programSettings.current.clock),
                pagination: portal.pages.html(PaginationView(page, address: address, noun: "messages")),
                isFiltered: status != nil
            )
        )
    }

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let message = try await portal.database.read({ db in try await portal.outbox.find(id: id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return portal.pages.response(
            OutboxMessagePage(
                layout: portal.layout(message.subject, context: context, current: .outbox),
                row: OutboxRow(message, clock: portal.programSettings.current.clock),
                body: message.maskedBody,
                bodyGone: message.body == nil
                    ? (message.status == .sent
                        ? "Once an email is delivered only its recipient, subject, times and status are kept, not its text."
                        : "This email's text does not open with this server's sealing key.") : nil,
                lastError: message.lastError,
                retryPath: message.status == .failed ? SiteURL.outboxRetry(id).path : nil
            )
        )
    }

    @Sendable func retry(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        try await portal.database.transaction { db in
            guard try await portal.outbox.find(id: id, on: db) != nil else { throw HTTPError(.notFound) }
            try await portal.outbox.retry(id: id, on: db)
        }
        try await portal.flash(Flash(.success, "The message will be sent again now."), context: context)
        return seeOther(.outboxMessage(id))
    }
}

struct OutboxRow: Sendable, Encodable {
    let path: String
    let created: String
    let recipient: String
    let subject: String
    let statusTitle: String
    let statusTag: String
    let attempts: Int
    let sent: String?

    init(_ message: OutboxMessage, clock: ProgramClock) {
        path = SiteURL.outboxMessage(message.id).path
        created = clock.dateTime(message.createdAt)
        recipient = message.recipient
        subject = message.subject
        statusTitle = message.status.title
        statusTag = Self.tone(message.status).tagClass
        attempts = message.attempts
        sent = message.sentAt.map(clock.dateTime)
    }

    static func tone(_ status: OutboxMessage.Status) -> TableRows.TagTone {
        switch status {
        case .pending: .blue
        case .sent: .green
        case .failed: .red
        }
    }

    /// The outbox's rows (`TableRows`): when it was written, to whom, its subject linking to it, its status and attempts.
    static func html(_ messages: [OutboxMessage], clock: ProgramClock) -> TableRows {
        TableRows(messages) { message, cells in
            cells.text(clock.dateTime(message.createdAt))
            cells.text(message.recipient)
            cells.link(message.subject, to: SiteURL.outboxMessage(message.id).path)
            cells.tag(message.status.title, tone: tone(message.status))
            cells.number("\(message.attempts)")
        }
    }
}

struct OutboxPage: Page {
    static let template = TemplateName.outbox
    let layout: Layout
    let deliveryConfigured: Bool
    /// The filter's options (`FilterOption.html`).
    let statusOptions: RenderedHTML
    /// The table's rows (`OutboxRow.html`), every text escaped.
    let rows: RenderedHTML
    let hasRows: Bool
    /// The rendered `PaginationView`.
    let pagination: RenderedHTML
    let isFiltered: Bool
    let action = SiteURL.outbox.path

    init(layout: Layout, deliveryConfigured: Bool, statusOptions: RenderedHTML, rows: TableRows, pagination: RenderedHTML, isFiltered: Bool) {
        self.layout = layout
        self.deliveryConfigured = deliveryConfigured
        self.statusOptions = statusOptions
        self.rows = rows.html
        self.hasRows = !rows.isEmpty
        self.pagination = pagination
        self.isFiltered = isFiltered
    }
}

struct OutboxMessagePage: Page {
    static let template = TemplateName.outboxMessage
    let layout: Layout
    let row: OutboxRow
    /// The text with every secret in it masked (`OutboxMessage.maskedBody`): links and tokens are never shown.
    let body: String?
    /// Why there is no text.
    let bodyGone: String?
    let lastError: String?
    let retryPath: String?
    let outboxPath = SiteURL.outbox.path
}

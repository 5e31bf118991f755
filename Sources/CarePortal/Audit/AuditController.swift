import Foundation
import HTTPTypes
import Hummingbird
import PortalPlatform

/// Administrators read the audit log, filter it and export it as CSV.
struct AuditController {
    static let access = Access.administrators
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.auditLog.pattern, access: Self.access, list)
        routes.get(SiteURL.auditLogExport.pattern, access: Self.access, export)
    }

    /// The filters as typed, with the problems found in them.
    private struct Filters {
        var query = AuditQuery()
        var fromText = ""
        var toText = ""
        var errors = FormErrors()

        init(request: Request, vocabulary: AuditVocabulary) throws {
            query.person = request.query("person") ?? ""
            query.record = request.query("record") ?? ""
            query.action = request.query("action").flatMap(vocabulary.action)
            fromText = request.query("from") ?? ""
            toText = request.query("to") ?? ""
            if !fromText.isEmpty {
                if let day = DisplayTime.day(fromText) {
                    query.from = day
                } else {
                    errors.add("from", "Enter the start date as year-month-day, like 2026-11-01")
                }
            }
            if !toText.isEmpty {
                // "To" includes the whole of that day.
                if let day = DisplayTime.day(toText) {
                    query.until = day.addingTimeInterval(86_400)
                } else {
                    errors.add("to", "Enter the end date as year-month-day, like 2026-11-30")
                }
            }
            if let from = query.from, let until = query.until, from >= until {
                errors.add("to", "The end date must be the same as or after the start date")
            }
            query.page = try request.pageRequest(size: 50)
        }

        /// The filters in words, for the audit entry of an export.
        var description: String {
            parameters.compactMap { name, value in value.flatMap { $0.isEmpty ? nil : "\(name)=\($0)" } }.joined(separator: " ")
        }

        var parameters: [(String, String?)] {
            [("person", query.person), ("action", query.action?.rawValue), ("from", fromText), ("to", toText), ("record", query.record)]
        }
    }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let filters = try Filters(request: request, vocabulary: portal.auditVocabulary)
        let page =
            filters.errors.isEmpty
            ? try await portal.database.read { db in try await portal.audit.list(filters.query, on: db) }
            : PageOf<AuditEntry>(items: [], totalCount: 0, request: filters.query.page)
        let address = ListAddress(path: SiteURL.auditLog.path, parameters: filters.parameters)
        var fields = [
            FormField("person", label: "Person", value: filters.query.person, hint: "A username or account number"),
            FormField("from", label: "From", value: filters.fromText, hint: "For example, 2026-11-01", type: "date", width: 10),
            FormField("to", label: "To", value: filters.toText, hint: "For example, 2026-11-30", type: "date", width: 10)
        ]
        filters.errors.apply(to: &fields)
        return portal.pages.response(
            AuditLogPage(
                layout: portal.layout("Audit log", context: context, current: .auditLog),
                errors: filters.errors.items,
                fields: fields,
                actionOptions: [FilterOption(value: "", title: "All actions", isSelected: filters.query.action == nil)]
                    + portal.auditVocabulary.actions.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == filters.query.action) },
                rows: AuditRow.html(page.items, vocabulary: portal.auditVocabulary, clock: portal.programSettings.current.clock),
                pagination: portal.pages.html(PaginationView(page, address: address, noun: "entries")),
                exportPath: ListAddress(path: SiteURL.auditLogExport.path, parameters: filters.parameters).string
            ),
            status: filters.errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    static let csvHeader = [
        "id", "occurred_at_utc", "actor_account_id", "actor_role", "actor_name", "action", "record_type", "record_id",
        "outcome", "address", "user_agent", "detail"
    ]

    @Sendable func export(request: Request, context: PortalContext) async throws -> Response {
        let filters = try Filters(request: request, vocabulary: portal.auditVocabulary)
        guard filters.errors.isEmpty else { throw HTTPError(.badRequest) }
        let event = AuditEvent(
            actor: context.auditActor,
            action: .auditLogExported,
            recordType: "audit_log",
            origin: portal.origin(of: request, context: context),
            detail: filters.description
        )
        try await portal.database.write { db in try await portal.audit.record(event, on: db) }
        let fileName = "audit-log-\(DisplayTime.isoDate(portal.now)).csv"
        return Response(
            status: .ok,
            headers: [.contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"\(fileName)\""],
            body: Self.csvBody(portal: portal, query: filters.query)
        )
    }

    /// Streams the export in batches, so a long log is never held in memory at once.
    private static func csvBody(portal: Portal, query: AuditQuery) -> ResponseBody {
        ResponseBody { writer in
            try await writer.write(ByteBuffer(bytes: try CSVExport.bytes(rows: [csvHeader])))
            var lastID: Int64 = 0
            while true {
                let after = lastID
                let entries = try await portal.database.read { db in
                    try await portal.audit.entries(query, after: after, limit: 1000, on: db)
                }
                guard let last = entries.last else { break }
                try await writer.write(ByteBuffer(bytes: try CSVExport.bytes(rows: entries.map(csvRow))))
                lastID = last.id
            }
            try await writer.finish(nil)
        }
    }

    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func csvRow(_ entry: AuditEntry) -> [String] {
        [
            "\(entry.id)", timestampStyle.format(entry.occurredAt), entry.actorAccountID.map { "\($0)" } ?? "",
            entry.actorRole ?? "", entry.actorName ?? "", entry.action, entry.recordType ?? "", entry.recordID ?? "",
            entry.outcome, entry.address ?? "", entry.userAgent ?? "", entry.detail ?? ""
        ]
    }
}

/// One entry as the log's table shows it.
struct AuditRow: Sendable {
    let time: String
    let person: String
    let role: String
    let action: String
    let record: String
    let outcome: String
    let succeeded: Bool
    let address: String
    let detail: String

    init(_ entry: AuditEntry, vocabulary: AuditVocabulary, clock: ProgramClock) {
        time = clock.dateTime(entry.occurredAt)
        person = [entry.actorName, entry.actorAccountID.map { "#\($0)" }].compactMap { $0 }.joined(separator: " ")
        role = entry.actorRole.flatMap(StaffRole.init(rawValue:))?.title ?? entry.actorRole ?? "—"
        action = vocabulary.title(of: entry.action)
        record = [entry.recordType, entry.recordID].compactMap { $0 }.joined(separator: " ")
        outcome = entry.outcome.prefix(1).uppercased() + entry.outcome.dropFirst()
        succeeded = entry.outcome == AuditOutcome.success.rawValue
        address = entry.address ?? "—"
        detail = entry.detail ?? ""
    }

    /// The table's rows (`TableRows`: a page holds 50 entries of six cells each).
    static func html(_ entries: [AuditEntry], vocabulary: AuditVocabulary, clock: ProgramClock) -> TableRows {
        var rows = TableRows(expectedRows: entries.count)
        for entry in entries {
            let shown = AuditRow(entry, vocabulary: vocabulary, clock: clock)
            rows.row { cells in
                cells.text(shown.time)
                cells.text(shown.person, note: shown.role)
                cells.text(shown.action, note: shown.detail)
                cells.text(shown.record)
                cells.tag(shown.outcome, tone: shown.succeeded ? .green : .red)
                cells.text(shown.address)
            }
        }
        return rows
    }
}

struct AuditLogPage: Page {
    static let template = TemplateName.auditLog
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    /// The action filter's options (`FilterOption.html`).
    let actionOptions: RenderedHTML
    /// The table's rows, every text escaped.
    let rows: RenderedHTML
    let hasRows: Bool
    /// The rendered `PaginationView`.
    let pagination: RenderedHTML
    let exportPath: String
    let action = SiteURL.auditLog.path

    init(
        layout: Layout,
        errors: [FormErrors.Item],
        fields: [FormField],
        actionOptions: [FilterOption],
        rows: TableRows,
        pagination: RenderedHTML,
        exportPath: String
    ) {
        self.layout = layout
        self.errors = errors
        self.fields = fields
        self.actionOptions = FilterOption.html(actionOptions)
        self.rows = rows.html
        self.hasRows = !rows.isEmpty
        self.pagination = pagination
        self.exportPath = exportPath
    }
}

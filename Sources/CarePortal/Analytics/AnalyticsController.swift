import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// The Analytics pages: graphs of what members did, for the choices in the address, each with its table
/// and CSV download of exactly those numbers; and the de-identified event export, audited.
struct AnalyticsController {
    /// Administrators and the program's researchers: graphs and de-identified exports only.
    static let access = Access.staff([.administrator, .researcher])
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.analytics.pattern, access: Self.access, overview)
        for topic in AnalyticsReports.Topic.allCases {
            routes.get(SiteURL.analyticsTopic(topic).pattern, access: Self.access) { request, context in
                try await show(topic, request: request, context: context)
            }
        }
        routes.get(SiteURL.analyticsDownload.pattern, access: Self.access, download)
        routes.get(SiteURL.analyticsExport.pattern, access: Self.access, showExport)
        routes.post(SiteURL.analyticsExport.pattern, access: Self.access, export)
    }

    static func queryPairs(_ request: Request) -> [(String, String)] {
        request.uri.queryParameters.map { (String($0.key), String($0.value)) }
    }

    /// Reads `name=value&…` as a browser sends a form, keeping repeated names.
    static func formPairs(_ body: String) -> [(String, String)] {
        body.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String? { text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decoded(parts[0]) else { return nil }
            return (name, parts.count > 1 ? decoded(parts[1]) ?? "" : "")
        }
    }

    private func makeReports(_ query: [(String, String)], db: any SQLDatabase) async throws -> AnalyticsReports {
        let repository = AnalyticsRepository()
        let cohorts = AnalyticsCohort.grouped(try await MemberRepository().cohorts(on: db), members: try await repository.memberCounts(on: db))
        let choices = AnalyticsChoices(query: query, cohorts: cohorts)
        let recorded = try await repository.recordedDays(on: db)
        let address = ListAddress(path: SiteURL.analyticsDownload.path, parameters: choices.query)
        return AnalyticsReports(
            choices: choices,
            cohorts: cohorts,
            recorded: recorded,
            clock: portal.programSettings.current.clock,
            now: portal.now,
            csvPath: { graph in ListAddress(path: address.path, parameters: [("graph", graph)] + address.parameters).string }
        )
    }

    @Sendable func overview(request: Request, context: PortalContext) async throws -> Response {
        let clock = portal.programSettings.current.clock
        let today = AnalyticsDay(clock.date(of: portal.now))
        let (events, active) = try await portal.database.read { db -> (Int64, Int64) in
            let repository = AnalyticsRepository()
            let events = try await repository.counts(kind: .moodRecorded, in: today...today, by: .day, cohortIDs: [], perCohort: false, on: db)
            let active = try await repository.activeMemberCount(in: AnalyticsDay(today.number - 6)...today, on: db)
            return (events.reduce(0) { $0 + $1.events }, Int64(active))
        }
        return portal.pages.response(
            AnalyticsOverviewPage(
                layout: portal.layout("Analytics", context: context, current: .analytics),
                topics: AnalyticsReports.Topic.allCases.map { .init(title: $0.title, summary: $0.summary, path: SiteURL.analyticsTopic($0).path) },
                exportPath: SiteURL.analyticsExport.path,
                eventsToday: Disclosure.count(events).text,
                activeLastWeek: Disclosure.count(active).text
            )
        )
    }

    func show(_ topic: AnalyticsReports.Topic, request: Request, context: PortalContext) async throws -> Response {
        let (reports, graphs, surveys, refusal) = try await portal.database.read {
            db -> (AnalyticsReports, [ChartFigure], [FilterOption]?, String?) in
            let reports = try await makeReports(Self.queryPairs(request), db: db)
            let surveys = topic == .surveys ? try await reports.surveyOptions(on: db) : nil
            if let refusal = try await reports.tooFewMembers(on: db) { return (reports, [], surveys, refusal) }
            return (reports, try await reports.graphs(topic, on: db), surveys, nil)
        }
        return portal.pages.response(
            AnalyticsTopicPage(
                layout: portal.layout(topic.title, context: context, current: .analytics),
                heading: topic.title,
                summary: topic.summary,
                overviewPath: SiteURL.analytics.path,
                periodText: "\(reports.scopeName), \(reports.periodText)",
                form: AnalyticsChoicesForm(
                    action: SiteURL.analyticsTopic(topic).path,
                    choices: reports.choices,
                    cohorts: reports.cohorts,
                    period: reports.period,
                    surveys: surveys
                ),
                graphs: graphs.map(portal.pages.html),
                nothingToShow: refusal ?? (graphs.isEmpty ? topic.nothingToShow : nil)
            )
        )
    }

    /// One graph's numbers as CSV: the same rows and words as the table beneath it.
    @Sendable func download(request: Request, context: PortalContext) async throws -> Response {
        let wanted = request.query("graph") ?? ""
        let found = try await portal.database.read { db -> (ChartFigure, AnalyticsReports)? in
            let reports = try await makeReports(Self.queryPairs(request), db: db)
            if try await reports.tooFewMembers(on: db) != nil { return nil }
            for topic in AnalyticsReports.Topic.allCases {
                if let figure = try await reports.graphs(topic, on: db).first(where: { $0.id == wanted }) { return (figure, reports) }
            }
            return nil
        }
        guard let (figure, reports) = found else { throw HTTPError(.notFound) }
        let rows = [figure.table.columns.map(\.title)] + figure.table.rows.map { $0.cells.map(\.text) }
        let name = "\(figure.id)-\(reports.period.lowerBound.date.iso)-to-\(reports.period.upperBound.date.iso).csv"
        return try Self.csv(rows, name: name)
    }

    static func csv(_ rows: [[String]], name: String) throws -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"\(name)\""],
            body: .init(byteBuffer: ByteBuffer(bytes: try CSVExport.bytes(rows: rows)))
        )
    }

    @Sendable func showExport(request: Request, context: PortalContext) async throws -> Response {
        let reports = try await portal.database.read { db -> AnalyticsReports in try await makeReports(Self.queryPairs(request), db: db) }
        return portal.pages.response(
            AnalyticsExportPage(
                layout: portal.layout("Export events", context: context, current: .analytics),
                overviewPath: SiteURL.analytics.path,
                action: SiteURL.analyticsExport.path,
                csrfToken: context.session?.csrfToken ?? "",
                form: AnalyticsChoicesForm(
                    action: SiteURL.analyticsExport.path,
                    choices: reports.choices,
                    cohorts: reports.cohorts,
                    period: reports.period
                ),
                columns: AnalyticsExport.columns
            )
        )
    }

    /// Every event of the chosen period and cohorts, de-identified (`AnalyticsExport.rows`), as CSV; the export itself
    /// is audited.
    @Sendable func export(request: Request, context: PortalContext) async throws -> Response {
        var copy = request
        let body = String(buffer: try await copy.collectBody(upTo: context.maxUploadSize))
        let clock = portal.programSettings.current.clock
        let exporter = AnalyticsExport(randomBytes: portal.dependencies.randomBytes)
        let (reports, rows) = try await portal.database.transaction { db -> (AnalyticsReports, [[String]]) in
            let reports = try await makeReports(Self.formPairs(body), db: db)
            let start = clock.instant(startOf: reports.period.lowerBound.date)
            let end = clock.instant(startOf: reports.period.upperBound.date.adding(days: 1))
            var events: [AnalyticsRepository.ExportedEvent] = []
            try await AnalyticsRepository().events(from: start, until: end, cohortIDs: reports.chosenCohortIDs, on: db) { batch in
                events += batch
            }
            let (body, left) = exporter.rows(events, cohorts: reports.cohorts, clock: clock)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .analyticsExported,
                    recordType: "events",
                    origin: portal.origin(of: request, context: context),
                    detail: "\(body.count) events (\(left) left out, too few members alike), \(reports.scopeName), \(reports.periodText)"
                ),
                on: db
            )
            return (reports, [AnalyticsExport.columns.map(\.name)] + body)
        }
        return try Self.csv(rows, name: "events-deidentified-\(reports.period.lowerBound.date.iso)-to-\(reports.period.upperBound.date.iso).csv")
    }
}

import Foundation
import Hummingbird
import PortalPlatform

extension TemplateName {
    static let appRecordOpenings = TemplateName("app/record-openings")
}

/// "Who opened my record" in the web app, for one kind of account: the same openings its API answers,
/// 20 to a page, newest first. Each part of the app adds it with its own address and navigation, and
/// `refuse` sends her elsewhere first where her part must (a participant still holding her one-time
/// password is sent to choose her own).
struct AppRecordOpeningsPages: Sendable {
    let portal: Portal
    let openings: RecordOpenings
    let kind: AppAccountKind
    let url: SiteURL
    let navigation: AppNavigation
    /// Where she must go before this page opens, if anywhere.
    var refuse: @Sendable (PortalContext) async throws -> Response? = { _ in nil }

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(url.pattern, access: .appPage(kind), show)
    }

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        guard let holder = context.appAccount, holder.kind == kind else { throw HTTPError(.notFound) }
        if let elsewhere = try await refuse(context) { return elsewhere }
        let number = min(max(1, request.pageNumber), 100_000)
        let hiding = portal.programSettings.current.hidesStaffNamesFromPeople
        let page = try await portal.database.read { db in try await openings.page(number, of: holder.accountID, hidingNames: hiding, on: db) }
        return portal.pages.response(
            AppRecordOpeningsPage(
                layout: portal.appLayout("Who opened your record", context: context, navigation: navigation, currentPath: url.path),
                page: page,
                clock: portal.programSettings.current.clock,
                path: url.path
            )
        )
    }
}

struct AppRecordOpeningsPage: Page {
    struct Row: Encodable, Sendable {
        let when: String
        let by: String
        let why: String
    }

    static let template = TemplateName.appRecordOpenings
    let layout: Layout
    let rows: [Row]
    let isEmpty: Bool
    let pageText: String?
    let newerPath: String?
    let olderPath: String?

    init(layout: Layout, page: RecordOpenings.Page, clock: ProgramClock, path: String) {
        self.layout = layout
        rows = page.openings.map { Row(when: clock.dateTime($0.openedAt), by: $0.by, why: $0.why) }
        isEmpty = page.totalCount == 0
        pageText = page.pageCount > 1 ? "Page \(page.page) of \(page.pageCount)" : nil
        newerPath = page.page > 1 ? "\(path)?page=\(page.page - 1)" : nil
        olderPath = page.page < page.pageCount ? "\(path)?page=\(page.page + 1)" : nil
    }
}

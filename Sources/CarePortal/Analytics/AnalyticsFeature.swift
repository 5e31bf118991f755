import Foundation
import PortalPlatform
import SQLKit

/// Research analytics: what members did (the events every feature records, and the app opens and section
/// views the app sends), drawn as graphs on the server from aggregates kept as events are written, with
/// small counts withheld and a de-identified export.
struct AnalyticsFeature: PortalFeature {
    static let program: Program? = .perinatalCommunity
    static let navigation = [
        NavigationItem(title: "Analytics", path: SiteURL.analytics.path, access: AnalyticsController.access, group: .analytics)
    ]
    static let auditActions: [AuditAction] = [.analyticsExported]
    static let templates: [TemplateName] = [.analyticsOverview, .analyticsTopic, .analyticsExport]

    let portal: Portal

    init(portal: Portal) {
        self.portal = portal
    }

    func addRoutes(to routes: inout PortalRoutes) {
        AnalyticsController(portal: portal).addRoutes(to: &routes)
        AppEventsAPI(portal: portal).addRoutes(to: &routes)
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        try await demo.seedAnalytics(on: db)
    }

    static func homeCards(for staff: StaffAccount, portal: Portal) async throws -> [HomeCard] {
        guard AnalyticsController.access.allows(staff.role) else { return [] }
        let home = try await AnalyticsHome.figures(clock: portal.programSettings.current.clock, now: portal.now, database: portal.database)
        return [
            HomeCard(
                title: "Analytics",
                path: SiteURL.analyticsTopic(.activity).path,
                body: "Open the graphs of sign-ins and app opens, moods and the sections members use, with tables and CSV.",
                figures: [HomeFigure(label: "Members active in the last 7 days", value: home.lastWeek, detail: home.comparison)],
                charts: home.sparklines.map { portal.pages.html($0.figure) }
            )
        ]
    }
}

/// The administrators' home's view of the analytics: members active in the last 7 days against the 7
/// before, and the last 28 days of active members and app opens as sparklines. Exact counts: this is
/// the program's own operational overview, not a published statistic.
struct AnalyticsHome: Sendable {
    static let sparklineDays = 28

    let lastWeek: Int
    let weekBefore: Int
    let sparklines: [Sparkline]

    var comparison: String {
        let change = lastWeek - weekBefore
        let direction = change == 0 ? "the same number" : change > 0 ? "\(ChartFormat.count(change)) more" : "\(ChartFormat.count(-change)) fewer"
        return "\(ChartFormat.count(weekBefore)) in the 7 days before: \(direction)."
    }

    static func figures(clock: ProgramClock, now: Date, database: Database) async throws -> AnalyticsHome {
        let today = AnalyticsDay(clock.date(of: now))
        let days = (0..<sparklineDays).map { AnalyticsDay(today.number - sparklineDays + 1 + $0) }
        let period = days[0]...today
        let repository = AnalyticsRepository()
        let (lastWeek, weekBefore, active, opens) = try await database.read { db in
            (
                try await repository.activeMemberCount(in: AnalyticsDay(today.number - 6)...today, on: db),
                try await repository.activeMemberCount(in: AnalyticsDay(today.number - 13)...AnalyticsDay(today.number - 7), on: db),
                try await repository.activeMembers(in: period, by: .day, cohortIDs: [], perCohort: false, on: db),
                try await repository.counts(kind: .appOpened, in: period, by: .day, cohortIDs: [], perCohort: false, on: db)
            )
        }
        let activeByDay = Dictionary(active.map { ($0.bucket, Int($0.members)) }, uniquingKeysWith: +)
        let opensByDay = Dictionary(opens.map { ($0.bucket, Int($0.events)) }, uniquingKeysWith: +)
        let labels = days.map { $0.date.short }
        func sparkline(id: String, title: String, noun: String, _ values: [Int]) -> Sparkline {
            let range = "from \(days[0].date.displayed) to \(today.date.displayed)"
            let summary =
                "\(title) \(range): at least \(ChartFormat.count(values.min() ?? 0)), at most \(ChartFormat.count(values.max() ?? 0)), and \(ChartFormat.count(values.last ?? 0)) today."
            return Sparkline(
                ChartDescription(id: id, title: "\(title), last \(sparklineDays) days", summary: summary, valueTitle: noun, categoryTitle: "Day"),
                categories: labels,
                values: values.map { ChartValue.count($0) }
            )
        }
        return AnalyticsHome(
            lastWeek: lastWeek,
            weekBefore: weekBefore,
            sparklines: [
                sparkline(
                    id: "home-active-members",
                    title: "Members active each day",
                    noun: "Active members",
                    days.map { activeByDay[$0.number] ?? 0 }
                ),
                sparkline(id: "home-app-opens", title: "App opens each day", noun: "App opens", days.map { opensByDay[$0.number] ?? 0 })
            ]
        )
    }
}

extension NavigationGroup {
    static let analytics = NavigationGroup("Analytics", order: 40)
}

extension TemplateName {
    static let analyticsOverview = TemplateName("analytics/overview")
    static let analyticsTopic = TemplateName("analytics/topic")
    static let analyticsExport = TemplateName("analytics/export")
}

extension AuditAction {
    static let analyticsExported = AuditAction("analytics_exported", title: "De-identified events exported")
}

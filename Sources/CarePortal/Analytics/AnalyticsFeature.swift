import Foundation
import PortalPlatform
import SQLKit

/// Research analytics: what members did (the events every feature records, and the app opens and section
/// views the app sends), drawn as graphs on the server from aggregates kept as events are written, with
/// small counts withheld and a de-identified export.
struct AnalyticsFeature: PortalFeature {
    static let program: Program? = .perinatalCommunity
    static let navigation = [
        NavigationItem(title: "Analytics", path: SiteURL.analytics.path, access: AnalyticsController.access, group: .analytics),
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

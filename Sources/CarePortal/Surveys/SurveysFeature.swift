import Foundation
import PortalPlatform
import SQLKit

/// Surveys for members: administrators write them (single choice, multiple choice, a 1–5 scale, short
/// free text), publish them for a span of days to every member or chosen cohorts, and read the results;
/// members see an open survey on the app's home screen until they answer it, once, for points.
struct SurveysFeature: PortalFeature {
    static let program: Program? = .perinatalCommunity
    static let navigation = [
        NavigationItem(title: "Surveys", path: SiteURL.surveys.path, access: SurveysController.access, group: .learning)
    ]
    static let auditActions: [AuditAction] = [
        .surveyCreated, .surveyChanged, .surveyPublished, .surveyAnnounced, .surveyClosed, .surveyResultsExported
    ]
    static let templates: [TemplateName] = [
        .surveys, .surveyForm, .survey, .surveyQuestion, .surveyResults, .surveyTextAnswers, .appSurveys, .appSurvey
    ]
    static let notificationKinds: [NotificationKind] = [.surveyOpen]
    /// Surveys whose first day has come are looked for this often, so members hear within seconds of midnight.
    static let announceInterval: Duration = .seconds(10)

    let portal: Portal
    let surveys: Surveys

    init(portal: Portal) {
        self.portal = portal
        surveys = Surveys(portal: portal)
    }

    func addRoutes(to routes: inout PortalRoutes) {
        SurveysController(portal: portal, surveys: surveys).addRoutes(to: &routes)
        SurveysAPIController(portal: portal, surveys: surveys).addRoutes(to: &routes)
        SurveysAppController(portal: portal, surveys: surveys).addRoutes(to: &routes)
    }

    var jobs: [BackgroundJob] {
        let surveys = self.surveys
        return [BackgroundJob("Survey announcements", every: Self.announceInterval) { try await surveys.announceDue() }]
    }

    static func homeCards(for staff: StaffAccount, portal: Portal) async throws -> [HomeCard] {
        guard staff.role == .administrator else { return [] }
        return [HomeCard(title: "Surveys", path: SiteURL.surveys.path, body: "Ask members questions in the app and read what they answer.")]
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        try await demo.seedSurveys(on: db)
    }

    /// A deleted member's responses go with her account, first taken off their surveys' kept counts.
    static func deletingMember(_ memberID: Int64, portal: Portal, on db: any SQLDatabase) async throws -> Contributions.AfterMemberDeletion? {
        try await SurveyRepository().uncountResponses(byMember: memberID, on: db)
        return nil
    }
}

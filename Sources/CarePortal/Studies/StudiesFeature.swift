import Foundation
import PortalPlatform
import SQLKit

/// A research study run in the portal (seed 001): participants enrolled by staff with an app login,
/// daily to-dos that close at midnight on the program's clock, app opens, feedback, the contact page,
/// the dashboard and the exports. For administrators and researchers.
struct StudiesFeature: PortalFeature {
    static let program: Program? = .researchStudy
    static let navigation = [
        NavigationItem(title: "Study", path: SiteURL.studies.path, access: .studyStaff, group: .study),
        NavigationItem(title: "Participants", path: SiteURL.studyParticipants.path, access: .studyStaff, group: .study),
        NavigationItem(title: "Daily to-dos", path: SiteURL.studyTodos.path, access: .studyStaff, group: .study),
        NavigationItem(title: "Feedback", path: SiteURL.studyFeedback.path, access: .studyStaff, group: .study),
        NavigationItem(title: "Contact page", path: SiteURL.studyContact.path, access: .studyStaff, group: .study),
        NavigationItem(title: "Care locations", path: SiteURL.studyLocations.path, access: .studyStaff, group: .study),
        NavigationItem(title: "Videos", path: SiteURL.studyVideos.path, access: .studyStaff, group: .study),
        NavigationItem(title: "Exports", path: SiteURL.studyExports.path, access: .studyStaff, group: .study)
    ]
    static let auditActions: [AuditAction] = [
        .studyParticipantEnrolled, .studyParticipantViewed, .studyParticipantWithdrawn, .studyParticipantDeleted,
        .studyTodoChanged, .studyFeedbackHandled, .studyContactChanged, .studyExported,
        .studyClaimTokenSent, .studyClaimTokenRevoked, .studyAccountClaimed
    ]
    static let templates: [TemplateName] = [
        .studyDashboard, .studyParticipants, .studyEnrol, .studyEnrolled, .studyParticipant, .studyDelete,
        .studyTodos, .studyTodo, .feedbackInbox, .studyContact, .studyExports,
        .appStudyToday, .appStudyProgress, .appStudyContact, .appStudyPassword, .appStudyClaim, .appStudyVideos
    ]
    static let appAccounts: [AppAccountKind] = [.participant]
    static let appParts = [
        AppPart(
            kind: .participant,
            title: "Study participants",
            summary: "Today’s to-dos, your progress, the study’s videos, feedback for the study team, how to reach them and where to find care.",
            demoIdentifier: "demo-001"
        )
    ]

    let portal: Portal

    init(portal: Portal) {
        self.portal = portal
    }

    func addRoutes(to routes: inout PortalRoutes) {
        StudyParticipantsController(portal: portal).addRoutes(to: &routes)
        StudyTodosController(portal: portal).addRoutes(to: &routes)
        StudyContactController(portal: portal).addRoutes(to: &routes)
        FeedbackInboxController(portal: portal, inbox: .researchStudy).addRoutes(to: &routes)
        StudyExportsController(portal: portal).addRoutes(to: &routes)
        StudyDashboardController(portal: portal).addRoutes(to: &routes)
        StudyAPIController(portal: portal).addRoutes(to: &routes)
        ParticipantAppController(portal: portal).addRoutes(to: &routes)
        HelpDirectoryController(portal: portal, directory: HelpDirectory(portal: portal, list: .study)).addRoutes(to: &routes)
        VideoLibraryController(portal: portal, library: .study).addRoutes(to: &routes)
    }

    static func homeCards(for staff: StaffAccount, portal: Portal) async throws -> [HomeCard] {
        guard Access.studyStaff.allows(staff.role) else { return [] }
        return [
            HomeCard(
                title: "Research study",
                path: SiteURL.studies.path,
                body: "Participants, their daily to-dos, feedback and the study's exports."
            )
        ]
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        try await StudiesDemo.seed(demo, on: db)
    }
}

extension Program {
    static let researchStudy = Program(
        id: "research_study",
        title: "Research study",
        summary: "Study participants and their app, daily to-dos, feedback, the study dashboard and its exports."
    )
}

extension NavigationGroup {
    static let study = NavigationGroup("Study", order: 45)
}

extension TemplateName {
    static let studyDashboard = TemplateName("studies/dashboard")
    static let studyParticipants = TemplateName("studies/participants")
    static let studyEnrol = TemplateName("studies/enrol")
    static let studyEnrolled = TemplateName("studies/enrolled")
    static let studyParticipant = TemplateName("studies/participant")
    static let studyDelete = TemplateName("studies/delete")
    static let studyTodos = TemplateName("studies/todos")
    static let studyTodo = TemplateName("studies/todo")
    static let studyContact = TemplateName("studies/contact")
    static let studyExports = TemplateName("studies/exports")
}

extension AuditAction {
    static let studyParticipantEnrolled = AuditAction("study_participant_enrolled", title: "Study participant enrolled")
    static let studyParticipantViewed = AuditAction("study_participant_viewed", title: "Study participant's record opened")
    static let studyParticipantWithdrawn = AuditAction("study_participant_withdrawn", title: "Study participant withdrawn")
    static let studyParticipantDeleted = AuditAction("study_participant_deleted", title: "Study participant's data deleted")
    static let studyTodoChanged = AuditAction("study_todo_changed", title: "Study daily to-do changed")
    static let studyFeedbackHandled = AuditAction("study_feedback_handled", title: "Study feedback marked handled")
    static let studyContactChanged = AuditAction("study_contact_changed", title: "Study contact page changed")
    static let studyExported = AuditAction("study_exported", title: "Study data exported")
    static let studyClaimTokenSent = AuditAction("study_claim_token_sent", title: "Study app claim token emailed")
    static let studyClaimTokenRevoked = AuditAction("study_claim_token_revoked", title: "Study app claim token revoked")
    static let studyAccountClaimed = AuditAction("study_account_claimed", title: "Study app account claimed")
}

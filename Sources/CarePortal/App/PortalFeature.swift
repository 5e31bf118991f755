import Foundation
import PortalPlatform
import SQLKit

/// A feature of the portal, brought in from its own folder: everything the application needs to know
/// about it is declared here, so adding a feature is its folder plus one line in `Features.all`.
///
/// What is the same for every instance (navigation, audit actions, templates, the demo step) is static,
/// so it can be read before the portal exists; an instance holds the feature's own state (its caches)
/// and adds its routes and background jobs.
protocol PortalFeature: Sendable {
    /// The program the feature belongs to; nil for the portal's own pages, which always run.
    static var program: Program? { get }
    /// Links it adds to the main navigation, each with its group and the `Access` of its route.
    static var navigation: [NavigationItem] { get }
    /// The audit actions it records, with their titles (the raw values are stored: never change them).
    static var auditActions: [AuditAction] { get }
    /// The templates its pages render; start-up stops if one is missing.
    static var templates: [TemplateName] { get }
    /// The kinds of app account it signs in (their tokens are swept by housekeeping).
    static var appAccounts: [AppAccountKind] { get }
    /// Its parts of the people's web app, listed on the web app's start page while its program runs.
    static var appParts: [AppPart] { get }
    /// The kinds of notification it writes to app accounts' feeds.
    static var notificationKinds: [NotificationKind] { get }
    /// How the feed titles the subjects of its entries.
    static var notificationSubjects: [NotificationSubjectTitles] { get }
    /// Cards for a signed-in staff member's home page.
    static func homeCards(for staff: StaffAccount, portal: Portal) async throws -> [HomeCard]
    /// Adds its clearly marked demo content inside `seed-demo`'s one transaction, after the features before it.
    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws
    /// The columns it keeps sealed under the sealing key, re-sealed by `careportal rotate-sealing-key`.
    static var sealedColumns: [SealedColumn] { get }
    /// Its part in deleting a member's account (`Contributions.MemberDeletion`): the counts it keeps of her rows.
    static func deletingMember(_ memberID: Int64, portal: Portal, on db: any SQLDatabase) async throws -> Contributions.AfterMemberDeletion?

    init(portal: Portal)
    /// Registers its web pages and API endpoints, each with its `Access`.
    func addRoutes(to routes: inout PortalRoutes) async throws
    /// Work it runs in the background while its program is on.
    var jobs: [BackgroundJob] { get }
}

extension PortalFeature {
    static var navigation: [NavigationItem] { [] }
    static var auditActions: [AuditAction] { [] }
    static var templates: [TemplateName] { [] }
    static var appAccounts: [AppAccountKind] { [] }
    static var appParts: [AppPart] { [] }
    static var notificationKinds: [NotificationKind] { [] }
    static var notificationSubjects: [NotificationSubjectTitles] { [] }
    static var sealedColumns: [SealedColumn] { [] }
    static func homeCards(for staff: StaffAccount, portal: Portal) async throws -> [HomeCard] { [] }
    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {}
    static func deletingMember(_ memberID: Int64, portal: Portal, on db: any SQLDatabase) async throws -> Contributions.AfterMemberDeletion? { nil }
    var jobs: [BackgroundJob] { [] }
}

/// The programs a deployment can run; an administrator switches them on and off on the Program settings page.
extension Program {
    static let perinatalCommunity = Program(
        id: "perinatal_community",
        title: "Perinatal community",
        summary: "Members and their app, sign-up codes, cohorts, medical professionals and the information desk."
    )
    static let physiciansPractice = Program(
        id: "physicians_practice",
        title: "Physicians' practice",
        summary: "The medication and exercise catalogue, physicians' patients and the patient app."
    )
}

/// The groups the navigation gathers its links under.
extension NavigationGroup {
    static let overview = NavigationGroup("Overview", order: 0)
    static let people = NavigationGroup("People", order: 10)
    static let community = NavigationGroup("Community", order: 20)
    static let learning = NavigationGroup("Learning", order: 25)
    static let clinical = NavigationGroup("Clinical", order: 30)
    static let settings = NavigationGroup("Settings", order: 90)
}

/// Every feature the portal is built from, in order: routes, navigation within a group, home cards
/// and demo steps follow this order, so a feature comes after those whose demo data it builds on
/// (the patients after the catalogue they are prescribed from, the desk after the members who ask).
enum Features {
    static let all: [any PortalFeature.Type] = [
        HomeFeature.self,
        SignInFeature.self,
        StaffFeature.self,
        TwoFactorFeature.self,
        CatalogueFeature.self,
        PatientsFeature.self,
        MembersFeature.self,
        MedicalProfessionalsFeature.self,
        InformationDeskFeature.self,
        HelpDirectoryFeature.self,
        ChatFeature.self,
        NotificationsFeature.self,
        CalendarFeature.self,
        LearningFeature.self,
        RewardsFeature.self,
        AnalyticsFeature.self,
        SurveysFeature.self,
        PharmacyFeature.self,
        StudiesFeature.self,
        MemoryCareFeature.self,
        ProgramSettingsFeature.self,
        AuditFeature.self,
        OutboxFeature.self,
        OpenAPIFeature.self,
        PeopleAppFeature.self,
        MetricsFeature.self
    ]

    /// What `features` bring to the shared pages and machinery, each item marked with its feature's program.
    static func contributions(of features: [any PortalFeature.Type]) -> Contributions {
        var contributions = Contributions()
        contributions.auditActions += DemoSeeder.auditActions
        contributions.auditActions += Commands.auditActions
        for feature in features {
            let program = feature.program
            if let program, !contributions.programs.contains(program) { contributions.programs.append(program) }
            contributions.navigation += feature.navigation.map { item in
                var item = item
                item.program = program
                return item
            }
            contributions.auditActions += feature.auditActions
            contributions.homeCards.append((program, feature.homeCards))
            contributions.appAccounts += feature.appAccounts
            contributions.appParts += feature.appParts.map { (program, $0) }
            contributions.notificationKinds += feature.notificationKinds.map { (program, $0) }
            for subject in feature.notificationSubjects { contributions.notificationSubjects[subject.type] = subject }
            contributions.memberDeletions.append(feature.deletingMember)
        }
        return contributions
    }
}

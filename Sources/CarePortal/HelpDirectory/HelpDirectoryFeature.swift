import Foundation
import PortalPlatform
import SQLKit

/// Resources and helplines: a directory administrators keep — helplines, crisis lines, treatment
/// locators, care locations, websites — nationwide or by state. Members see the nationwide entries and
/// their state's in the app, and the crisis lines and helplines after a low mood.
struct HelpDirectoryFeature: PortalFeature {
    static let program: Program? = .perinatalCommunity
    static let navigation = [
        NavigationItem(title: "Resources", path: SiteURL.helpDirectory.path, access: DirectoryList.perinatal.access, group: .community)
    ]
    static let auditActions: [AuditAction] = [.helpResourceAdded, .helpResourceChanged, .helpResourceDeleted]
    static let templates: [TemplateName] = [.helpDirectory, .helpResourceForm, .deleteHelpResource, .appHelp]

    let portal: Portal
    let directory: HelpDirectory

    init(portal: Portal) {
        self.portal = portal
        directory = HelpDirectory(portal: portal)
    }

    func addRoutes(to routes: inout PortalRoutes) {
        HelpDirectoryController(portal: portal, directory: directory).addRoutes(to: &routes)
        HelpDirectoryAPIController(portal: portal, directory: directory).addRoutes(to: &routes)
        HelpDirectoryAppController(portal: portal, directory: directory).addRoutes(to: &routes)
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        try await demo.seedHelpDirectory(on: db)
    }
}

extension TemplateName {
    static let helpDirectory = TemplateName("help-directory/list")
    static let helpResourceForm = TemplateName("help-directory/form")
    static let deleteHelpResource = TemplateName("help-directory/delete")
}

extension AuditAction {
    static let helpResourceAdded = AuditAction("help_resource_added", title: "Resource added to the directory")
    static let helpResourceChanged = AuditAction("help_resource_changed", title: "Resource in the directory changed")
    static let helpResourceDeleted = AuditAction("help_resource_deleted", title: "Resource deleted from the directory")
}

/// The real national US lines (their numbers as published by 988lifeline.org, SAMHSA and HRSA) and a few
/// state entries, clearly marked as examples, for `seed-demo`.
extension DemoData {
    func seedHelpDirectory(on db: any SQLDatabase) async throws {
        let repository = HelpDirectoryRepository()
        let entries: [HelpResourceDraft] = [
            HelpResourceDraft(
                name: "988 Suicide & Crisis Lifeline",
                kind: .crisisLine,
                phone: PhoneNumber("988"),
                textNumber: PhoneNumber("988"),
                webAddress: "https://988lifeline.org",
                hours: "24 hours, 7 days",
                languages: "English and Spanish",
                description:
                    "Free, confidential support for anyone in distress, including thoughts of suicide or a substance use crisis. Call or text 988.",
                address: nil,
                states: []
            ),
            HelpResourceDraft(
                name: "National Maternal Mental Health Hotline",
                kind: .crisisLine,
                phone: PhoneNumber("1-833-852-6262"),
                textNumber: PhoneNumber("1-833-852-6262"),
                webAddress: "https://mchb.hrsa.gov/national-maternal-mental-health-hotline",
                hours: "24 hours, 7 days",
                languages: "English and Spanish",
                description: "Free, confidential support before, during and after pregnancy, from counsellors who understand. Call or text.",
                address: nil,
                states: []
            ),
            HelpResourceDraft(
                name: "SAMHSA's National Helpline",
                kind: .helpline,
                phone: PhoneNumber("1-800-662-4357"),
                textNumber: nil,
                webAddress: "https://www.samhsa.gov/find-help/helplines/national-helpline",
                hours: "24 hours, 7 days",
                languages: "English and Spanish",
                description: "Free, confidential treatment referral and information for people facing mental health or substance use problems.",
                address: nil,
                states: []
            ),
            HelpResourceDraft(
                name: "FindTreatment.gov",
                kind: .treatmentLocator,
                phone: nil,
                textNumber: nil,
                webAddress: "https://findtreatment.gov",
                hours: "Always available",
                languages: "English and Spanish",
                description: "Find state-licensed treatment for substance use and mental health near you.",
                address: nil,
                states: []
            ),
            HelpResourceDraft(
                name: "Example: Tennessee recovery clinic (demo data)",
                kind: .careLocation,
                phone: PhoneNumber("615-555-0142"),
                textNumber: nil,
                webAddress: nil,
                hours: "Monday to Friday, 8am to 6pm",
                languages: "English",
                description: "Demo entry: an example of a local care location offering medication for opioid use disorder in pregnancy.",
                address: "100 Example Avenue, Nashville, TN 37203",
                states: ["TN"]
            ),
            HelpResourceDraft(
                name: "Example: Kentucky peer support line (demo data)",
                kind: .helpline,
                phone: PhoneNumber("502-555-0117"),
                textNumber: PhoneNumber("502-555-0117"),
                webAddress: nil,
                hours: "Every day, 9am to 9pm",
                languages: "English",
                description: "Demo entry: an example of a state peer support line for people in recovery.",
                address: nil,
                states: ["KY"]
            )
        ]
        for entry in entries { _ = try await repository.insert(entry, now: now, on: db) }
    }
}

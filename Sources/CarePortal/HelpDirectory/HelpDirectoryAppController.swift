import Foundation
import Hummingbird
import PortalPlatform

extension TemplateName {
    static let appHelp = TemplateName("app/help/list")
}

/// "Help near you" in the member's part of the web app: the nationwide entries and those for her state,
/// crisis lines first, each number a link the phone dials — the same list the member API gives.
struct HelpDirectoryAppController {
    let portal: Portal
    let directory: HelpDirectory

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.appMemberHelp.pattern, access: .memberPages, list)
    }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        guard let holder = context.appAccount, holder.kind == .member else { throw HTTPError(.notFound) }
        let (state, resources) = try await portal.database.read { db in
            let state = try await MemberRepository().find(id: holder.accountID, on: db)?.usState
            return (state, try await directory.repository.forMember(state: state, kinds: HelpResource.Kind.allCases, on: db))
        }
        return portal.pages.response(
            AppHelpPage(
                layout: portal.appLayout("Help near you", context: context, navigation: .member, currentPath: SiteURL.appMemberHelp.path),
                heading: "Help near you",
                lead: state.map { "Nationwide help, and help in \($0)." }
                    ?? "Nationwide help. Add your state to your profile to see help near you too.",
                emptyText: "The program has not listed any help yet. In a crisis, call or text 988.",
                entries: resources.map(HelpDirectoryAPI.Entry.init)
            )
        )
    }
}

/// A program's list in the directory as she reads it on her phone: help near a member, the study's care
/// locations for a participant.
struct AppHelpPage: Page {
    static let template = TemplateName.appHelp

    struct Entry: Encodable, Sendable {
        let name: String
        let kindTitle: String
        let isCrisis: Bool
        let phone: String?
        let phoneLink: String?
        let text: String?
        let textLink: String?
        let url: String?
        let hours: String?
        let languages: String?
        let description: String?
        let address: String?
        let mapLink: String?
    }

    let layout: Layout
    let heading: String
    let lead: String
    let emptyText: String
    let entries: [Entry]

    init(layout: Layout, heading: String, lead: String, emptyText: String, entries: [HelpDirectoryAPI.Entry]) {
        self.layout = layout
        self.heading = heading
        self.lead = lead
        self.emptyText = emptyText
        func nonEmpty(_ text: String?) -> String? { text.flatMap { $0.trimmed.isEmpty ? nil : $0 } }
        self.entries = entries.map { entry in
            Entry(
                name: entry.name,
                kindTitle: HelpResource.Kind(rawValue: entry.kind)?.title ?? "",
                isCrisis: entry.kind == HelpResource.Kind.crisisLine.rawValue,
                phone: entry.phone,
                phoneLink: entry.phoneDial.map { "tel:\($0)" },
                text: entry.text,
                textLink: entry.textDial.map { "sms:\($0)" },
                url: nonEmpty(entry.url),
                hours: nonEmpty(entry.hours),
                languages: nonEmpty(entry.languages),
                description: nonEmpty(entry.description),
                address: nonEmpty(entry.address),
                mapLink: entry.latitude.flatMap { latitude in entry.longitude.map { MapPin(latitude: latitude, longitude: $0).mapAddress } }
            )
        }
    }
}

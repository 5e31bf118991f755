import Foundation
import PortalPlatform

/// The outbox: every email the portal has sent or is about to send, and sending a failed one again.
struct OutboxFeature: PortalFeature {
    static let program: Program? = nil
    static let navigation = [
        NavigationItem(title: "Outbox", path: SiteURL.outbox.path, access: OutboxController.access, group: .settings)
    ]
    static let templates: [TemplateName] = [.outbox, .outboxMessage, .shownOnce]
    static let sealedColumns = [Outbox.sealedColumn]
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        OutboxController(portal: portal).addRoutes(to: &routes)
    }

    static func homeCards(for staff: StaffAccount, portal: Portal) async throws -> [HomeCard] {
        guard staff.role == .administrator else { return [] }
        let failed = try await portal.database.read { db in
            try await portal.outbox.list(status: .failed, page: PageRequest(number: 1, size: 1), on: db).totalCount
        }
        return [
            HomeCard(
                title: "Outbox",
                path: SiteURL.outbox.path,
                body: "Read the emails the portal has sent or is about to send.",
                figures: [
                    HomeFigure(
                        label: "Emails not delivered",
                        value: failed,
                        detail: failed == 0 ? nil : "Check the address and send again.",
                        path: ListAddress(path: SiteURL.outbox.path, parameters: [("status", OutboxMessage.Status.failed.rawValue)]).string,
                        needsAttention: failed > 0
                    )
                ]
            )
        ]
    }
}

extension TemplateName {
    static let outbox = TemplateName("outbox/list")
    static let outboxMessage = TemplateName("outbox/message")
    static let shownOnce = TemplateName("outbox/shown-once")
}

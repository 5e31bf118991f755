import Foundation
import Hummingbird
import SQLKit

/// The front door: first-run setup, sign-in, or the signed-in person's home page.
struct HomeController {
    static let access = Access.everyone
    /// Who the Home link is shown to; medical professionals work on the information desk instead.
    static let navigationAccess = Access.staff([.administrator, .physician])
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.home.pattern, access: Self.access, home)
        routes.get(SiteURL.health.pattern, access: .everyone, health)
    }

    @Sendable func home(request: Request, context: PortalContext) async throws -> Response {
        guard let staff = context.staff else {
            let hasAdministrator = try await portal.database.read { db in try await StaffAccountRepository().hasAdministrator(on: db) }
            return seeOther(hasAdministrator ? .signIn : .setup)
        }
        guard SiteURL.landing(for: staff.role) == .home else { return seeOther(.landing(for: staff.role)) }
        var cards: [HomePage.Card] = []
        if staff.role == .administrator {
            let (waiting, failedMail) = try await portal.database.read { db in
                (
                    try await StaffAccountRepository().awaitingApprovalCount(on: db),
                    try await portal.outbox.list(status: .failed, page: PageRequest(number: 1, size: 1), on: db).totalCount
                )
            }
            cards = [
                HomePage.Card(
                    title: "Staff accounts", path: SiteURL.staff.path,
                    body: waiting == 0
                        ? "Find staff accounts, and disable or re-enable them."
                        : "\(waiting) physician registration\(waiting == 1 ? " is" : "s are") waiting for your approval."
                ),
                HomePage.Card(title: "Audit log", path: SiteURL.auditLog.path, body: "See who signed in, and who read or changed what."),
                HomePage.Card(
                    title: "Outbox", path: SiteURL.outbox.path,
                    body: failedMail == 0
                        ? "Read the emails the portal has sent or is about to send."
                        : "\(failedMail) email\(failedMail == 1 ? " was" : "s were") not delivered. Check the address and send again."
                ),
            ]
        }
        cards.append(HomePage.Card(title: "Change your password", path: SiteURL.changePassword.path, body: "Choose a new password for your account."))
        return portal.pages.response(HomePage(
            layout: portal.layout("Home", context: context, current: .home),
            greeting: "Welcome, \(staff.username)",
            roleTitle: staff.role.title,
            cards: cards
        ))
    }

    /// For load balancers and `script/server`: answers 200 only while the database answers.
    @Sendable func health(request: Request, context: PortalContext) async throws -> Response {
        _ = try await portal.database.read { db in try await db.raw("SELECT 1 AS ok").first() }
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#))
        )
    }
}

struct HomePage: Page {
    struct Card: Sendable, Encodable {
        let title: String
        let path: String
        let body: String
    }

    static let template = TemplateName.home
    let layout: Layout
    let greeting: String
    let roleTitle: String
    let cards: [Card]
}

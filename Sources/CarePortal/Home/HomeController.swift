import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// The front door: first-run setup, sign-in, or the signed-in person's home page.
struct HomeController {
    static let access = Access.everyone
    /// Who the Home link is shown to; medical professionals work on the information desk instead.
    static let navigationAccess = Access.staff([.administrator, .physician, .pharmacist])
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
        let settings = portal.programSettings.current
        var cards: [HomeCard] = []
        for contribution in portal.contributions.homeCards where settings.runs(contribution.program) {
            cards += try await contribution.cards(staff, portal)
        }
        cards.append(HomeCard(title: "Change your password", path: SiteURL.changePassword.path, body: "Choose a new password for your account."))
        return portal.pages.response(
            HomePage(
                layout: portal.layout("Home", context: context, current: .home),
                greeting: "Welcome, \(staff.username)",
                roleTitle: staff.role.title,
                cards: cards
            )
        )
    }

    /// For load balancers and `script/server`: 200 `{"status":"ok"}` while this server reaches its database,
    /// 503 `{"status":"unavailable"}` when it does not (the balancer then sends its requests elsewhere). It
    /// says nothing else: not why, not which database.
    @Sendable func health(request: Request, context: PortalContext) async throws -> Response {
        let reachable: Bool
        do {
            _ = try await portal.database.read { db in try await db.raw("SELECT 1 AS ok").first() }
            reachable = true
        } catch {
            portal.logger.warning("Health check: the database did not answer", metadata: ["error": "\(String(reflecting: error))"])
            reachable = false
        }
        return Response(
            status: reachable ? .ok : .serviceUnavailable,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: reachable ? #"{"status":"ok"}"# : #"{"status":"unavailable"}"#))
        )
    }
}

/// The home page: first the overview (the cards with figures or graphs: what the role needs first, in the
/// features' order), then the links to the role's other pages.
struct HomePage: Page {
    struct Panel: Encodable {
        let index: Int
        let card: HomeCard
        let hasFigures: Bool
    }

    static let template = TemplateName.home
    let layout: Layout
    let greeting: String
    let roleTitle: String
    let overview: [Panel]
    let cards: [HomeCard]
    let hasOverview: Bool
    /// The link cards' heading level: beneath "Your pages" when the overview comes first.
    let cardHeading: String

    init(layout: Layout, greeting: String, roleTitle: String, cards: [HomeCard]) {
        self.layout = layout
        self.greeting = greeting
        self.roleTitle = roleTitle
        overview = cards.filter(\.isOverview).enumerated().map {
            Panel(index: $0.offset + 1, card: $0.element, hasFigures: !$0.element.figures.isEmpty)
        }
        self.cards = cards.filter { !$0.isOverview }
        hasOverview = !overview.isEmpty
        cardHeading = hasOverview ? "h3" : "h2"
    }
}

import Foundation
import Hummingbird
import PortalPlatform

/// The people's web app's own pages: its start page, which offers each program's part, and the web
/// app manifest that lets a phone keep it on its home screen. Each part's pages belong to its feature
/// (the patient's to Patients), over the same domain code as its API.
struct PeopleAppFeature: PortalFeature {
    static let program: Program? = nil
    static let templates: [TemplateName] = [
        .appStart, .appNotifications, .appNotificationChoices, .appRecordOpenings, .appResetPassword, .appCheckEmail, .appForgottenPassword,
        .appFeedback, .appPassword
    ]
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.app.pattern, access: .everyone, start)
        routes.get(SiteURL.appManifest.pattern, access: .everyone, manifest)
    }

    @Sendable func start(request: Request, context: PortalContext) async throws -> Response {
        let settings = portal.programSettings.current
        let parts = portal.contributions.appParts.filter { settings.runs($0.program) }.map(\.part)
        return portal.pages.response(
            AppStartPage(
                layout: portal.appLayout("Start", context: context),
                parts: parts.map { AppStartPage.Part(title: $0.title, summary: $0.summary, path: $0.kind.pagesPath) }
            )
        )
    }

    /// The web app manifest (W3C Web Application Manifest): the program's name, where the app starts and its icons.
    @Sendable func manifest(request: Request, context: PortalContext) async throws -> Response {
        let name = portal.programSettings.current.programName
        let manifest = WebAppManifest(
            name: name,
            shortName: String(name.prefix(12)),
            startURL: SiteURL.app.path,
            scope: "\(SiteURL.app.path)/",
            display: "standalone",
            backgroundColor: "#ffffff",
            themeColor: "#0b4f6c",
            icons: [
                .init(src: "/static/img/app-icon-192.png", sizes: "192x192", type: "image/png", purpose: "any maskable"),
                .init(src: "/static/img/app-icon-512.png", sizes: "512x512", type: "image/png", purpose: "any maskable")
            ]
        )
        var response = Response.json(manifest)
        response.headers[.contentType] = "application/manifest+json"
        return response
    }
}

extension TemplateName {
    static let appStart = TemplateName("app/start")
}

/// The web app's start page: each program's part this deployment runs, with where to sign in.
struct AppStartPage: Page {
    static let template = TemplateName.appStart

    struct Part: Encodable, Sendable {
        let title: String
        let summary: String
        let path: String
    }

    let layout: Layout
    let parts: [Part]
}

/// What a phone reads to keep the web app on its home screen.
struct WebAppManifest: Encodable, Sendable {
    struct Icon: Encodable, Sendable {
        let src: String
        let sizes: String
        let type: String
        let purpose: String
    }

    let name: String
    let shortName: String
    let startURL: String
    let scope: String
    let display: String
    let backgroundColor: String
    let themeColor: String
    let icons: [Icon]

    enum CodingKeys: String, CodingKey {
        case name, scope, display, icons
        case shortName = "short_name", startURL = "start_url", backgroundColor = "background_color", themeColor = "theme_color"
    }
}

import Foundation
import PortalPlatform

/// The front door: first-run setup or sign-in, the signed-in person's home page, and the health check.
struct HomeFeature: PortalFeature {
    static let program: Program? = nil
    static let navigation = [
        NavigationItem(title: "Home", path: SiteURL.home.path, access: HomeController.navigationAccess, group: .overview)
    ]
    static let templates: [TemplateName] = [.home]
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        HomeController(portal: portal).addRoutes(to: &routes)
    }
}

extension TemplateName {
    static let home = TemplateName("home/home")
}

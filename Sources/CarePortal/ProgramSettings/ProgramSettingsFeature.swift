import Foundation
import PortalPlatform

/// The Program settings page: the program's name, which programs this deployment runs, and the members' settings.
struct ProgramSettingsFeature: PortalFeature {
    static let program: Program? = nil
    static let navigation = [
        NavigationItem(title: "Program settings", path: SiteURL.programSettings.path, access: ProgramSettingsController.access, group: .settings)
    ]
    static let auditActions: [AuditAction] = [.programSettingsChanged]
    static let templates: [TemplateName] = [.programSettings]
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        ProgramSettingsController(portal: portal).addRoutes(to: &routes)
    }
}

extension TemplateName {
    static let programSettings = TemplateName("program-settings/settings")
}

extension AuditAction {
    static let programSettingsChanged = AuditAction("program_settings_changed", title: "Program settings changed")
}

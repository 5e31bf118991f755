import Foundation
import PortalPlatform
import SQLKit

/// The catalogue physicians prescribe from: medications and doses, exercises with illustrations,
/// frequencies and amounts.
struct CatalogueFeature: PortalFeature {
    static let program: Program? = .physiciansPractice
    static let navigation = [
        NavigationItem(title: "Catalogue", path: SiteURL.catalogue.path, access: CatalogueController.access, group: .clinical)
    ]
    static let auditActions: [AuditAction] = [.catalogueAdded, .catalogueChanged, .catalogueRemoved]
    static let templates: [TemplateName] = [.catalogue, .catalogueEntry]
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        CatalogueController(portal: portal).addRoutes(to: &routes)
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        try await demo.seedCatalogue(on: db)
    }
}

extension TemplateName {
    static let catalogue = TemplateName("catalogue/catalogue")
    static let catalogueEntry = TemplateName("catalogue/entry")
}

extension AuditAction {
    static let catalogueAdded = AuditAction("catalogue_added", title: "Added to the catalogue")
    static let catalogueChanged = AuditAction("catalogue_changed", title: "Catalogue entry changed")
    static let catalogueRemoved = AuditAction("catalogue_removed", title: "Removed from the catalogue")
}

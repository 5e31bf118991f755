import Foundation
import PortalPlatform

/// The apps' API described: the OpenAPI document at `/api/v1/openapi.json`.
struct OpenAPIFeature: PortalFeature {
    static let program: Program? = nil
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) async throws {
        try await OpenAPIController(portal: portal).addRoutes(to: &routes)
    }
}

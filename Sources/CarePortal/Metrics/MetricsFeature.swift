import Foundation
import PortalPlatform

/// The operator's monitoring: `/metrics` in Prometheus's text format, for the addresses the operator
/// allows (`METRICS_ALLOWED_FROM`, this machine by default) and no one else.
struct MetricsFeature: PortalFeature {
    static let program: Program? = nil
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) async throws {
        MetricsController(portal: portal).addRoutes(to: &routes)
    }
}

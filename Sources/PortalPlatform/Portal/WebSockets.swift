import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Prometheus
import Synchronization

/// What a WebSocket endpoint does with a connection: `inbound` from the app, `outbound` to it.
package typealias WebSocketSession = @Sendable (
    _ holder: AppAccountHolder, _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, _ logger: Logger
) async throws -> Void

/// The WebSocket endpoints of the features, by path. An upgrade is accepted only on a registered path,
/// while its program runs, for an app account of the endpoint's kind presenting a bearer token in
/// force; anything else is left to the HTTP route of the same path, which answers as any API route does
/// (401 without a token, 404 while the program is off, 426 for a plain request).
package final class WebSocketEndpoints: Sendable {
    private struct Endpoint: Sendable {
        let kind: AppAccountKind
        let program: Program?
        let session: WebSocketSession
        /// The connections open on it now.
        let connections: Prometheus.Gauge
    }

    private let endpoints = Mutex<[String: Endpoint]>([:])

    package init() {}

    fileprivate func add(path: String, kind: AppAccountKind, program: Program?, connections: Prometheus.Gauge, session: @escaping WebSocketSession) {
        endpoints.withLock { $0[path] = Endpoint(kind: kind, program: program, session: session, connections: connections) }
    }

    /// The answer to an upgrade request.
    package func upgrade(_ request: HTTPRequest, portal: Portal) async -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let path = String((request.path ?? "").prefix { $0 != "?" })
        guard let endpoint = endpoints.withLock({ $0[path] }),
              portal.programSettings.current.runs(endpoint.program),
              let holder = try? await portal.authenticate(endpoint.kind, bearerToken: request.headerFields.bearerToken)
        else { return .dontUpgrade }
        return .upgrade([:]) { inbound, outbound, context in
            endpoint.connections.increment()
            defer { endpoint.connections.decrement() }
            try await endpoint.session(holder, inbound, outbound, context.logger)
        }
    }
}

extension PortalRoutes {
    /// A WebSocket endpoint for one kind of app account at `path`, and the plain HTTP route of the same
    /// path (which answers 426 Upgrade Required to an app whose token is in force), so the route walks
    /// see it like any other.
    package mutating func webSocket(_ path: String, for kind: AppAccountKind, session: @escaping WebSocketSession) {
        portal.webSockets.add(
            path: path, kind: kind, program: program, connections: portal.metrics.webSocketConnections(path: path), session: session
        )
        get(RouterPath(path), access: .app(kind)) { _, _ in
            throw APIError(status: .upgradeRequired, code: "upgrade_required", message: "Connect with a WebSocket.")
        }
    }
}

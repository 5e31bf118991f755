import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PortalPlatform
import Prometheus

/// `GET /metrics`: what the server measures, for the operator's Prometheus. It needs no session (a
/// scraper has none); the address it comes from is what lets it in, and any other address is told the
/// page does not exist, exactly as for an address nothing answers.
struct MetricsController {
    let portal: Portal
    let outboxWaiting: Prometheus.Gauge
    let outboxOldestAge: Prometheus.Gauge
    let outboxNotDelivered: Prometheus.Gauge

    init(portal: Portal) {
        self.portal = portal
        outboxWaiting = portal.metrics.gauge(
            "careportal_outbox_waiting_messages",
            help: "Mail waiting to be sent, including messages waiting to be tried again."
        )
        outboxOldestAge = portal.metrics.gauge(
            "careportal_outbox_oldest_waiting_age_seconds",
            help: "How long the oldest mail waiting to be sent has waited; 0 when none waits."
        )
        outboxNotDelivered = portal.metrics.gauge(
            "careportal_outbox_not_delivered_messages",
            help: "Mail given up on after eight failed attempts, waiting for an administrator to send it again."
        )
    }

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.metrics.pattern, access: .everyone, metrics)
    }

    @Sendable func metrics(request: Request, context: PortalContext) async throws -> Response {
        let allowed = MetricsAccess.allows(
            peer: context.peerAddress,
            headers: request.headers,
            trustForwardedFor: portal.settings.trustForwardedFor,
            allowList: portal.settings.metricsAllowedFrom
        )
        guard allowed else { throw HTTPError(.notFound) }
        // The outbox's gauges are read from the database as they are scraped, so they are the queue as it is.
        let outbox = try await portal.database.read { db in try await portal.outbox.queueSummary(on: db) }
        outboxWaiting.set(Double(outbox.waiting))
        outboxNotDelivered.set(Double(outbox.notDelivered))
        outboxOldestAge.set(outbox.oldestWaitingSince.map { max(0, portal.now.timeIntervalSince($0)) } ?? 0)
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: portal.metrics.exposition()))
        )
    }
}

/// Who may read `/metrics`, decided from the request alone.
enum MetricsAccess {
    /// Headers a proxy adds: a request carrying one came through a proxy, whatever address it arrived from.
    static let forwardingHeaders: [HTTPField.Name] = [.xForwardedFor, HTTPField.Name("Forwarded")!, HTTPField.Name("X-Real-IP")!]

    /// The socket's peer address must be on the list. Behind a proxy the operator trusts
    /// (`TRUST_FORWARDED_FOR`), the address the proxy appended to `X-Forwarded-For` is checked instead;
    /// with no trusted proxy, a request that says it was forwarded is refused, so a proxy on this machine
    /// cannot hand the page to whoever asks it.
    static func allows(peer: String?, headers: HTTPFields, trustForwardedFor: Bool, allowList: AddressAllowList) -> Bool {
        if trustForwardedFor, let forwarded = headers[.xForwardedFor] {
            // The proxy appends the address it saw last; earlier entries are the client's to invent.
            let client = forwarded.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
            return allowList.allows(client)
        }
        if !trustForwardedFor, forwardingHeaders.contains(where: { headers[$0] != nil }) { return false }
        return allowList.allows(peer)
    }
}

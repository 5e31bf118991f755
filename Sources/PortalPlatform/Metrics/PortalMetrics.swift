import Foundation
import Metrics
import Prometheus

/// What the server measures for the operator's monitoring, written out at `/metrics` in Prometheus's
/// text format.
///
/// Two registries, for a reason. Hummingbird's `MetricsMiddleware` (requests by route pattern, method
/// and status, with their latency) records through swift-metrics' `MetricsSystem`, which a process can
/// bootstrap only once: `PortalMetrics.process` does so the first time any application is built (a
/// `static let`, so exactly once however many applications the tests build side by side). What the
/// portal measures itself (connection pool waits, the outbox, WebSocket connections) goes to a registry
/// each application owns and passes down to its database and sockets, so two applications in one process
/// never mix their figures; a server runs one application, and its `/metrics` writes out both.
package final class PortalMetrics: Sendable {
    /// The process's registry behind `MetricsSystem`, bootstrapped on first use.
    package static let process: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Looked up by the name the sanitizer gives.
        factory.durationHistogramBuckets[HTTPRequestNames.prometheus(HTTPRequestNames.duration, []).0] = latencyBuckets
        factory.nameAndLabelSanitizer = HTTPRequestNames.prometheus
        MetricsSystem.bootstrap(factory)
        return registry
    }()

    /// Request latency buckets: fine below 25 ms, where the targets (p99 under 15 ms) are.
    package static let latencyBuckets: [Duration] = [
        .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(15), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .microseconds(2_500_000),
        .seconds(5), .seconds(10)
    ]

    /// Waiting for a connection is usually far below a millisecond; a pool under pressure shows in the upper buckets.
    package static let poolWaitBuckets: [Duration] = [
        .microseconds(100), .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .seconds(5), .seconds(10)
    ]

    /// This application's own figures.
    package let registry = PrometheusCollectorRegistry()

    package init() {
        // Hummingbird's middleware makes its metrics on the first request: the system must be bootstrapped by then.
        _ = Self.process
    }

    /// How long asking the database for a connection waited on `engine`, for reads and for writes.
    package func poolWaits(for engine: Database.Engine) -> PoolWaits {
        func histogram(_ access: String) -> DurationHistogram {
            registry.makeDurationHistogram(
                descriptor: MetricNameDescriptor(
                    metricName: "careportal_database_pool_wait",
                    unitName: "seconds",
                    helpText: "How long a request waited for a database connection before its first statement could run."
                ),
                labels: [("engine", engine.rawValue), ("access", access)],
                buckets: Self.poolWaitBuckets
            )
        }
        return PoolWaits(read: histogram("read"), write: histogram("write"))
    }

    /// The WebSocket connections open on the endpoint at `path` (its registered path, never an address with ids).
    package func webSocketConnections(path: String) -> Prometheus.Gauge {
        registry.makeGauge(
            descriptor: MetricNameDescriptor(
                metricName: "careportal_websocket_connections",
                unitName: "",
                helpText: "WebSocket connections this server holds open, by endpoint."
            ),
            labels: [("endpoint", path)]
        )
    }

    /// A gauge of this application's, set by whoever knows its value (refreshed when scraped).
    package func gauge(_ name: String, help: String) -> Prometheus.Gauge {
        // The whole name is the metric's: no unit is appended to it.
        registry.makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help))
    }

    /// Everything in Prometheus's text exposition format: the requests, then this application's own.
    package func exposition() -> [UInt8] {
        var buffer = Self.process.emitToBuffer()
        registry.emit(into: &buffer)
        return buffer
    }
}

/// How long asking for a database connection waited until the request's first statement could run.
package struct PoolWaits: Sendable {
    package let read: DurationHistogram
    package let write: DurationHistogram
}

/// The names Hummingbird's `MetricsMiddleware` records under (OpenTelemetry's), as Prometheus names them.
package enum HTTPRequestNames {
    package static let duration = "http.server.request.duration"

    private static let names = [
        "hb.requests": "http_server_requests_total",
        "hb.request.errors": "http_server_request_errors_total",
        duration: "http_server_request_duration_seconds",
        "http.server.active_requests": "http_server_active_requests"
    ]
    private static let labels = [
        "http.route": "route",
        "http.request.method": "method",
        "http.response.status_code": "status",
        "error.type": "status"
    ]

    /// `hb.requests{http.route=…}` as `http_server_requests_total{route=…}`; any other name with its dots made underscores.
    @Sendable package static func prometheus(_ name: String, _ dimensions: [(String, String)]) -> (String, [(String, String)]) {
        let name = names[name] ?? name.replacingOccurrences(of: ".", with: "_")
        return (name, dimensions.map { (labels[$0.0] ?? $0.0.replacingOccurrences(of: ".", with: "_"), $0.1) })
    }
}

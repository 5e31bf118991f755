import Hummingbird
import Logging
import NIOCore

/// One log line per request with its id, method, path (never the query, which may hold names), status and time.
package struct RequestLogMiddleware: RouterMiddleware {
    package typealias Context = PortalContext

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        response.headers[.xRequestID] = context.id
        context.logger.info(
            "Request",
            metadata: [
                "http.method": "\(request.method.rawValue)",
                "http.path": "\(request.uri.path)",
                "http.status": "\(response.status.code)",
                "duration.ms": "\(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)"
            ]
        )
        return response
    }

    package init() {}
}

import HTTPTypes
import Hummingbird

/// Adds the security headers to every response, errors included.
package struct SecurityHeadersMiddleware: RouterMiddleware {
    package typealias Context = PortalContext
    package let servedOverHTTPS: Bool

    package static let contentSecurityPolicy =
        "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            // The error page middleware answers errors; anything that still escapes gets a bare 500.
            context.logger.error("Unhandled error", metadata: ["error": "\(String(reflecting: error))"])
            response = Response(
                status: .internalServerError,
                headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "Something went wrong on our side. Please try again."))
            )
        }
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "same-origin"
        response.headers[.xFrameOptions] = "DENY"
        if servedOverHTTPS {
            response.headers[.strictTransportSecurity] = "max-age=31536000; includeSubDomains"
        }
        if !request.uri.path.hasPrefix("/static/") {
            // Pages may show health information: never kept by the browser or a proxy.
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }

    package init(servedOverHTTPS: Bool) {
        self.servedOverHTTPS = servedOverHTTPS
    }
}

extension HTTPField.Name {
    package static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    package static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
}

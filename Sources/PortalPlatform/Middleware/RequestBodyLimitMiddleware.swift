import Hummingbird
import NIOCore
import Synchronization

/// The largest request body each route takes. A body declared larger (`Content-Length`) is refused with
/// 413 before a byte of it is read; a body sent without a length (chunked) is refused as soon as it
/// passes the limit. Without this, a request announcing 50 MB would hold its connection while the
/// server waited for bytes it was going to refuse anyway.
package final class RequestBodyLimits: Sendable {
    /// The JSON API: the most `Request.json` reads.
    package static let api = APIJSON.maximumBodySize
    /// A portal form with files (`multipart/form-data`): the most `MultipartForm` reads.
    package static let multipartForm = MultipartForm.maximumRequestSize

    private struct Larger: Sendable {
        let method: HTTPRequest.Method
        /// The route's path, a nil segment matching any one segment (a parameter).
        let segments: [String?]
        let limit: Int
    }

    private let larger = Mutex<[Larger]>([])

    package init() {}

    /// Lets one route take a larger body (a streamed video upload); routes are declared at start-up.
    package func allow(_ method: HTTPRequest.Method, _ path: RouterPath, upTo limit: Int) {
        let segments = path.description.split(separator: "/").map { segment -> String? in
            segment.hasPrefix(":") || segment.hasPrefix("{") || segment == "*" ? nil : String(segment)
        }
        larger.withLock { $0.append(Larger(method: method, segments: segments, limit: limit)) }
    }

    /// The limit for this request: its route's own, else the API's, else the portal's for its kind of form.
    package func limit(for request: Request, context: PortalContext) -> Int {
        let path = request.uri.path
        let segments = path.split(separator: "/")
        let declared = larger.withLock { routes in
            routes.first { route in
                route.method == request.method && route.segments.count == segments.count
                    && zip(route.segments, segments).allSatisfy { expected, actual in expected.map { $0 == actual } ?? true }
            }?.limit
        }
        if let declared { return declared }
        if path.hasPrefix("/api/") { return Self.api }
        if MultipartForm.boundary(contentType: request.headers[.contentType]) != nil { return Self.multipartForm }
        return context.maxUploadSize
    }
}

/// Applies `RequestBodyLimits` to every request, before anything reads its body (sessions, CSRF, forms).
package struct RequestBodyLimitMiddleware: RouterMiddleware {
    package typealias Context = PortalContext
    package let limits: RequestBodyLimits

    package init(limits: RequestBodyLimits) {
        self.limits = limits
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let declared = request.headers[.contentLength]
        // A GET or HEAD without a body (nearly every request) has nothing to limit: the routes are not searched.
        if declared == nil, request.method == .get || request.method == .head { return try await next(request, context) }
        let limit = limits.limit(for: request, context: context)
        if let declared {
            // A length that is not a number is too large for any route.
            guard let length = Int(declared), length <= limit else { throw HTTPError(.contentTooLarge) }
            return try await next(request, context)
        }
        var request = request
        request.body = RequestBody(asyncSequence: LimitedBody(base: request.body, limit: limit))
        return try await next(request, context)
    }
}

/// A body without a declared length, ended with 413 once it passes the limit.
private struct LimitedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let limit: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let limit: Int
        var received = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            received += chunk.readableBytes
            guard received <= limit else { throw HTTPError(.contentTooLarge) }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit)
    }
}

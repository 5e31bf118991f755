import Hummingbird
import NIOCore

/// Refuses a state-changing portal request unless it comes from our own pages: the browser must say
/// it is same-origin, and the form must carry the session's CSRF token.
package struct CSRFMiddleware: RouterMiddleware {
    package typealias Context = PortalContext
    package let portal: Portal

    package static let fieldName = "csrf_token"

    private struct TokenField: Decodable {
        package let csrf_token: String?

        package init(csrf_token: String? = nil) {
            self.csrf_token = csrf_token
        }
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard ![.get, .head, .options].contains(request.method), !request.uri.path.hasPrefix("/api/") else {
            return try await next(request, context)
        }
        var request = request
        if let problem = try await problem(with: &request, context: context) {
            try await portal.recordRefusal(.csrfRejected, request: request, context: context, detail: problem)
            throw ForgedRequest()
        }
        return try await next(request, context)
    }

    /// Why the request is refused, or nil when it is genuine.
    private func problem(with request: inout Request, context: Context) async throws -> String? {
        if let site = request.headers[.secFetchSite] {
            guard site == "same-origin" else { return "Sec-Fetch-Site was \(site)" }
        } else if let origin = request.headers[.origin] {
            guard origin == portal.settings.origin else { return "Origin was \(origin)" }
        } else {
            return "neither Origin nor Sec-Fetch-Site was sent"
        }
        let expected: String
        if AppPageCookies.covers(request.uri.path) {
            guard let formToken = context.appPageFormToken else { return "no form cookie" }
            expected = formToken
        } else {
            guard let sessionToken = context.session?.csrfToken ?? context.formToken else { return "no session or form cookie" }
            expected = sessionToken
        }
        let token: String?
        if let boundary = MultipartForm.boundary(contentType: request.headers[.contentType]) {
            // Uploads carry the token as a field of the multipart form. Only the form's beginning is read
            // here (the token comes before a large file), and the body is handed on whole.
            var iterator = request.body.makeAsyncIterator()
            var prefix: [UInt8] = []
            var ended = false
            var found: String?
            while found == nil, prefix.count <= MultipartForm.maximumRequestSize {
                guard let chunk = try await iterator.next() else {
                    ended = true
                    break
                }
                prefix += chunk.readableBytesView
                found = MultipartForm.leadingFields(in: prefix, boundary: boundary)[Self.fieldName]
            }
            token = found
            request.body =
                ended
                ? RequestBody(buffer: ByteBuffer(bytes: prefix))
                : RequestBody(asyncSequence: ResumedBody(prefix: ByteBuffer(bytes: prefix), rest: ResumedBody.Rest(iterator)))
        } else {
            let body = try await request.collectBody(upTo: context.maxUploadSize)
            token = (try? URLEncodedFormDecoder().decode(TokenField.self, from: String(buffer: body)))?.csrf_token
        }
        guard let token, SecretToken.constantTimeEquals(token, expected) else {
            return "the form's token was missing or wrong"
        }
        return nil
    }

    package init(portal: Portal) {
        self.portal = portal
    }
}

/// A state-changing request that did not come from our own form.
package struct ForgedRequest: Error { package init() {} }

/// A request body whose beginning was already read: that beginning, then the rest as it arrives.
/// It is read once, as every request body is.
private struct ResumedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    final class Rest: @unchecked Sendable {
        var iterator: RequestBody.AsyncIterator

        init(_ iterator: RequestBody.AsyncIterator) {
            self.iterator = iterator
        }
    }

    let prefix: ByteBuffer
    let rest: Rest

    struct AsyncIterator: AsyncIteratorProtocol {
        var prefix: ByteBuffer?
        let rest: Rest

        mutating func next() async throws -> ByteBuffer? {
            if let first = prefix {
                prefix = nil
                return first
            }
            return try await rest.iterator.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(prefix: prefix, rest: rest)
    }
}

import Hummingbird

/// Finds the session a request's cookie names and the staff account it belongs to.
package struct SessionMiddleware: RouterMiddleware {
    package typealias Context = PortalContext
    package let portal: Portal

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !request.uri.path.hasPrefix("/static/"), !request.uri.path.hasPrefix("/api/") else {
            return try await next(request, context)
        }
        var context = context
        let cookieValue = request.cookies[portal.sessions.cookieName]?.value
        if let (session, account) = try await portal.sessions.resolve(cookieValue: cookieValue) {
            context.session = session
            if session.accountID != nil {
                if let account, account.status == .active {
                    context.staff = account
                } else {
                    // The account was disabled or removed since: this session is over.
                    try await portal.database.write { db in try await portal.sessions.end(session, on: db) }
                    context.session = nil
                }
            }
        }
        var response = try await next(request, context)
        if cookieValue != nil, context.session == nil, response.headers[values: .setCookie].isEmpty {
            response.setCookie(portal.sessions.expiredCookie)
        }
        return response
    }

    package init(portal: Portal) {
        self.portal = portal
    }
}

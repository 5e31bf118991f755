import Hummingbird

/// Finds the session a request's cookie names and the staff account it belongs to.
package struct SessionMiddleware: RouterMiddleware {
    package typealias Context = PortalContext
    package let portal: Portal

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !request.uri.path.hasPrefix("/static/"), !request.uri.path.hasPrefix("/api/") else {
            return try await next(request, context)
        }
        if AppPageCookies.covers(request.uri.path) {
            return try await appPage(request, context: context, next: next)
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
        if context.session == nil, let form = request.cookies[portal.sessions.formCookieName]?.value, form.count == 43 {
            context.formToken = Sessions.formToken(form: form)
        }
        var response = try await next(request, context)
        if cookieValue != nil, context.session == nil, response.headers[values: .setCookie].isEmpty {
            response.setCookie(portal.sessions.expiredCookie)
        }
        return response
    }

    /// The web app's pages: no staff session, the app cookie (checked by the route's `Access`) and the
    /// forms' token, with the cookie it is derived from made on the first visit.
    private func appPage(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let cookies = portal.appPageCookies
        var context = context
        let session = request.cookies[cookies.sessionName]?.value
        context.appPageSession = session
        var made: String?
        let form: String
        if let kept = request.cookies[cookies.formName]?.value, kept.count == 43 {
            form = kept
        } else {
            form = SecretToken(randomBytes: portal.dependencies.randomBytes).value
            made = form
        }
        context.appPageFormToken = AppPageCookies.formToken(form: form, session: session)
        var response = try await next(request, context)
        if let made { response.setCookie(cookies.form(made)) }
        return response
    }

    package init(portal: Portal) {
        self.portal = portal
    }
}

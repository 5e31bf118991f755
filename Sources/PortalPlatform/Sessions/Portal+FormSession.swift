import Hummingbird

extension Portal {
    /// Forms posted before sign-in need a session to hold their CSRF token; this starts one if needed.
    package func withFormSession(context: PortalContext, render: (PortalContext) -> Response) async throws -> Response {
        if context.session != nil { return render(context) }
        var context = context
        let session = try await database.write { db in try await sessions.start(accountID: nil, on: db) }
        context.session = session
        var response = render(context)
        response.setCookie(sessions.cookie(for: session))
        return response
    }
}

extension Portal {
    /// Shows `flash` on the next page this person opens.
    package func flash(_ flash: Flash, context: PortalContext) async throws {
        guard let session = context.session else { return }
        try await sessions.setFlash(flash, on: session)
    }
}

import Hummingbird

extension Portal {
    /// Forms posted before sign-in carry a token derived from the form cookie (made here on the first
    /// visit, never stored), so anyone may look at them as often as they like without a row written:
    /// a session is stored only once someone signs in or a form's answer needs one.
    package func withFormSession(context: PortalContext, render: (PortalContext) -> Response) async throws -> Response {
        if context.session != nil || context.formToken != nil { return render(context) }
        var context = context
        let form = SecretToken(randomBytes: dependencies.randomBytes).value
        context.formToken = Sessions.formToken(form: form)
        var response = render(context)
        response.setCookie(sessions.formCookie(form))
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

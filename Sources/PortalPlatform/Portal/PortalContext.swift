import Hummingbird
import Logging
import NIOCore

/// The one request context of the application: who is asking and through which session.
public struct PortalContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's address as the socket reports it.
    package let peerAddress: String?
    /// Set by `SessionMiddleware` when the request carries a session cookie in force.
    package var session: ActiveSession?
    /// The token the forms of a visitor without a session carry (sign-in, setup, a forgotten password, an
    /// invitation): derived from the form cookie, so showing those forms writes nothing.
    package var formToken: String?
    /// Set by `SessionMiddleware` when that session belongs to an active staff account.
    package var staff: StaffAccount?
    /// Set on an app's API routes when the request carries a bearer token in force for the route's kind of account.
    package var appAccount: AppAccountHolder?
    /// On the web app's pages: the app cookie as the browser sent it (checked by the route's `Access`).
    package var appPageSession: String?
    /// On the web app's pages: the token their forms carry.
    package var appPageFormToken: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
    }

    /// Forms are small; uploads get their own limit where a feature needs one.
    public var maxUploadSize: Int { 1 << 20 }

    package var auditActor: AuditActor {
        if let appAccount { return AuditActor(accountID: appAccount.accountID, role: appAccount.kind.role, name: nil) }
        guard let staff else { return .anonymous }
        return AuditActor(accountID: staff.id, role: staff.role.rawValue, name: staff.username)
    }
}

import Hummingbird
import Logging
import NIOCore

/// The one request context of the application: who is asking and through which session.
public struct PortalContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's address as the socket reports it.
    let peerAddress: String?
    /// Set by `SessionMiddleware` when the request carries a session cookie in force.
    var session: ActiveSession?
    /// Set by `SessionMiddleware` when that session belongs to an active staff account.
    var staff: StaffAccount?
    /// Set on member API routes when the request carries a bearer token in force.
    var member: MemberTokens.Holder?
    /// Set on patient API routes when the request carries a patient app's bearer token in force.
    var patient: PatientTokens.Holder?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
    }

    /// Forms are small; uploads get their own limit where a feature needs one.
    public var maxUploadSize: Int { 1 << 20 }

    var auditActor: AuditActor {
        if let member { return AuditActor(accountID: member.memberID, role: "member", name: nil) }
        if let patient { return AuditActor(accountID: patient.patientID, role: "patient", name: nil) }
        guard let staff else { return .anonymous }
        return AuditActor(accountID: staff.id, role: staff.role.rawValue, name: staff.username)
    }
}

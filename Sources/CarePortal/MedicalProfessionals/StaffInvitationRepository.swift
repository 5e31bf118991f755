import Foundation
import PortalPlatform
import SQLKit

/// An administrator's invitation to a member of staff: the role, who they are, where the link went, and what became of it.
public struct StaffInvitation: Sendable, Equatable, Identifiable {
    public enum Status: String, Sendable, CaseIterable {
        case waiting, expired, accepted, revoked

        public var title: String {
            switch self {
            case .waiting: "Waiting"
            case .expired: "Expired"
            case .accepted: "Accepted"
            case .revoked: "Revoked"
            }
        }
    }

    public var id: Int64
    public var role: StaffRole
    public var firstName: String
    public var lastName: String
    /// Asked only of medical professionals (their profile); nil for other roles.
    public var dateOfBirth: CalendarDate?
    public var email: String
    public var createdBy: Int64
    public var createdAt: Date
    public var expiresAt: Date
    public var lastSentAt: Date
    public var acceptedAt: Date?
    public var accountID: Int64?
    public var revokedAt: Date?

    public var fullName: String { "\(firstName) \(lastName)" }

    public func status(at now: Date) -> Status {
        if acceptedAt != nil { return .accepted }
        if revokedAt != nil { return .revoked }
        return expiresAt <= now ? .expired : .waiting
    }

    /// How long a link works after it is sent.
    static let lifetimeDays = 7
    static let lifetime = TimeInterval(lifetimeDays * 86_400)
}

/// Who is being invited, and for which role, as the administrator entered it.
struct Invitee: Sendable, Equatable {
    var firstName: String
    var lastName: String
    var dateOfBirth: CalendarDate?
    var email: String
    var role: StaffRole = .medicalProfessional
}

/// The only place invitations are read and written. Only a hash of each link's token is kept.
struct StaffInvitationRepository: Sendable {
    func create(_ invitee: Invitee, token: SecretToken, createdBy: Int64, now: Date, on db: any SQLDatabase) async throws -> StaffInvitation {
        let expires = now.addingTimeInterval(StaffInvitation.lifetime)
        let time = now.millisecondsSince1970
        let row = try await db.insert(into: "staff_invitations")
            .columns(
                "role",
                "first_name",
                "last_name",
                "date_of_birth",
                "email",
                "token_hash",
                "created_by",
                "created_at",
                "expires_at",
                "last_sent_at"
            )
            .values(
                // A role that is not asked for a date of birth stores "" (the column predates other roles).
                SQLBind(invitee.role.rawValue),
                SQLBind(invitee.firstName),
                SQLBind(invitee.lastName),
                SQLBind(invitee.dateOfBirth?.iso ?? ""),
                SQLBind(invitee.email),
                SQLBind(token.hash),
                SQLBind(createdBy),
                SQLBind(time),
                SQLBind(expires.millisecondsSince1970),
                SQLBind(time)
            )
            .returning("*")
            .first()
        guard let row else { throw StorageInconsistency(description: "insert into staff_invitations returned no row") }
        return try decode(row)
    }

    func find(id: Int64, on db: any SQLDatabase) async throws -> StaffInvitation? {
        try await db.select().column("*").from("staff_invitations").where("id", .equal, id).first().map(decode)
    }

    /// The invitation a link's token opens, if it can still be accepted.
    func findUsable(token: String, now: Date, on db: any SQLDatabase) async throws -> StaffInvitation? {
        try await usable(db.select().column("*").from("staff_invitations"), token: token, now: now).first().map(decode)
    }

    /// Whether an invitation that was neither accepted nor revoked already went to `email` (compared without case).
    func hasOpenInvitation(email: String, on db: any SQLDatabase) async throws -> Bool {
        try await open(db.select().column("id").from("staff_invitations"))
            .where(SQLFunction("LOWER", args: SQLColumn("email")), .equal, SQLBind(email.lowercased()))
            .first() != nil
    }

    /// Invitations neither accepted nor revoked, waiting or expired, newest first.
    ///
    /// Not paged: each one is accepted, sent again or revoked by an administrator, so the list stays short.
    func open(role: StaffRole? = nil, on db: any SQLDatabase) async throws -> [StaffInvitation] {
        let query = open(db.select().column("*").from("staff_invitations"))
        if let role { query.where("role", .equal, role.rawValue) }
        return
            try await query
            .orderBy("created_at", .descending).orderBy("id", .descending)
            .all()
            .map(decode)
    }

    /// Gives an open invitation a new token and a new expiry; the earlier link stops working. Nil when it is no longer open.
    func renew(id: Int64, token: SecretToken, now: Date, on db: any SQLDatabase) async throws -> StaffInvitation? {
        try await open(
            db.update("staff_invitations")
                .set("token_hash", to: token.hash)
                .set("expires_at", to: now.addingTimeInterval(StaffInvitation.lifetime).millisecondsSince1970)
                .set("last_sent_at", to: now.millisecondsSince1970)
                .where("id", .equal, id)
        )
        .returning("*")
        .first()
        .map(decode)
    }

    /// Revokes an open invitation; false when it was already accepted or revoked.
    func revoke(id: Int64, by accountID: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await open(
            db.update("staff_invitations")
                .set("revoked_at", to: now.millisecondsSince1970)
                .set("revoked_by", to: accountID)
                .where("id", .equal, id)
        )
        .returning("id")
        .first() != nil
    }

    /// Marks the invitation a token opens as accepted, only if it still can be: of two submissions of one link, one wins.
    func accept(token: String, now: Date, on db: any SQLDatabase) async throws -> StaffInvitation? {
        try await usable(db.update("staff_invitations").set("accepted_at", to: now.millisecondsSince1970), token: token, now: now)
            .returning("*")
            .first()
            .map(decode)
    }

    /// Records the account an accepted invitation created.
    func recordAccount(_ accountID: Int64, invitationID: Int64, on db: any SQLDatabase) async throws {
        try await db.update("staff_invitations").set("account_id", to: accountID).where("id", .equal, invitationID).run()
    }

    private func open<Builder: SQLPredicateBuilder>(_ builder: Builder) -> Builder {
        builder.where("accepted_at", .is, SQLLiteral.null).where("revoked_at", .is, SQLLiteral.null)
    }

    private func usable<Builder: SQLPredicateBuilder>(_ builder: Builder, token: String, now: Date) -> Builder {
        open(builder)
            .where("token_hash", .equal, SecretToken.hash(token))
            .where("expires_at", .greaterThan, now.millisecondsSince1970)
    }

    private func decode(_ row: any SQLRow) throws -> StaffInvitation {
        let id = try row.decode(column: "id", as: Int64.self)
        let storedDate = try row.decode(column: "date_of_birth", as: String.self)
        let dateOfBirth = CalendarDate(iso: storedDate)
        guard storedDate.isEmpty || dateOfBirth != nil else {
            throw StorageInconsistency(description: "staff invitation \(id) has a malformed date of birth")
        }
        guard let role = StaffRole(rawValue: try row.decode(column: "role", as: String.self)) else {
            throw StorageInconsistency(description: "staff invitation \(id) has an unknown role")
        }
        func instant(_ column: String) throws -> Date? {
            try row.decode(column: column, as: Int64?.self).map(Date.init(millisecondsSince1970:))
        }
        return StaffInvitation(
            id: id,
            role: role,
            firstName: try row.decode(column: "first_name", as: String.self),
            lastName: try row.decode(column: "last_name", as: String.self),
            dateOfBirth: dateOfBirth,
            email: try row.decode(column: "email", as: String.self),
            createdBy: try row.decode(column: "created_by", as: Int64.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            expiresAt: Date(millisecondsSince1970: try row.decode(column: "expires_at", as: Int64.self)),
            lastSentAt: Date(millisecondsSince1970: try row.decode(column: "last_sent_at", as: Int64.self)),
            acceptedAt: try instant("accepted_at"),
            accountID: try row.decode(column: "account_id", as: Int64?.self),
            revokedAt: try instant("revoked_at")
        )
    }
}

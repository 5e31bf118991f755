import Foundation
import SQLKit

/// What happened, in words an administrator filters by.
public enum AuditAction: String, Sendable, CaseIterable {
    case signIn = "sign_in"
    case signOut = "sign_out"
    case firstAdministratorCreated = "first_administrator_created"
    case accountCreated = "account_created"
    case accountDisabled = "account_disabled"
    case accountEnabled = "account_enabled"
    case passwordChanged = "password_changed"
    case physicianRegistered = "physician_registered"
    case physicianApproved = "physician_approved"
    case physicianRejected = "physician_rejected"
    case accessDenied = "access_denied"
    case csrfRejected = "csrf_rejected"
    case auditLogExported = "audit_log_exported"
    case demoDataSeeded = "demo_data_seeded"
    case signUpCodeCreated = "sign_up_code_created"
    case signUpCodeRevoked = "sign_up_code_revoked"
    case memberRegistered = "member_registered"
    case memberRecovered = "member_recovered"
    case memberProfileChanged = "member_profile_changed"
    case memberViewed = "member_viewed"
    case memberDisabled = "member_disabled"
    case memberEnabled = "member_enabled"
    case memberDeleted = "member_deleted"
    case programSettingsChanged = "program_settings_changed"
    case invitationSent = "invitation_sent"
    case invitationResent = "invitation_resent"
    case invitationRevoked = "invitation_revoked"
    case invitationAccepted = "invitation_accepted"
    case deskPostHidden = "desk_post_hidden"
    case deskPostRemoved = "desk_post_removed"
    case deskPostRestored = "desk_post_restored"
    case deskFlagsDismissed = "desk_flags_dismissed"
    case deskAuthorRevealed = "desk_author_revealed"
    case moderationLogExported = "moderation_log_exported"
    case contentResanitized = "content_resanitized"
    case catalogueAdded = "catalogue_added"
    case catalogueChanged = "catalogue_changed"
    case catalogueRemoved = "catalogue_removed"
    case patientCreated = "patient_created"
    case patientViewed = "patient_viewed"
    case patientContactChanged = "patient_contact_changed"
    case patientRegimenChanged = "patient_regimen_changed"
    case patientReassigned = "patient_reassigned"
    case patientRemoved = "patient_removed"
    case patientReportExported = "patient_report_exported"
    case claimTokenSent = "claim_token_sent"
    case claimTokenRevoked = "claim_token_revoked"
    case patientAccountClaimed = "patient_account_claimed"
    case adherenceLogged = "adherence_logged"
    case patientRemindersChanged = "patient_reminders_changed"

    public var title: String {
        switch self {
        case .signIn: "Sign in"
        case .signOut: "Sign out"
        case .firstAdministratorCreated: "First administrator created"
        case .accountCreated: "Account created"
        case .accountDisabled: "Account disabled"
        case .accountEnabled: "Account re-enabled"
        case .passwordChanged: "Password changed"
        case .physicianRegistered: "Physician registered"
        case .physicianApproved: "Physician approved"
        case .physicianRejected: "Physician registration declined"
        case .accessDenied: "Access denied"
        case .csrfRejected: "Forged request refused"
        case .auditLogExported: "Audit log exported"
        case .demoDataSeeded: "Demo data added"
        case .signUpCodeCreated: "Sign-up code created"
        case .signUpCodeRevoked: "Sign-up code revoked"
        case .memberRegistered: "Member registered"
        case .memberRecovered: "Member account recovery"
        case .memberProfileChanged: "Member profile changed"
        case .memberViewed: "Member record viewed"
        case .memberDisabled: "Member disabled"
        case .memberEnabled: "Member re-enabled"
        case .memberDeleted: "Member data deleted"
        case .programSettingsChanged: "Program settings changed"
        case .invitationSent: "Medical professional invited"
        case .invitationResent: "Invitation sent again"
        case .invitationRevoked: "Invitation revoked"
        case .invitationAccepted: "Invitation accepted"
        case .deskPostHidden: "Information desk post hidden"
        case .deskPostRemoved: "Information desk post removed"
        case .deskPostRestored: "Information desk post restored"
        case .deskFlagsDismissed: "Flags reviewed, post kept"
        case .deskAuthorRevealed: "Anonymous author revealed"
        case .moderationLogExported: "Moderation log exported"
        case .contentResanitized: "Posts sanitized again"
        case .catalogueAdded: "Added to the catalogue"
        case .catalogueChanged: "Catalogue entry changed"
        case .catalogueRemoved: "Removed from the catalogue"
        case .patientCreated: "Patient added"
        case .patientViewed: "Patient record viewed"
        case .patientContactChanged: "Patient contact details changed"
        case .patientRegimenChanged: "Patient prescriptions changed"
        case .patientReassigned: "Patient moved to another physician"
        case .patientRemoved: "Patient removed"
        case .patientReportExported: "Patient report exported"
        case .claimTokenSent: "App claim token emailed"
        case .claimTokenRevoked: "App claim token revoked"
        case .patientAccountClaimed: "Patient app account claimed"
        case .adherenceLogged: "Patient logged a dose or exercise"
        case .patientRemindersChanged: "Patient reminder settings changed"
        }
    }
}

public enum AuditOutcome: String, Sendable, CaseIterable {
    case success, failure, denied
}

/// Who acted; nil fields for someone not signed in.
public struct AuditActor: Sendable, Equatable {
    public var accountID: Int64?
    public var role: String?
    public var name: String?

    public static let anonymous = AuditActor(accountID: nil, role: nil, name: nil)
    public static let system = AuditActor(accountID: nil, role: "system", name: "careportal")

    public init(accountID: Int64?, role: String?, name: String?) {
        self.accountID = accountID
        self.role = role
        self.name = name
    }
}

/// Where a request came from.
public struct AuditOrigin: Sendable, Equatable {
    public var address: String?
    public var userAgent: String?

    public static let commandLine = AuditOrigin(address: "command line", userAgent: nil)
}

/// One row of the audit log. Never carries a password, token or session id.
public struct AuditEvent: Sendable, Equatable {
    public var actor: AuditActor
    public var action: AuditAction
    public var recordType: String?
    public var recordID: String?
    public var outcome: AuditOutcome
    public var origin: AuditOrigin
    public var detail: String?

    public init(
        actor: AuditActor, action: AuditAction, recordType: String? = nil, recordID: String? = nil,
        outcome: AuditOutcome = .success, origin: AuditOrigin, detail: String? = nil
    ) {
        self.actor = actor
        self.action = action
        self.recordType = recordType
        self.recordID = recordID
        self.outcome = outcome
        self.origin = origin
        self.detail = detail
    }
}

/// An audit row as read back.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64
    public var occurredAt: Date
    public var actorAccountID: Int64?
    public var actorRole: String?
    public var actorName: String?
    public var action: String
    public var recordType: String?
    public var recordID: String?
    public var outcome: String
    public var address: String?
    public var userAgent: String?
    public var detail: String?
}

public struct AuditQuery: Sendable, Equatable {
    /// Matches the actor's name at the time, or their account number.
    public var person = ""
    public var action: AuditAction?
    public var from: Date?
    /// Exclusive.
    public var until: Date?
    /// `type:id`, such as `member:12`: only entries about that record.
    public var record = ""
    public var page = PageRequest(number: 1, size: 50)
}

/// The append-only record of who did what; the only place its SQL lives. It has no update or delete.
public struct AuditLog: Sendable {
    let now: @Sendable () -> Date

    func record(_ event: AuditEvent, on db: any SQLDatabase) async throws {
        try await record([event], on: db)
    }

    /// Several entries, all stamped with the same time, a few hundred to a statement (each entry binds
    /// eleven values, and both engines limit the values one statement may bind).
    func record(_ events: [AuditEvent], on db: any SQLDatabase) async throws {
        let occurredAt = now().millisecondsSince1970
        for start in stride(from: 0, to: events.count, by: 500) {
            try await insert(events[start..<min(start + 500, events.count)], occurredAt: occurredAt, on: db)
        }
    }

    private func insert(_ events: ArraySlice<AuditEvent>, occurredAt: Int64, on db: any SQLDatabase) async throws {
        let insert = db.insert(into: "audit_log")
            .columns(
                "occurred_at", "actor_account_id", "actor_role", "actor_name", "action", "record_type", "record_id",
                "outcome", "address", "user_agent", "detail"
            )
        for event in events {
            insert.values(
                SQLBind(occurredAt), SQLBind(event.actor.accountID), SQLBind(event.actor.role),
                SQLBind(event.actor.name), SQLBind(event.action.rawValue), SQLBind(event.recordType),
                SQLBind(event.recordID), SQLBind(event.outcome.rawValue), SQLBind(event.origin.address.map { String($0.prefix(100)) }),
                SQLBind(event.origin.userAgent.map { String($0.prefix(400)) }), SQLBind(event.detail)
            )
        }
        try await insert.run()
    }

    func list(_ query: AuditQuery, on db: any SQLDatabase) async throws -> PageOf<AuditEntry> {
        try await db.page(
            of: "audit_log", query.page,
            filter: { filtered($0, query) },
            order: { $0.orderBy("occurred_at", .descending).orderBy("id", .descending) },
            decode: decode
        )
    }

    /// The next `limit` matching entries after `lastID`, oldest first, so an export walks the log in batches.
    func entries(_ query: AuditQuery, after lastID: Int64, limit: Int, on db: any SQLDatabase) async throws -> [AuditEntry] {
        try await filtered(db.select().column("*").from("audit_log"), query)
            .where("id", .greaterThan, lastID)
            .orderBy("id", .ascending)
            .limit(limit)
            .all()
            .map(decode)
    }

    private func filtered<Builder: SQLPredicateBuilder>(_ builder: Builder, _ query: AuditQuery) -> Builder {
        let person = query.person.trimmingCharacters(in: .whitespaces)
        if !person.isEmpty {
            if let id = Int64(person) {
                builder.where("actor_account_id", .equal, id)
            } else {
                builder.where(lowercased("actor_name", contains: person))
            }
        }
        if let action = query.action { builder.where("action", .equal, action.rawValue) }
        if let from = query.from { builder.where("occurred_at", .greaterThanOrEqual, from.millisecondsSince1970) }
        if let until = query.until { builder.where("occurred_at", .lessThan, until.millisecondsSince1970) }
        let record = query.record.split(separator: ":", maxSplits: 1).map(String.init)
        if record.count == 2 { builder.where("record_type", .equal, record[0]).where("record_id", .equal, record[1]) }
        return builder
    }

    private func decode(_ row: any SQLRow) throws -> AuditEntry {
        AuditEntry(
            id: try row.decode(column: "id", as: Int64.self),
            occurredAt: Date(millisecondsSince1970: try row.decode(column: "occurred_at", as: Int64.self)),
            actorAccountID: try row.decode(column: "actor_account_id", as: Int64?.self),
            actorRole: try row.decode(column: "actor_role", as: String?.self),
            actorName: try row.decode(column: "actor_name", as: String?.self),
            action: try row.decode(column: "action", as: String.self),
            recordType: try row.decode(column: "record_type", as: String?.self),
            recordID: try row.decode(column: "record_id", as: String?.self),
            outcome: try row.decode(column: "outcome", as: String.self),
            address: try row.decode(column: "address", as: String?.self),
            userAgent: try row.decode(column: "user_agent", as: String?.self),
            detail: try row.decode(column: "detail", as: String?.self)
        )
    }
}

import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// Administrators look after staff accounts: find them, approve physicians, disable and re-enable.
struct StaffController {
    static let access = Access.administrators
    let portal: Portal
    let accounts = StaffAccountRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.staff.pattern, access: Self.access, list)
        routes.get(SiteURL.pattern(SiteURL.staffAccount), access: Self.access, show)
        routes.post(SiteURL.pattern(SiteURL.staffDisable), access: Self.access, disable)
        routes.post(SiteURL.pattern(SiteURL.staffEnable), access: Self.access, enable)
        routes.post(SiteURL.pattern(SiteURL.staffApprove), access: Self.access, approve)
        routes.post(SiteURL.pattern(SiteURL.staffSendPasswordReset), access: Self.access, sendPasswordReset)
        routes.get(SiteURL.pattern(SiteURL.staffDelete), access: Self.access, confirmDelete)
        routes.post(SiteURL.pattern(SiteURL.staffDelete), access: Self.access, delete)
    }

    /// Keeps the last administrator: two administrators disabling each other at once cannot both succeed.
    private func lastAdministratorRemains(_ account: StaffAccount, on db: any SQLDatabase) async throws -> Bool {
        try await portal.database.serializeSetup(on: db)
        guard account.role == .administrator, account.status == .active else { return false }
        return try await accounts.activeAdministratorCount(excluding: account.id, on: db) == 0
    }

    private struct LastAdministrator: Error {}

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let query = try StaffListQuery(request: request)
        let content = try await portal.database.read { db in try await StaffListPage.load(query, on: db) }
        return portal.pages.response(
            StaffListPage(
                layout: portal.layout("Staff accounts", context: context, current: .staff),
                query: query,
                content: content,
                pagination: portal.pages.html(PaginationView(content.accounts, address: StaffListPage.address(query), noun: "accounts")),
                now: portal.now,
                clock: portal.programSettings.current.clock,
                csrfToken: context.session?.csrfToken ?? ""
            )
        )
    }

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let record = try await portal.database.read { db in try await StaffAccountPage.load(accountID: id, on: db) }
        guard let record else { throw HTTPError(.notFound) }
        return portal.pages.response(
            StaffAccountPage(
                layout: portal.layout(record.account.username, context: context, current: .staff),
                record: record,
                viewerID: context.staff?.id,
                clock: portal.programSettings.current.clock
            )
        )
    }

    @Sendable func disable(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard context.staff?.id != id else {
            try await portal.flash(Flash(.warning, "You cannot disable your own account."), context: context)
            return seeOther(.staffAccount(id))
        }
        let origin = portal.origin(of: request, context: context)
        let message = try await portal.database.transaction { db in
            guard let account = try await accounts.find(id: id, on: db) else { throw HTTPError(.notFound) }
            if try await lastAdministratorRemains(account, on: db) {
                return Flash(
                    .warning,
                    "\(account.username) is the last active administrator and cannot be disabled. Make someone else an administrator first."
                )
            }
            try await accounts.setStatus(.disabled, accountID: id, now: portal.now, on: db)
            try await portal.sessions.endAll(accountID: id, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .accountDisabled,
                    recordType: "staff_account",
                    recordID: "\(id)",
                    origin: origin,
                    detail: account.status == .awaitingApproval ? "registration declined" : nil
                ),
                on: db
            )
            return Flash(.success, "\(account.username) has been disabled and signed out everywhere.")
        }
        try await portal.flash(message, context: context)
        return seeOther(.staffAccount(id))
    }

    @Sendable func enable(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        let username = try await portal.database.transaction { db in
            guard let account = try await accounts.find(id: id, on: db) else { throw HTTPError(.notFound) }
            try await accounts.setStatus(.active, accountID: id, now: portal.now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .accountEnabled,
                    recordType: "staff_account",
                    recordID: "\(id)",
                    origin: origin
                ),
                on: db
            )
            return account.username
        }
        try await portal.flash(Flash(.success, "\(username) can sign in again."), context: context)
        return seeOther(.staffAccount(id))
    }

    @Sendable func approve(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let staff = context.staff else { throw AccessDenied() }
        let origin = portal.origin(of: request, context: context)
        let username = try await portal.database.transaction { db in
            guard let account = try await accounts.find(id: id, on: db), account.status == .awaitingApproval else {
                throw HTTPError(.notFound)
            }
            try await accounts.setStatus(.active, accountID: id, now: portal.now, on: db)
            try await accounts.recordApproval(accountID: id, approvedBy: staff.id, now: portal.now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .physicianApproved,
                    recordType: "staff_account",
                    recordID: "\(id)",
                    origin: origin
                ),
                on: db
            )
            if let email = account.email {
                try await portal.outbox.enqueue(
                    Mail(
                        recipient: email,
                        subject: "Your \(portal.settings.programName) account is approved",
                        body: """
                            Your registration as a physician has been approved. You can now sign in with the username \(account.username):
                            \(portal.settings.baseURL)\(SiteURL.signIn.path)
                            """
                    ),
                    on: db
                )
            }
            return account.username
        }
        try await portal.flash(Flash(.success, "\(username) is approved and can now sign in."), context: context)
        return seeOther(.staffAccount(id))
    }

    // MARK: Password reset links

    @Sendable func sendPasswordReset(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        let now = portal.now
        let message = try await portal.database.transaction { db in
            guard let account = try await accounts.find(id: id, on: db) else { throw HTTPError(.notFound) }
            guard account.status == .active, let email = account.email else {
                return Flash(.warning, "No link was sent: \(account.username) has no email address or cannot sign in.")
            }
            try await PasswordResetController(portal: portal).send(to: account, email: email, byAdministrator: true, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .passwordResetSent,
                    recordType: "staff_account",
                    recordID: "\(id)",
                    origin: origin
                ),
                on: db
            )
            return Flash(.success, "A link to choose a new password has been sent to \(email). It works once, for an hour.")
        }
        try await portal.flash(message, context: context)
        return seeOther(.staffAccount(id))
    }

    // MARK: Deleting an account

    private static func deleteTitle(_ username: String) -> String { "Delete \(username)’s account?" }

    @Sendable func confirmDelete(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard context.staff?.id != id else { throw HTTPError(.notFound) }
        let account = try await portal.database.read { db in try await accounts.find(id: id, on: db) }
        guard let account else { throw HTTPError(.notFound) }
        return portal.pages.response(
            DeleteStaffAccountPage(
                account: account,
                layout: portal.layout(Self.deleteTitle(account.username), context: context, current: .staff),
                errors: [],
                field: DeleteStaffAccountPage.field()
            )
        )
    }

    @Sendable func delete(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard context.staff?.id != id else { throw HTTPError(.notFound) }
        let form = try await request.form(DeleteStaffAccountForm.self, context: context)
        guard let account = try await portal.database.read({ db in try await accounts.find(id: id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        func refuse(_ message: String) -> Response {
            portal.pages.response(
                DeleteStaffAccountPage(
                    account: account,
                    layout: portal.layout(Self.deleteTitle(account.username), context: context, current: .staff),
                    typed: form.typedUsername,
                    message: message
                ),
                status: .unprocessableContent
            )
        }
        if let problem = form.problem(confirming: account) { return refuse(problem) }
        // A hash of a password nobody knows, so the row can never be signed in to.
        let unusableHash = try await portal.passwords.hash(SecretToken(randomBytes: portal.dependencies.randomBytes).value)
        let origin = portal.origin(of: request, context: context)
        if let refusal = try await forget(accountID: id, unusableHash: unusableHash, origin: origin, context: context) { return refuse(refusal) }
        try await portal.flash(
            Flash(
                .success,
                "\(account.username)’s account has been deleted. What she wrote on the desk stays, signed “\(account.role.formerTitle)”."
            ),
            context: context
        )
        return seeOther(.staff)
    }

    /// Removes the account's personal details and signs it out, keeping the row under its role's former
    /// title; the reason when it may not go (the last administrator, or a physician with patients).
    private func forget(accountID id: Int64, unusableHash: String, origin: AuditOrigin, context: PortalContext) async throws -> String? {
        let now = portal.now
        let former = FormerStaffRepository()
        return try await portal.database.transaction { db in
            guard let account = try await accounts.find(id: id, on: db) else { throw HTTPError(.notFound) }
            if try await lastAdministratorRemains(account, on: db) {
                return "\(account.username) is the last active administrator and cannot be deleted. Make someone else an administrator first."
            }
            if account.role == .physician {
                let patients = try await former.patientCount(physicianID: id, on: db)
                if patients > 0 {
                    return
                        "\(account.username) still looks after \(patients) patient\(patients == 1 ? "" : "s"). Give them to another physician first."
                }
            }
            try await portal.sessions.endAll(accountID: id, on: db)
            try await former.removePersonalDetails(accountID: id, on: db)
            try await accounts.forget(accountID: id, formerName: account.role.formerTitle, unusableHash: unusableHash, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .accountDeleted,
                    recordType: "staff_account",
                    recordID: "\(id)",
                    origin: origin,
                    detail: "role \(account.role.rawValue)"
                ),
                on: db
            )
            return nil
        }
    }
}

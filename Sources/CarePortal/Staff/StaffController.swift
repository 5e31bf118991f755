import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// Administrators look after staff accounts: find them, approve physicians, disable and re-enable.
struct StaffController {
    static let access = Access.administrators
    let portal: Portal
    let accounts = StaffAccountRepository()
    let sessionRepository = SessionRepository()

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
        var query = StaffListQuery()
        query.search = request.query("q") ?? ""
        query.role = request.query("role").flatMap(StaffRole.init(rawValue:))
        query.status = request.query("status").flatMap(AccountStatus.init(rawValue:))
        query.sort = request.query("sort").flatMap(StaffSort.init(rawValue:)) ?? .username
        query.descending = request.query("order") == "desc"
        query.page = try request.pageRequest()
        let (page, awaiting, open) = try await portal.database.read { [query] db in
            (
                try await accounts.list(query, on: db), try await accounts.awaitingApprovalCount(on: db),
                try await StaffInvitationRepository().open(on: db)
            )
        }
        let now = portal.now
        let address = ListAddress(
            path: SiteURL.staff.path,
            parameters: [
                ("q", query.search), ("role", query.role?.rawValue), ("status", query.status?.rawValue),
                ("sort", query.sort == .username ? nil : query.sort.rawValue), ("order", query.descending ? "desc" : nil)
            ]
        )
        func header(_ title: String, _ sort: StaffSort) -> SortableHeader {
            SortableHeader(title: title, key: sort.rawValue, currentKey: query.sort.rawValue, descending: query.descending, address: address)
        }
        let invitationRows = InvitationRows.html(
            open,
            showingRoles: true,
            now: now,
            clock: portal.programSettings.current.clock,
            csrfToken: context.session?.csrfToken ?? ""
        )
        return portal.pages.response(
            StaffListPage(
                layout: portal.layout("Staff accounts", context: context, current: .staff),
                search: query.search,
                roleOptions: [FilterOption(value: "", title: "All roles", isSelected: query.role == nil)]
                    + StaffRole.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == query.role) },
                statusOptions: [FilterOption(value: "", title: "All statuses", isSelected: query.status == nil)]
                    + AccountStatus.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == query.status) },
                headers: [header("Username", .username), header("Role", .role), header("Status", .status), header("Created", .created)],
                rows: StaffRows.html(page.items, clock: portal.programSettings.current.clock).html,
                hasRows: !page.items.isEmpty,
                pagination: portal.pages.html(PaginationView(page, address: address, noun: "accounts")),
                awaitingApprovalCount: awaiting,
                hasAwaitingApprovals: awaiting > 0,
                awaitingApprovalPath: ListAddress(path: SiteURL.staff.path, parameters: [("status", AccountStatus.awaitingApproval.rawValue)]).string,
                isFiltered: !query.search.isEmpty || query.role != nil || query.status != nil,
                invitations: invitationRows.html,
                hasInvitations: !invitationRows.isEmpty
            )
        )
    }

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let (account, profile, staffProfile, sessions, factor) = try await portal.database.read { db in
            guard let account = try await accounts.find(id: id, on: db) else { throw HTTPError(.notFound) }
            return (
                account,
                try await accounts.physicianProfile(accountID: id, on: db),
                try await StaffProfileRepository().find(accountID: id, on: db),
                try await sessionRepository.count(accountID: id, on: db),
                try await SecondFactorRepository().find(accountID: id, on: db)
            )
        }
        let isSelf = context.staff?.id == account.id
        let clock = portal.programSettings.current.clock
        var details = [
            StaffAccountPage.Detail(key: "Username", value: account.username),
            StaffAccountPage.Detail(key: "Role", value: account.role.title),
            StaffAccountPage.Detail(key: "Email address", value: account.email ?? "Not given"),
            StaffAccountPage.Detail(key: "Account created", value: clock.dateTime(account.createdAt))
        ]
        details.append(StaffAccountPage.Detail(key: "Last changed", value: clock.dateTime(account.updatedAt)))
        details.append(
            StaffAccountPage.Detail(
                key: "Two-factor sign-in",
                value: factor?.confirmedAt.map { "On since \(clock.dateTime($0))" } ?? (factor == nil ? "Off" : "Being set up")
            )
        )
        let physicianDetails =
            profile.map { profile in
                [
                    StaffAccountPage.Detail(key: "Name", value: profile.fullName),
                    StaffAccountPage.Detail(key: "Location of practice", value: profile.practiceLocation),
                    StaffAccountPage.Detail(
                        key: "Practice phone",
                        value: profile.practicePhone.isEmpty ? "Not given" : PhoneNumber(stored: profile.practicePhone).display
                    ),
                    StaffAccountPage.Detail(key: "Medical identification number", value: profile.medicalIDNumber)
                ]
            } ?? []
        let medicalProfessionalDetails =
            staffProfile.map { profile in
                [
                    StaffAccountPage.Detail(key: "Real name", value: profile.fullName),
                    StaffAccountPage.Detail(key: "Date of birth", value: profile.dateOfBirth.displayed),
                    StaffAccountPage.Detail(key: "Avatar", value: profile.avatar.name),
                    StaffAccountPage.Detail(key: "Bio", value: profile.bio.isEmpty ? "None" : profile.bio)
                ]
            } ?? []
        return portal.pages.response(
            StaffAccountPage(
                layout: portal.layout(account.username, context: context, current: .staff),
                username: account.username,
                statusTitle: account.status.title,
                statusTag: account.status.tagClass,
                details: details,
                physicianDetails: physicianDetails,
                medicalProfessionalDetails: medicalProfessionalDetails,
                activeSessions: sessions,
                approvePath: account.status == .awaitingApproval ? SiteURL.staffApprove(id).path : nil,
                disablePath: account.status != .disabled && !isSelf ? SiteURL.staffDisable(id).path : nil,
                enablePath: account.status == .disabled ? SiteURL.staffEnable(id).path : nil,
                isSelf: isSelf,
                sendPasswordResetPath: account.status == .active && account.email != nil ? SiteURL.staffSendPasswordReset(id).path : nil,
                deletePath: isSelf ? nil : SiteURL.staffDelete(id).path,
                resetSecondFactorPath: factor == nil ? nil : SiteURL.staffResetSecondFactor(id).path,
                auditPath: ListAddress(path: SiteURL.auditLog.path, parameters: [("person", "\(id)")]).string
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

    private struct DeleteForm: Decodable {
        var username: String?
    }

    @Sendable func delete(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard context.staff?.id != id else { throw HTTPError(.notFound) }
        let form = try await request.form(DeleteForm.self, context: context)
        let typed = form.username?.trimmed ?? ""
        guard let account = try await portal.database.read({ db in try await accounts.find(id: id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        func refuse(_ message: String) -> Response {
            var errors = FormErrors()
            errors.add("username", message)
            var field = DeleteStaffAccountPage.field(typed)
            field.error = message
            return portal.pages.response(
                DeleteStaffAccountPage(
                    account: account,
                    layout: portal.layout(Self.deleteTitle(account.username), context: context, current: .staff),
                    errors: errors.items,
                    field: field
                ),
                status: .unprocessableContent
            )
        }
        if typed.isEmpty { return refuse("Type the username \(account.username) to confirm") }
        guard usernameKey(typed) == usernameKey(account.username) else {
            return refuse("The username you typed is not \(account.username). Type it exactly to confirm")
        }
        // A hash of a password nobody knows, so the row can never be signed in to.
        let unusableHash = try await portal.passwords.hash(SecretToken(randomBytes: portal.dependencies.randomBytes).value)
        let origin = portal.origin(of: request, context: context)
        let now = portal.now
        let former = FormerStaffRepository()
        let refusal: String? = try await portal.database.transaction { db in
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
        if let refusal { return refuse(refusal) }
        try await portal.flash(
            Flash(
                .success,
                "\(account.username)’s account has been deleted. What she wrote on the desk stays, signed “\(account.role.formerTitle)”."
            ),
            context: context
        )
        return seeOther(.staff)
    }
}

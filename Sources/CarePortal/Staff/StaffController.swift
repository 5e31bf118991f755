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
    }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        var query = StaffListQuery()
        query.search = request.query("q") ?? ""
        query.role = request.query("role").flatMap(StaffRole.init(rawValue:))
        query.status = request.query("status").flatMap(AccountStatus.init(rawValue:))
        query.sort = request.query("sort").flatMap(StaffSort.init(rawValue:)) ?? .username
        query.descending = request.query("order") == "desc"
        query.page = PageRequest(number: request.pageNumber)
        let (page, awaiting) = try await portal.database.read { [query] db in
            (try await accounts.list(query, on: db), try await accounts.awaitingApprovalCount(on: db))
        }
        let address = ListAddress(path: SiteURL.staff.path, parameters: [
            ("q", query.search), ("role", query.role?.rawValue), ("status", query.status?.rawValue),
            ("sort", query.sort == .username ? nil : query.sort.rawValue), ("order", query.descending ? "desc" : nil),
        ])
        func header(_ title: String, _ sort: StaffSort) -> SortableHeader {
            SortableHeader(title: title, key: sort.rawValue, currentKey: query.sort.rawValue, descending: query.descending, address: address)
        }
        return portal.pages.response(StaffListPage(
            layout: portal.layout("Staff accounts", context: context, current: .staff),
            search: query.search,
            roleOptions: [FilterOption(value: "", title: "All roles", isSelected: query.role == nil)]
                + StaffRole.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == query.role) },
            statusOptions: [FilterOption(value: "", title: "All statuses", isSelected: query.status == nil)]
                + AccountStatus.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == query.status) },
            headers: [header("Username", .username), header("Role", .role), header("Status", .status), header("Created", .created)],
            rows: page.items.map(StaffRow.init),
            pagination: portal.pages.html(PaginationView(page, address: address, noun: "accounts")),
            awaitingApprovalCount: awaiting,
            hasAwaitingApprovals: awaiting > 0,
            awaitingApprovalPath: ListAddress(path: SiteURL.staff.path, parameters: [("status", AccountStatus.awaitingApproval.rawValue)]).string,
            isFiltered: !query.search.isEmpty || query.role != nil || query.status != nil
        ))
    }

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let (account, profile, staffProfile, sessions) = try await portal.database.read { db in
            guard let account = try await accounts.find(id: id, on: db) else { throw HTTPError(.notFound) }
            return (
                account,
                try await accounts.physicianProfile(accountID: id, on: db),
                try await StaffProfileRepository().find(accountID: id, on: db),
                try await sessionRepository.count(accountID: id, on: db)
            )
        }
        let isSelf = context.staff?.id == account.id
        var details = [
            StaffAccountPage.Detail(key: "Username", value: account.username),
            StaffAccountPage.Detail(key: "Role", value: account.role.title),
            StaffAccountPage.Detail(key: "Email address", value: account.email ?? "Not given"),
            StaffAccountPage.Detail(key: "Account created", value: DisplayTime.dateTime(account.createdAt)),
        ]
        details.append(StaffAccountPage.Detail(key: "Last changed", value: DisplayTime.dateTime(account.updatedAt)))
        let physicianDetails = profile.map { profile in
            [
                StaffAccountPage.Detail(key: "Name", value: profile.fullName),
                StaffAccountPage.Detail(key: "Location of practice", value: profile.practiceLocation),
                StaffAccountPage.Detail(key: "Medical identification number", value: profile.medicalIDNumber),
            ]
        } ?? []
        let medicalProfessionalDetails = staffProfile.map { profile in
            [
                StaffAccountPage.Detail(key: "Real name", value: profile.fullName),
                StaffAccountPage.Detail(key: "Date of birth", value: profile.dateOfBirth.displayed),
                StaffAccountPage.Detail(key: "Avatar", value: profile.avatar.name),
                StaffAccountPage.Detail(key: "Bio", value: profile.bio.isEmpty ? "None" : profile.bio),
            ]
        } ?? []
        return portal.pages.response(StaffAccountPage(
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
            auditPath: ListAddress(path: SiteURL.auditLog.path, parameters: [("person", "\(id)")]).string
        ))
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
            try await accounts.setStatus(.disabled, accountID: id, now: portal.now, on: db)
            try await portal.sessions.endAll(accountID: id, on: db)
            try await portal.audit.record(AuditEvent(
                actor: context.auditActor, action: .accountDisabled, recordType: "staff_account", recordID: "\(id)",
                origin: origin, detail: account.status == .awaitingApproval ? "registration declined" : nil
            ), on: db)
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
            try await portal.audit.record(AuditEvent(
                actor: context.auditActor, action: .accountEnabled, recordType: "staff_account", recordID: "\(id)", origin: origin
            ), on: db)
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
            try await portal.audit.record(AuditEvent(
                actor: context.auditActor, action: .physicianApproved, recordType: "staff_account", recordID: "\(id)", origin: origin
            ), on: db)
            if let email = account.email {
                try await portal.outbox.enqueue(Mail(
                    recipient: email,
                    subject: "Your \(portal.settings.programName) account is approved",
                    body: """
                        Your registration as a physician has been approved. You can now sign in with the username \(account.username):
                        \(portal.settings.baseURL)\(SiteURL.signIn.path)
                        """
                ), on: db)
            }
            return account.username
        }
        try await portal.flash(Flash(.success, "\(username) is approved and can now sign in."), context: context)
        return seeOther(.staffAccount(id))
    }
}

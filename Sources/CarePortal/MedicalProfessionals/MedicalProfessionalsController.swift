import Foundation
import Hummingbird
import PortalPlatform

/// Administrators invite medical professionals, send invitations again, revoke them, and see who has an account.
struct MedicalProfessionalsController {
    static let access = Access.administrators
    let portal: Portal
    let profiles = StaffProfileRepository()
    let invitations = StaffInvitationRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.medicalProfessionals.pattern, access: Self.access, list)
        routes.get(SiteURL.inviteMedicalProfessional.pattern, access: Self.access, showInvite)
        routes.post(SiteURL.inviteMedicalProfessional.pattern, access: Self.access, invite)
    }

    /// Inviting any role, and resending and revoking any invitation, from the Staff accounts pages
    /// (registered by `StaffFeature`, so they work whichever programs run).
    func addStaffInvitationRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.staffInvite.pattern, access: Self.access, showStaffInvite)
        routes.post(SiteURL.staffInvite.pattern, access: Self.access, invite)
        routes.post(SiteURL.pattern(SiteURL.invitationResend), access: Self.access, resend)
        routes.post(SiteURL.pattern(SiteURL.invitationRevoke), access: Self.access, revoke)
    }

    private static let listTitle = "Medical professionals"
    private static let inviteTitle = "Invite a medical professional"

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        var query = StaffListQuery()
        query.role = .medicalProfessional
        query.page = try request.pageRequest()
        let (open, page) = try await portal.database.read { [query] db in
            (try await invitations.open(role: .medicalProfessional, on: db), try await profiles.named(query, on: db))
        }
        let now = portal.now
        let professionals = MedicalProfessionalRows.html(page.items)
        let invitationRows = InvitationRows.html(
            open,
            showingRoles: false,
            now: now,
            clock: portal.programSettings.current.clock,
            csrfToken: context.session?.csrfToken ?? ""
        )
        return portal.pages.response(
            MedicalProfessionalsPage(
                layout: portal.layout(Self.listTitle, context: context, current: .medicalProfessionals),
                invitations: invitationRows.html,
                hasInvitations: !invitationRows.isEmpty,
                professionals: professionals.html,
                hasProfessionals: !professionals.isEmpty,
                pagination: portal.pages.html(
                    PaginationView(page, address: ListAddress(path: SiteURL.medicalProfessionals.path, parameters: []), noun: "medical professionals")
                )
            )
        )
    }

    @Sendable func showInvite(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(invitePage(context: context, choosingRole: nil, errors: FormErrors()))
    }

    /// The Staff accounts page's invitation: the same form, with the role to choose (every role the portal has).
    @Sendable func showStaffInvite(request: Request, context: PortalContext) async throws -> Response {
        let role = request.query("role").flatMap(StaffRole.init(rawValue:))
        return portal.pages.response(invitePage(context: context, choosingRole: .some(role), errors: FormErrors()))
    }

    /// `choosingRole` is nil on the medical professionals' own form, and the role chosen so far on the staff form.
    private func invitePage(
        context: PortalContext,
        choosingRole: StaffRole??,
        errors: FormErrors,
        values: [String: String] = [:],
        typedDate: DateInputValue = DateInputValue(day: nil, month: nil, year: nil),
        dateProblem: DateInputProblem? = nil
    ) -> InviteMedicalProfessionalPage {
        var nameFields = InviteMedicalProfessionalPage.nameFields(values)
        var emailFields = InviteMedicalProfessionalPage.emailFields(values)
        errors.apply(to: &nameFields)
        errors.apply(to: &emailFields)
        let choosing = choosingRole != nil
        let title = choosing ? "Invite a member of staff" : Self.inviteTitle
        return InviteMedicalProfessionalPage(
            layout: portal.layout(title, context: context, current: choosing ? .staff : .medicalProfessionals),
            errors: errors.items,
            title: title,
            roleChoices: choosingRole.map { chosen in
                StaffRole.allCases.enumerated().map { index, role in
                    InviteMedicalProfessionalPage.RoleChoice(
                        id: index == 0 ? "role" : "role-\(index + 1)",
                        value: role.rawValue,
                        title: role.title,
                        isChecked: role == chosen
                    )
                }
            } ?? [],
            roleError: errors["role"],
            nameFields: nameFields,
            dateOfBirth: InviteMedicalProfessionalPage.dateOfBirth(typedDate, problem: dateProblem, choosingRole: choosing),
            emailFields: emailFields,
            action: choosing ? SiteURL.staffInvite.path : SiteURL.inviteMedicalProfessional.path,
            listPath: choosing ? SiteURL.staff.path : SiteURL.medicalProfessionals.path,
            listTitle: choosing ? "staff accounts" : "medical professionals"
        )
    }

    @Sendable func invite(request: Request, context: PortalContext) async throws -> Response {
        guard let staff = context.staff else { throw AccessDenied() }
        let form = try await request.form(InvitationForm.self, context: context)
        let choosing = form.isChoosingRole
        func page(_ errors: FormErrors, dateProblem: DateInputProblem?) -> Response {
            portal.pages.response(
                invitePage(
                    context: context,
                    choosingRole: choosing ? .some(form.invitedRole) : nil,
                    errors: errors,
                    values: form.values,
                    typedDate: form.typedDate,
                    dateProblem: dateProblem
                ),
                status: .unprocessableContent
            )
        }
        let checked = form.validated(today: CalendarDate(portal.now))
        guard let invitee = checked.invitee else { return page(checked.errors, dateProblem: checked.dateProblem) }
        let origin = portal.origin(of: request, context: context)
        let token = SecretToken(randomBytes: portal.dependencies.randomBytes)
        guard let invitation = try await create(invitee, token: token, createdBy: staff.id, origin: origin, context: context) else {
            var errors = FormErrors()
            errors.add("email", "An invitation to this email address is already open. Send it again or revoke it from the list of \(form.listTitle)")
            return page(errors, dateProblem: nil)
        }
        let back: SiteURL = choosing ? .staff : .medicalProfessionals
        guard portal.deliversMail else {
            return linkShownOnce(invitation, token: token, heading: "\(invitation.fullName) is invited", earlier: nil, back: back, context: context)
        }
        try await portal.flash(
            Flash(
                .success,
                "An invitation\(choosing ? " as \(invitation.role.title.lowercased())" : "") has been sent to \(invitation.fullName) at \(invitation.email). The link works for \(StaffInvitation.lifetimeDays) days."
            ),
            context: context
        )
        return seeOther(back)
    }

    /// Makes the invitation and queues its email; nil when the address already has an open one.
    private func create(
        _ invitee: Invitee,
        token: SecretToken,
        createdBy: Int64,
        origin: AuditOrigin,
        context: PortalContext
    ) async throws -> StaffInvitation? {
        try await portal.database.transaction { db in
            guard try await !invitations.hasOpenInvitation(email: invitee.email, on: db) else { return nil }
            let invitation = try await invitations.create(invitee, token: token, createdBy: createdBy, now: portal.now, on: db)
            try await portal.outbox.enqueue(
                .invitation(invitation, token: token, settings: portal.settings, clock: portal.programSettings.current.clock),
                on: db
            )
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .invitationSent,
                    recordType: "staff_invitation",
                    recordID: "\(invitation.id)",
                    origin: origin
                ),
                on: db
            )
            return invitation
        }
    }

    /// Without a mail server, the invitation's link, shown once to the administrator who made it.
    private func linkShownOnce(
        _ invitation: StaffInvitation,
        token: SecretToken,
        heading: String,
        earlier: String?,
        back: SiteURL,
        context: PortalContext
    ) -> Response {
        portal.pages.response(
            ShownOncePage(
                layout: portal.layout(heading, context: context, current: back),
                heading: heading,
                lead: "Give \(invitation.fullName) (\(invitation.email)) this link yourself, by a way only they read:",
                label: "Invitation link",
                secret: StaffInvitation.link(token: token, settings: portal.settings),
                note: "It works once, until \(portal.programSettings.current.clock.dateTime(invitation.expiresAt)).\(earlier.map { " \($0)" } ?? "")",
                continuePath: back.path,
                continueTitle: back == .staff ? "Back to staff accounts" : "Back to medical professionals"
            )
        )
    }

    @Sendable func resend(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        let existing = try await portal.database.read { db in try await invitations.find(id: id, on: db) }
        guard let existing else { throw HTTPError(.notFound) }
        let token = SecretToken(randomBytes: portal.dependencies.randomBytes)
        let renewed = try await renew(id: id, token: token, origin: origin, context: context)
        if let renewed, !portal.deliversMail {
            return linkShownOnce(
                renewed,
                token: token,
                heading: "A new invitation for \(renewed.fullName)",
                earlier: "The link given or sent before no longer works.",
                back: existing.role == .medicalProfessional ? .medicalProfessionals : .staff,
                context: context
            )
        }
        try await portal.flash(
            renewed.map {
                Flash(.success, "A new invitation has been sent to \($0.fullName) at \($0.email). The link in the earlier email no longer works.")
            } ?? Flash(.warning, "That invitation was not sent again: it has already been accepted or revoked."),
            context: context
        )
        return seeOther(existing.role == .medicalProfessional ? .medicalProfessionals : .staff)
    }

    /// Gives the invitation a new link and queues its email; nil when it was accepted or revoked.
    private func renew(id: Int64, token: SecretToken, origin: AuditOrigin, context: PortalContext) async throws -> StaffInvitation? {
        try await portal.database.transaction { db in
            guard let renewed = try await invitations.renew(id: id, token: token, now: portal.now, on: db) else { return nil }
            try await portal.outbox.enqueue(
                .invitation(renewed, token: token, settings: portal.settings, clock: portal.programSettings.current.clock),
                on: db
            )
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .invitationResent,
                    recordType: "staff_invitation",
                    recordID: "\(id)",
                    origin: origin
                ),
                on: db
            )
            return renewed
        }
    }

    @Sendable func revoke(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let staff = context.staff else { throw AccessDenied() }
        let origin = portal.origin(of: request, context: context)
        let existing = try await portal.database.read { db in try await invitations.find(id: id, on: db) }
        guard let existing else { throw HTTPError(.notFound) }
        let revoked: StaffInvitation? = try await portal.database.transaction { db in
            guard let invitation = try await invitations.find(id: id, on: db) else { throw HTTPError(.notFound) }
            guard try await invitations.revoke(id: id, by: staff.id, now: portal.now, on: db) else { return nil }
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .invitationRevoked,
                    recordType: "staff_invitation",
                    recordID: "\(id)",
                    origin: origin
                ),
                on: db
            )
            return invitation
        }
        try await portal.flash(
            revoked.map { Flash(.success, "The invitation to \($0.fullName) is revoked. Its link no longer works.") }
                ?? Flash(.warning, "That invitation was not revoked: it has already been accepted or revoked."),
            context: context
        )
        return seeOther(existing.role == .medicalProfessional ? .medicalProfessionals : .staff)
    }
}

/// The invitation form: the medical professionals' own, or the staff accounts' with the role to choose.
struct InvitationForm: Decodable, Sendable {
    /// Sent by the staff form; the medical professionals' form invites medical professionals.
    var role: String?
    var role_shown: String?
    var first_name: String?
    var last_name: String?
    var date_of_birth_day: String?
    var date_of_birth_month: String?
    var date_of_birth_year: String?
    var email: String?

    var isChoosingRole: Bool { role_shown != nil }

    /// The role chosen on the staff form (nil when none is), or a medical professional on their own form.
    var invitedRole: StaffRole? { isChoosingRole ? role.flatMap(StaffRole.init(rawValue:)) : .medicalProfessional }

    var values: [String: String] {
        ["first_name": first_name?.trimmed ?? "", "last_name": last_name?.trimmed ?? "", "email": email?.trimmed ?? ""]
    }

    var typedDate: DateInputValue { DateInputValue(day: date_of_birth_day, month: date_of_birth_month, year: date_of_birth_year) }

    /// The list an already open invitation can be sent again or revoked from.
    var listTitle: String { isChoosingRole ? "staff accounts" : "medical professionals" }

    /// The person to invite, or what is wrong by field (and with the date of birth, shown on its parts).
    func validated(today: CalendarDate) -> (invitee: Invitee?, errors: FormErrors, dateProblem: DateInputProblem?) {
        let values = values
        let role = invitedRole
        var errors = FormErrors()
        if role == nil { errors.add("role", "Select the role they will have") }
        var dateProblem: DateInputProblem?
        if let problem = FieldRules.requiredTextProblem(values["first_name"]!, name: "their first name") { errors.add("first_name", problem) }
        if let problem = FieldRules.requiredTextProblem(values["last_name"]!, name: "their last name") { errors.add("last_name", problem) }
        var dateOfBirth: CalendarDate?
        // Only a medical professional's profile keeps a date of birth; other roles are not asked for one.
        if role == .medicalProfessional {
            switch typedDate.date(named: "Date of birth", missing: "Enter their date of birth") {
            case .success(let date):
                if let message = Self.dateOfBirthProblem(date, today: today) {
                    dateProblem = DateInputProblem(message: message, parts: DateInputValue.Part.allCases)
                } else {
                    dateOfBirth = date
                }
            case .failure(let problem):
                dateProblem = problem
            }
        }
        if let dateProblem { errors.add(DateInputField.errorAnchor("date_of_birth", dateProblem), dateProblem.message) }
        if let problem = FieldRules.emailProblem(values["email"]!) { errors.add("email", problem) }
        guard errors.isEmpty, let role, role != .medicalProfessional || dateOfBirth != nil else { return (nil, errors, dateProblem) }
        let invitee = Invitee(
            firstName: values["first_name"]!,
            lastName: values["last_name"]!,
            dateOfBirth: dateOfBirth,
            email: values["email"]!,
            role: role
        )
        return (invitee, errors, dateProblem)
    }

    /// Medical professionals are 18 to 100 years old on the day they are invited.
    static func dateOfBirthProblem(_ date: CalendarDate, today: CalendarDate) -> String? {
        if date >= today { return "Date of birth must be in the past" }
        let latest = today.adding(years: -18)
        if date > latest { return "Date of birth must be on or before \(latest.displayed), as a medical professional must be 18 or older" }
        let earliest = today.adding(years: -101).nextDay
        if date < earliest { return "Date of birth must be on or after \(earliest.displayed). Check the year" }
        return nil
    }
}

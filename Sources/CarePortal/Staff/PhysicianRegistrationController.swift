import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// Physicians register themselves; an administrator approves them before their first sign-in.
struct PhysicianRegistrationController {
    let portal: Portal
    let accounts = StaffAccountRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.registerPhysician.pattern, access: .everyone, showForm)
        routes.post(SiteURL.registerPhysician.pattern, access: .everyone, register)
        routes.get(SiteURL.registrationReceived.pattern, access: .everyone, received)
    }

    private static let title = "Register as a physician"
    static let tooManyRegistrations = "Too many registrations have come from your network in the last 15 minutes. Wait 15 minutes, then try again."

    @Sendable func showForm(request: Request, context: PortalContext) async throws -> Response {
        try await portal.withFormSession(context: context) { context in
            let fields = RegisterPhysicianPage.fields()
            return portal.pages.response(
                RegisterPhysicianPage(
                    layout: portal.layout(Self.title, context: context),
                    errors: [],
                    accountFields: fields.account,
                    personFields: fields.person
                )
            )
        }
    }

    private struct RegistrationForm: Decodable {
        var username: String?
        var email: String?
        var password: String?
        var password_confirmation: String?
        var first_name: String?
        var middle_name: String?
        var last_name: String?
        var practice_location: String?
        var practice_phone: String?
        var medical_id_number: String?
    }

    @Sendable func register(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(RegistrationForm.self, context: context)
        let values: [String: String] = [
            "username": form.username?.trimmed ?? "", "email": form.email?.trimmed ?? "",
            "first_name": form.first_name?.trimmed ?? "", "middle_name": form.middle_name?.trimmed ?? "",
            "last_name": form.last_name?.trimmed ?? "", "practice_location": form.practice_location?.trimmed ?? "",
            "practice_phone": form.practice_phone?.trimmed ?? "",
            "medical_id_number": form.medical_id_number?.trimmed ?? ""
        ]
        let username = values["username"]!
        let password = form.password ?? ""
        var errors = FormErrors()
        if let problem = FieldRules.usernameProblem(username) { errors.add("username", problem) }
        if let problem = FieldRules.emailProblem(values["email"]!) { errors.add("email", problem) }
        if let problem = portal.passwordPolicy.problem(with: password, username: username) { errors.add("password", problem) }
        if errors["password"] == nil, password != form.password_confirmation {
            errors.add("password_confirmation", "The passwords do not match")
        }
        if let problem = FieldRules.personNameProblem(values["first_name"]!, name: "your first name") { errors.add("first_name", problem) }
        if !values["middle_name"]!.isEmpty, let problem = FieldRules.personNameProblem(values["middle_name"]!, name: "your middle name") {
            errors.add("middle_name", problem)
        }
        if let problem = FieldRules.personNameProblem(values["last_name"]!, name: "your last name") { errors.add("last_name", problem) }
        if let problem = PhysicianPractice.locationProblem(values["practice_location"]!) { errors.add("practice_location", problem) }
        let practicePhone = PhysicianPractice.phoneDigits(values["practice_phone"]!)
        if practicePhone == nil { errors.add("practice_phone", PhysicianPractice.phoneProblem) }
        if let problem = FieldRules.requiredTextProblem(values["medical_id_number"]!, name: "your medical identification number", maximumLength: 40) {
            errors.add("medical_id_number", problem)
        }

        func page(_ errors: FormErrors, status: HTTPResponse.Status = .unprocessableContent) -> Response {
            var fields = RegisterPhysicianPage.fields(values)
            errors.apply(to: &fields.account)
            errors.apply(to: &fields.person)
            return portal.pages.response(
                RegisterPhysicianPage(
                    layout: portal.layout(Self.title, context: context),
                    errors: errors.items,
                    accountFields: fields.account,
                    personFields: fields.person
                ),
                status: status
            )
        }
        guard errors.isEmpty else { return page(errors) }

        // Every registration counts against the address, so nobody creates accounts by the thousand.
        let origin = portal.origin(of: request, context: context)
        let keys: [SignInThrottle.Key] = origin.address.map { [.physicianRegistration($0)] } ?? []
        guard try await portal.database.transaction({ db in try await SignInThrottle().admit(keys, now: portal.now, on: db) }) else {
            var errors = FormErrors()
            errors.add("username", Self.tooManyRegistrations)
            return page(errors, status: .tooManyRequests)
        }

        let profile = PhysicianProfile(
            firstName: values["first_name"]!,
            middleName: values["middle_name"]!,
            lastName: values["last_name"]!,
            practiceLocation: values["practice_location"]!,
            practicePhone: practicePhone ?? "",
            medicalIDNumber: values["medical_id_number"]!
        )
        let hash = try await portal.passwords.hash(password)
        do {
            try await portal.database.transaction { db in
                let account = try await accounts.create(
                    username: username,
                    email: values["email"],
                    role: .physician,
                    status: .awaitingApproval,
                    passwordHash: hash,
                    now: portal.now,
                    on: db
                )
                try await accounts.createPhysicianProfile(profile, accountID: account.id, on: db)
                try await portal.audit.record(
                    AuditEvent(
                        actor: AuditActor(accountID: account.id, role: account.role.rawValue, name: account.username),
                        action: .physicianRegistered,
                        recordType: "staff_account",
                        recordID: "\(account.id)",
                        origin: origin
                    ),
                    on: db
                )
                for administrator in try await administratorsWithEmail(on: db) {
                    try await portal.outbox.enqueue(
                        Mail(
                            recipient: administrator,
                            subject: "A physician is waiting for approval",
                            body: """
                                \(MailText.name(profile.fullName)) registered as a physician with the username \(MailText.name(account.username, otherwise: "shown on the page below")).

                                Check their details and approve the registration here:
                                \(portal.settings.baseURL)\(SiteURL.staffAccount(account.id).path)
                                """
                        ),
                        on: db
                    )
                }
            }
        } catch is UsernameTaken {
            var errors = FormErrors()
            errors.add("username", "That username is already taken. Choose another one")
            return page(errors)
        }
        return seeOther(.registrationReceived)
    }

    private func administratorsWithEmail(on db: any SQLDatabase) async throws -> [String] {
        var query = StaffListQuery()
        query.role = .administrator
        query.status = .active
        query.page = PageRequest(number: 1, size: 200)
        return try await accounts.list(query, on: db).items.compactMap(\.email)
    }

    @Sendable func received(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(RegistrationReceivedPage(layout: portal.layout("Registration received", context: context)))
    }
}

extension SignInThrottle.Key {
    /// Physicians' registrations from one address.
    static func physicianRegistration(_ address: String) -> Self {
        Self(stored: "physician-registration:\(address)", limit: SignInThrottle.registrationAddressLimit)
    }
}

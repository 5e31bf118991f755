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

    @Sendable func register(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(PhysicianRegistrationForm.self, context: context)
        func page(_ errors: FormErrors, status: HTTPResponse.Status = .unprocessableContent) -> Response {
            portal.pages.response(
                RegisterPhysicianPage(layout: portal.layout(Self.title, context: context), values: form.values, errors: errors),
                status: status
            )
        }
        let errors = form.problems(policy: portal.passwordPolicy)
        guard errors.isEmpty, let profile = form.profile else { return page(errors) }

        // Every registration counts against the address, so nobody creates accounts by the thousand.
        let origin = portal.origin(of: request, context: context)
        let keys: [SignInThrottle.Key] = origin.address.map { [.physicianRegistration($0)] } ?? []
        guard try await portal.database.transaction({ db in try await SignInThrottle().admit(keys, now: portal.now, on: db) }) else {
            var errors = FormErrors()
            errors.add("username", Self.tooManyRegistrations)
            return page(errors, status: .tooManyRequests)
        }
        let hash = try await portal.passwords.hash(form.typedPassword)
        do {
            try await createRegistration(form, profile: profile, passwordHash: hash, origin: origin)
        } catch is UsernameTaken {
            var errors = FormErrors()
            errors.add("username", "That username is already taken. Choose another one")
            return page(errors)
        }
        return seeOther(.registrationReceived)
    }

    /// Makes the account, waiting for approval, with its profile, and emails every administrator.
    private func createRegistration(
        _ form: PhysicianRegistrationForm,
        profile: PhysicianProfile,
        passwordHash: String,
        origin: AuditOrigin
    ) async throws {
        try await portal.database.transaction { db in
            let account = try await accounts.create(
                username: form.values["username"]!,
                email: form.values["email"],
                role: .physician,
                status: .awaitingApproval,
                passwordHash: passwordHash,
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

/// A physician's registration as typed, each value trimmed (the password as it is).
struct PhysicianRegistrationForm: Decodable, Sendable {
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

    /// The typed values by field name, as the form shows them again.
    var values: [String: String] {
        [
            "username": username?.trimmed ?? "", "email": email?.trimmed ?? "",
            "first_name": first_name?.trimmed ?? "", "middle_name": middle_name?.trimmed ?? "",
            "last_name": last_name?.trimmed ?? "", "practice_location": practice_location?.trimmed ?? "",
            "practice_phone": practice_phone?.trimmed ?? "",
            "medical_id_number": medical_id_number?.trimmed ?? ""
        ]
    }

    var typedPassword: String { password ?? "" }

    /// What is wrong, by field; empty when the registration can be made.
    func problems(policy: PasswordPolicy) -> FormErrors {
        let values = values
        let username = values["username"]!
        var errors = FormErrors()
        if let problem = FieldRules.usernameProblem(username) { errors.add("username", problem) }
        if let problem = FieldRules.emailProblem(values["email"]!) { errors.add("email", problem) }
        if let problem = policy.problem(with: typedPassword, username: username) { errors.add("password", problem) }
        if errors["password"] == nil, typedPassword != password_confirmation {
            errors.add("password_confirmation", "The passwords do not match")
        }
        if let problem = FieldRules.personNameProblem(values["first_name"]!, name: "your first name") { errors.add("first_name", problem) }
        if !values["middle_name"]!.isEmpty, let problem = FieldRules.personNameProblem(values["middle_name"]!, name: "your middle name") {
            errors.add("middle_name", problem)
        }
        if let problem = FieldRules.personNameProblem(values["last_name"]!, name: "your last name") { errors.add("last_name", problem) }
        if let problem = PhysicianPractice.locationProblem(values["practice_location"]!) { errors.add("practice_location", problem) }
        if PhysicianPractice.phoneDigits(values["practice_phone"]!) == nil { errors.add("practice_phone", PhysicianPractice.phoneProblem) }
        if let problem = FieldRules.requiredTextProblem(values["medical_id_number"]!, name: "your medical identification number", maximumLength: 40) {
            errors.add("medical_id_number", problem)
        }
        return errors
    }

    /// The physician's profile, when the practice phone is one.
    var profile: PhysicianProfile? {
        let values = values
        guard let practicePhone = PhysicianPractice.phoneDigits(values["practice_phone"]!) else { return nil }
        return PhysicianProfile(
            firstName: values["first_name"]!,
            middleName: values["middle_name"]!,
            lastName: values["last_name"]!,
            practiceLocation: values["practice_location"]!,
            practicePhone: practicePhone,
            medicalIDNumber: values["medical_id_number"]!
        )
    }
}

extension SignInThrottle.Key {
    /// Physicians' registrations from one address.
    static func physicianRegistration(_ address: String) -> Self {
        Self(stored: "physician-registration:\(address)", limit: SignInThrottle.registrationAddressLimit)
    }
}

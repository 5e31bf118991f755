import Foundation
import PortalPlatform
import SQLKit

/// What a customer does with her account, shared by the pharmacy app's API and its web pages: open
/// registration, asking for a reset link, the password step-up before prescriptions, and the reads her
/// home and prescriptions show. Problems are `APIError`s (a field's problem as `.validation`, a pause as
/// 429), which the API answers as they are and the pages say beside the field.
extension Pharmacy {
    /// What someone types to register.
    struct Registration: Sendable {
        var email: String
        var password: String
        var details: PharmacyCustomerDetails
    }

    static let checkEmail = "Thank you. We have sent an email to this address: follow it to start using your account."
    static let wrongStepUpPassword = "The password is not right. Try again, or choose \"Forgot password\" on the sign-in screen"

    private func customerActor(_ id: Int64) -> AuditActor {
        AuditActor(accountID: id, role: AppAccountKind.pharmacyCustomer.role, name: nil)
    }

    /// Open registration. Whether or not the address already has an account, the answer is the same and
    /// the address's owner gets an email: a new customer her welcome, an existing one a note that someone
    /// tried to register with her address — so the answer never tells a stranger who is a customer.
    func register(_ registration: Registration, origin: AuditOrigin) async throws {
        let throttle = SignInThrottle()
        let now = portal.now
        let keys: [SignInThrottle.Key] = origin.address.map { [.pharmacyRegistration($0)] } ?? []
        try await throttle.refuseAPIRequestWhilePaused(keys, now: now, in: portal.database)
        let email = registration.email.trimmed
        let problems = problems(with: registration)
        guard problems.isEmpty else { throw APIError.validation(problems) }
        let hash = try await portal.passwords.hash(registration.password)
        let store = storeName
        let details = registration.details
        try await portal.database.transaction { db in
            // Every registration counts against the address, so nobody creates accounts by the thousand.
            try await throttle.admitAPIRequest(keys, now: now, on: db)
            if let id = try await repository.createCustomer(email: email, passwordHash: hash, details: details, now: now, on: db) {
                try await portal.audit.record(
                    AuditEvent(
                        actor: customerActor(id),
                        action: .pharmacyCustomerRegistered,
                        recordType: "pharmacy_customer",
                        recordID: "\(id)",
                        origin: origin
                    ),
                    on: db
                )
                try await portal.outbox.enqueue(Mail.pharmacyWelcome(to: email, firstName: details.firstName, store: store), on: db)
            } else {
                try await portal.audit.record(
                    AuditEvent(
                        actor: .anonymous,
                        action: .pharmacyCustomerRegistered,
                        recordType: "pharmacy_customer",
                        outcome: .failure,
                        origin: origin,
                        detail: "address already registered"
                    ),
                    on: db
                )
                try await portal.outbox.enqueue(Mail.pharmacyAlreadyRegistered(to: email, store: store), on: db)
            }
        }
    }

    /// What is wrong with a registration, by field (`email`, `password`, `first_name`, `last_name`,
    /// `date_of_birth`, `phone`); empty when nothing is.
    func problems(with registration: Registration) -> [String: String] {
        let email = registration.email.trimmed
        var problems: [String: String] = [:]
        if let problem = FieldRules.emailProblem(email) { problems["email"] = problem }
        if let problem = portal.passwordPolicy.problem(with: registration.password, username: email) { problems["password"] = problem }
        PharmacyForms.checkPerson(registration.details, today: portal.programSettings.current.clock.date(of: portal.now)) { problems[$0] = $1 }
        return problems
    }

    /// ForgotPassword, done safely: a single-use link, valid for an hour, emailed to the address on file.
    /// Nothing tells whether the address has an account.
    func requestReset(email typed: String, origin: AuditOrigin) async throws {
        let email = typed.trimmed
        if let problem = FieldRules.emailProblem(email) { throw APIError.validation(["email": problem]) }
        let throttle = SignInThrottle()
        let now = portal.now
        let keys =
            [SignInThrottle.Key.pharmacyPasswordReset(PharmacyRules.emailKey(email))] + (origin.address.map { [.pharmacyPasswordReset($0)] } ?? [])
        try await throttle.refuseAPIRequestWhilePaused(keys, now: now, in: portal.database)
        let token = SecretToken(randomBytes: portal.dependencies.randomBytes)
        let link = passwordReset.link(for: token)
        let store = storeName
        try await portal.database.transaction { db in
            try await throttle.admitAPIRequest(keys, now: now, on: db)
            guard let customer = try await repository.customer(email: email, on: db), customer.status == .active else { return }
            try await PharmacyRepository.resetLinks.create(tokenHash: token.hash, accountID: customer.id, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: .anonymous,
                    action: .pharmacyPasswordReset,
                    recordType: "pharmacy_customer",
                    recordID: "\(customer.id)",
                    origin: origin,
                    detail: "link emailed"
                ),
                on: db
            )
            try await portal.outbox.enqueue(Mail.pharmacyPasswordReset(to: customer, link: link, token: token, store: store), on: db)
        }
    }

    /// ViewPrescriptionPasswordValidation: her password again opens her prescriptions for 5 minutes on
    /// this token (an app's, or the one the web app's cookie holds). Wrong passwords count per customer.
    func stepUp(_ holder: AppAccountHolder, password: String, origin: AuditOrigin) async throws -> Date {
        guard !password.isEmpty else { throw APIError.validation(["password": "Enter your password"]) }
        let throttle = SignInThrottle()
        let now = portal.now
        let keys = [SignInThrottle.Key.pharmacyStepUp(holder.accountID)]
        let attempt = try await throttle.reserveAPIAttempt(keys, now: now, in: portal.database)
        let stored = try await portal.database.read { db in try await repository.passwordHash(customerID: holder.accountID, on: db) }
        guard try await portal.passwords.verify(password, againstStored: stored) else {
            try await portal.database.transaction { db in
                try await throttle.fail(attempt, on: db)
                try await portal.audit.record(
                    AuditEvent(
                        actor: customerActor(holder.accountID),
                        action: .pharmacyStepUp,
                        recordType: "pharmacy_customer",
                        recordID: "\(holder.accountID)",
                        outcome: .failure,
                        origin: origin,
                        detail: "wrong password"
                    ),
                    on: db
                )
            }
            // IncorrectPassword: said beside the field, so she is asked again.
            throw APIError.validation(["password": Self.wrongStepUpPassword])
        }
        let until = now.addingTimeInterval(PharmacyRules.stepUpLifetime)
        try await portal.database.transaction { db in
            try await throttle.release(attempt, on: db)
            try await throttle.clear(keys[0], on: db)
            try await repository.grantStepUp(tokenHash: holder.tokenHash, until: until, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: customerActor(holder.accountID),
                    action: .pharmacyStepUp,
                    recordType: "pharmacy_customer",
                    recordID: "\(holder.accountID)",
                    origin: origin
                ),
                on: db
            )
        }
        return until
    }

    /// Until when her password step-up on this token holds; nil when it has run out or was never made.
    func stepUpUntil(_ holder: AppAccountHolder) -> Date? {
        holder.openedUntil.flatMap { $0 > portal.now ? $0 : nil }
    }

    /// Her home: her first name, points, the deals running today and her unread notifications.
    struct Home: Sendable {
        let customer: PharmacyCustomer
        let points: Int
        let deals: [PharmacyDeal]
        let unreadNotifications: Int
    }

    func home(of customerID: Int64) async throws -> Home? {
        let today = portal.programSettings.current.clock.date(of: portal.now)
        let account = AppAccountRef.pharmacyCustomer(customerID)
        return try await portal.database.read { db in
            guard let customer = try await repository.customer(id: customerID, on: db) else { return nil }
            return Home(
                customer: customer,
                points: try await ledger.allTimeBalance(of: account, on: db),
                deals: try await repository.currentDeals(on: today, on: db),
                unreadNotifications: try await portal.notifications.unreadCount(of: account, on: db)
            )
        }
    }

    /// Her prescriptions on file, each with its open refill request if there is one, and whether her
    /// delivery address is saved. Opening them is recorded in her access trail.
    struct PrescriptionsOnFile: Sendable {
        let prescriptions: [PharmacyPrescription]
        let openRefills: [Int64: Int64]
        let customer: PharmacyCustomer?
    }

    func prescriptionsOnFile(of customerID: Int64, origin: AuditOrigin) async throws -> PrescriptionsOnFile {
        let onFile = try await portal.database.read { db in
            let prescriptions = try await repository.prescriptions(customerID: customerID, on: db)
            var open: [Int64: Int64] = [:]
            for prescription in prescriptions {
                if let id = try await repository.openRefill(prescriptionID: prescription.id, on: db) { open[prescription.id] = id }
            }
            return PrescriptionsOnFile(
                prescriptions: prescriptions,
                openRefills: open,
                customer: try await repository.customer(id: customerID, on: db)
            )
        }
        try await portal.recordAccess(
            AuditEvent(
                actor: customerActor(customerID),
                action: .pharmacyPrescriptionsViewed,
                recordType: "pharmacy_customer",
                recordID: "\(customerID)",
                origin: origin
            )
        )
        return onFile
    }

    /// AddressNotSaved: her delivery address, checked and saved; problems by field.
    func saveAddress(_ address: DeliveryAddress, customerID: Int64) async throws -> PharmacyCustomer? {
        var problems: [String: String] = [:]
        PharmacyForms.checkAddress(address, required: true) { problems[$0] = $1 }
        guard problems.isEmpty else { throw APIError.validation(problems) }
        let now = portal.now
        return try await portal.database.transaction { db in
            try await repository.updateAddress(customerID: customerID, address, now: now, on: db)
            return try await repository.customer(id: customerID, on: db)
        }
    }
}

extension DeliveryAddress {
    /// An address as typed into the app or a page: trimmed, the state in capitals.
    init(typedLine1 line1: String?, line2: String?, city: String?, state: String?, zipCode: String?) {
        self.init(
            line1: line1?.trimmed ?? "",
            line2: line2?.trimmed ?? "",
            city: city?.trimmed ?? "",
            state: state?.trimmed.uppercased() ?? "",
            zipCode: zipCode?.trimmed ?? ""
        )
    }
}

import Foundation
import Hummingbird
import PortalPlatform

/// The pharmacy's staff pages for its customers: the refill queue and each request, finding a customer,
/// her record (each opening audited), her details, her account and her prescriptions on file. Also the
/// public page a password-reset link opens.
struct PharmacyController {
    let portal: Portal
    let pharmacy: Pharmacy
    var repository: PharmacyRepository { pharmacy.repository }

    func addRoutes(to routes: inout PortalRoutes) {
        let access = Access.pharmacyStaff
        routes.get(SiteURL.pharmacy.pattern, access: access, queue)
        routes.get(SiteURL.pattern(SiteURL.pharmacyRefill), access: access, refill)
        routes.post(SiteURL.pattern(SiteURL.pharmacyRefillStatus), access: access, moveRefill)
        routes.get(SiteURL.pharmacyCustomers.pattern, access: access, customers)
        routes.get(SiteURL.pattern(SiteURL.pharmacyCustomer), access: access, customer)
        routes.get(SiteURL.pattern(SiteURL.pharmacyCustomerEdit), access: access) { try await editForm($1) }
        routes.post(SiteURL.pattern(SiteURL.pharmacyCustomerEdit), access: access, saveCustomer)
        routes.post(SiteURL.pattern(SiteURL.pharmacyCustomerDisable), access: access) { try await setStatus(.disabled, $0, $1) }
        routes.post(SiteURL.pattern(SiteURL.pharmacyCustomerEnable), access: access) { try await setStatus(.active, $0, $1) }
        routes.get(SiteURL.pattern(SiteURL.pharmacyCustomerPrescriptions), access: access) { try await prescriptionForm($1) }
        routes.post(SiteURL.pattern(SiteURL.pharmacyCustomerPrescriptions), access: access, addPrescription)
        routes.post(SiteURL.pattern(SiteURL.pharmacyPrescriptionRemove), access: access, removePrescription)
        pharmacy.passwordReset.addRoutes(to: &routes)
    }

    private var clock: ProgramClock { portal.programSettings.current.clock }

    // MARK: The refill queue

    @Sendable func queue(request: Request, context: PortalContext) async throws -> Response {
        let status = request.query("status").flatMap(RefillStatus.init(rawValue:))
        let fulfilment = request.query("kind").flatMap(Fulfilment.init(rawValue:))
        let page = try await portal.database.read { db in
            try await repository.refillQueue(
                statuses: status.map { [$0] } ?? RefillStatus.open,
                fulfilment: fulfilment,
                page: try request.pageRequest(),
                on: db
            )
        }
        let address = ListAddress(path: SiteURL.pharmacy.path, parameters: [("status", status?.rawValue), ("kind", fulfilment?.rawValue)])
        return portal.pages.response(
            RefillQueuePage(
                layout: portal.layout("Refill queue", context: context, current: .pharmacy),
                rows: RefillRow.queueHTML(page.items, clock: clock),
                statuses: [FilterOption(value: "", title: "Every open request", isSelected: status == nil)]
                    + RefillStatus.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == status) },
                kinds: [FilterOption(value: "", title: "Pickup and delivery", isSelected: fulfilment == nil)]
                    + Fulfilment.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == fulfilment) },
                isFiltered: status != nil || fulfilment != nil,
                pagination: portal.pages.html(PaginationView(page, address: address, noun: "requests"))
            )
        )
    }

    @Sendable func refill(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let page = try await refillPage(id: id, reason: "", errors: FormErrors(), context: context)
        // It names her and her medication: each opening is recorded, as her record's is.
        try await portal.recordAccess(
            AuditEvent(
                actor: context.auditActor,
                action: .pharmacyRefillViewed,
                recordType: "pharmacy_refill",
                recordID: "\(id)",
                origin: portal.origin(of: request, context: context)
            )
        )
        return page
    }

    private func refillPage(
        id: Int64,
        reason: String,
        errors: FormErrors,
        context: PortalContext,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        guard let item = try await portal.database.read({ db in try await repository.refillItem(id: id, on: db) }) else { throw HTTPError(.notFound) }
        return portal.pages.response(
            RefillPage(
                layout: portal.layout("Refill request \(id)", context: context, current: .pharmacy),
                item: item,
                clock: clock,
                reason: reason,
                errors: errors
            ),
            status: status
        )
    }

    @Sendable func moveRefill(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let form = try await request.form(RefillMoveForm.self, context: context)
        func refused(_ problem: RefillMoveForm.Problem) async throws -> Response {
            let errors = FormErrors(items: [.init(field: problem.field, message: problem.message)])
            return try await refillPage(id: id, reason: form.trimmedReason, errors: errors, context: context, status: .unprocessableContent)
        }
        let status: RefillStatus
        switch form.validated() {
        case .success(let next): status = next
        case .failure(let problem): return try await refused(problem)
        }
        do {
            let moved = try await pharmacy.move(
                refillID: id,
                to: status,
                reason: form.trimmedReason,
                actor: context.auditActor,
                origin: portal.origin(of: request, context: context)
            )
            try await portal.flash(
                Flash(.success, "Request \(id) is now: \(moved.status.title.lowercased()). The customer has been told."),
                context: context
            )
            return seeOther(.pharmacyRefill(id))
        } catch let problem as Pharmacy.RefillProblem {
            guard let shown = RefillMoveForm.Problem(problem) else { throw HTTPError(.notFound) }
            return try await refused(shown)
        }
    }

    // MARK: Customers

    @Sendable func customers(request: Request, context: PortalContext) async throws -> Response {
        let search = String((request.query("q") ?? "").prefix(100))
        let page = try await portal.database.read { db in
            try await repository.findCustomers(search, page: try request.pageRequest(), on: db)
        }
        let address = ListAddress(path: SiteURL.pharmacyCustomers.path, parameters: [("q", search)])
        let rows = CustomerRows.html(page.items)
        return portal.pages.response(
            CustomersPage(
                layout: portal.layout("Customers", context: context, current: .pharmacyCustomers),
                rows: rows.html,
                hasRows: !rows.isEmpty,
                search: search,
                pagination: portal.pages.html(PaginationView(page, address: address, noun: "customers"))
            )
        )
    }

    @Sendable func customer(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let found = try await portal.database.read { db -> CustomerRecord? in
            guard let account = try await repository.customerWithPoints(id: id, on: db) else { return nil }
            return CustomerRecord(
                customer: account.customer,
                points: account.points,
                visits: try await repository.visits(customerID: id, limit: 10, on: db),
                prescriptions: try await repository.prescriptions(customerID: id, on: db),
                refills: try await repository.refills(customerID: id, limit: 20, on: db),
                vouchers: try await repository.vouchers(customerID: id, limit: 20, on: db)
            )
        }
        guard let found else { throw HTTPError(.notFound) }
        try await portal.recordAccess(
            AuditEvent(
                actor: context.auditActor,
                action: .pharmacyCustomerViewed,
                recordType: "pharmacy_customer",
                recordID: "\(id)",
                origin: portal.origin(of: request, context: context)
            )
        )
        return portal.pages.response(
            CustomerPage(
                layout: portal.layout(found.customer.name, context: context, current: .pharmacyCustomers),
                record: found,
                clock: clock,
                now: portal.now
            )
        )
    }

    struct CustomerForm: Decodable, Sendable {
        var firstName = ""
        var lastName = ""
        var dateOfBirth = ""
        var email = ""
        var phone = ""
        var line1 = ""
        var line2 = ""
        var city = ""
        var state = ""
        var zipCode = ""

        enum CodingKeys: String, CodingKey {
            case email, phone, line1, line2, city, state
            case firstName = "first_name", lastName = "last_name", dateOfBirth = "date_of_birth", zipCode = "zip_code"
        }

        init(_ customer: PharmacyCustomer) {
            let details = customer.details
            firstName = details.firstName
            lastName = details.lastName
            dateOfBirth = details.dateOfBirth
            email = customer.email
            phone = details.phone
            line1 = details.address.line1
            line2 = details.address.line2
            city = details.address.city
            state = details.address.state
            zipCode = details.address.zipCode
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func text(_ key: CodingKeys) throws -> String { (try container.decodeIfPresent(String.self, forKey: key) ?? "").trimmed }
            firstName = try text(.firstName)
            lastName = try text(.lastName)
            dateOfBirth = try text(.dateOfBirth)
            email = try text(.email)
            phone = try text(.phone)
            line1 = try text(.line1)
            line2 = try text(.line2)
            city = try text(.city)
            state = try text(.state).uppercased()
            zipCode = try text(.zipCode)
        }

        var details: PharmacyCustomerDetails {
            PharmacyCustomerDetails(
                firstName: firstName,
                lastName: lastName,
                dateOfBirth: dateOfBirth,
                phone: phone,
                address: DeliveryAddress(line1: line1, line2: line2, city: city, state: state, zipCode: zipCode)
            )
        }

        /// What is wrong with her details as typed, by field.
        func problems(today: CalendarDate) -> FormErrors {
            var errors = FormErrors()
            PharmacyForms.checkPerson(details, today: today) { errors.add($0, $1) }
            if let problem = FieldRules.emailProblem(email) { errors.add("email", problem) }
            PharmacyForms.checkAddress(details.address, required: false) { errors.add($0, $1) }
            return errors
        }
    }

    private func foundCustomer(_ context: PortalContext) async throws -> PharmacyCustomer {
        let id = try context.parameters.recordID()
        guard let customer = try await portal.database.read({ db in try await repository.customer(id: id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return customer
    }

    private func editForm(_ context: PortalContext) async throws -> Response {
        let customer = try await foundCustomer(context)
        return portal.pages.response(
            CustomerFormPage(
                layout: portal.layout("Correct \(customer.name)'s details", context: context, current: .pharmacyCustomers),
                form: CustomerForm(customer),
                errors: FormErrors(),
                customer: customer
            )
        )
    }

    @Sendable func saveCustomer(request: Request, context: PortalContext) async throws -> Response {
        let customer = try await foundCustomer(context)
        let form = try await request.form(CustomerForm.self, context: context)
        var errors = form.problems(today: clock.date(of: portal.now))
        let origin = portal.origin(of: request, context: context)
        if errors.isEmpty {
            let saved = try await portal.database.transaction { db in
                guard try await repository.updateCustomer(id: customer.id, email: form.email, details: form.details, now: portal.now, on: db) else {
                    return false
                }
                try await portal.audit.record(
                    AuditEvent(
                        actor: context.auditActor,
                        action: .pharmacyCustomerChanged,
                        recordType: "pharmacy_customer",
                        recordID: "\(customer.id)",
                        origin: origin
                    ),
                    on: db
                )
                return true
            }
            if saved {
                try await portal.flash(Flash(.success, "\(form.firstName) \(form.lastName)'s details saved."), context: context)
                return seeOther(.pharmacyCustomer(customer.id))
            }
            errors.add("email", "Another customer's account uses this email address")
        }
        return portal.pages.response(
            CustomerFormPage(
                layout: portal.layout("Correct \(customer.name)'s details", context: context, current: .pharmacyCustomers),
                form: form,
                errors: errors,
                customer: customer
            ),
            status: .unprocessableContent
        )
    }

    private func setStatus(_ status: PharmacyCustomer.Status, _ request: Request, _ context: PortalContext) async throws -> Response {
        let customer = try await foundCustomer(context)
        let origin = portal.origin(of: request, context: context)
        try await portal.database.transaction { db in
            try await repository.setStatus(customerID: customer.id, status, now: portal.now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: status == .active ? .pharmacyCustomerEnabled : .pharmacyCustomerDisabled,
                    recordType: "pharmacy_customer",
                    recordID: "\(customer.id)",
                    origin: origin
                ),
                on: db
            )
        }
        try await portal.flash(
            Flash(
                .success,
                status == .active
                    ? "\(customer.name) can use the app again."
                    : "\(customer.name)'s account is disabled: she is signed out of the app and cannot sign in."
            ),
            context: context
        )
        return seeOther(.pharmacyCustomer(customer.id))
    }

    // MARK: Prescriptions on file

    struct PrescriptionForm: Decodable, Sendable {
        var medication = ""
        var strength = ""
        var quantity = ""
        var refillsRemaining = ""
        var prescriber = ""
        var lastFilled = ""

        enum CodingKeys: String, CodingKey {
            case medication, strength, quantity, prescriber
            case refillsRemaining = "refills_remaining", lastFilled = "last_filled"
        }

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func text(_ key: CodingKeys) throws -> String { (try container.decodeIfPresent(String.self, forKey: key) ?? "").trimmed }
            medication = try text(.medication)
            strength = try text(.strength)
            quantity = try text(.quantity)
            refillsRemaining = try text(.refillsRemaining)
            prescriber = try text(.prescriber)
            lastFilled = try text(.lastFilled)
        }

        func validated(customerID: Int64, today: CalendarDate) -> (PharmacyPrescription?, FormErrors) {
            var errors = FormErrors()
            let limit = PharmacyForms.textMaximumLength
            if let problem = FieldRules.requiredTextProblem(medication, name: "the medication", maximumLength: limit) {
                errors.add("medication", problem)
            }
            if let problem = FieldRules.requiredTextProblem(strength, name: "the strength, like 10 mg", maximumLength: limit) {
                errors.add("strength", problem)
            }
            if let problem = FieldRules.requiredTextProblem(quantity, name: "the quantity, like 30 tablets", maximumLength: limit) {
                errors.add("quantity", problem)
            }
            let refills = Int(refillsRemaining)
            if refills.map({ (0...99).contains($0) }) != true {
                errors.add("refills_remaining", "Enter the refills remaining as a number from 0 to 99")
            }
            if let problem = FieldRules.requiredTextProblem(prescriber, name: "the prescriber", maximumLength: limit) {
                errors.add("prescriber", problem)
            }
            if !lastFilled.isEmpty {
                if let date = CalendarDate(iso: lastFilled) {
                    if today < date { errors.add("last_filled", "The last fill cannot be in the future") }
                } else {
                    errors.add("last_filled", "Enter the date it was last filled as a real date, like 2026-11-02, or leave it empty")
                }
            }
            guard errors.isEmpty, let refills else { return (nil, errors) }
            return (
                PharmacyPrescription(
                    id: 0,
                    customerID: customerID,
                    medication: medication,
                    strength: strength,
                    quantity: quantity,
                    refillsRemaining: refills,
                    prescriber: prescriber,
                    lastFilled: lastFilled.isEmpty ? nil : lastFilled
                ), errors
            )
        }
    }

    private func prescriptionForm(_ context: PortalContext) async throws -> Response {
        let customer = try await foundCustomer(context)
        return portal.pages.response(
            PrescriptionFormPage(
                layout: portal.layout("Add a prescription for \(customer.name)", context: context, current: .pharmacyCustomers),
                form: PrescriptionForm(),
                errors: FormErrors(),
                customer: customer
            )
        )
    }

    @Sendable func addPrescription(request: Request, context: PortalContext) async throws -> Response {
        let customer = try await foundCustomer(context)
        let form = try await request.form(PrescriptionForm.self, context: context)
        let (prescription, errors) = form.validated(customerID: customer.id, today: clock.date(of: portal.now))
        guard let prescription else {
            return portal.pages.response(
                PrescriptionFormPage(
                    layout: portal.layout("Add a prescription for \(customer.name)", context: context, current: .pharmacyCustomers),
                    form: form,
                    errors: errors,
                    customer: customer
                ),
                status: .unprocessableContent
            )
        }
        let origin = portal.origin(of: request, context: context)
        try await portal.database.transaction { db in
            let id = try await repository.addPrescription(prescription, now: portal.now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .pharmacyPrescriptionAdded,
                    recordType: "pharmacy_prescription",
                    recordID: "\(id)",
                    origin: origin,
                    detail: "customer \(customer.id)"
                ),
                on: db
            )
        }
        try await portal.flash(
            Flash(
                .success,
                "\(prescription.medication) \(prescription.strength) is on file: \(customer.details.firstName) can order refills of it in the app."
            ),
            context: context
        )
        return seeOther(.pharmacyCustomer(customer.id))
    }

    @Sendable func removePrescription(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        let prescription = try await portal.database.transaction { db -> PharmacyPrescription? in
            guard let prescription = try await repository.prescription(id: id, on: db),
                try await repository.removePrescription(id: id, now: portal.now, on: db)
            else {
                return nil
            }
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .pharmacyPrescriptionRemoved,
                    recordType: "pharmacy_prescription",
                    recordID: "\(id)",
                    origin: origin,
                    detail: "customer \(prescription.customerID)"
                ),
                on: db
            )
            return prescription
        }
        guard let prescription else { throw HTTPError(.notFound) }
        try await portal.flash(Flash(.success, "\(prescription.medication) \(prescription.strength) is no longer on file."), context: context)
        return seeOther(.pharmacyCustomer(prescription.customerID))
    }

    // MARK: A password-reset link
}

/// Everything her record page shows, read in one go.
struct CustomerRecord: Sendable {
    let customer: PharmacyCustomer
    let points: Int
    let visits: (days: [String], count: Int)
    let prescriptions: [PharmacyPrescription]
    let refills: [RefillQueueItem]
    let vouchers: [PharmacyVoucher]
}

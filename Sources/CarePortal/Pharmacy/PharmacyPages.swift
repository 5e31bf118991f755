import Foundation
import PortalPlatform

/// One request in the queue.
struct RefillRow: Sendable, Encodable {
    let id: Int64
    let path: String
    let requested: String
    let customer: String
    let customerPath: String
    let medication: String
    let kind: String
    let status: String
    let statusTag: String

    init(_ item: RefillQueueItem, clock: ProgramClock) {
        id = item.refill.id
        path = SiteURL.pharmacyRefill(item.refill.id).path
        requested = clock.dateTime(item.refill.requestedAt)
        customer = item.customerName
        customerPath = SiteURL.pharmacyCustomer(item.refill.customerID).path
        medication = "\(item.medication) \(item.strength)"
        kind = item.refill.fulfilment.title
        status = item.refill.status.title
        statusTag = RefillRow.tone(item.refill.status).tagClass
    }

    static func tone(_ status: RefillStatus) -> TableRows.TagTone {
        switch status {
        case .requested: .blue
        case .preparing: .yellow
        case .readyForPickup, .outForDelivery: .green
        case .collected, .delivered: .grey
        case .cancelled: .red
        }
    }

    /// The refill queue's rows (`TableRows`): when, whose (linking to her page), what, how, its status, and a link to it.
    static func queueHTML(_ items: [RefillQueueItem], clock: ProgramClock) -> TableRows {
        var rows = TableRows(expectedRows: items.count)
        for item in items {
            let refill = item.refill
            rows.row { cells in
                cells.text(clock.dateTime(refill.requestedAt), nowrap: true)
                cells.link(item.customerName, to: SiteURL.pharmacyCustomer(refill.customerID).path)
                cells.text("\(item.medication) \(item.strength)")
                cells.text(refill.fulfilment.title)
                cells.tag(refill.status.title, tone: tone(refill.status))
                cells.link("Open", to: SiteURL.pharmacyRefill(refill.id).path, hidden: " request \(refill.id)")
            }
        }
        return rows
    }

    /// A customer's own requests (`TableRows`): when (linking to the request), what, how, and its status.
    static func customerHTML(_ items: [RefillQueueItem], clock: ProgramClock) -> TableRows {
        var rows = TableRows(expectedRows: items.count)
        for item in items {
            let refill = item.refill
            rows.row { cells in
                cells.link(clock.dateTime(refill.requestedAt), to: SiteURL.pharmacyRefill(refill.id).path, nowrap: true)
                cells.text("\(item.medication) \(item.strength)")
                cells.text(refill.fulfilment.title)
                cells.tag(refill.status.title, tone: tone(refill.status))
            }
        }
        return rows
    }
}

struct RefillQueuePage: Page {
    static let template = TemplateName.pharmacyQueue
    let layout: Layout
    /// The table's rows (`RefillRow.queueHTML`), every text escaped.
    let rows: RenderedHTML
    let hasRows: Bool
    /// The filters' options (`FilterOption.html`).
    let statuses: RenderedHTML
    let kinds: RenderedHTML
    let isFiltered: Bool
    let pagination: RenderedHTML
    let action = SiteURL.pharmacy.path

    init(layout: Layout, rows: TableRows, statuses: [FilterOption], kinds: [FilterOption], isFiltered: Bool, pagination: RenderedHTML) {
        self.layout = layout
        self.rows = rows.html
        self.hasRows = !rows.isEmpty
        self.statuses = FilterOption.html(statuses)
        self.kinds = FilterOption.html(kinds)
        self.isFiltered = isFiltered
        self.pagination = pagination
    }
}

struct RefillPage: Page {
    struct Action: Sendable, Encodable {
        let value: String
        let title: String
        let isCancel: Bool
    }

    static let template = TemplateName.pharmacyRefill
    let layout: Layout
    let row: RefillRow
    let deliveryAddress: String?
    let cancelReason: String?
    let updated: String
    let actions: [Action]
    let canCancel: Bool
    let reason: String
    let reasonError: String?
    let statusError: String?
    let errors: [FormErrors.Item]
    let action: String
    let backPath = SiteURL.pharmacy.path
    let reasonMaximum = PharmacyForms.descriptionMaximumLength

    init(layout: Layout, item: RefillQueueItem, clock: ProgramClock, reason: String, errors: FormErrors) {
        self.layout = layout
        row = RefillRow(item, clock: clock)
        deliveryAddress = item.refill.deliveryAddress
        cancelReason = item.refill.cancelReason
        updated = clock.dateTime(item.refill.updatedAt)
        let next = item.refill.status.next(for: item.refill.fulfilment)
        actions = next.filter { $0 != .cancelled }.map { Action(value: $0.rawValue, title: "Mark as \($0.title.lowercased())", isCancel: false) }
        canCancel = next.contains(.cancelled)
        self.reason = reason
        reasonError = errors["reason"]
        statusError = errors["status"]
        self.errors = errors.items
        action = SiteURL.pharmacyRefillStatus(item.refill.id).path
    }
}

/// The customers list's rows (`TableRows`): her name (last, first) linking to her page, her email address, her
/// date of birth, and "Disabled" marked in red where her account is.
enum CustomerRows {
    static func html(_ customers: [PharmacyCustomer]) -> TableRows {
        TableRows(customers) { customer, cells in
            cells.link("\(customer.details.lastName), \(customer.details.firstName)", to: SiteURL.pharmacyCustomer(customer.id).path)
            cells.text(customer.email)
            cells.text(customer.details.dateOfBirth, nowrap: true)
            if customer.status == .disabled { cells.tag("Disabled", tone: .red) } else { cells.text("Active") }
        }
    }
}

struct CustomersPage: Page {
    static let template = TemplateName.pharmacyCustomers
    let layout: Layout
    /// The rendered rows (`CustomerRows`).
    let rows: RenderedHTML
    let hasRows: Bool
    let search: String
    let pagination: RenderedHTML
    let action = SiteURL.pharmacyCustomers.path
}

struct CustomerPage: Page {
    static let template = TemplateName.pharmacyCustomer
    let layout: Layout
    let name: String
    /// Her details, points and visits (`SummaryRows`), every text escaped.
    let summary: RenderedHTML
    let isDisabled: Bool
    /// Her prescriptions on file (`TableRows`), every text escaped.
    let prescriptions: RenderedHTML
    let hasPrescriptions: Bool
    /// Her refill requests' rows (`RefillRow.customerHTML`), every text escaped.
    let refills: RenderedHTML
    let hasRefills: Bool
    /// Her vouchers' rows (`TableRows`), every text escaped.
    let vouchers: RenderedHTML
    let hasVouchers: Bool
    let editPath: String
    let disablePath: String
    let enablePath: String
    let addPrescriptionPath: String
    let backPath = SiteURL.pharmacyCustomers.path

    init(layout: Layout, record: CustomerRecord, clock: ProgramClock, now: Date) {
        self.layout = layout
        let customer = record.customer
        name = customer.name
        let address = customer.details.address
        var summary = SummaryRows()
        summary.row("Email address", customer.email, wrapsText: true)
        summary.row("Date of birth", CalendarDate(iso: customer.details.dateOfBirth)?.displayed ?? customer.details.dateOfBirth, wrapsText: true)
        summary.row("Phone", customer.details.phone.isEmpty ? "Not given" : customer.details.phone, wrapsText: true)
        summary.row("Delivery address", address.isSaved ? address.text : "Not saved", wrapsText: true)
        summary.row("Account", customer.status == .active ? "Active" : "Disabled", wrapsText: true)
        summary.row("Joined", clock.dateTime(customer.createdAt), wrapsText: true)
        summary.row("Last used the app", customer.lastActiveAt.map(clock.dateTime) ?? "Never", wrapsText: true)
        summary.row("Points", "\(record.points)")
        let recentVisits = record.visits.days.map { CalendarDate(iso: $0)?.displayed ?? $0 }
        summary.row("Store visits", "\(record.visits.count)" + (recentVisits.isEmpty ? "" : " (latest: \(recentVisits.joined(separator: ", ")))"))
        self.summary = summary.html
        isDisabled = customer.status == .disabled
        let csrfToken = layout.csrfToken ?? ""
        let prescriptionRows = TableRows(record.prescriptions) { prescription, cells in
            let medication = "\(prescription.medication) \(prescription.strength)"
            cells.text(medication)
            cells.text(prescription.quantity)
            cells.text("\(prescription.refillsRemaining)")
            cells.text(prescription.prescriber)
            cells.text(prescription.lastFilled.flatMap(CalendarDate.init(iso:))?.displayed ?? "Not yet", nowrap: true)
            cells.cell {
                $0.postButton(
                    "Take off file",
                    hidden: " \(medication)",
                    to: SiteURL.pharmacyPrescriptionRemove(prescription.id).path,
                    csrfToken: csrfToken
                )
            }
        }
        prescriptions = prescriptionRows.html
        hasPrescriptions = !prescriptionRows.isEmpty
        let refillRows = RefillRow.customerHTML(record.refills, clock: clock)
        refills = refillRows.html
        hasRefills = !refillRows.isEmpty
        var voucherRows = TableRows(expectedRows: record.vouchers.count)
        for voucher in record.vouchers {
            voucherRows.row { cells in
                cells.text(voucher.code)
                cells.text("\(voucher.pointsCost)")
                cells.text(VoucherCheckResult.stateTitle(voucher.state(at: now)))
                cells.text(clock.dateTime(voucher.redeemedAt), nowrap: true)
            }
        }
        vouchers = voucherRows.html
        hasVouchers = !voucherRows.isEmpty
        editPath = SiteURL.pharmacyCustomerEdit(customer.id).path
        disablePath = SiteURL.pharmacyCustomerDisable(customer.id).path
        enablePath = SiteURL.pharmacyCustomerEnable(customer.id).path
        addPrescriptionPath = SiteURL.pharmacyCustomerPrescriptions(customer.id).path
    }
}

struct CustomerFormPage: Page {
    static let template = TemplateName.pharmacyCustomerForm
    let layout: Layout
    let name: String
    let errors: [FormErrors.Item]
    let personFields: [FormField]
    let addressFields: [FormField]
    let action: String
    let backPath: String

    init(layout: Layout, form: PharmacyController.CustomerForm, errors: FormErrors, customer: PharmacyCustomer) {
        self.layout = layout
        name = customer.name
        self.errors = errors.items
        var person = [
            FormField("first_name", label: "First name", value: form.firstName, autocomplete: "off", width: 20),
            FormField("last_name", label: "Last name", value: form.lastName, autocomplete: "off", width: 20),
            FormField("date_of_birth", label: "Date of birth", value: form.dateOfBirth, hint: "Like 1950-04-23", autocomplete: "off", width: 10),
            FormField(
                "email",
                label: "Email address",
                value: form.email,
                hint: "She signs in with it; emails about her orders go to it",
                type: "email",
                autocomplete: "off",
                width: 30
            ),
            FormField("phone", label: "Phone (optional)", value: form.phone, type: "tel", autocomplete: "off", width: 20)
        ]
        errors.apply(to: &person)
        personFields = person
        var address = [
            FormField("line1", label: "Street address", value: form.line1, autocomplete: "off", width: 30),
            FormField("line2", label: "Second line (optional)", value: form.line2, autocomplete: "off", width: 30),
            FormField("city", label: "Town or city", value: form.city, autocomplete: "off", width: 20),
            FormField("state", label: "State", value: form.state, hint: "Two letters, like OR", autocomplete: "off", width: 10),
            FormField("zip_code", label: "ZIP code", value: form.zipCode, autocomplete: "off", width: 10)
        ]
        errors.apply(to: &address)
        addressFields = address
        action = SiteURL.pharmacyCustomerEdit(customer.id).path
        backPath = SiteURL.pharmacyCustomer(customer.id).path
    }
}

struct PrescriptionFormPage: Page {
    static let template = TemplateName.pharmacyPrescriptionForm
    let layout: Layout
    let name: String
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let action: String
    let backPath: String

    init(layout: Layout, form: PharmacyController.PrescriptionForm, errors: FormErrors, customer: PharmacyCustomer) {
        self.layout = layout
        name = customer.name
        self.errors = errors.items
        var fields = [
            FormField("medication", label: "Medication", value: form.medication, autocomplete: "off", width: 30),
            FormField("strength", label: "Strength", value: form.strength, hint: "Like 10 mg", autocomplete: "off", width: 10),
            FormField("quantity", label: "Quantity", value: form.quantity, hint: "Like 30 tablets", autocomplete: "off", width: 20),
            FormField("refills_remaining", label: "Refills remaining", value: form.refillsRemaining, type: "number", autocomplete: "off", width: 10),
            FormField("prescriber", label: "Prescriber", value: form.prescriber, hint: "Like Dr. Ana Ruiz", autocomplete: "off", width: 30),
            FormField("last_filled", label: "Last filled (optional)", value: form.lastFilled, hint: "Like 2026-11-02", autocomplete: "off", width: 10)
        ]
        errors.apply(to: &fields)
        self.fields = fields
        action = SiteURL.pharmacyCustomerPrescriptions(customer.id).path
        backPath = SiteURL.pharmacyCustomer(customer.id).path
    }
}

struct DealRow: Sendable, Encodable {
    let title: String
    let description: String
    let dates: String
    let isCurrent: Bool
    let editPath: String
    let deletePath: String
    let picturePath: String?

    init(_ deal: PharmacyDeal, today: CalendarDate) {
        title = deal.title
        description = deal.description
        let from = CalendarDate(iso: deal.validFrom)?.displayed ?? deal.validFrom
        let until = CalendarDate(iso: deal.validUntil)?.displayed ?? deal.validUntil
        dates = "\(from) to \(until)"
        isCurrent = deal.validFrom <= today.iso && today.iso <= deal.validUntil
        editPath = SiteURL.editPharmacyDeal(deal.id).path
        deletePath = SiteURL.deletePharmacyDeal(deal.id).path
        picturePath = deal.picture == nil ? nil : SiteURL.pharmacyDealPicture(deal.id).path
    }
}

struct DealsPage: Page {
    static let template = TemplateName.pharmacyDeals
    let layout: Layout
    let running: [DealRow]
    let past: [DealRow]
    let currentCount: Int
    var hasCurrent: Bool { currentCount > 0 }
    let newPath = SiteURL.newPharmacyDeal.path

    enum CodingKeys: String, CodingKey { case layout, running, past, currentCount, hasCurrent, newPath }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(layout, forKey: .layout)
        try container.encode(running, forKey: .running)
        try container.encode(past, forKey: .past)
        try container.encode(currentCount, forKey: .currentCount)
        try container.encode(hasCurrent, forKey: .hasCurrent)
        try container.encode(newPath, forKey: .newPath)
    }
}

struct DealFormPage: Page {
    static let template = TemplateName.pharmacyDealForm
    let layout: Layout
    let errors: [FormErrors.Item]
    let titleField: FormField
    let description: String
    let descriptionError: String?
    let dateFields: [FormField]
    let pictureField: FormField
    let picturePath: String?
    let action: String
    let isNew: Bool
    let backPath = SiteURL.pharmacyDeals.path
    let descriptionMaximum = PharmacyForms.descriptionMaximumLength

    init(_ form: PharmacyStoreController.DealForm, id: Int64?, hasPicture: Bool, errors: FormErrors, layout: Layout) {
        self.layout = layout
        self.errors = errors.items
        var title = [FormField("title", label: "Title", value: form.title, hint: "Like 20% off vitamins", width: 30)]
        errors.apply(to: &title)
        titleField = title[0]
        description = form.description
        descriptionError = errors["description"]
        var dates = [
            FormField("valid_from", label: "First day", value: form.validFrom, hint: "Like 2026-12-01", autocomplete: "off", width: 10),
            FormField(
                "valid_until",
                label: "Last day",
                value: form.validUntil,
                hint: "The deal runs to the end of this day",
                autocomplete: "off",
                width: 10
            )
        ]
        errors.apply(to: &dates)
        dateFields = dates
        var picture = [
            FormField(
                "picture",
                label: hasPicture ? "Replace the picture (optional)" : "Picture (optional)",
                hint: "A PNG, JPEG or WebP picture smaller than \(PharmacyRules.dealPictureRules.maximumSizeText).",
                type: "file"
            )
        ]
        errors.apply(to: &picture)
        pictureField = picture[0]
        picturePath = hasPicture ? id.map { SiteURL.pharmacyDealPicture($0).path } : nil
        action = id.map { SiteURL.editPharmacyDeal($0).path } ?? SiteURL.newPharmacyDeal.path
        isNew = id == nil
    }
}

/// What the till is shown about a code.
struct VoucherCheckResult: Sendable, Encodable {
    let isValid: Bool
    let heading: String
    let detail: String

    init(_ check: Pharmacy.VoucherCheck, code: String, clock: ProgramClock) {
        switch check {
        case .valid(let reward, let gives):
            isValid = true
            heading = "Valid: give \(gives)"
            detail = "Voucher \(code) for \(reward) is now marked used and cannot be used again."
        case .unknown:
            isValid = false
            heading = "Not valid: no voucher has this code"
            detail = "Check the code on the customer's phone and type it again."
        case .notActivated:
            isValid = false
            heading = "Not valid yet: not activated"
            detail = "Ask the customer to tap Activate on the voucher in the app, then check it again. It stays hers until she does."
        case .expired(let at):
            isValid = false
            heading = "Not valid: expired"
            detail = "Its 5 minutes ended at \(clock.dateTime(at))."
        case .alreadyUsed(let at):
            isValid = false
            heading = "Not valid: already used"
            detail = "It was used at \(clock.dateTime(at))."
        }
    }

    static func stateTitle(_ state: PharmacyVoucher.State) -> String {
        switch state {
        case .redeemed: "Not yet activated"
        case .active: "Active"
        case .expired: "Expired"
        case .used: "Used"
        }
    }
}

struct VoucherCheckPage: Page {
    static let template = TemplateName.pharmacyVoucherCheck
    let layout: Layout
    let errors: [FormErrors.Item]
    let codeField: FormField
    let result: VoucherCheckResult?
    let action = SiteURL.pharmacyVoucherCheck.path

    init(layout: Layout, code: String, result: VoucherCheckResult?, errors: FormErrors) {
        self.layout = layout
        self.errors = errors.items
        var field = [
            FormField(
                "code",
                label: "Voucher code",
                value: code,
                hint: "8 letters and numbers, shown on the customer's phone",
                autocomplete: "off",
                width: 10
            )
        ]
        errors.apply(to: &field)
        codeField = field[0]
        self.result = result
    }
}

struct BeaconRow: Sendable, Encodable {
    let name: String
    let uuid: String
    let major: Int
    let minor: Int
    let removePath: String

    init(_ beacon: PharmacyBeacon) {
        name = beacon.name
        uuid = beacon.uuid.uppercased()
        major = beacon.major
        minor = beacon.minor
        removePath = SiteURL.pharmacyBeaconRemove(beacon.id).path
    }
}

struct BeaconsPage: Page {
    static let template = TemplateName.pharmacyBeacons
    let layout: Layout
    let beacons: [BeaconRow]
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let action = SiteURL.pharmacyBeacons.path

    init(layout: Layout, beacons: [BeaconRow], form: PharmacyStoreController.BeaconForm, errors: FormErrors) {
        self.layout = layout
        self.beacons = beacons
        self.errors = errors.items
        var fields = [
            FormField("name", label: "Name", value: form.name, hint: "Where it is, like Front door", width: 20),
            FormField("uuid", label: "UUID", value: form.uuid, autocomplete: "off", width: 30),
            FormField("major", label: "Major", value: form.major, type: "number", autocomplete: "off", width: 10),
            FormField("minor", label: "Minor", value: form.minor, type: "number", autocomplete: "off", width: 10)
        ]
        errors.apply(to: &fields)
        self.fields = fields
    }
}

import Foundation
import PortalPlatform

/// The pharmacy customer's part of the people's web app. Each page's model is made from the same
/// domain values the pharmacy app's API answers with.
extension TemplateName {
    static let appPharmacyRegister = TemplateName("app/pharmacy/register")
    static let appPharmacyHome = TemplateName("app/pharmacy/home")
    static let appPharmacyDeals = TemplateName("app/pharmacy/deals")
    static let appPharmacyRewards = TemplateName("app/pharmacy/rewards")
    static let appPharmacyVouchers = TemplateName("app/pharmacy/vouchers")
    static let appPharmacyVoucher = TemplateName("app/pharmacy/voucher")
    static let appPharmacyUnlock = TemplateName("app/pharmacy/unlock")
    static let appPharmacyPrescriptions = TemplateName("app/pharmacy/prescriptions")
    static let appPharmacyRefill = TemplateName("app/pharmacy/refill")
    static let appPharmacyAddress = TemplateName("app/pharmacy/address")
    static let appPharmacyHistory = TemplateName("app/pharmacy/history")

    static let appPharmacyTemplates: [TemplateName] = [
        .appPharmacyRegister, .appPharmacyHome, .appPharmacyDeals,
        .appPharmacyRewards, .appRedeemReward, .appPharmacyVouchers, .appPharmacyVoucher, .appPharmacyUnlock,
        .appPharmacyPrescriptions, .appPharmacyRefill, .appPharmacyAddress, .appPharmacyHistory
    ]
}

extension AppNavigation {
    /// Two rows on a small phone; her notifications and address are on her home.
    static let pharmacyCustomer = AppNavigation(
        .pharmacyCustomer,
        links: [
            ("Home", SiteURL.appPharmacyHome.path), ("Deals", SiteURL.appPharmacyDeals.path), ("Rewards", SiteURL.appPharmacyRewards.path),
            ("Vouchers", SiteURL.appPharmacyVouchers.path), ("Prescriptions", SiteURL.appPharmacyPrescriptions.path)
        ]
    )
}

/// "1 point", "250 points".
private func pointsPhrase(_ points: Int) -> String { RewardRules.pointsPhrase(points) }

/// Open registration: her name, date of birth, phone, email address and password, on one page.
struct PharmacyRegistrationPage: Page {
    static let template = TemplateName.appPharmacyRegister
    static let fieldOrder = ["first_name", "last_name", "date_of_birth", "phone", "email", "password", "password_confirmation"]

    let layout: Layout
    let errors: [FormErrors.Item]
    let nameFields: [FormField]
    let dateOfBirth: DateInputField
    let contactFields: [FormField]
    let action = SiteURL.appPharmacyRegister.path
    let signInPath = AppAccountKind.pharmacyCustomer.signInPagePath

    init(
        layout: Layout,
        registration: Pharmacy.Registration? = nil,
        dateOfBirth: DateInputValue = DateInputValue(day: nil, month: nil, year: nil),
        dateProblem: DateInputProblem? = nil,
        errors: FormErrors = FormErrors()
    ) {
        self.layout = layout
        self.errors = errors.items
        var names = [
            FormField("first_name", label: "First name", value: registration?.details.firstName ?? "", autocomplete: "given-name", width: 20),
            FormField("last_name", label: "Last name", value: registration?.details.lastName ?? "", autocomplete: "family-name", width: 20)
        ]
        errors.apply(to: &names)
        nameFields = names
        self.dateOfBirth = DateInputField(
            "date_of_birth",
            legend: "Date of birth",
            hint: "For example, 23 4 1950",
            value: dateOfBirth,
            problem: dateProblem
        )
        var contact =
            [
                FormField(
                    "phone",
                    label: "Phone number (optional)",
                    value: registration?.details.phone ?? "",
                    hint: "So the pharmacy can call you about an order.",
                    type: "tel",
                    autocomplete: "tel",
                    width: 20
                ),
                FormField(
                    "email",
                    label: "Email address",
                    value: registration?.email.trimmed ?? "",
                    hint: "You sign in with it, and we send your welcome to it.",
                    type: "email",
                    autocomplete: "email",
                    width: 30
                )
            ] + FormField.newPassword()
        errors.apply(to: &contact)
        contactFields = contact
    }

    /// The form again with what is wrong: `problems` by field, the date of birth's parts marked.
    init(
        layout: Layout,
        registration: Pharmacy.Registration,
        dateOfBirth: DateInputValue,
        dateProblem: DateInputProblem?,
        problems: [String: String]
    ) {
        var errors = FormErrors()
        var dates = dateProblem.map { ["date_of_birth": $0] } ?? [:]
        errors.add(problems, in: Self.fieldOrder, dates: &dates, dateFields: ["date_of_birth"])
        self.init(layout: layout, registration: registration, dateOfBirth: dateOfBirth, dateProblem: dates["date_of_birth"], errors: errors)
    }
}

/// A deal as a card: its picture (if any), title, description and last day.
struct PharmacyDealCard: Encodable, Sendable {
    let title: String
    let description: String
    let untilText: String
    let picturePath: String?

    init(_ deal: PharmacyDeal) {
        title = deal.title
        description = deal.description
        untilText = CalendarDate(iso: deal.validUntil).map { "Until \($0.weekdayAndDay)" } ?? ""
        picturePath = deal.picture == nil ? nil : SiteURL.appPharmacyDealPicture(deal.id).path
    }
}

struct PharmacyHomePage: Page {
    static let template = TemplateName.appPharmacyHome
    let layout: Layout
    let greeting: String
    let pointsText: String
    let unreadText: String?
    let deals: [PharmacyDealCard]
    let moreDeals: Bool
    let dealsPath = SiteURL.appPharmacyDeals.path
    let rewardsPath = SiteURL.appPharmacyRewards.path
    let vouchersPath = SiteURL.appPharmacyVouchers.path
    let prescriptionsPath = SiteURL.appPharmacyPrescriptions.path
    let notificationsPath = SiteURL.appPharmacyNotifications.path
    let addressPath = SiteURL.appPharmacyAddress.path
    let recordOpeningsPath = SiteURL.appPharmacyRecordOpenings.path

    init(layout: Layout, home: Pharmacy.Home) {
        self.layout = layout
        greeting = "Hello, \(home.customer.details.firstName)"
        pointsText = "You have \(pointsPhrase(home.points))."
        unreadText = AppNotificationsPage.unreadText(home.unreadNotifications)
        deals = home.deals.prefix(3).map(PharmacyDealCard.init)
        moreDeals = home.deals.count > 3
    }
}

struct PharmacyDealsPage: Page {
    static let template = TemplateName.appPharmacyDeals
    let layout: Layout
    let deals: [PharmacyDealCard]

    init(layout: Layout, deals: [PharmacyDeal]) {
        self.layout = layout
        self.deals = deals.map(PharmacyDealCard.init)
    }
}

struct PharmacyRewardsPage: Page {
    static let template = TemplateName.appPharmacyRewards

    struct Reward: Encodable, Sendable {
        let title: String
        let costText: String
        let path: String?
        let shortText: String?
    }

    let layout: Layout
    let pointsText: String
    let rewards: [Reward]
    let vouchersPath = SiteURL.appPharmacyVouchers.path

    init(layout: Layout, points: Int, rewards: [PharmacyReward]) {
        self.layout = layout
        pointsText = "You have \(pointsPhrase(points))."
        self.rewards = rewards.map { reward in
            let affordable = reward.isAffordable(with: points)
            return Reward(
                title: reward.title,
                costText: pointsPhrase(reward.pointsCost),
                path: affordable ? SiteURL.appPharmacyReward(reward.id).path : nil,
                shortText: affordable ? nil : "You need \(pointsPhrase(reward.pointsCost - points)) more."
            )
        }
    }
}

/// Redeeming, confirmed: what it costs and what she has left.
/// What a voucher's state means to her.
private func voucherStateText(_ state: PharmacyVoucher.State) -> (text: String, tag: String) {
    switch state {
    case .redeemed: ("Ready to use", "tag--green")
    case .active: ("In use now", "tag--blue")
    case .expired: ("Time ran out", "tag--grey")
    case .used: ("Used", "tag--grey")
    }
}

struct PharmacyVouchersPage: Page {
    static let template = TemplateName.appPharmacyVouchers

    struct Voucher: Encodable, Sendable {
        let title: String
        let stateText: String
        let stateTag: String
        let path: String
    }

    let layout: Layout
    let vouchers: [Voucher]
    let rewardsPath = SiteURL.appPharmacyRewards.path
    let historyPath = SiteURL.appPharmacyHistory.path

    init(layout: Layout, vouchers: [PharmacyVoucher], titles: [Int64: String], now: Date) {
        self.layout = layout
        self.vouchers = vouchers.map { voucher in
            let state = voucherStateText(voucher.state(at: now))
            return Voucher(
                title: titles[voucher.rewardID] ?? "Reward",
                stateText: state.text,
                stateTag: state.tag,
                path: SiteURL.appPharmacyVoucher(voucher.id).path
            )
        }
    }
}

/// One voucher: ready (with the button to start its minutes at the till), in use (its code and the time
/// left, counted against the server's clock), or over.
struct PharmacyVoucherPage: Page {
    static let template = TemplateName.appPharmacyVoucher
    let layout: Layout
    let title: String
    let code: String
    let stateText: String
    let stateTag: String
    let isReady: Bool
    let isActive: Bool
    let secondsLeft: Int?
    let leftText: String?
    let untilText: String?
    let notice: String?
    let problem: String?
    let activateAction: String
    let path: String
    let vouchersPath = SiteURL.appPharmacyVouchers.path
    let minutes = Int(PharmacyRules.voucherLifetime / 60)

    init(layout: Layout, voucher: PharmacyVoucher, title: String, now: Date, clock: ProgramClock, redeemed: Bool, problem: String?) {
        self.layout = layout
        self.title = title
        code = voucher.code
        let state = voucher.state(at: now)
        (stateText, stateTag) = voucherStateText(state)
        isReady = state == .redeemed
        isActive = state == .active
        let seconds = isActive ? voucher.expiresAt.map { max(0, Int($0.timeIntervalSince(now).rounded(.up))) } : nil
        secondsLeft = seconds
        leftText = seconds.map(Self.leftText)
        untilText = isActive ? voucher.expiresAt.map(clock.dateTime) : nil
        notice = redeemed ? "Your voucher is ready. Start it only when you are at the till." : nil
        self.problem =
            switch problem {
            case "voucher_used": "This voucher has already been used."
            case "voucher_expired": "This voucher's time is over, so it can no longer be used."
            default: nil
            }
        activateAction = SiteURL.appPharmacyVoucherActivation(voucher.id).path
        path = SiteURL.appPharmacyVoucher(voucher.id).path
    }

    /// "4 minutes 59 seconds left"; the page's script counts it down.
    static func leftText(_ seconds: Int) -> String {
        let minutes = seconds / 60, rest = seconds % 60
        let minutePart = minutes == 1 ? "1 minute" : "\(minutes) minutes"
        let secondPart = rest == 1 ? "1 second" : "\(rest) seconds"
        if minutes == 0 { return "\(secondPart) left" }
        return rest == 0 ? "\(minutePart) left" : "\(minutePart) \(secondPart) left"
    }
}

/// Her password again before her prescriptions.
struct PharmacyUnlockPage: Page {
    static let template = TemplateName.appPharmacyUnlock
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let action = SiteURL.appPharmacyPrescriptionsUnlock.path
    let minutes = Int(PharmacyRules.stepUpLifetime / 60)

    init(layout: Layout, errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.errors = errors.items
        var fields = [FormField("password", label: "Password", type: "password", autocomplete: "current-password", width: 20)]
        errors.apply(to: &fields)
        self.fields = fields
    }
}

struct PharmacyPrescriptionsPage: Page {
    static let template = TemplateName.appPharmacyPrescriptions

    struct Prescription: Encodable, Sendable {
        let medication: String
        let details: String?
        let refillsText: String
        let prescriber: String
        let lastFilledText: String?
        let refillPath: String?
        let openText: String?
    }

    struct Order: Encodable, Sendable {
        let medication: String
        let statusText: String
        let fulfilmentText: String
        let requestedText: String
        let cancelReason: String?
    }

    let layout: Layout
    let openUntilText: String
    let prescriptions: [Prescription]
    let orders: [Order]
    let requested: Bool
    let addressText: String?
    let addressPath = SiteURL.appPharmacyAddress.path

    init(layout: Layout, onFile: Pharmacy.PrescriptionsOnFile, refills: [RefillQueueItem], openUntil: Date, clock: ProgramClock, requested: Bool) {
        self.layout = layout
        openUntilText = "Open until \(clock.dateTime(openUntil)). After that we ask for your password again."
        let statuses = Dictionary(uniqueKeysWithValues: refills.map { ($0.refill.id, $0.refill.status) })
        prescriptions = onFile.prescriptions.map { prescription in
            let open = onFile.openRefills[prescription.id]
            return Prescription(
                medication: prescription.medication,
                details: Optional([prescription.strength, prescription.quantity].filter { !$0.isEmpty }.joined(separator: ", ")).flatMap {
                    $0.isEmpty ? nil : $0
                },
                refillsText: prescription.refillsRemaining == 0
                    ? "No refills left: ask your prescriber for a new prescription"
                    : (prescription.refillsRemaining == 1 ? "1 refill left" : "\(prescription.refillsRemaining) refills left"),
                prescriber: prescription.prescriber,
                lastFilledText: prescription.lastFilled.flatMap(CalendarDate.init(iso:)).map { "Last filled \($0.weekdayAndDay)" },
                refillPath: open == nil && prescription.refillsRemaining > 0 ? SiteURL.appPharmacyRefill(prescription.id).path : nil,
                openText: open.map { "Refill asked for: \(statuses[$0]?.title.lowercased() ?? "requested")" }
            )
        }
        orders = refills.map { item in
            Order(
                medication: item.medication,
                statusText: item.refill.status.title,
                fulfilmentText: item.refill.fulfilment.title,
                requestedText: "Asked for \(clock.dateTime(item.refill.requestedAt))",
                cancelReason: item.refill.cancelReason
            )
        }
        self.requested = requested
        let address = onFile.customer?.details.address
        addressText = address.flatMap { $0.isSaved ? $0.text : nil }
    }
}

/// Asking for a refill: pickup or delivery, delivery to her saved address.
struct PharmacyRefillPage: Page {
    static let template = TemplateName.appPharmacyRefill

    struct Choice: Encodable, Sendable {
        let value: String
        let title: String
        let hint: String
        let isSelected: Bool
    }

    let layout: Layout
    let errors: [FormErrors.Item]
    let medication: String
    let choices: [Choice]
    let fulfilmentError: String?
    let action: String
    let addressPath: String
    let hasAddress: Bool
    let cancelPath = SiteURL.appPharmacyPrescriptions.path

    init(layout: Layout, prescription: PharmacyPrescription, address: DeliveryAddress, chosen: Fulfilment? = nil, errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.errors = errors.items
        medication = [prescription.medication, prescription.strength].filter { !$0.isEmpty }.joined(separator: " ")
        hasAddress = address.isSaved
        choices = Fulfilment.allCases.map { fulfilment in
            Choice(
                value: fulfilment.rawValue,
                title: fulfilment == .pickup ? "I will pick it up at the store" : "Deliver it to me",
                hint: fulfilment == .pickup
                    ? "We tell you when it is ready."
                    : (address.isSaved ? "To \(address.text.replacingOccurrences(of: "\n", with: ", "))" : "Add your delivery address first."),
                isSelected: fulfilment == chosen
            )
        }
        fulfilmentError = errors["fulfilment"]
        action = SiteURL.appPharmacyRefill(prescription.id).path
        addressPath = "\(SiteURL.appPharmacyAddress.path)?next=\(SiteURL.appPharmacyRefill(prescription.id).path)"
    }
}

struct PharmacyAddressPage: Page {
    static let template = TemplateName.appPharmacyAddress
    static let fieldOrder = ["line1", "line2", "city", "state", "zip_code"]

    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let next: String?
    let saved: Bool
    let action = SiteURL.appPharmacyAddress.path

    init(layout: Layout, address: DeliveryAddress, next: String?, saved: Bool = false, errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.errors = errors.items
        var fields = [
            FormField("line1", label: "Address line 1", value: address.line1, autocomplete: "address-line1", width: 30),
            FormField("line2", label: "Address line 2 (optional)", value: address.line2, autocomplete: "address-line2", width: 30),
            FormField("city", label: "Town or city", value: address.city, autocomplete: "address-level2", width: 20),
            FormField("state", label: "State", value: address.state, hint: "Two letters, like OR", autocomplete: "address-level1", width: 10),
            FormField("zip_code", label: "ZIP code", value: address.zipCode, autocomplete: "postal-code", width: 10)
        ]
        errors.apply(to: &fields)
        self.fields = fields
        self.next = next
        self.saved = saved
    }
}

/// Her history (ViewHistory) on her phone: visits, points earned and spent, vouchers and refills, newest
/// first, the same lines the app's API gives; a refill names no medication here either.
struct PharmacyHistoryPage: Page {
    static let template = TemplateName.appPharmacyHistory

    struct Entry: Encodable, Sendable {
        let title: String
        let when: String
        let points: String?
        let path: String?
    }

    let layout: Layout
    let entries: [Entry]
    let pagination: RenderedHTML
    let rewardsPath = SiteURL.appPharmacyRewards.path

    init(layout: Layout, entries: [PharmacyAPI.HistoryEntry], pagination: RenderedHTML, clock: ProgramClock) {
        self.layout = layout
        self.pagination = pagination
        self.entries = entries.map { entry in
            Entry(
                title: entry.title,
                when: clock.dateTime(entry.at),
                points: entry.points.flatMap { $0 == 0 ? nil : $0 > 0 ? "+\(RewardRules.pointsPhrase($0))" : "−\(RewardRules.pointsPhrase(-$0))" },
                path: entry.voucherId.map { SiteURL.appPharmacyVoucher($0).path }
            )
        }
    }
}

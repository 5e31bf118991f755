import Foundation
import PortalPlatform
import SQLKit

/// What the pharmacy does, each change in one transaction with its audit entry, the customer's
/// notification and email, and her points.
struct Pharmacy: Sendable {
    let portal: Portal
    let repository = PharmacyRepository()
    let ledger = PointsLedger()

    static let refillSubject = "pharmacy_refill"
    static let visitReason = "store_visit"

    enum RefillProblem: Error, Equatable {
        case notFound
        /// The move is not one the refill's status allows (already moved on by someone else, or out of order).
        case notAllowed(from: RefillStatus, to: RefillStatus)
        case reasonMissing
        case noRefillsLeft
    }

    // MARK: Refill queue

    /// Moves a refill on, tells the customer in her feed and by an email that names nothing of it.
    func move(refillID: Int64, to status: RefillStatus, reason: String?, actor: AuditActor, origin: AuditOrigin) async throws -> PharmacyRefill {
        let now = portal.now
        let moved = try await portal.database.transaction { db -> PharmacyRefill in
            guard var refill = try await repository.refill(id: refillID, on: db) else { throw RefillProblem.notFound }
            guard refill.status.next(for: refill.fulfilment).contains(status) else { throw RefillProblem.notAllowed(from: refill.status, to: status) }
            let reason = reason?.trimmed ?? ""
            if status == .cancelled, reason.isEmpty { throw RefillProblem.reasonMissing }
            if status == .preparing {
                let clock = try await ProgramSettingsRepository().clock(on: db)
                guard try await repository.fillPrescription(id: refill.prescriptionID, on: clock.date(of: now), now: now, on: db) else {
                    throw RefillProblem.noRefillsLeft
                }
            }
            guard
                try await repository.moveRefill(
                    id: refillID,
                    from: refill.status,
                    to: status,
                    reason: status == .cancelled ? reason : nil,
                    now: now,
                    on: db
                )
            else {
                throw RefillProblem.notAllowed(from: refill.status, to: status)
            }
            try await portal.audit.record(
                AuditEvent(
                    actor: actor,
                    action: .pharmacyRefillMoved,
                    recordType: "pharmacy_refill",
                    recordID: "\(refillID)",
                    origin: origin,
                    detail: "\(refill.status.rawValue) → \(status.rawValue)"
                ),
                on: db
            )
            refill.status = status
            refill.cancelReason = status == .cancelled ? reason : nil
            refill.updatedAt = now
            try await tell(customerID: refill.customerID, about: refill, on: db)
            return refill
        }
        await portal.announceNotifications(to: NotificationAudience(role: AppAccountKind.pharmacyCustomer.role, accountIDs: [moved.customerID]))
        return moved
    }

    /// Her feed entry and her email about a refill: its status in plain words, never the medication (nor a
    /// cancellation's reason, which staff type and which her orders show behind her password).
    private func tell(customerID: Int64, about refill: PharmacyRefill, on db: any SQLDatabase) async throws {
        try await portal.notifications.write(
            NewNotification(
                kind: .refillUpdate,
                message: refill.status.customerMessage,
                subject: NotificationSubject(Self.refillSubject, id: refill.id)
            ),
            to: .pharmacyCustomer(customerID),
            on: db
        )
        guard let customer = try await repository.customer(id: customerID, on: db) else { return }
        try await portal.outbox.enqueue(Mail.orderNews(to: customer, store: storeName), on: db)
    }

    var storeName: String { portal.programSettings.current.programName }

    /// Her forgotten password: the emailed link's page and the app's call with the same link.
    var passwordReset: AppPasswordReset {
        AppPasswordReset(portal: portal, links: PharmacyRepository.resetLinks, appName: "the \(storeName) app", page: .pharmacyResetPassword) {
            [repository, portal] id, passwordHash, origin, db in
            try await repository.setPassword(customerID: id, hash: passwordHash, now: portal.now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: AuditActor(accountID: id, role: AppAccountKind.pharmacyCustomer.role, name: nil),
                    action: .pharmacyPasswordReset,
                    recordType: "pharmacy_customer",
                    recordID: "\(id)",
                    origin: origin,
                    detail: "new password set"
                ),
                on: db
            )
        }
    }

    /// A refill request from the app for one of her prescriptions on file.
    func requestRefill(customerID: Int64, prescriptionID: Int64, fulfilment: Fulfilment, origin: AuditOrigin) async throws -> PharmacyRefill {
        let now = portal.now
        let refill = try await portal.database.transaction { db -> PharmacyRefill in
            guard let prescription = try await repository.prescription(id: prescriptionID, customerID: customerID, on: db) else {
                throw APIError.validation(["prescription_id": "Choose one of your prescriptions on file"])
            }
            guard prescription.refillsRemaining > 0 else {
                throw APIError(
                    status: .conflict,
                    code: "no_refills_left",
                    message: "There are no refills left on this prescription. Please ask your prescriber for a new one, or call the pharmacy."
                )
            }
            if try await repository.openRefill(prescriptionID: prescriptionID, on: db) != nil {
                throw APIError(
                    status: .conflict,
                    code: "refill_already_requested",
                    message: "You have already asked for a refill of this prescription. You can follow it under your orders."
                )
            }
            var address: String?
            if fulfilment == .delivery {
                guard let customer = try await repository.customer(id: customerID, on: db), customer.details.address.isSaved else {
                    throw APIError(
                        status: .conflict,
                        code: "address_not_saved",
                        message: "Save your delivery address first, or choose to pick the order up in the store."
                    )
                }
                address = customer.details.address.text
            }
            let refill = try await repository.addRefill(
                customerID: customerID,
                prescriptionID: prescriptionID,
                fulfilment: fulfilment,
                deliveryAddress: address,
                now: now,
                on: db
            )
            try await portal.audit.record(
                AuditEvent(
                    actor: AuditActor(accountID: customerID, role: AppAccountKind.pharmacyCustomer.role, name: nil),
                    action: .pharmacyRefillRequested,
                    recordType: "pharmacy_refill",
                    recordID: "\(refill.id)",
                    origin: origin,
                    detail: fulfilment.rawValue
                ),
                on: db
            )
            try await tell(customerID: customerID, about: refill, on: db)
            let settings = portal.programSettings.current
            if !settings.refillEmail.isEmpty {
                try await portal.outbox.enqueue(
                    Mail.newRefill(refill, to: settings.refillEmail, store: storeName, baseURL: portal.settings.baseURL),
                    on: db
                )
            }
            return refill
        }
        await portal.announceNotifications(to: NotificationAudience(role: AppAccountKind.pharmacyCustomer.role, accountIDs: [customerID]))
        return refill
    }

    // MARK: Beacons

    /// Tells every customer's app, through its feed, that the store's beacons changed, so it reads the list
    /// again without waiting for an update of the app. Called in the change's transaction.
    @discardableResult
    func tellBeaconsChanged(on db: any SQLDatabase) async throws -> Int {
        try await portal.notifications.writeToMany(
            NewNotification(
                kind: .beaconsChanged,
                message: "The store's beacons changed. Your app now listens for the new ones.",
                subject: NotificationSubject(Self.beaconsSubject, id: nil)
            ),
            accounts: repository.activeCustomerIDs,
            on: db
        )
    }

    static let beaconsSubject = "beacons"
    static let everyCustomer = NotificationAudience(role: AppAccountKind.pharmacyCustomer.role, accountIDs: nil)

    // MARK: Visits and points

    /// Her entering a registered beacon's range: the first visit of a day on the program's clock earns
    /// points and, for a returning customer, a welcome back; any later report that day earns nothing.
    func visit(customerID: Int64, beacon: PharmacyBeacon) async throws -> StoreVisit {
        let now = portal.now
        let account = AppAccountRef.pharmacyCustomer(customerID)
        let visit = try await portal.database.transaction { db -> StoreVisit in
            let clock = try await ProgramSettingsRepository().clock(on: db)
            let day = clock.date(of: now)
            guard try await repository.recordVisit(customerID: customerID, day: day, beaconID: beacon.id, now: now, on: db) else {
                return StoreVisit(
                    firstToday: false,
                    welcomeBack: false,
                    pointsEarned: 0,
                    balance: try await ledger.allTimeBalance(of: account, on: db)
                )
            }
            let earned = try await ledger.award(
                PointsAward(reason: Self.visitReason, reference: day.iso, amount: PharmacyRules.visitPoints, period: .day),
                to: account,
                at: now,
                clock: clock,
                on: db
            )
            let returning = try await repository.visits(customerID: customerID, limit: 0, on: db).count > 1
            let points = earned ? PharmacyRules.visitPoints : 0
            try await portal.notifications.write(
                NewNotification(
                    kind: .storeVisit,
                    message: (returning ? "Welcome back to \(storeName)!" : "Welcome to \(storeName)!")
                        + (points > 0 ? " You earned \(points) points." : ""),
                    onceKey: "visit:\(day.iso)"
                ),
                to: account,
                on: db
            )
            return StoreVisit(
                firstToday: true,
                welcomeBack: returning,
                pointsEarned: points,
                balance: try await ledger.allTimeBalance(of: account, on: db)
            )
        }
        if visit.firstToday {
            await portal.announceNotifications(to: NotificationAudience(role: AppAccountKind.pharmacyCustomer.role, accountIDs: [customerID]))
        }
        return visit
    }

    // MARK: Vouchers

    /// Redeems a reward from the pharmacy's catalogue for a voucher (`Rewards.redeem`).
    func redeem(rewardID: Int64, customerID: Int64, origin: AuditOrigin) async throws -> (PharmacyVoucher, PharmacyReward, balance: Int) {
        try await Rewards(portal: portal, program: .pharmacy).redeem(
            rewardID: rewardID,
            by: .pharmacyCustomer(customerID),
            record: Rewards.Record(action: .pharmacyVoucherRedeemed, recordType: "pharmacy_voucher", earnMore: "Visit the store to earn more."),
            origin: origin
        )
    }

    /// Starts her voucher's 5 minutes, measured here; asking again while they run answers the same expiry.
    /// The usual case is one statement: the update that starts the minutes of a voucher redeemed and not
    /// yet activated; only when it changes nothing is the voucher read to say why.
    func activate(voucherID: Int64, customerID: Int64, origin: AuditOrigin) async throws -> PharmacyVoucher {
        let now = portal.now
        return try await portal.database.transaction { db in
            if let activated = try await repository.activateVoucher(id: voucherID, customerID: customerID, now: now, on: db) {
                try await portal.audit.record(
                    AuditEvent(
                        actor: AuditActor(accountID: customerID, role: AppAccountKind.pharmacyCustomer.role, name: nil),
                        action: .pharmacyVoucherActivated,
                        recordType: "pharmacy_voucher",
                        recordID: "\(voucherID)",
                        origin: origin
                    ),
                    on: db
                )
                return activated
            }
            guard let voucher = try await repository.voucher(id: voucherID, customerID: customerID, on: db) else { throw APIError.notFound }
            switch voucher.state(at: now) {
            case .active: return voucher
            case .used: throw APIError(status: .conflict, code: "voucher_used", message: "This voucher has already been used.")
            case .expired:
                throw APIError(status: .conflict, code: "voucher_expired", message: "This voucher's 5 minutes are over, so it can no longer be used.")
            case .redeemed: throw APIError(status: .conflict, code: "voucher_expired", message: "This voucher can no longer be activated.")
            }
        }
    }

    /// What the till is told about a code.
    enum VoucherCheck: Equatable {
        case valid(reward: String, cashierGives: String)
        case unknown
        case notActivated
        case expired(at: Date)
        case alreadyUsed(at: Date)
    }

    /// The cashier's check: a valid voucher is marked used at once, so it cannot be used twice.
    func check(code typed: String, actor: AuditActor, origin: AuditOrigin) async throws -> VoucherCheck {
        let code = PharmacyRules.normalizedCode(typed)
        let now = portal.now
        return try await portal.database.transaction { db in
            guard let voucher = try await repository.voucher(code: code, on: db) else {
                try await portal.audit.record(
                    AuditEvent(
                        actor: actor,
                        action: .pharmacyVoucherChecked,
                        recordType: "pharmacy_voucher",
                        outcome: .failure,
                        origin: origin,
                        detail: "unknown code"
                    ),
                    on: db
                )
                return .unknown
            }
            let result: VoucherCheck
            switch voucher.state(at: now) {
            case .redeemed: result = .notActivated
            case .expired: result = .expired(at: voucher.expiresAt ?? now)
            case .used: result = .alreadyUsed(at: voucher.usedAt ?? now)
            case .active:
                let reward = try await repository.reward(id: voucher.rewardID, on: db)
                result =
                    try await repository.useVoucher(id: voucher.id, now: now, on: db)
                    ? .valid(reward: reward?.title ?? "", cashierGives: reward?.gives ?? "")
                    : .expired(at: voucher.expiresAt ?? now)
            }
            let outcome: AuditOutcome = if case .valid = result { .success } else { .failure }
            try await portal.audit.record(
                AuditEvent(
                    actor: actor,
                    action: .pharmacyVoucherChecked,
                    recordType: "pharmacy_voucher",
                    recordID: "\(voucher.id)",
                    outcome: outcome,
                    origin: origin
                ),
                on: db
            )
            return result
        }
    }
}

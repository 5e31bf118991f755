import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// The pharmacy app's API under `/api/v1/pharmacy/`.
struct PharmacyAPIController {
    let portal: Portal
    let pharmacy: Pharmacy
    let repository = PharmacyRepository()
    let ledger = PointsLedger()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.post(SiteURL.apiPharmacyRegistrations.pattern, access: .everyone, register)
        routes.appSessions(.pharmacyCustomer) { [repository] issued, db in
            guard let customer = try await repository.customer(id: issued.accountID, on: db) else { throw APIError.unauthorized }
            return PharmacyAPI.Session(token: issued.token, expiresAt: issued.expiresAt, customer: PharmacyAPI.Customer(customer))
        }
        routes.post(SiteURL.apiPharmacyPasswordResets.pattern, access: .everyone, requestReset)
        routes.post(SiteURL.apiPharmacyPasswordResetCompletion.pattern, access: .everyone, completeReset)
        routes.get(SiteURL.apiPharmacyMe.pattern, access: .pharmacyCustomer, me)
        routes.get(SiteURL.apiPharmacyHistory.pattern, access: .pharmacyCustomer, history)
        routes.get(SiteURL.apiPharmacyRecordOpenings.pattern, access: .pharmacyCustomer) { [portal] request, context in
            try await portal.recordOpeningsResponse(.pharmacyCustomer, of: try context.requireCustomer(), request: request)
        }
        routes.put(SiteURL.apiPharmacyAddress.pattern, access: .pharmacyCustomer, saveAddress)
        routes.get(SiteURL.apiPharmacyHome.pattern, access: .pharmacyCustomer, home)
        routes.post(SiteURL.apiPharmacyStepUp.pattern, access: .pharmacyCustomer, stepUp)
        routes.get(SiteURL.apiPharmacyPrescriptions.pattern, access: .pharmacyCustomer, prescriptions)
        routes.get(SiteURL.apiPharmacyRefills.pattern, access: .pharmacyCustomer, refills)
        routes.post(SiteURL.apiPharmacyRefills.pattern, access: .pharmacyCustomer, requestRefill)
        routes.get(SiteURL.apiPharmacyDeals.pattern, access: .pharmacyCustomer, deals)
        routes.get(SiteURL.pattern(SiteURL.apiPharmacyDealPicture), access: .pharmacyCustomer) { [portal] request, context in
            try await PharmacyStoreController.picture(of: context.parameters.apiRecordID(), portal: portal, request: request, context: context)
        }
        routes.get(SiteURL.apiPharmacyBeacons.pattern, access: .pharmacyCustomer, beacons)
        routes.post(SiteURL.apiPharmacyVisits.pattern, access: .pharmacyCustomer, visit)
        routes.get(SiteURL.apiPharmacyRewards.pattern, access: .pharmacyCustomer, rewards)
        routes.get(SiteURL.apiPharmacyVouchers.pattern, access: .pharmacyCustomer, vouchers)
        routes.post(SiteURL.apiPharmacyVouchers.pattern, access: .pharmacyCustomer, redeem)
        routes.post(SiteURL.pattern(SiteURL.apiPharmacyVoucherActivation), access: .pharmacyCustomer, activate)
        routes.get(SiteURL.apiPharmacyNotifications.pattern, access: .pharmacyCustomer, notifications)
        AppNotificationsAPIController(portal: portal, accounts: .pharmacyCustomers).addRoutes(to: &routes)
    }

    // MARK: Registration and passwords

    /// Open registration (`Pharmacy.register`): the same answer whether or not the address has an account.
    @Sendable func register(request: Request, context: PortalContext) async throws -> Response {
        let body = try await request.json(PharmacyAPI.Registration.self)
        let details = PharmacyCustomerDetails(
            firstName: body.firstName?.trimmed ?? "",
            lastName: body.lastName?.trimmed ?? "",
            dateOfBirth: body.dateOfBirth?.trimmed ?? "",
            phone: body.phone?.trimmed ?? "",
            address: .none
        )
        try await pharmacy.register(
            Pharmacy.Registration(email: body.email ?? "", password: body.password ?? "", details: details),
            origin: portal.origin(of: request, context: context)
        )
        return .json(PharmacyAPI.CheckEmail(message: Pharmacy.checkEmail), status: .accepted)
    }

    /// ForgotPassword (`Pharmacy.requestReset`): the same answer whether or not the address has an account.
    @Sendable func requestReset(request: Request, context: PortalContext) async throws -> Response {
        let body = try await request.json(AppPasswordReset.Ask.self)
        try await pharmacy.requestReset(email: body.email ?? "", origin: portal.origin(of: request, context: context))
        return .json(PharmacyAPI.CheckEmail(message: AppPasswordReset.sent), status: .accepted)
    }

    @Sendable func completeReset(request: Request, context: PortalContext) async throws -> Response {
        try await pharmacy.passwordReset.complete(request: request, context: context)
    }

    // MARK: Her account

    @Sendable func me(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCustomer()
        guard let customer = try await portal.database.read({ db in try await repository.customer(id: holder.accountID, on: db) }) else {
            throw APIError.unauthorized
        }
        return .json(PharmacyAPI.Customer(customer))
    }

    /// AddressNotSaved: the app asks for the address and saves it here.
    @Sendable func saveAddress(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCustomer()
        let body = try await request.json(PharmacyAPI.Address.self)
        guard let customer = try await pharmacy.saveAddress(body.address, customerID: holder.accountID) else { throw APIError.unauthorized }
        return .json(PharmacyAPI.Customer(customer))
    }

    /// UserViewsAccountInformation: her points and the current deals in one call.
    @Sendable func home(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCustomer()
        guard let home = try await pharmacy.home(of: holder.accountID) else { throw APIError.unauthorized }
        return .json(
            PharmacyAPI.Home(
                firstName: home.customer.details.firstName,
                points: home.points,
                deals: home.deals.map(PharmacyAPI.Deal.init),
                unreadNotifications: home.unreadNotifications
            )
        )
    }

    @Sendable func deals(request: Request, context: PortalContext) async throws -> Response {
        _ = try context.requireCustomer()
        let today = portal.programSettings.current.clock.date(of: portal.now)
        let deals = try await portal.database.read { db in try await repository.currentDeals(on: today, on: db) }
        return .json(
            PharmacyAPI.Deals(
                deals: deals.map(PharmacyAPI.Deal.init),
                message: deals.isEmpty ? "There are no deals at the moment. Please check again soon." : nil
            )
        )
    }

    // MARK: Prescriptions (behind her password again)

    /// ViewPrescriptionPasswordValidation (`Pharmacy.stepUp`).
    @Sendable func stepUp(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCustomer()
        let body = try await request.json(PharmacyAPI.StepUpRequest.self)
        let until = try await pharmacy.stepUp(holder, password: body.password ?? "", origin: portal.origin(of: request, context: context))
        return .json(PharmacyAPI.StepUp(stepUpExpiresAt: until))
    }

    static let stepUpRequired = APIError(
        status: .forbidden,
        code: "step_up_required",
        message: "Enter your password again to see your prescriptions and orders."
    )

    /// The step-up grant on this token, or a 403 the app answers by asking for her password.
    private func requireStepUp(_ holder: AppAccountHolder) async throws -> Date {
        guard let until = pharmacy.stepUpUntil(holder) else { throw Self.stepUpRequired }
        return until
    }

    @Sendable func prescriptions(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCustomer()
        let until = try await requireStepUp(holder)
        let onFile = try await pharmacy.prescriptionsOnFile(of: holder.accountID, origin: portal.origin(of: request, context: context))
        return .json(
            PharmacyAPI.Prescriptions(
                prescriptions: onFile.prescriptions.map {
                    PharmacyAPI.Prescription(
                        id: $0.id,
                        medication: $0.medication,
                        strength: $0.strength,
                        quantity: $0.quantity,
                        refillsRemaining: $0.refillsRemaining,
                        prescriber: $0.prescriber,
                        lastFilled: $0.lastFilled,
                        openRefillId: onFile.openRefills[$0.id]
                    )
                },
                stepUpExpiresAt: until,
                addressSaved: onFile.customer?.details.address.isSaved ?? false
            )
        )
    }

    @Sendable func refills(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCustomer()
        _ = try await requireStepUp(holder)
        let items = try await portal.database.read { db in try await repository.refills(customerID: holder.accountID, limit: 50, on: db) }
        return .json(PharmacyAPI.Refills(refills: items.map(PharmacyAPI.Refill.init)))
    }

    /// ReorderPrescription and DeliverPrescriptions: a request in the pharmacy's queue, never an email of it.
    @Sendable func requestRefill(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCustomer()
        _ = try await requireStepUp(holder)
        let body = try await request.json(PharmacyAPI.NewRefill.self)
        var problems: [String: String] = [:]
        if body.prescriptionId == nil { problems["prescription_id"] = "Choose one of your prescriptions on file" }
        let fulfilment = body.fulfilment.flatMap(Fulfilment.init(rawValue:))
        if fulfilment == nil { problems["fulfilment"] = "Choose pickup or delivery" }
        guard problems.isEmpty, let prescriptionID = body.prescriptionId, let fulfilment else { throw APIError.validation(problems) }
        let refill = try await pharmacy.requestRefill(
            customerID: holder.accountID,
            prescriptionID: prescriptionID,
            fulfilment: fulfilment,
            origin: portal.origin(of: request, context: context)
        )
        guard let item = try await portal.database.read({ db in try await repository.refillItem(id: refill.id, on: db) }) else {
            throw APIError.notFound
        }
        return .json(PharmacyAPI.Refill(item), status: .created)
    }

    // MARK: Beacons and visits

    /// UpdateBeacon: what the app listens for, with its version as the `ETag`; an app that sends the version it
    /// holds in `If-None-Match` is told 304 while the list is unchanged.
    @Sendable func beacons(request: Request, context: PortalContext) async throws -> Response {
        _ = try context.requireCustomer()
        let beacons = PharmacyAPI.Beacons(try await portal.database.read { db in try await repository.beacons(on: db) })
        let held = request.headers[values: .ifNoneMatch].flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        if held.contains(beacons.entityTag) || held.contains("W/\(beacons.entityTag)") || held.contains("*") {
            return Response(status: .notModified, headers: [.eTag: beacons.entityTag])
        }
        var response = Response.json(beacons)
        response.headers[.eTag] = beacons.entityTag
        return response
    }

    /// EnterBeaconRange and UserRevisitsStore: points for the first visit of the day, whatever the app sends after.
    @Sendable func visit(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCustomer()
        let body = try await request.json(PharmacyAPI.NewVisit.self)
        let uuid = body.uuid?.trimmed.lowercased() ?? ""
        var problems: [String: String] = [:]
        if UUID(uuidString: uuid) == nil { problems["uuid"] = "Give the beacon's UUID" }
        if body.major.map(PharmacyForms.beaconNumbers.contains) != true { problems["major"] = "Give the beacon's major number, 0 to 65535" }
        if body.minor.map(PharmacyForms.beaconNumbers.contains) != true { problems["minor"] = "Give the beacon's minor number, 0 to 65535" }
        guard problems.isEmpty, let major = body.major, let minor = body.minor else { throw APIError.validation(problems) }
        guard let beacon = try await portal.database.read({ db in try await repository.beacon(uuid: uuid, major: major, minor: minor, on: db) })
        else {
            throw APIError.validation(["uuid": "This is not one of the store's beacons"])
        }
        let visit = try await pharmacy.visit(customerID: holder.accountID, beacon: beacon)
        let store = pharmacy.storeName
        let message =
            !visit.firstToday
            ? "Welcome to \(store). Your visit today is already counted."
            : (visit.welcomeBack ? "Welcome back to \(store)!" : "Welcome to \(store)!")
                + (visit.pointsEarned > 0 ? " You earned \(visit.pointsEarned) points." : "")
        return .json(
            PharmacyAPI.Visit(
                firstVisitToday: visit.firstToday,
                welcomeBack: visit.welcomeBack,
                pointsEarned: visit.pointsEarned,
                points: visit.balance,
                message: message
            ),
            status: visit.firstToday ? .created : .ok
        )
    }

    // MARK: Rewards and vouchers

    @Sendable func rewards(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCustomer()
        let (points, rewards) = try await portal.database.read { db in
            (
                try await ledger.allTimeBalance(of: .pharmacyCustomer(holder.accountID), on: db),
                try await repository.rewards(includingRetired: false, on: db)
            )
        }
        return .json(
            PharmacyAPI.Rewards(
                points: points,
                rewards: rewards.map {
                    PharmacyAPI.Reward(id: $0.id, title: $0.title, pointsCost: $0.pointsCost, affordable: $0.isAffordable(with: points))
                }
            )
        )
    }

    private func view(_ voucher: PharmacyVoucher, title: String) -> PharmacyAPI.Voucher {
        let now = portal.now
        let state = voucher.state(at: now)
        return PharmacyAPI.Voucher(
            id: voucher.id,
            rewardId: voucher.rewardID,
            title: title,
            code: voucher.code,
            pointsCost: voucher.pointsCost,
            state: state.rawValue,
            redeemedAt: voucher.redeemedAt,
            activatedAt: voucher.activatedAt,
            expiresAt: voucher.expiresAt,
            secondsLeft: state == .active ? voucher.expiresAt.map { max(0, Int($0.timeIntervalSince(now).rounded(.up))) } : nil
        )
    }

    @Sendable func vouchers(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCustomer()
        let (vouchers, rewards) = try await portal.database.read { db in
            (
                try await repository.vouchers(customerID: holder.accountID, limit: 100, on: db),
                try await repository.rewards(includingRetired: true, on: db)
            )
        }
        let titles = Dictionary(uniqueKeysWithValues: rewards.map { ($0.id, $0.title) })
        return .json(PharmacyAPI.Vouchers(vouchers: vouchers.map { view($0, title: titles[$0.rewardID] ?? "") }))
    }

    /// RedeemVoucher: the cost leaves her points in the same transaction that makes the voucher.
    @Sendable func redeem(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCustomer()
        let body = try await request.json(PharmacyAPI.NewVoucher.self)
        guard let rewardID = body.rewardId else { throw APIError.validation(["reward_id": "Choose one of the rewards offered"]) }
        let (voucher, reward, balance) = try await pharmacy.redeem(
            rewardID: rewardID,
            customerID: holder.accountID,
            origin: portal.origin(of: request, context: context)
        )
        return .json(PharmacyAPI.Redeemed(voucher: view(voucher, title: reward.title), points: balance), status: .created)
    }

    /// ActivateVoucher: 5 minutes from now on the server's clock; the exact expiry for the app's countdown.
    @Sendable func activate(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCustomer()
        let id = try context.parameters.apiRecordID()
        let voucher = try await pharmacy.activate(voucherID: id, customerID: holder.accountID, origin: portal.origin(of: request, context: context))
        let title = try await portal.database.read { db in try await repository.reward(id: voucher.rewardID, on: db)?.title }
        return .json(view(voucher, title: title ?? ""))
    }

    // MARK: History

    static let historyPageSize = 20

    /// ViewHistory: her visits, points earned and spent, refills and vouchers, newest first, 20 to a page.
    @Sendable func history(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCustomer()
        let page = try request.apiPage(size: Self.historyPageSize)
        let number = page.number
        let history = try await portal.database.read { db in try await repository.history(customerID: holder.accountID, page: page, on: db) }
        return .json(
            PharmacyAPI.History(
                entries: history.items.map(PharmacyAPI.HistoryEntry.init),
                page: number,
                pageCount: history.pageCount,
                totalCount: history.totalCount
            )
        )
    }

    // MARK: Notifications

    @Sendable func notifications(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCustomer()
        let pageRequest = try request.apiPage()
        let (page, unread) = try await portal.database.read { db in
            try await portal.notifications.feed(of: .pharmacyCustomer(holder.accountID), page: pageRequest, on: db)
        }
        return .json(
            PharmacyAPI.Notifications(
                notifications: page.items.map {
                    PharmacyAPI.Notification(
                        id: $0.id,
                        kind: $0.kind,
                        message: $0.message,
                        refillId: $0.subject?.type == Pharmacy.refillSubject ? $0.subject?.id : nil,
                        createdAt: $0.createdAt,
                        read: $0.readAt != nil
                    )
                },
                page: page.request.number,
                pageCount: page.pageCount,
                totalCount: page.totalCount,
                unreadCount: unread
            )
        )
    }
}

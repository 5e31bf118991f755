import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// The customer's pages in the people's web app (`/app/pharmacy`), over the same domain code as the
/// pharmacy app's API (`Pharmacy`): she registers with her email address, sees her points and today's
/// deals, redeems rewards for vouchers and starts a voucher's 5 minutes at the till, opens her
/// prescriptions with her password again and asks for refills, and reads her notifications.
struct PharmacyAppController {
    let portal: Portal
    let pharmacy: Pharmacy
    let repository = PharmacyRepository()
    let ledger = PointsLedger()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.appPageSessions(
            .pharmacyCustomer,
            help: nil,
            links: [
                AppSignInPages.Link(lead: "New here?", title: "Create your account", path: SiteURL.appPharmacyRegister.path),
                AppSignInPages.Link(lead: "Forgotten your password?", title: "Choose a new one", path: SiteURL.appPharmacyForgottenPassword.path)
            ]
        )
        routes.get(SiteURL.appPharmacyRegister.pattern, access: .everyone, registration)
        routes.post(SiteURL.appPharmacyRegister.pattern, access: .everyone, register)
        routes.get(SiteURL.appPharmacyForgottenPassword.pattern, access: .everyone, forgottenPassword)
        routes.post(SiteURL.appPharmacyForgottenPassword.pattern, access: .everyone, requestReset)
        routes.get(SiteURL.appPharmacyHome.pattern, access: .pharmacyCustomerPages, home)
        routes.get(SiteURL.appPharmacyDeals.pattern, access: .pharmacyCustomerPages, deals)
        routes.get(SiteURL.pattern(SiteURL.appPharmacyDealPicture), access: .pharmacyCustomerPages) { [portal] request, context in
            try await PharmacyStoreController.picture(of: try context.parameters.recordID(), portal: portal, request: request, context: context)
        }
        routes.get(SiteURL.appPharmacyRewards.pattern, access: .pharmacyCustomerPages, rewards)
        routes.get(SiteURL.pattern(SiteURL.appPharmacyReward), access: .pharmacyCustomerPages, confirmRedeem)
        routes.post(SiteURL.pattern(SiteURL.appPharmacyReward), access: .pharmacyCustomerPages, redeem)
        routes.get(SiteURL.appPharmacyVouchers.pattern, access: .pharmacyCustomerPages, vouchers)
        routes.get(SiteURL.appPharmacyHistory.pattern, access: .pharmacyCustomerPages, history)
        routes.get(SiteURL.pattern(SiteURL.appPharmacyVoucher), access: .pharmacyCustomerPages, voucher)
        routes.post(SiteURL.pattern(SiteURL.appPharmacyVoucherActivation), access: .pharmacyCustomerPages, activate)
        routes.get(SiteURL.appPharmacyPrescriptions.pattern, access: .pharmacyCustomerPages, prescriptions)
        routes.post(SiteURL.appPharmacyPrescriptionsUnlock.pattern, access: .pharmacyCustomerPages, unlock)
        routes.get(SiteURL.pattern(SiteURL.appPharmacyRefill), access: .pharmacyCustomerPages, refillForm)
        routes.post(SiteURL.pattern(SiteURL.appPharmacyRefill), access: .pharmacyCustomerPages, requestRefill)
        routes.get(SiteURL.appPharmacyAddress.pattern, access: .pharmacyCustomerPages, address)
        routes.post(SiteURL.appPharmacyAddress.pattern, access: .pharmacyCustomerPages, saveAddress)
        AppNotificationPages(
            portal: portal,
            accounts: .pharmacyCustomers,
            feed: .appPharmacyNotifications,
            readAll: .appPharmacyNotificationsReadAll,
            choices: .appPharmacyNotificationChoices,
            navigation: .pharmacyCustomer
        ) { subject in subject.type == Pharmacy.refillSubject ? SiteURL.appPharmacyPrescriptions.path : nil }
        .addRoutes(to: &routes)
        AppRecordOpeningsPages(
            portal: portal,
            openings: .pharmacyCustomer,
            kind: .pharmacyCustomer,
            url: .appPharmacyRecordOpenings,
            navigation: .pharmacyCustomer
        ).addRoutes(to: &routes)
    }

    private func layout(_ title: String, _ context: PortalContext, _ url: SiteURL) -> Layout {
        portal.appLayout(title, context: context, navigation: .pharmacyCustomer, currentPath: url.path)
    }

    private func customer(_ context: PortalContext) throws -> AppAccountHolder {
        guard let holder = context.appAccount, holder.kind == .pharmacyCustomer else { throw HTTPError(.notFound) }
        return holder
    }

    private static let whoToCall = "call the pharmacy"

    private func origin(_ request: Request, _ context: PortalContext) -> AuditOrigin { portal.origin(of: request, context: context) }

    // MARK: Registration and forgotten passwords

    @Sendable func registration(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(PharmacyRegistrationPage(layout: portal.appLayout("Create your account", context: context)))
    }

    @Sendable func register(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(PharmacyRegistrationForm.self, context: context)
        let layout = portal.appLayout("Create your account", context: context)
        let (registration, dateProblem) = form.registration
        func refused(_ problems: [String: String]) -> Response {
            portal.pages.response(
                PharmacyRegistrationPage(
                    layout: layout,
                    registration: registration,
                    dateOfBirth: form.dateOfBirth,
                    dateProblem: dateProblem,
                    problems: problems
                ),
                status: .unprocessableContent
            )
        }
        let problems = form.problems(with: registration, dateProblem: dateProblem, pharmacy: pharmacy)
        guard dateProblem == nil, problems.isEmpty else { return refused(problems) }
        do {
            try await pharmacy.register(registration, origin: origin(request, context))
        } catch let error as APIError {
            if let paused = error.pausedPageMessage { return refused(["email": paused]) }
            return refused(error.fields)
        }
        return portal.pages.response(
            AppCheckEmailPage(
                layout: portal.appLayout("Check your email", context: context),
                message: Pharmacy.checkEmail,
                kind: .pharmacyCustomer,
                whoToCall: Self.whoToCall
            )
        )
    }

    private struct ResetForm: Decodable {
        var email: String?
    }

    @Sendable func forgottenPassword(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(
            AppForgottenPasswordPage(layout: portal.appLayout("Forgotten password", context: context), action: .appPharmacyForgottenPassword)
        )
    }

    @Sendable func requestReset(request: Request, context: PortalContext) async throws -> Response {
        let email = try await request.form(ResetForm.self, context: context).email ?? ""
        do {
            try await pharmacy.requestReset(email: email, origin: origin(request, context))
        } catch let error as APIError {
            var errors = FormErrors()
            errors.add("email", error.pausedPageMessage ?? error.fields["email"] ?? error.message)
            return portal.pages.response(
                AppForgottenPasswordPage(
                    layout: portal.appLayout("Forgotten password", context: context),
                    action: .appPharmacyForgottenPassword,
                    email: email.trimmed,
                    errors: errors
                ),
                status: .unprocessableContent
            )
        }
        return portal.pages.response(
            AppCheckEmailPage(
                layout: portal.appLayout("Check your email", context: context),
                message: AppPasswordReset.sent,
                kind: .pharmacyCustomer,
                whoToCall: Self.whoToCall
            )
        )
    }

    // MARK: Home, deals, rewards and vouchers

    @Sendable func home(request: Request, context: PortalContext) async throws -> Response {
        let holder = try customer(context)
        guard let home = try await pharmacy.home(of: holder.accountID) else { throw HTTPError(.notFound) }
        return portal.pages.response(PharmacyHomePage(layout: layout("Home", context, .appPharmacyHome), home: home))
    }

    @Sendable func deals(request: Request, context: PortalContext) async throws -> Response {
        _ = try customer(context)
        let today = portal.programSettings.current.clock.date(of: portal.now)
        let deals = try await portal.database.read { db in try await repository.currentDeals(on: today, on: db) }
        return portal.pages.response(PharmacyDealsPage(layout: layout("Deals", context, .appPharmacyDeals), deals: deals))
    }

    @Sendable func rewards(request: Request, context: PortalContext) async throws -> Response {
        let holder = try customer(context)
        let (points, rewards) = try await portal.database.read { db in
            (
                try await ledger.allTimeBalance(of: .pharmacyCustomer(holder.accountID), on: db),
                try await repository.rewards(includingRetired: false, on: db)
            )
        }
        return portal.pages.response(PharmacyRewardsPage(layout: layout("Rewards", context, .appPharmacyRewards), points: points, rewards: rewards))
    }

    /// The reward offered and her points: nil when it is not offered any more.
    private func offered(_ rewardID: Int64, customerID: Int64) async throws -> (PharmacyReward, Int) {
        let found = try await portal.database.read { db -> (PharmacyReward, Int)? in
            guard let reward = try await repository.reward(id: rewardID, on: db), !reward.isRetired else { return nil }
            return (reward, try await ledger.allTimeBalance(of: .pharmacyCustomer(customerID), on: db))
        }
        guard let found else { throw HTTPError(.notFound) }
        return found
    }

    @Sendable func confirmRedeem(request: Request, context: PortalContext) async throws -> Response {
        let holder = try customer(context)
        let (reward, points) = try await offered(try context.parameters.recordID(), customerID: holder.accountID)
        return portal.pages.response(
            RedeemPage(layout: layout("Redeem a reward", context, .appPharmacyRewards), reward: reward, points: points, handover: .voucherAtTheTill)
        )
    }

    @Sendable func redeem(request: Request, context: PortalContext) async throws -> Response {
        let holder = try customer(context)
        let rewardID = try context.parameters.recordID()
        do {
            let (voucher, _, _) = try await pharmacy.redeem(rewardID: rewardID, customerID: holder.accountID, origin: origin(request, context))
            return seeOther("\(SiteURL.appPharmacyVoucher(voucher.id).path)?redeemed=1")
        } catch let error as APIError where error.status == .conflict {
            let (reward, points) = try await offered(rewardID, customerID: holder.accountID)
            return portal.pages.response(
                RedeemPage(
                    layout: layout("Redeem a reward", context, .appPharmacyRewards),
                    reward: reward,
                    points: points,
                    handover: .voucherAtTheTill,
                    problem: error.message
                ),
                status: .conflict
            )
        } catch let error as APIError where error.status == .unprocessableContent {
            throw HTTPError(.notFound)
        }
    }

    private func rewardTitles() async throws -> [Int64: String] {
        let rewards = try await portal.database.read { db in try await repository.rewards(includingRetired: true, on: db) }
        return Dictionary(uniqueKeysWithValues: rewards.map { ($0.id, $0.title) })
    }

    @Sendable func vouchers(request: Request, context: PortalContext) async throws -> Response {
        let holder = try customer(context)
        let vouchers = try await portal.database.read { db in try await repository.vouchers(customerID: holder.accountID, limit: 100, on: db) }
        let titles = try await rewardTitles()
        return portal.pages.response(
            PharmacyVouchersPage(
                layout: layout("Vouchers", context, .appPharmacyVouchers),
                vouchers: vouchers,
                titles: titles,
                now: portal.now
            )
        )
    }

    /// Her history, 20 lines to a page, as the API's ViewHistory gives it.
    @Sendable func history(request: Request, context: PortalContext) async throws -> Response {
        let holder = try customer(context)
        let page = try await portal.database.read { db in
            try await repository.history(
                customerID: holder.accountID,
                page: PageRequest(number: request.pageNumber, size: PharmacyAPIController.historyPageSize),
                on: db
            )
        }
        return portal.pages.response(
            PharmacyHistoryPage(
                layout: layout("Your history", context, .appPharmacyVouchers),
                entries: page.items.map(PharmacyAPI.HistoryEntry.init),
                pagination: portal.pages.html(
                    PaginationView(page, address: ListAddress(path: SiteURL.appPharmacyHistory.path, parameters: []), noun: "lines")
                ),
                clock: portal.programSettings.current.clock
            )
        )
    }

    @Sendable func voucher(request: Request, context: PortalContext) async throws -> Response {
        let holder = try customer(context)
        let id = try context.parameters.recordID()
        guard let voucher = try await portal.database.read({ db in try await repository.voucher(id: id, customerID: holder.accountID, on: db) })
        else {
            throw HTTPError(.notFound)
        }
        let title = try await portal.database.read { db in try await repository.reward(id: voucher.rewardID, on: db)?.title } ?? "Reward"
        return portal.pages.response(
            PharmacyVoucherPage(
                layout: layout("Voucher", context, .appPharmacyVouchers),
                voucher: voucher,
                title: title,
                now: portal.now,
                clock: portal.programSettings.current.clock,
                redeemed: request.query("redeemed") != nil,
                problem: request.query("problem")
            )
        )
    }

    /// Starts the voucher's 5 minutes; one already used or over is shown as it is, with why.
    @Sendable func activate(request: Request, context: PortalContext) async throws -> Response {
        let holder = try customer(context)
        let id = try context.parameters.recordID()
        do {
            _ = try await pharmacy.activate(voucherID: id, customerID: holder.accountID, origin: origin(request, context))
        } catch let error as APIError where error.status == .notFound {
            throw HTTPError(.notFound)
        } catch let error as APIError where error.status == .conflict {
            return seeOther("\(SiteURL.appPharmacyVoucher(id).path)?problem=\(error.code)")
        }
        return seeOther(SiteURL.appPharmacyVoucher(id).path)
    }

    // MARK: Prescriptions behind her password

    @Sendable func prescriptions(request: Request, context: PortalContext) async throws -> Response {
        let holder = try customer(context)
        let title = "Prescriptions"
        guard let until = pharmacy.stepUpUntil(holder) else {
            return portal.pages.response(PharmacyUnlockPage(layout: layout(title, context, .appPharmacyPrescriptions)))
        }
        let onFile = try await pharmacy.prescriptionsOnFile(of: holder.accountID, origin: origin(request, context))
        let refills = try await portal.database.read { db in try await repository.refills(customerID: holder.accountID, limit: 50, on: db) }
        return portal.pages.response(
            PharmacyPrescriptionsPage(
                layout: layout(title, context, .appPharmacyPrescriptions),
                onFile: onFile,
                refills: refills,
                openUntil: until,
                clock: portal.programSettings.current.clock,
                requested: request.query("requested") != nil
            )
        )
    }

    private struct PasswordForm: Decodable {
        var password: String?
    }

    @Sendable func unlock(request: Request, context: PortalContext) async throws -> Response {
        let holder = try customer(context)
        let password = try await request.form(PasswordForm.self, context: context).password ?? ""
        do {
            _ = try await pharmacy.stepUp(holder, password: password, origin: origin(request, context))
            return seeOther(SiteURL.appPharmacyPrescriptions.path)
        } catch let error as APIError {
            var errors = FormErrors()
            errors.add("password", error.pausedPageMessage ?? error.fields["password"] ?? error.message)
            return portal.pages.response(
                PharmacyUnlockPage(layout: layout("Prescriptions", context, .appPharmacyPrescriptions), errors: errors),
                status: .unprocessableContent
            )
        }
    }

    /// The prescription of hers a refill is asked for, with her saved address (404 for one not hers); nil
    /// (go and unlock) when her password step-up has run out.
    private func refillSubject(_ context: PortalContext) async throws -> (PharmacyPrescription, PharmacyCustomer)? {
        let holder = try customer(context)
        let id = try context.parameters.recordID()
        let found = try await portal.database.read { db -> (PharmacyPrescription, PharmacyCustomer)? in
            guard let prescription = try await repository.prescription(id: id, customerID: holder.accountID, on: db),
                let customer = try await repository.customer(id: holder.accountID, on: db)
            else { return nil }
            return (prescription, customer)
        }
        guard let found else { throw HTTPError(.notFound) }
        guard pharmacy.stepUpUntil(holder) != nil else { return nil }
        return found
    }

    @Sendable func refillForm(request: Request, context: PortalContext) async throws -> Response {
        guard let (prescription, customer) = try await refillSubject(context) else { return seeOther(SiteURL.appPharmacyPrescriptions.path) }
        return portal.pages.response(
            PharmacyRefillPage(
                layout: layout("Ask for a refill", context, .appPharmacyPrescriptions),
                prescription: prescription,
                address: customer.details.address
            )
        )
    }

    private struct RefillForm: Decodable {
        var fulfilment: String?
    }

    @Sendable func requestRefill(request: Request, context: PortalContext) async throws -> Response {
        guard let (prescription, customer) = try await refillSubject(context) else { return seeOther(SiteURL.appPharmacyPrescriptions.path) }
        let chosen = try await request.form(RefillForm.self, context: context).fulfilment.flatMap(Fulfilment.init(rawValue:))
        var errors = FormErrors()
        if let fulfilment = chosen {
            do {
                _ = try await pharmacy.requestRefill(
                    customerID: customer.id,
                    prescriptionID: prescription.id,
                    fulfilment: fulfilment,
                    origin: origin(request, context)
                )
                return seeOther("\(SiteURL.appPharmacyPrescriptions.path)?requested=1")
            } catch let error as APIError where error.status == .conflict {
                errors.add("fulfilment", error.message)
            }
        } else {
            errors.add("fulfilment", "Choose pickup or delivery")
        }
        return portal.pages.response(
            PharmacyRefillPage(
                layout: layout("Ask for a refill", context, .appPharmacyPrescriptions),
                prescription: prescription,
                address: customer.details.address,
                chosen: chosen,
                errors: errors
            ),
            status: .unprocessableContent
        )
    }

    // MARK: Her delivery address

    @Sendable func address(request: Request, context: PortalContext) async throws -> Response {
        let holder = try customer(context)
        guard let customer = try await portal.database.read({ db in try await repository.customer(id: holder.accountID, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return portal.pages.response(
            PharmacyAddressPage(
                layout: layout("Delivery address", context, .appPharmacyAddress),
                address: customer.details.address,
                next: AppAccountKind.pharmacyCustomer.ownPage(request.query("next")),
                saved: request.query("saved") != nil
            )
        )
    }

    private struct AddressForm: Decodable {
        var line1: String?
        var line2: String?
        var city: String?
        var state: String?
        var zip_code: String?
        var next: String?
    }

    @Sendable func saveAddress(request: Request, context: PortalContext) async throws -> Response {
        let holder = try customer(context)
        let form = try await request.form(AddressForm.self, context: context)
        let address = DeliveryAddress(typedLine1: form.line1, line2: form.line2, city: form.city, state: form.state, zipCode: form.zip_code)
        let next = AppAccountKind.pharmacyCustomer.ownPage(form.next)
        do {
            _ = try await pharmacy.saveAddress(address, customerID: holder.accountID)
            return seeOther(next ?? "\(SiteURL.appPharmacyAddress.path)?saved=1")
        } catch let error as APIError where error.status == .unprocessableContent {
            var errors = FormErrors()
            for field in PharmacyAddressPage.fieldOrder { if let problem = error.fields[field] { errors.add(field, problem) } }
            return portal.pages.response(
                PharmacyAddressPage(
                    layout: layout("Delivery address", context, .appPharmacyAddress),
                    address: address,
                    next: next,
                    errors: errors
                ),
                status: .unprocessableContent
            )
        }
    }
}

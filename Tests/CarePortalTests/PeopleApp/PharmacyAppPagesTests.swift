import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The pharmacy customer's pages in the people's web app: registering, her points and rewards, a
/// voucher's 5 minutes at the till, prescriptions behind her password, refills and her notifications —
/// the same records the pharmacy app's API and the pharmacists see.
@Suite struct PharmacyAppPagesTests {
    static let email = "margaret@example.org"

    /// A customer registered through the app's API, and a browser signed in to the web app as her.
    static func signedInCustomer(
        _ portal: TestPortal,
        email: String = Self.email,
        firstName: String = "Margaret"
    ) async throws -> (Visitor, Int64, AppClient) {
        let (app, id) = try await PharmacyFixtures.customer(portal, email: email, firstName: firstName)
        var browser = Visitor(portal: portal)
        let signedIn = try await browser.signInToApp(.pharmacyCustomer, identifier: email.uppercased(), password: PharmacyFixtures.password)
        #expect(signedIn.location == SiteURL.appPharmacyHome.path)
        // Land where the browser would, which also picks up the signed-in form token.
        #expect(try await browser.get(SiteURL.appPharmacyHome.path).status == .ok)
        return (browser, id, app)
    }

    @Test(arguments: TestEngines.all)
    func sheRegistersWithEveryProblemShownAtOnceAndTheAnswerTellsNoStrangerWhoIsACustomer(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var browser = Visitor(portal: portal)
            let form = try await browser.get(SiteURL.appPharmacyRegister.path)
            #expect(form.status == .ok && form.text.contains("Create your account") && form.text.contains(#"id="date_of_birth_day""#))
            let empty = try await browser.post(SiteURL.appPharmacyRegister.path, form: [("first_name", " Margaret ")])
            #expect(empty.status == .unprocessableContent)
            #expect(
                empty.errorSummary == [
                    "Enter a last name", "Enter your date of birth", "Enter an email address",
                    try #require(portal.portal.passwordPolicy.problem(with: "", username: nil))
                ],
                "\(empty.errorSummary)"
            )
            #expect(empty.text.contains(#"value="Margaret""#), "what she typed is kept")
            #expect(empty.text.contains(##"href="#date_of_birth_day""##), "the summary leads to the date's first box")
            let mismatched = try await browser.post(
                SiteURL.appPharmacyRegister.path,
                form: [
                    ("first_name", "Margaret"), ("last_name", "Holloway"), ("date_of_birth_day", "14"), ("date_of_birth_month", "3"),
                    ("date_of_birth_year", "2099"), ("email", Self.email), ("password", PharmacyFixtures.password), ("password_confirmation", "other")
                ]
            )
            #expect(
                mismatched.errorSummary == ["Enter a date of birth in the past, like 1950-04-23", "Enter the same password twice"],
                "\(mismatched.errorSummary)"
            )
            #expect(try await portal.database.read { db in try await PharmacyRepository().customer(email: Self.email, on: db) } == nil)

            let complete: [(String, String)] = [
                ("first_name", "Margaret"), ("last_name", "Holloway"), ("date_of_birth_day", "14"), ("date_of_birth_month", "3"),
                ("date_of_birth_year", "1946"), ("phone", "503-555-0110"), ("email", Self.email), ("password", PharmacyFixtures.password),
                ("password_confirmation", PharmacyFixtures.password)
            ]
            let registered = try await browser.post(SiteURL.appPharmacyRegister.path, form: complete)
            #expect(registered.status == .ok && registered.text.contains(Pharmacy.checkEmail))
            let customer = try #require(try await portal.database.read { db in try await PharmacyRepository().customer(email: Self.email, on: db) })
            #expect(customer.details.dateOfBirth == "1946-03-14" && customer.details.phone == "503-555-0110")
            // The same address again: the same answer, and only the address's owner is told.
            let again = try await browser.post(SiteURL.appPharmacyRegister.path, form: complete)
            #expect(again.status == .ok && again.text.contains(Pharmacy.checkEmail))
            let subjects = try await portal.outboxMessages().filter { $0.recipient == Self.email }.map(\.subject)
            #expect(subjects.contains { $0.hasPrefix("Welcome to") } && subjects.contains("Someone tried to register with your email address"))

            // Her new account signs in to the web app.
            var phone = Visitor(portal: portal)
            #expect(
                try await phone.signInToApp(.pharmacyCustomer, identifier: Self.email, password: PharmacyFixtures.password).location
                    == SiteURL.appPharmacyHome.path
            )
            #expect(try await phone.get(SiteURL.appPharmacyHome.path).text.contains("Hello, Margaret"))

            // A forgotten password: the same answer for any address, a link only to a customer's.
            let unknown = try await browser.post(SiteURL.appPharmacyForgottenPassword.path, form: [("email", "nobody@example.org")])
            #expect(unknown.status == .ok && unknown.text.contains(AppPasswordReset.sent))
            let known = try await browser.post(SiteURL.appPharmacyForgottenPassword.path, form: [("email", Self.email)])
            #expect(known.text.contains(AppPasswordReset.sent))
            #expect(try await portal.outboxMessages().filter { $0.subject.hasPrefix("Choose a new password") }.map(\.recipient) == [Self.email])
            let typo = try await browser.post(SiteURL.appPharmacyForgottenPassword.path, form: [("email", "margaret-at-example")])
            #expect(typo.status == .unprocessableContent && typo.text.contains(#"value="margaret-at-example""#))
        }
    }

    @Test(arguments: TestEngines.all)
    func sheRedeemsARewardAndStartsHerVoucherAtTheTillForFiveMinutes(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, id, app) = try await Self.signedInCustomer(portal)
            let reward = try await PharmacyFixtures.reward(portal, cost: 20)
            let dear = try await PharmacyFixtures.reward(portal, cost: 100, title: "Free flu shot")
            try await PharmacyFixtures.give(40, to: id, portal)
            #expect(try await browser.get(SiteURL.appPharmacyHome.path).text.contains("You have 40 points."))
            let rewards = try await browser.get(SiteURL.appPharmacyRewards.path)
            #expect(rewards.text.contains(SiteURL.appPharmacyReward(reward).path) && !rewards.text.contains(SiteURL.appPharmacyReward(dear).path))
            #expect(rewards.text.contains("You need 60 points more."))

            // Redeeming asks first, and says what she will have left.
            let confirm = try await browser.get(SiteURL.appPharmacyReward(reward).path)
            #expect(confirm.text.contains("Afterwards you will have 20 points.") && confirm.text.contains("Yes, redeem"))
            let redeemed = try await browser.post(SiteURL.appPharmacyReward(reward).path)
            let location = try #require(redeemed.location)
            let voucherID = try #require(Int64(location.split(separator: "/").last!.split(separator: "?").first!))
            #expect(location == "\(SiteURL.appPharmacyVoucher(voucherID).path)?redeemed=1")
            let ready = try await browser.get(location)
            #expect(ready.text.contains("Ready to use") && ready.text.contains("I am at the till: start my voucher"))
            let code = try #require(
                try await portal.database.read { db in try await PharmacyRepository().voucher(id: voucherID, customerID: id, on: db) }?.code
            )
            #expect(!ready.text.contains(code), "the code shows only once the voucher is started")
            // Too few points for the dear one: refused, nothing spent, and said plainly.
            let refused = try await browser.post(SiteURL.appPharmacyReward(dear).path)
            #expect(refused.status == .conflict && refused.text.contains("This reward costs 100 points and you have 20."))
            #expect(try await app.get(SiteURL.apiPharmacyRewards.path).object["points"] as? Int == 20)

            // Someone else's voucher is not there for her.
            var (stranger, _, _) = try await Self.signedInCustomer(portal, email: "ruth@example.org", firstName: "Ruth")
            #expect(try await stranger.get(SiteURL.appPharmacyVoucher(voucherID).path).status == .notFound)
            #expect(try await stranger.post(SiteURL.appPharmacyVoucherActivation(voucherID).path).status == .notFound)

            let started = try await browser.post(SiteURL.appPharmacyVoucherActivation(voucherID).path)
            #expect(started.location == SiteURL.appPharmacyVoucher(voucherID).path)
            let active = try await browser.get(SiteURL.appPharmacyVoucher(voucherID).path)
            #expect(active.text.contains(code) && active.text.contains(#"data-countdown-seconds="300""#) && active.text.contains("5 minutes left"))
            portal.clock.advance(by: 100)
            #expect(try await browser.get(SiteURL.appPharmacyVoucher(voucherID).path).text.contains("3 minutes 20 seconds left"))
            // The app's API sees the same voucher, counting the same minutes.
            let listed = try #require(try await app.get(SiteURL.apiPharmacyVouchers.path).object["vouchers"] as? [[String: Any]])
            #expect(listed.first?["state"] as? String == "active" && listed.first?["seconds_left"] as? Int == 200)
            portal.clock.advance(by: 200)
            let over = try await browser.get(SiteURL.appPharmacyVoucher(voucherID).path)
            #expect(over.text.contains("Time ran out") && !over.text.contains(code))
            let late = try await browser.post(SiteURL.appPharmacyVoucherActivation(voucherID).path)
            #expect(late.location == "\(SiteURL.appPharmacyVoucher(voucherID).path)?problem=voucher_expired")
            #expect(try await browser.get(try #require(late.location)).text.contains("time is over"))
            #expect(try await browser.get(SiteURL.appPharmacyVouchers.path).text.contains("Time ran out"))
            #expect(try await portal.auditEntries(action: .pharmacyVoucherActivated).count == 1)

            // Her history on the web is the API's: the voucher, with the points it cost, linked to the voucher.
            let history = try await browser.get(SiteURL.appPharmacyHistory.path)
            let entries = try #require(try await app.get(SiteURL.apiPharmacyHistory.path).object["entries"] as? [[String: Any]])
            #expect(history.status == .ok && !entries.isEmpty)
            for entry in entries { #expect(history.text.contains(HTMLEscaping.escape(try #require(entry["title"] as? String)))) }
            #expect(history.text.contains(SiteURL.appPharmacyVoucher(voucherID).path) && history.text.contains("−"))
        }
    }

    @Test(arguments: TestEngines.all)
    func prescriptionsOpenOnlyWithHerPasswordAndARefillReachesTheQueueAndHerNotifications(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, id, app) = try await Self.signedInCustomer(portal)
            let prescription = try await PharmacyFixtures.prescription(portal, customerID: id)
            let locked = try await browser.get(SiteURL.appPharmacyPrescriptions.path)
            #expect(locked.text.contains("enter your password again") && !locked.text.contains("Lisinopril"))
            #expect(try await browser.get(SiteURL.appPharmacyRefill(prescription).path).location == SiteURL.appPharmacyPrescriptions.path)
            // Her app's step-up opens nothing in the browser: each holds its own.
            #expect(try await app.send(.post, SiteURL.apiPharmacyStepUp.path, json: ["password": PharmacyFixtures.password]).status == .ok)
            #expect(!(try await browser.get(SiteURL.appPharmacyPrescriptions.path).text.contains("Lisinopril")))

            let wrong = try await browser.post(SiteURL.appPharmacyPrescriptionsUnlock.path, form: [("password", "not it")])
            #expect(
                wrong.status == .unprocessableContent && wrong.errorSummary.first?.hasPrefix("The password is not right. Try again") == true,
                "\(wrong.errorSummary)"
            )
            let opened = try await browser.post(SiteURL.appPharmacyPrescriptionsUnlock.path, form: [("password", PharmacyFixtures.password)])
            #expect(opened.location == SiteURL.appPharmacyPrescriptions.path)
            let list = try await browser.get(SiteURL.appPharmacyPrescriptions.path)
            #expect(
                list.text.contains("Lisinopril") && list.text.contains("3 refills left") && list.text.contains("You have not asked for a refill yet.")
            )
            #expect(try await portal.auditEntries(action: .pharmacyPrescriptionsViewed).contains { $0.recordID == "\(id)" })

            // Delivery needs her address: said beside the choice, then saved, and she comes back to the refill.
            let noAddress = try await browser.post(SiteURL.appPharmacyRefill(prescription).path, form: [("fulfilment", "delivery")])
            #expect(
                noAddress.status == .unprocessableContent
                    && noAddress.errorSummary == ["Save your delivery address first, or choose to pick the order up in the store."]
            )
            #expect(try await browser.post(SiteURL.appPharmacyRefill(prescription).path).errorSummary == ["Choose pickup or delivery"])
            let badAddress = try await browser.post(
                SiteURL.appPharmacyAddress.path,
                form: [("line1", "12 Example Lane"), ("state", "Oregon"), ("zip_code", "972")]
            )
            #expect(
                badAddress.errorSummary == [
                    "Enter the town or city", "Enter the state as two letters, like OR", "Enter a ZIP code, like 97201 or 97201-1234"
                ],
                "\(badAddress.errorSummary)"
            )
            let saved = try await browser.post(
                SiteURL.appPharmacyAddress.path,
                form: [
                    ("line1", "12 Example Lane"), ("city", "Portland"), ("state", "or"), ("zip_code", "97201"),
                    ("next", SiteURL.appPharmacyRefill(prescription).path)
                ]
            )
            #expect(saved.location == SiteURL.appPharmacyRefill(prescription).path)
            #expect(try await browser.get(SiteURL.appPharmacyRefill(prescription).path).text.contains("To 12 Example Lane, Portland, OR 97201"))
            let requested = try await browser.post(SiteURL.appPharmacyRefill(prescription).path, form: [("fulfilment", "delivery")])
            #expect(requested.location == "\(SiteURL.appPharmacyPrescriptions.path)?requested=1")
            let after = try await browser.get(try #require(requested.location))
            #expect(after.text.contains("Refill asked for: requested") && !after.text.contains(SiteURL.appPharmacyRefill(prescription).path))
            // The pharmacists' queue has it.
            var (pharmacist, _) = try await portal.signedIn(.pharmacist)
            #expect(try await pharmacist.get(SiteURL.pharmacy.path).text.contains("Lisinopril"))
            // Another customer's prescription is not there for her.
            let (_, other) = try await PharmacyFixtures.customer(portal, email: "ruth@example.org", firstName: "Ruth")
            let hers = try await PharmacyFixtures.prescription(portal, customerID: other, medication: "Metformin")
            #expect(try await browser.get(SiteURL.appPharmacyRefill(hers).path).status == .notFound)
            #expect(try await browser.post(SiteURL.appPharmacyRefill(hers).path, form: [("fulfilment", "pickup")]).status == .notFound)

            // Five minutes on, her password again.
            portal.clock.advance(by: PharmacyRules.stepUpLifetime + 1)
            #expect(!(try await browser.get(SiteURL.appPharmacyPrescriptions.path).text.contains("Lisinopril")))
            #expect(try await browser.get(SiteURL.appPharmacyRefill(prescription).path).location == SiteURL.appPharmacyPrescriptions.path)

            // Her notifications: the refill's news, new until she marks it read, and her choices shared with the app.
            let feed = try await browser.get(SiteURL.appPharmacyNotifications.path)
            #expect(feed.text.contains("We have your refill request.") && feed.text.contains(">New<") && feed.text.contains("Mark all as read"))
            #expect(!feed.text.contains("Lisinopril"), "notifications name nothing of the prescription")
            #expect(try await browser.get(SiteURL.appPharmacyHome.path).text.contains("1 new notification"))
            let marked = try await browser.post(
                SiteURL.appPharmacyNotificationsReadAll.path,
                form: [("up_to_id", try #require(Self.newestID(in: feed.text)))]
            )
            #expect(marked.location == "\(SiteURL.appPharmacyNotifications.path)?marked=1")
            #expect(!(try await browser.get(SiteURL.appPharmacyNotifications.path).text.contains(">New<")))
            #expect(try await app.get(SiteURL.apiPharmacyNotifications.path).object["unread_count"] as? Int == 0)
            let choices = try await browser.get(SiteURL.appPharmacyNotificationChoices.path)
            #expect(choices.text.contains("News about your orders") && !choices.text.contains("check_in_time"))
            let chosen = try await browser.post(SiteURL.appPharmacyNotificationChoices.path, form: [("kind-store_visit", "on")])
            #expect(chosen.location == "\(SiteURL.appPharmacyNotificationChoices.path)?saved=1")
            let preferences = try #require(try await app.get(SiteURL.apiPharmacyNotificationPreferences.path).object["kinds"] as? [[String: Any]])
            #expect(preferences.first { $0["kind"] as? String == "refill_update" }?["on"] as? Bool == false)
            #expect(preferences.first { $0["kind"] as? String == "store_visit" }?["on"] as? Bool == true)
        }
    }

    static func newestID(in html: String) -> String? {
        guard let range = html.range(of: #"name="up_to_id" value=""#) else { return nil }
        let rest = html[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    @Test(arguments: TestEngines.all)
    func aDisabledCustomerIsOutOfTheWebAppAtOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, id, _) = try await Self.signedInCustomer(portal)
            #expect(try await browser.get(SiteURL.appPharmacyDeals.path).status == .ok)
            try await portal.database.write { db in try await PharmacyRepository().setStatus(customerID: id, .disabled, now: portal.clock.now, on: db)
            }
            #expect(try await browser.get(SiteURL.appPharmacyDeals.path).location?.hasPrefix(AppAccountKind.pharmacyCustomer.signInPagePath) == true)
            let again = try await browser.signInToApp(.pharmacyCustomer, identifier: Self.email, password: PharmacyFixtures.password)
            #expect(again.status == .unprocessableContent && again.text.contains("This account has been disabled."))
        }
    }
}

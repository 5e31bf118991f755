import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The pharmacy app: a customer registered and signed in through the API.
enum PharmacyFixtures {
    static let password = "Blue heron 1946"

    static func customer(
        _ portal: TestPortal,
        email: String = "margaret@example.org",
        firstName: String = "Margaret"
    ) async throws -> (AppClient, Int64) {
        let registered = try await AppClient(portal: portal).send(
            .post,
            SiteURL.apiPharmacyRegistrations.path,
            json: [
                "email": email, "password": password, "first_name": firstName, "last_name": "Holloway", "date_of_birth": "1946-03-14"
            ]
        )
        #expect(registered.status == .accepted, "\(registered.text)")
        let session = try await AppClient(portal: portal).send(.post, SiteURL.apiPharmacySessions.path, json: ["email": email, "password": password])
        #expect(session.status == .created, "\(session.text)")
        let customer = try #require(session.object["customer"] as? [String: Any])
        return (AppClient(portal: portal, token: session.object["token"] as? String), Int64(try #require(customer["id"] as? Int)))
    }

    static func give(_ points: Int, to customerID: Int64, _ portal: TestPortal, reference: String = "gift") async throws {
        let clock = portal.portal.programSettings.current.clock
        let given = try await portal.database.transaction { db in
            try await PointsLedger().award(
                PointsAward(reason: "test_gift", reference: reference, amount: points, period: .day),
                to: .pharmacyCustomer(customerID),
                at: portal.clock.now,
                clock: clock,
                on: db
            )
        }
        #expect(given, "the gift \(reference) was already given to customer \(customerID) today")
    }

    static func reward(_ portal: TestPortal, cost: Int, title: String = "$5 off") async throws -> Int64 {
        try await portal.database.transaction { db in
            try await PharmacyRepository().addReward(
                title: title,
                pointsCost: cost,
                cashierGives: "$5 off any purchase",
                now: portal.clock.now,
                on: db
            )
        }
    }

    static func prescription(_ portal: TestPortal, customerID: Int64, medication: String = "Lisinopril", refills: Int = 3) async throws -> Int64 {
        try await portal.database.transaction { db in
            try await PharmacyRepository().addPrescription(
                PharmacyPrescription(
                    id: 0,
                    customerID: customerID,
                    medication: medication,
                    strength: "10 mg",
                    quantity: "30 tablets",
                    refillsRemaining: refills,
                    prescriber: "Dr. Ana Ruiz",
                    lastFilled: nil
                ),
                now: portal.clock.now,
                on: db
            )
        }
    }

    static func beacon(_ portal: TestPortal) async throws {
        _ = try await portal.database.transaction { db in
            try await PharmacyRepository().addBeacon(
                uuid: "B9407F30-F5F8-466E-AFF9-25556B57FE6D",
                major: 1,
                minor: 7,
                name: "Front door",
                now: portal.clock.now,
                on: db
            )
        }
    }

    static var visit: [String: Any] { ["uuid": "b9407f30-f5f8-466e-aff9-25556b57fe6d", "major": 1, "minor": 7] }
}

@Suite struct PharmacyTests {
    // MARK: Points and vouchers

    @Test(arguments: TestEngines.all)
    func twoRedemptionsAtOnceAgainstABalanceForOneExactlyOneSucceeds(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, id) = try await PharmacyFixtures.customer(portal)
            let reward = try await PharmacyFixtures.reward(portal, cost: 50)
            try await PharmacyFixtures.give(50, to: id, portal)
            for round in 0..<3 {
                async let first = app.send(.post, SiteURL.apiPharmacyVouchers.path, json: ["reward_id": reward])
                async let second = app.send(.post, SiteURL.apiPharmacyVouchers.path, json: ["reward_id": reward])
                let statuses = try await [first.status.code, second.status.code].sorted()
                #expect(statuses == [201, 409], "round \(round): \(statuses)")
                let balance = try await portal.database.read { db in try await PointsLedger().allTimeBalance(of: .pharmacyCustomer(id), on: db) }
                #expect(balance == 0)
                try await PharmacyFixtures.give(50, to: id, portal, reference: "round \(round)")
            }
            // Straight at the ledger as well, two transactions at once: one spend, never a negative balance.
            let clock = portal.portal.programSettings.current.clock
            let account = AppAccountRef.pharmacyCustomer(id)
            async let one = portal.database.transaction { db in
                try await PointsLedger().spend(50, reason: "test", reference: "a", from: account, at: portal.clock.now, clock: clock, on: db)
            }
            async let two = portal.database.transaction { db in
                try await PointsLedger().spend(50, reason: "test", reference: "b", from: account, at: portal.clock.now, clock: clock, on: db)
            }
            #expect(try await [one, two].compactMap { $0 } == [0])
            let lines = try await portal.database.read { db in
                try await PointsLedger().history(of: account, page: PageRequest(number: 1, size: 50), on: db).items
            }
            #expect(lines.filter { $0.amount < 0 }.count == 4 && lines.allSatisfy { $0.amount != 0 })
            #expect(try await portal.database.read { db in try await PointsLedger().allTimeBalance(of: account, on: db) } == 0)
            let vouchers = try await app.get(SiteURL.apiPharmacyVouchers.path).object["vouchers"] as? [[String: Any]]
            #expect(vouchers?.count == 3)
        }
    }

    @Test(arguments: TestEngines.all)
    func sixRedemptionsAtOnceAgainstABalanceForTwoMakeTwoVouchersAndLeaveNothingOfTheOthers(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, id) = try await PharmacyFixtures.customer(portal)
            let reward = try await PharmacyFixtures.reward(portal, cost: 30)
            try await PharmacyFixtures.give(70, to: id, portal)
            let path = SiteURL.apiPharmacyVouchers.path
            async let a = app.send(.post, path, json: ["reward_id": reward])
            async let b = app.send(.post, path, json: ["reward_id": reward])
            async let c = app.send(.post, path, json: ["reward_id": reward])
            async let d = app.send(.post, path, json: ["reward_id": reward])
            async let e = app.send(.post, path, json: ["reward_id": reward])
            async let f = app.send(.post, path, json: ["reward_id": reward])
            let answers = try await [a, b, c, d, e, f]
            #expect(answers.map(\.status.code).sorted() == [201, 201, 409, 409, 409, 409])
            // Each answer's balance is what she had left; the refusals say what she has.
            for answer in answers where answer.status == .created { #expect([10, 40].contains(answer.object["points"] as? Int ?? -1)) }
            for answer in answers where answer.status.code == 409 { #expect(answer.text.contains("costs 30 points and you have 10")) }
            let account = AppAccountRef.pharmacyCustomer(id)
            #expect(try await portal.database.read { db in try await PointsLedger().allTimeBalance(of: account, on: db) } == 10)
            // A refused redemption is rolled back whole: no voucher, no audit entry, no ledger line.
            let vouchers = try #require(try await app.get(path).object["vouchers"] as? [[String: Any]])
            #expect(vouchers.count == 2 && Set(vouchers.compactMap { $0["code"] as? String }).count == 2)
            let (lines, audited) = try await portal.database.read { db in
                (
                    try await PointsLedger().history(of: account, page: PageRequest(number: 1, size: 50), on: db).items,
                    try await db.select().column("record_id").from("audit_log").where("action", .equal, AuditAction.pharmacyVoucherRedeemed.rawValue)
                        .all().map { try $0.decode(column: "record_id", as: String.self) }
                )
            }
            #expect(lines.filter { $0.amount == -30 }.map(\.reference).sorted() == vouchers.compactMap { $0["code"] as? String }.sorted())
            #expect(audited.sorted() == vouchers.compactMap { ($0["id"] as? Int).map(String.init) }.sorted())
        }
    }

    @Test(arguments: TestEngines.all)
    func aRedeemedVoucherWaitsMonthsThenActivatesForFiveMinutesToTheSecond(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (app, id) = try await PharmacyFixtures.customer(portal)
            let reward = try await PharmacyFixtures.reward(portal, cost: 20)
            try await PharmacyFixtures.give(40, to: id, portal)
            let redeemed = try await app.send(.post, SiteURL.apiPharmacyVouchers.path, json: ["reward_id": reward])
            #expect(redeemed.status == .created && redeemed.object["points"] as? Int == 20)
            let second = try await app.send(.post, SiteURL.apiPharmacyVouchers.path, json: ["reward_id": reward])
            let first = try #require(redeemed.object["voucher"] as? [String: Any])
            let other = try #require(second.object["voucher"] as? [String: Any])
            #expect(first["state"] as? String == "redeemed" && first["expires_at"] == nil)

            var (pharmacist, _) = try await portal.signedIn(.pharmacist)
            let code = try #require(first["code"] as? String)
            var till = try await pharmacist.post(SiteURL.pharmacyVoucherCheck.path, form: [("code", code.lowercased())])
            #expect(till.text.contains("Not valid yet: not activated"))

            // Months later (and after the servers restarted) it is still hers: she signs in again and finds it.
            portal.clock.advance(by: 120 * 86_400)
            #expect(try await app.get(SiteURL.apiPharmacyVouchers.path).status == .unauthorized, "her old token lapsed")
            let session = try await AppClient(portal: portal).send(
                .post,
                SiteURL.apiPharmacySessions.path,
                json: ["email": "margaret@example.org", "password": PharmacyFixtures.password]
            )
            app = AppClient(portal: portal, token: session.object["token"] as? String)
            (pharmacist, _) = try await portal.signedIn(.pharmacist)
            let list = try await app.get(SiteURL.apiPharmacyVouchers.path).object["vouchers"] as? [[String: Any]]
            #expect(list?.allSatisfy { $0["state"] as? String == "redeemed" } == true)

            let activatedAt = portal.clock.now
            let activated = try await app.send(.post, SiteURL.apiPharmacyVoucherActivation(Int64(try #require(first["id"] as? Int))).path)
            #expect(activated.status == .ok && activated.object["state"] as? String == "active" && activated.object["seconds_left"] as? Int == 300)
            let expiresAt = try #require(activated.object["expires_at"] as? String)
            #expect(
                ISO8601DateFormatter().date(from: expiresAt) == Date(timeIntervalSince1970: (activatedAt.timeIntervalSince1970 + 300).rounded(.down))
            )
            // Asking again while it runs answers the same expiry.
            portal.clock.advance(by: 100)
            let again = try await app.send(.post, SiteURL.apiPharmacyVoucherActivation(Int64(try #require(first["id"] as? Int))).path)
            #expect(again.object["expires_at"] as? String == expiresAt && again.object["seconds_left"] as? Int == 200)
            portal.clock.advance(by: 199.5)
            #expect(try await app.get(SiteURL.apiPharmacyVouchers.path).text.contains(#""seconds_left":1,"state":"active""#))
            portal.clock.advance(by: -199.5)
            // 299.5 seconds after activation: valid, and used at once.
            portal.clock.advance(by: 199.5)
            till = try await pharmacist.post(SiteURL.pharmacyVoucherCheck.path, form: [("code", code)])
            #expect(till.text.contains("Valid: give $5 off any purchase"))
            till = try await pharmacist.post(SiteURL.pharmacyVoucherCheck.path, form: [("code", code)])
            #expect(till.text.contains("Not valid: already used"))
            let usedAgain = try await app.send(.post, SiteURL.apiPharmacyVoucherActivation(Int64(try #require(first["id"] as? Int))).path)
            #expect(usedAgain.status == .conflict && usedAgain.errorCode == "voucher_used", "\(usedAgain.status) \(usedAgain.text)")

            // The other voucher, checked at exactly 300 seconds: expired, and it cannot be activated again.
            let otherID = Int64(try #require(other["id"] as? Int))
            #expect(try await app.send(.post, SiteURL.apiPharmacyVoucherActivation(otherID).path).status == .ok)
            portal.clock.advance(by: 300)
            till = try await pharmacist.post(SiteURL.pharmacyVoucherCheck.path, form: [("code", try #require(other["code"] as? String))])
            #expect(till.text.contains("Not valid: expired"))
            let late = try await app.send(.post, SiteURL.apiPharmacyVoucherActivation(otherID).path)
            #expect(late.status == .conflict && late.errorCode == "voucher_expired", "\(late.status) \(late.text)")
            till = try await pharmacist.post(SiteURL.pharmacyVoucherCheck.path, form: [("code", "ZZZZ2222")])
            #expect(till.text.contains("no voucher has this code"))
            #expect(try await portal.auditEntries(action: .pharmacyVoucherChecked).count == 5)
            // Only the two first activations changed anything; another customer's voucher is not found.
            #expect(try await portal.auditEntries(action: .pharmacyVoucherActivated).count == 2)
            let (stranger, _) = try await PharmacyFixtures.customer(portal, email: "ruth@example.org", firstName: "Ruth")
            #expect(try await stranger.send(.post, SiteURL.apiPharmacyVoucherActivation(otherID).path).status == .notFound)
        }
    }

    /// Beacons change without an app update: the list carries its version as the `ETag`, an app holding the
    /// current one is told 304, and a change made on the Store beacons page reaches every customer's feed.
    @Test(arguments: TestEngines.all)
    func theBeaconListCarriesItsVersionAndAChangeReachesEveryCustomersFeed(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, _) = try await PharmacyFixtures.customer(portal)
            let (other, _) = try await PharmacyFixtures.customer(portal, email: "ruth@example.org", firstName: "Ruth")
            try await PharmacyFixtures.beacon(portal)
            let first = try await app.get(SiteURL.apiPharmacyBeacons.path)
            let tag = try #require(first.headers[.eTag])
            #expect(tag == "\"\(try #require(first.object["version"] as? String))\"")
            let unchanged = try await app.send(.get, SiteURL.apiPharmacyBeacons.path, headers: [.ifNoneMatch: tag])
            #expect(unchanged.status == .notModified && unchanged.headers[.eTag] == tag && unchanged.text.isEmpty)
            #expect(try await app.send(.get, SiteURL.apiPharmacyBeacons.path, headers: [.ifNoneMatch: "\"not-it\""]).status == .ok)

            var (pharmacist, _) = try await portal.signedIn(.pharmacist)
            _ = try await pharmacist.get(SiteURL.pharmacyBeacons.path)
            let added = try await pharmacist.post(
                SiteURL.pharmacyBeacons.path,
                form: [
                    ("name", "Pharmacy counter"), ("uuid", "B9407F30-F5F8-466E-AFF9-25556B57FE6D"), ("major", "1"), ("minor", "8")
                ]
            )
            #expect(added.status == .seeOther)
            let changed = try await app.send(.get, SiteURL.apiPharmacyBeacons.path, headers: [.ifNoneMatch: tag])
            #expect(changed.status == .ok && changed.headers[.eTag] != tag && (changed.object["beacons"] as? [[String: Any]])?.count == 2)
            for customer in [app, other] {
                let feed = try await customer.get(SiteURL.apiPharmacyNotifications.path).text
                #expect(feed.contains("beacons_changed"), "\(feed)")
            }
        }
    }

    /// ViewHistory: her visits with the points each earned, her vouchers with what they cost, her refills (never
    /// the medicine: that is behind the step-up) and any other points, newest first, in one paged list.
    @Test(arguments: TestEngines.all)
    func herHistoryIsOneTimelineOfVisitsPointsRefillsAndVouchers(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, id) = try await PharmacyFixtures.customer(portal)
            let (other, _) = try await PharmacyFixtures.customer(portal, email: "ruth@example.org", firstName: "Ruth")
            try await PharmacyFixtures.beacon(portal)
            let clock = portal.portal.programSettings.current.clock
            _ = try await portal.database.write { db in
                try await PointsLedger().award(
                    PointsAward(reason: "welcome", reference: "1", amount: 50, period: .month),
                    to: .pharmacyCustomer(id),
                    at: portal.clock.now,
                    clock: clock,
                    on: db
                )
            }
            portal.clock.advance(by: 60)
            #expect(try await app.send(.post, SiteURL.apiPharmacyVisits.path, json: PharmacyFixtures.visit).status == .created)
            portal.clock.advance(by: 60)
            let reward = try await PharmacyFixtures.reward(portal, cost: 40, title: "Free coffee")
            #expect(try await app.send(.post, SiteURL.apiPharmacyVouchers.path, json: ["reward_id": reward]).status == .created)
            portal.clock.advance(by: 60)
            let prescription = try await PharmacyFixtures.prescription(portal, customerID: id, medication: "Lisinopril")
            _ = try await app.send(.post, SiteURL.apiPharmacyStepUp.path, json: ["password": PharmacyFixtures.password])
            #expect(
                try await app.send(.post, SiteURL.apiPharmacyRefills.path, json: ["prescription_id": prescription, "fulfilment": "pickup"]).status
                    == .created
            )

            let history = try await app.get(SiteURL.apiPharmacyHistory.path)
            #expect(history.status == .ok && history.object["total_count"] as? Int == 4, "\(history.text)")
            let entries = try #require(history.object["entries"] as? [[String: Any]])
            #expect(entries.map { $0["kind"] as? String } == ["refill", "voucher", "visit", "points"], "newest first")
            #expect(
                entries.map { $0["title"] as? String } == [
                    "Refill for pickup: Requested", "Redeemed Free coffee", "Visited the store", "Points added"
                ]
            )
            #expect(entries.map { $0["points"] as? Int } == [nil, -40, PharmacyRules.visitPoints, 50])
            #expect(entries[0]["refill_id"] as? Int != nil && entries[1]["voucher_id"] as? Int != nil)
            #expect(!history.text.contains("Lisinopril"), "the medicine is named only behind the step-up")
            #expect((try await other.get(SiteURL.apiPharmacyHistory.path).object["entries"] as? [[String: Any]])?.isEmpty == true, "hers alone")
            #expect((try await app.get("\(SiteURL.apiPharmacyHistory.path)?page=2").object["entries"] as? [[String: Any]])?.isEmpty == true)
            #expect(try await app.get("\(SiteURL.apiPharmacyHistory.path)?page=0").status == .badRequest)
        }
    }

    @Test(arguments: TestEngines.all)
    func visitPointsComeOncePerLocalDayAcrossMidnight(engine: Database.Engine) async throws {
        // 30 November 2026, 23:59:59.999 in New York.
        let lastMoment = Date(timeIntervalSince1970: 1_796_101_200 - 0.001)
        try await TestPortal.run(engine, clock: TestClock(lastMoment.addingTimeInterval(-60))) { portal in
            let (app, id) = try await PharmacyFixtures.customer(portal)
            try await PharmacyFixtures.beacon(portal)
            let beacons = try await app.get(SiteURL.apiPharmacyBeacons.path).object["beacons"] as? [[String: Any]]
            #expect(beacons?.first?["name"] as? String == "Front door")
            let unknown = try await app.send(.post, SiteURL.apiPharmacyVisits.path, json: ["uuid": UUID().uuidString, "major": 1, "minor": 7])
            #expect(unknown.status == .unprocessableContent)

            var visit = try await app.send(.post, SiteURL.apiPharmacyVisits.path, json: PharmacyFixtures.visit)
            #expect(visit.status == .created && visit.object["points_earned"] as? Int == 10 && visit.object["welcome_back"] as? Bool == false)
            portal.clock.advance(by: lastMoment.timeIntervalSince(portal.clock.now))
            #expect(portal.portal.programSettings.current.clock.date(of: portal.clock.now).iso == "2026-11-30")
            for _ in 0..<3 {
                visit = try await app.send(.post, SiteURL.apiPharmacyVisits.path, json: PharmacyFixtures.visit)
                #expect(visit.status == .ok && visit.object["points_earned"] as? Int == 0 && visit.object["points"] as? Int == 10)
            }
            portal.clock.advance(by: Date(timeIntervalSince1970: 1_796_101_200).timeIntervalSince(portal.clock.now))
            #expect(portal.portal.programSettings.current.clock.date(of: portal.clock.now).iso == "2026-12-01")
            visit = try await app.send(.post, SiteURL.apiPharmacyVisits.path, json: PharmacyFixtures.visit)
            #expect(visit.status == .created && visit.object["points_earned"] as? Int == 10 && visit.object["welcome_back"] as? Bool == true)
            #expect((visit.object["message"] as? String)?.contains("Welcome back") == true)
            #expect(try await app.get(SiteURL.apiPharmacyHome.path).object["points"] as? Int == 20)
            let days = try await portal.database.read { db in try await PharmacyRepository().visits(customerID: id, limit: 10, on: db).days }
            #expect(days == ["2026-12-01", "2026-11-30"])
            let feed = try await app.get(SiteURL.apiPharmacyNotifications.path).object["notifications"] as? [[String: Any]]
            #expect(feed?.count == 2 && feed?.first?["kind"] as? String == "store_visit")

            // She marks the newest read in the app, then the rest.
            let newest = Int64(try #require(feed?.first?["id"] as? Int))
            #expect(try await app.send(.post, SiteURL.apiPharmacyNotificationRead(newest).path).status == .noContent)
            #expect(try await app.send(.post, SiteURL.apiPharmacyNotificationRead(newest + 1_000).path).status == .notFound)
            #expect(try await app.get(SiteURL.apiPharmacyNotifications.path).object["unread_count"] as? Int == 1)
            let marked = try await app.send(.post, SiteURL.apiPharmacyNotificationsReadAll.path, json: ["up_to_id": newest])
            #expect(marked.object["marked"] as? Int == 1 && marked.object["unread_count"] as? Int == 0, "\(marked.text)")
        }
    }

    // MARK: Prescriptions and refills

    @Test(arguments: TestEngines.all)
    func prescriptionsNeedHerPasswordAgainWithinFiveMinutes(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, id) = try await PharmacyFixtures.customer(portal)
            _ = try await PharmacyFixtures.prescription(portal, customerID: id)
            var listed = try await app.get(SiteURL.apiPharmacyPrescriptions.path)
            #expect(listed.status == .forbidden && listed.errorCode == "step_up_required")
            #expect(try await app.get(SiteURL.apiPharmacyRefills.path).errorCode == "step_up_required")
            let wrong = try await app.send(.post, SiteURL.apiPharmacyStepUp.path, json: ["password": "not her password"])
            #expect(wrong.status == .unprocessableContent && wrong.fieldErrors["password"] != nil)
            let right = try await app.send(.post, SiteURL.apiPharmacyStepUp.path, json: ["password": PharmacyFixtures.password])
            #expect(right.status == .ok && right.object["step_up_expires_at"] != nil)
            listed = try await app.get(SiteURL.apiPharmacyPrescriptions.path)
            #expect(listed.status == .ok && (listed.object["prescriptions"] as? [[String: Any]])?.first?["medication"] as? String == "Lisinopril")
            // The grant is this token's: another sign-in of hers has none.
            let session = try await AppClient(portal: portal).send(
                .post,
                SiteURL.apiPharmacySessions.path,
                json: ["email": "margaret@example.org", "password": PharmacyFixtures.password]
            )
            let phone = AppClient(portal: portal, token: session.object["token"] as? String)
            #expect(try await phone.get(SiteURL.apiPharmacyPrescriptions.path).status == .forbidden)
            portal.clock.advance(by: 299.999)
            #expect(try await app.get(SiteURL.apiPharmacyPrescriptions.path).status == .ok)
            portal.clock.advance(by: 0.001)
            listed = try await app.get(SiteURL.apiPharmacyPrescriptions.path)
            #expect(listed.status == .forbidden && listed.errorCode == "step_up_required")
            #expect(try await portal.auditEntries(action: .pharmacyPrescriptionsViewed).count == 2)
        }
    }

    /// The pharmacy hears of each new refill request at the address in Program settings, with the link to it
    /// and neither the medication nor the customer; nobody is written to while no address is set.
    @Test(arguments: TestEngines.all)
    func theRefillAddressHearsOfEachNewRequestWithoutTheMedicine(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, id) = try await PharmacyFixtures.customer(portal)
            let first = try await PharmacyFixtures.prescription(portal, customerID: id, medication: "Lisinopril")
            let second = try await PharmacyFixtures.prescription(portal, customerID: id, medication: "Atorvastatin")
            _ = try await app.send(.post, SiteURL.apiPharmacyStepUp.path, json: ["password": PharmacyFixtures.password])
            #expect(
                try await app.send(.post, SiteURL.apiPharmacyRefills.path, json: ["prescription_id": first, "fulfilment": "pickup"]).status
                    == .created
            )
            #expect(try await portal.outboxMessages().filter { $0.subject.hasPrefix("New refill request") }.isEmpty, "no address, nobody told")

            var (admin, _) = try await portal.signedIn(.administrator)
            var form = [
                ("program_name", "Demo Pharmacy"), ("code_lifetime_days", "30"),
                ("security_questions", "One?\nTwo?\nThree?"), ("avatars[]", "moon"), ("refill_email", "not an address")
            ]
            let wrong = try await admin.post(SiteURL.programSettings.path, form: form)
            #expect(
                wrong.status == .unprocessableContent && wrong.text.contains(##"href="#refill_email""##)
                    && wrong.text.contains(#"value="not an address""#)
            )
            form[form.count - 1] = ("refill_email", "refills@pharmacy.example")
            #expect(try await admin.post(SiteURL.programSettings.path, form: form).status == .seeOther)
            #expect(try await portal.auditEntries(action: .programSettingsChanged).last?.detail?.contains("refill email address") == true)

            let asked = try await app.send(.post, SiteURL.apiPharmacyRefills.path, json: ["prescription_id": second, "fulfilment": "pickup"])
            let refill = Int64(try #require(asked.object["id"] as? Int))
            let told = try await portal.outboxMessages().filter { $0.recipient == "refills@pharmacy.example" }
            #expect(told.count == 1 && told.first?.subject == "New refill request \(refill) (pickup)")
            let words = (told.first?.subject ?? "") + (told.first?.body ?? "")
            #expect(words.contains(SiteURL.pharmacyRefill(refill).path))
            #expect(!words.contains("Atorvastatin") && !words.contains("Margaret") && !words.contains("margaret@"), "\(words)")
        }
    }

    @Test(arguments: TestEngines.all)
    func theRefillWorkflowTakesEveryTransitionAndRefusesTheRest(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, id) = try await PharmacyFixtures.customer(portal)
            var (pharmacist, _) = try await portal.signedIn(.pharmacist)
            // The pharmacist puts two prescriptions on file through the page.
            let added = try await pharmacist.post(
                SiteURL.pharmacyCustomerPrescriptions(id).path,
                form: [
                    ("medication", "Lisinopril"), ("strength", "10 mg"), ("quantity", "30 tablets"), ("refills_remaining", "2"),
                    ("prescriber", "Dr. Ana Ruiz")
                ]
            )
            #expect(added.status == .seeOther)
            let invalid = try await pharmacist.post(
                SiteURL.pharmacyCustomerPrescriptions(id).path,
                form: [("medication", "Metformin"), ("refills_remaining", "many")]
            )
            #expect(
                invalid.status == .unprocessableContent && invalid.text.contains("There is a problem") && invalid.text.contains("value=\"Metformin\"")
            )
            let second = try await PharmacyFixtures.prescription(portal, customerID: id, medication: "Atorvastatin")
            _ = try await app.send(.post, SiteURL.apiPharmacyStepUp.path, json: ["password": PharmacyFixtures.password])
            let prescriptions = try await app.get(SiteURL.apiPharmacyPrescriptions.path).object["prescriptions"] as? [[String: Any]] ?? []
            let lisinopril = Int64(try #require(prescriptions.first { $0["medication"] as? String == "Lisinopril" }?["id"] as? Int))

            // Delivery needs a saved address (AddressNotSaved).
            var asked = try await app.send(.post, SiteURL.apiPharmacyRefills.path, json: ["prescription_id": lisinopril, "fulfilment": "delivery"])
            #expect(asked.status == .conflict && asked.errorCode == "address_not_saved")
            asked = try await app.send(.post, SiteURL.apiPharmacyRefills.path, json: ["prescription_id": lisinopril, "fulfilment": "pickup"])
            #expect(asked.status == .created && asked.object["status"] as? String == "requested")
            let pickup = Int64(try #require(asked.object["id"] as? Int))
            #expect(
                try await app.send(.post, SiteURL.apiPharmacyRefills.path, json: ["prescription_id": lisinopril, "fulfilment": "pickup"]).errorCode
                    == "refill_already_requested"
            )
            #expect(try await pharmacist.get(SiteURL.home.path).text.contains("1 refill request is waiting"))

            func move(_ refill: Int64, _ status: String, reason: String = "") async throws -> TestResponse {
                try await pharmacist.post(SiteURL.pharmacyRefillStatus(refill).path, form: [("status", status), ("reason", reason)])
            }
            // Out of order, or the other kind's step: refused, nothing changes.
            for wrongStep in ["ready_for_pickup", "collected", "out_for_delivery", "delivered", "requested", "nonsense"] {
                #expect(try await move(pickup, wrongStep).status == .unprocessableContent, "\(wrongStep) from requested")
            }
            for (step, next) in [("preparing", "Being prepared"), ("ready_for_pickup", "Ready for pickup"), ("collected", "Collected")] {
                let moved = try await move(pickup, step)
                #expect(moved.status == .seeOther, "\(step)")
                #expect(try await pharmacist.get(SiteURL.pharmacyRefill(pickup).path).text.contains(next))
            }
            for wrongStep in ["preparing", "cancelled", "collected"] {
                #expect(try await move(pickup, wrongStep, reason: "x").status == .unprocessableContent, "\(wrongStep) after collection")
            }

            // Delivery once her address is saved: requested → preparing → out for delivery → delivered.
            let address = try await app.send(
                .put,
                SiteURL.apiPharmacyAddress.path,
                json: ["line1": "12 Example Lane", "city": "Portland", "state": "or", "zip_code": "97201"]
            )
            #expect(address.status == .ok)
            asked = try await app.send(.post, SiteURL.apiPharmacyRefills.path, json: ["prescription_id": lisinopril, "fulfilment": "delivery"])
            let delivery = Int64(try #require(asked.object["id"] as? Int))
            #expect(try await move(delivery, "ready_for_pickup").status == .unprocessableContent)
            for step in ["preparing", "out_for_delivery", "delivered"] { #expect(try await move(delivery, step).status == .seeOther, "\(step)") }

            // No refills left: the next request is refused.
            let none = try await app.send(.post, SiteURL.apiPharmacyRefills.path, json: ["prescription_id": lisinopril, "fulfilment": "pickup"])
            #expect(none.status == .conflict && none.errorCode == "no_refills_left")

            // Cancelled, with a reason she sees in her orders.
            asked = try await app.send(.post, SiteURL.apiPharmacyRefills.path, json: ["prescription_id": second, "fulfilment": "pickup"])
            let cancelled = Int64(try #require(asked.object["id"] as? Int))
            let noReason = try await move(cancelled, "cancelled")
            #expect(noReason.status == .unprocessableContent && noReason.text.contains("Enter the reason"))
            #expect(try await move(cancelled, "cancelled", reason: "Your prescriber has stopped Atorvastatin.").status == .seeOther)
            let orders = try await app.get(SiteURL.apiPharmacyRefills.path).object["refills"] as? [[String: Any]] ?? []
            #expect(orders.count == 3 && orders.first?["cancel_reason"] as? String == "Your prescriber has stopped Atorvastatin.")
            #expect(orders.map { $0["status"] as? String } == ["cancelled", "delivered", "collected"])
            #expect(try await portal.auditEntries(action: .pharmacyRefillMoved).count == 7)
            #expect(try await portal.auditEntries(action: .pharmacyRefillViewed).count == 3, "each opening of a request is recorded")

            // She heard of every change, and no email or feed entry names a medication or its strength.
            let feed = try await app.get(SiteURL.apiPharmacyNotifications.path).text
            let feedEntries = try await portal.database.read { db in
                try await portal.portal.notifications.feed(of: .pharmacyCustomer(id), page: PageRequest(number: 1, size: 100), on: db).page.items
            }
            #expect(feedEntries.count == 10)
            let mail = try await portal.outboxMessages().filter { $0.recipient == "margaret@example.org" }
            #expect(mail.filter { $0.subject.hasPrefix("News about your order") }.count == 10)
            let texts = [feed] + feedEntries.map { "\($0.message) \($0.body ?? "") \($0.reason ?? "")" } + mail.map { "\($0.subject) \($0.bodyText)" }
            for text in texts {
                for secret in ["Lisinopril", "Atorvastatin", "10 mg", "30 tablets", "Ruiz", "stopped"] {
                    #expect(!text.contains(secret), "\(secret) was in: \(text)")
                }
            }
        }
    }

    // MARK: Notifications on her phone

    @Test(arguments: TestEngines.all)
    func herPhoneIsToldOfRefillNewsWithoutTheMedicationAndSheChoosesWhatSheHears(engine: Database.Engine) async throws {
        let sender = RecordingPushSender()
        try await TestPortal.run(engine, pushSender: sender) { portal in
            let (app, id) = try await PharmacyFixtures.customer(portal)
            let (member, _) = try await FeedSteps.member(portal, "Wren")
            let tokens = SiteURL.apiPharmacyPushTokens.path
            let registered = try await app.send(.post, tokens, json: ["token": "apns-pharmacy-0123456789", "platform": "ios"])
            #expect(registered.status == .created && registered.object["platform"] as? String == "ios")
            let bad = try await app.send(.post, tokens, json: ["token": "bad token!", "platform": "windows"])
            #expect(bad.status == .unprocessableContent && (bad.error["fields"] as? [String: Any])?.keys.sorted() == ["platform", "token"])
            #expect(
                try await app.send(.post, SiteURL.apiPushTokens.path, json: ["token": "x", "platform": "ios"]).status == .unauthorized,
                "a customer's token opens no member route"
            )
            #expect(
                try await member.send(.post, tokens, json: ["token": "x", "platform": "ios"]).status == .unauthorized,
                "nor a member's a customer's"
            )

            // Her choices are the pharmacy's kinds only, with no member reminders.
            let choices = try await app.get(SiteURL.apiPharmacyNotificationPreferences.path)
            #expect(choices.status == .ok)
            let kinds = choices.object["kinds"] as? [[String: Any]] ?? []
            #expect(
                kinds.map { $0["kind"] as? String } == ["refill_update", "store_visit", "beacons_changed"]
                    && kinds.allSatisfy { $0["on"] as? Bool == true }
            )
            #expect(choices.object["reminder_lead_minutes"] == nil && choices.object["check_in_time"] == nil)
            let memberKinds = (try await member.get(SiteURL.apiNotificationPreferences.path).object["kinds"] as? [[String: Any]] ?? []).compactMap {
                $0["kind"] as? String
            }
            #expect(!memberKinds.contains("refill_update") && memberKinds.contains("reply"), "a member never chooses about the pharmacy")
            let unknown = try await app.send(.put, SiteURL.apiPharmacyNotificationPreferences.path, json: ["kinds": [["kind": "reply", "on": false]]])
            #expect(unknown.status == .unprocessableContent, "a member's kind is not hers to choose")
            let off = try await app.send(
                .put,
                SiteURL.apiPharmacyNotificationPreferences.path,
                json: ["kinds": [["kind": "store_visit", "on": false]], "reminder_lead_minutes": 10]
            )
            #expect(off.status == .ok && off.object["reminder_lead_minutes"] == nil)
            #expect((off.object["kinds"] as? [[String: Any]])?.first { $0["kind"] as? String == "store_visit" }?["on"] as? Bool == false)

            // A visit she chose not to hear of writes nothing; a refill's news reaches her phone as a bare push.
            try await PharmacyFixtures.beacon(portal)
            #expect(try await app.send(.post, SiteURL.apiPharmacyVisits.path, json: PharmacyFixtures.visit).status == .created)
            let prescription = try await PharmacyFixtures.prescription(portal, customerID: id, medication: "Lisinopril")
            _ = try await app.send(.post, SiteURL.apiPharmacyStepUp.path, json: ["password": PharmacyFixtures.password])
            let asked = try await app.send(.post, SiteURL.apiPharmacyRefills.path, json: ["prescription_id": prescription, "fulfilment": "pickup"])
            let refill = Int64(try #require(asked.object["id"] as? Int))
            var (pharmacist, _) = try await portal.signedIn(.pharmacist)
            #expect(
                try await pharmacist.post(SiteURL.pharmacyRefillStatus(refill).path, form: [("status", "preparing"), ("reason", "")]).status
                    == .seeOther
            )
            let feed = try await app.get(SiteURL.apiPharmacyNotifications.path).object["notifications"] as? [[String: Any]] ?? []
            #expect(feed.map { $0["kind"] as? String } == ["refill_update", "refill_update"], "received and being prepared; no visit entry")

            // A deployment running only the pharmacy still sends its pushes.
            var settings = portal.portal.programSettings.current
            settings.programsSwitchedOff = [Program.perinatalCommunity.id]
            portal.portal.programSettings.adopt(settings)
            let pushing = try #require(portal.app.jobs.first { $0.name == "Pushes" })
            #expect(pushing.program == nil)
            #expect(try await BackgroundJobs(portal: portal.portal, jobs: [pushing]).round(pushing), "the pushes ran with the members' program off")
            #expect(sender.pushes.count == 2 && sender.pushes.allSatisfy { $0.token == "apns-pharmacy-0123456789" && $0.platform == "ios" })
            let program = portal.portal.programSettings.current.programName
            for push in sender.pushes {
                let encoded = String(decoding: try JSONEncoder().encode(push), as: UTF8.self)
                for secret in ["Lisinopril", "10 mg", "30 tablets", "Ruiz", "prepared", "refill"] {
                    #expect(!encoded.contains(secret), "\(secret) was in the push: \(encoded)")
                }
                #expect(push.body == "You have a new notification in \(program). Open the app to read it.")
            }
            #expect(sender.pushes.last?.badge == 2)

            // At sign-out the app forgets her phone: no more pushes go to it.
            #expect(try await app.send(.delete, "\(tokens)/apns-pharmacy-0123456789").status == .noContent)
            #expect(try await app.send(.delete, "\(tokens)/apns-pharmacy-0123456789").status == .notFound)
            #expect(
                try await pharmacist.post(SiteURL.pharmacyRefillStatus(refill).path, form: [("status", "ready_for_pickup"), ("reason", "")]).status
                    == .seeOther
            )
            _ = try await BackgroundJobs(portal: portal.portal, jobs: [pushing]).round(pushing)
            #expect(sender.pushes.count == 2)
        }
    }

    // MARK: Accounts

    @Test(arguments: TestEngines.all)
    func registeringAnExistingAddressAnswersTheSameAndTellsOnlyTheOwner(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, configure: { $0.trustForwardedFor = true }) { portal in
            let body: [String: Any] = [
                "email": "rosa@example.org", "password": "Garden gate 58", "first_name": "Rosa", "last_name": "Delgado",
                "date_of_birth": "1958-12-21"
            ]
            let first = try await AppClient(portal: portal).send(.post, SiteURL.apiPharmacyRegistrations.path, json: body)
            var again = body
            again["email"] = "ROSA@example.org"
            again["password"] = "Somebody else 99"
            let second = try await AppClient(portal: portal).send(.post, SiteURL.apiPharmacyRegistrations.path, json: again)
            #expect(first.status == .accepted && second.status == .accepted && first.text == second.text)
            let mail = try await portal.outboxMessages()
            #expect(mail.map(\.subject) == ["Welcome to the CarePortal app", "Someone tried to register with your email address"])
            #expect(try await portal.database.read { db in try await PharmacyRepository().customerCount(on: db) } == 1)
            // The original password still signs her in; the second one does not.
            #expect(
                try await AppClient(portal: portal).send(
                    .post,
                    SiteURL.apiPharmacySessions.path,
                    json: ["email": "rosa@example.org", "password": "Somebody else 99"]
                ).status == .unauthorized
            )
            let missing = try await AppClient(portal: portal).send(.post, SiteURL.apiPharmacyRegistrations.path, json: ["email": "x"])
            #expect(
                missing.status == .unprocessableContent
                    && Set(missing.fieldErrors.keys).isSuperset(of: ["email", "password", "first_name", "date_of_birth"])
            )
            // Throttled: at most 10 registrations from one address in 15 minutes.
            let address: HTTPFields = [.xForwardedFor: "203.0.113.9"]
            for index in 0..<10 {
                var other = body
                other["email"] = "neighbour\(index)@example.org"
                #expect(
                    try await AppClient(portal: portal).send(.post, SiteURL.apiPharmacyRegistrations.path, json: other, headers: address).status
                        == .accepted
                )
            }
            #expect(
                try await AppClient(portal: portal).send(.post, SiteURL.apiPharmacyRegistrations.path, json: body, headers: address).status
                    == .tooManyRequests
            )
            #expect(
                try await AppClient(portal: portal).send(
                    .post,
                    SiteURL.apiPharmacyRegistrations.path,
                    json: body,
                    headers: [.xForwardedFor: "198.51.100.4"]
                ).status == .accepted
            )
        }
    }

    @Test(arguments: TestEngines.all)
    func aForgottenPasswordIsResetByASingleUseLinkNeverByEmailingAPassword(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, _) = try await PharmacyFixtures.customer(portal)
            let unknown = try await AppClient(portal: portal).send(
                .post,
                SiteURL.apiPharmacyPasswordResets.path,
                json: ["email": "nobody@example.org"]
            )
            let asked = try await AppClient(portal: portal).send(
                .post,
                SiteURL.apiPharmacyPasswordResets.path,
                json: ["email": "Margaret@example.org"]
            )
            #expect(unknown.status == .accepted && asked.status == .accepted && unknown.text == asked.text)
            let mail = try #require(try await portal.outboxMessages().last)
            #expect(mail.recipient == "margaret@example.org" && !mail.bodyText.contains(PharmacyFixtures.password))
            let link = try #require(mail.bodyText.split(separator: "\n").first { $0.contains("/pharmacy/reset-password?token=") })
            let token = String(link.split(separator: "=").last ?? "")
            let stored = try await portal.database.read { db in
                try await db.select().column("token_hash").from("pharmacy_password_resets").first()?.decode(column: "token_hash", as: String.self)
            }
            #expect(stored == SecretToken.hash(token), "only the link's hash is stored")

            // The page the link opens.
            var browser = Visitor(portal: portal)
            #expect(try await browser.get("\(SiteURL.pharmacyResetPassword.path)?token=\(token)").text.contains("New password"))
            let weak = try await browser.post(SiteURL.pharmacyResetPassword.path, form: [("token", token), ("password", "short")])
            #expect(weak.status == .unprocessableContent && weak.text.contains("There is a problem"))
            let done = try await browser.post(SiteURL.pharmacyResetPassword.path, form: [("token", token), ("password", "Lighthouse keeper 7")])
            #expect(done.status == .ok && done.text.contains("Your new password is saved"))
            // Once only; her old sessions end; the new password works.
            let reused = try await AppClient(portal: portal).send(
                .post,
                SiteURL.apiPharmacyPasswordResetCompletion.path,
                json: ["token": token, "password": "Another one 12345"]
            )
            #expect(reused.status == .unprocessableContent && reused.fieldErrors["token"] != nil)
            #expect(try await app.get(SiteURL.apiPharmacyHome.path).status == .unauthorized)
            #expect(
                try await AppClient(portal: portal).send(
                    .post,
                    SiteURL.apiPharmacySessions.path,
                    json: ["email": "margaret@example.org", "password": "Lighthouse keeper 7"]
                ).status == .created
            )
            // A link older than an hour no longer works.
            _ = try await AppClient(portal: portal).send(.post, SiteURL.apiPharmacyPasswordResets.path, json: ["email": "margaret@example.org"])
            let late = try #require(try await portal.outboxMessages().last?.bodyText.split(separator: "\n").first { $0.contains("token=") })
            portal.clock.advance(by: 3_600)
            let expired = try await AppClient(portal: portal).send(
                .post,
                SiteURL.apiPharmacyPasswordResetCompletion.path,
                json: ["token": String(late.split(separator: "=").last ?? ""), "password": "Another one 12345"]
            )
            #expect(expired.status == .unprocessableContent)
            // Housekeeping deletes links a day past their hour.
            portal.clock.advance(by: 86_401)
            for job in PharmacyFeature(portal: portal.portal).jobs { try await job.work() }
            #expect(try await portal.database.read { db in try await db.count(in: "pharmacy_password_resets") } == 0)
        }
    }

    // MARK: Staff pages

    @Test(arguments: TestEngines.all)
    func pharmacistsFindAndOpenCustomersAuditedAndDisableThem(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, id) = try await PharmacyFixtures.customer(portal, firstName: "<b>Margaret</b>")
            var (pharmacist, _) = try await portal.signedIn(.pharmacist)
            for search in ["holl", "margaret@", "1946-03-14"] {
                let found = try await pharmacist.get("\(SiteURL.pharmacyCustomers.path)?q=\(Visitor.encode(search))").text
                #expect(found.contains(SiteURL.pharmacyCustomer(id).path), "\(search)")
            }
            #expect(!(try await pharmacist.get("\(SiteURL.pharmacyCustomers.path)?q=nobody").text.contains(SiteURL.pharmacyCustomer(id).path)))
            let page = try await pharmacist.get(SiteURL.pharmacyCustomer(id).path).text
            #expect(page.contains("&lt;b&gt;Margaret&lt;/b&gt;") && !page.contains("<b>Margaret</b>"))
            #expect(try await portal.auditEntries(action: .pharmacyCustomerViewed).count == 1)
            let corrected = try await pharmacist.post(
                SiteURL.pharmacyCustomerEdit(id).path,
                form: [
                    ("first_name", "Margaret"), ("last_name", "Holloway"), ("date_of_birth", "1946-03-15"), ("email", "margaret@example.org"),
                    ("state", "Oregon")
                ]
            )
            #expect(
                corrected.status == .unprocessableContent && corrected.text.contains("Enter the street address")
                    && corrected.text.contains("value=\"1946-03-15\"")
            )
            let saved = try await pharmacist.post(
                SiteURL.pharmacyCustomerEdit(id).path,
                form: [
                    ("first_name", "Margaret"), ("last_name", "Holloway"), ("date_of_birth", "1946-03-15"), ("email", "margaret@example.org")
                ]
            )
            #expect(saved.status == .seeOther)
            #expect(try await app.get(SiteURL.apiPharmacyMe.path).object["date_of_birth"] as? String == "1946-03-15")
            #expect(try await pharmacist.post(SiteURL.pharmacyCustomerDisable(id).path).status == .seeOther)
            #expect(try await app.get(SiteURL.apiPharmacyHome.path).status == .unauthorized, "disabling her ends her sessions")
            let refused = try await AppClient(portal: portal).send(
                .post,
                SiteURL.apiPharmacySessions.path,
                json: ["email": "margaret@example.org", "password": PharmacyFixtures.password]
            )
            #expect(refused.status == .forbidden && refused.errorCode == "account_disabled")
            #expect(try await pharmacist.post(SiteURL.pharmacyCustomerEnable(id).path).status == .seeOther)
            #expect(try await portal.auditEntries(action: .pharmacyCustomerDisabled).count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func herPageShowsHerOwnPointsAndVisits(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, id) = try await PharmacyFixtures.customer(portal)
            let (_, other) = try await PharmacyFixtures.customer(portal, email: "ruth@example.org", firstName: "Ruth")
            try await PharmacyFixtures.give(35, to: id, portal)
            try await PharmacyFixtures.give(500, to: other, portal)
            try await portal.database.transaction { db in
                let beacon = try #require(
                    try await PharmacyRepository().addBeacon(
                        uuid: "B9407F30-F5F8-466E-AFF9-25556B57FE6D",
                        major: 1,
                        minor: 7,
                        name: "Front door",
                        now: portal.clock.now,
                        on: db
                    )
                )
                for day in ["2026-10-02", "2026-10-09", "2026-10-16"] {
                    _ = try await PharmacyRepository().recordVisit(
                        customerID: id,
                        day: try #require(CalendarDate(iso: day)),
                        beaconID: beacon,
                        now: portal.clock.now,
                        on: db
                    )
                }
                _ = try await PharmacyRepository().recordVisit(
                    customerID: other,
                    day: try #require(CalendarDate(iso: "2026-10-03")),
                    beaconID: beacon,
                    now: portal.clock.now,
                    on: db
                )
            }
            var (pharmacist, _) = try await portal.signedIn(.pharmacist)
            let page = try await pharmacist.get(SiteURL.pharmacyCustomer(id).path).text
            #expect(page.contains("Points</dt><dd class=\"summary-list__value\">35</dd>"))
            let latest = try ["2026-10-16", "2026-10-09", "2026-10-02"].map { try #require(CalendarDate(iso: $0)).displayed }.joined(separator: ", ")
            #expect(page.contains("Store visits</dt><dd class=\"summary-list__value\">3 (latest: \(latest))</dd>"))
            let (_, newcomer) = try await PharmacyFixtures.customer(portal, email: "edith@example.org", firstName: "Edith")
            let empty = try await pharmacist.get(SiteURL.pharmacyCustomer(newcomer).path).text
            #expect(empty.contains("Points</dt><dd class=\"summary-list__value\">0</dd>"))
            #expect(empty.contains("Store visits</dt><dd class=\"summary-list__value\">0</dd>"))
        }
    }

    @Test(arguments: TestEngines.all)
    func dealsShowWhileTheyRunAndTheAppSaysWhenThereAreNone(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, id) = try await PharmacyFixtures.customer(portal)
            try await PharmacyFixtures.give(30, to: id, portal)
            var deals = try await app.get(SiteURL.apiPharmacyDeals.path).object
            #expect((deals["deals"] as? [Any])?.isEmpty == true && (deals["message"] as? String)?.contains("no deals") == true)
            var (pharmacist, _) = try await portal.signedIn(.pharmacist)
            #expect(try await pharmacist.get(SiteURL.pharmacyDeals.path).text.contains("No deals are running today"))
            let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            let bad = try await pharmacist.postMultipart(
                SiteURL.newPharmacyDeal.path,
                fields: [
                    ("title", "Vitamins"), ("description", "20% off"), ("valid_from", today.iso), ("valid_until", today.adding(days: -1).iso)
                ],
                file: nil
            )
            #expect(bad.status == .unprocessableContent && bad.text.contains("The last day must be on or after the first day"))
            for (title, from, until) in [("Vitamins <20%>", 0, 0), ("Next week", 7, 9), ("Hand cream", -2, 5)] {
                let made = try await pharmacist.postMultipart(
                    SiteURL.newPharmacyDeal.path,
                    fields: [
                        ("title", title), ("description", "A deal"), ("valid_from", today.adding(days: from).iso),
                        ("valid_until", today.adding(days: until).iso)
                    ],
                    file: nil
                )
                #expect(made.status == .seeOther)
            }
            #expect(try await pharmacist.get(SiteURL.pharmacyDeals.path).text.contains("Vitamins &lt;20%&gt;"))
            let home = try await app.get(SiteURL.apiPharmacyHome.path).object
            #expect(home["points"] as? Int == 30)
            #expect((home["deals"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Vitamins <20%>", "Hand cream"])
            portal.clock.advance(by: 86_400)
            deals = try await app.get(SiteURL.apiPharmacyDeals.path).object
            #expect((deals["deals"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Hand cream"] && deals["message"] == nil)
        }
    }

    @Test(arguments: TestEngines.all)
    func aDealsPictureIsCheckedByItsBytesAndServedToStaffAndTheApp(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, _) = try await PharmacyFixtures.customer(portal)
            var (pharmacist, _) = try await portal.signedIn(.pharmacist)
            let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            let fields = [
                ("title", "Hand cream"), ("description", "Two for one"), ("valid_from", today.iso), ("valid_until", today.adding(days: 3).iso)
            ]
            let png = CatalogueTests.png
            let disguised = try await pharmacist.postMultipart(
                SiteURL.newPharmacyDeal.path,
                fields: fields,
                file: ("picture", "cream.png", "image/png", Array("<svg onload=alert(1)>".utf8))
            )
            #expect(disguised.status == .unprocessableContent && disguised.text.contains("The picture must be a PNG, JPEG or WebP picture"))
            #expect(disguised.text.contains(#"value="Hand cream""#), "what was typed is kept")
            let made = try await pharmacist.postMultipart(
                SiteURL.newPharmacyDeal.path,
                fields: fields,
                file: ("picture", "cream.gif", "image/gif", png)
            )
            #expect(made.status == .seeOther)
            let deal = try #require(
                try await portal.database.read { db in
                    try await PharmacyRepository().currentDeals(on: today, on: db).first
                }
            )
            let picture = try #require(deal.picture)
            #expect(picture.type == .png && !picture.fileName.contains("cream"))
            let served = try await pharmacist.get(SiteURL.pharmacyDealPicture(deal.id).path)
            #expect(served.status == .ok && served.headers[.contentType] == "image/png" && Array(buffer: served.body) == png)
            let listed = try await app.get(SiteURL.apiPharmacyDeals.path).object["deals"] as? [[String: Any]]
            let url = try #require(listed?.first?["picture_url"] as? String)
            let fetched = try await app.get(url)
            #expect(fetched.status == .ok && fetched.headers[.contentType] == "image/png")
            #expect(try await AppClient(portal: portal).get(url).status == .unauthorized)
            // Removing it on the form removes the file once the change is saved.
            let store = PharmacyStoreController.pictures(portal.portal)
            #expect(try await UploadsTests.kept(store) == [picture.fileName])
            let removed = try await pharmacist.postMultipart(
                SiteURL.editPharmacyDeal(deal.id).path,
                fields: fields + [("remove_picture", "yes")],
                file: nil
            )
            let keptAfter = try await UploadsTests.kept(store)
            #expect(removed.status == .seeOther && keptAfter.isEmpty)
            #expect(try await pharmacist.get(SiteURL.pharmacyDealPicture(deal.id).path).status == .notFound)
        }
    }

    @Test(arguments: TestEngines.all)
    func pharmacistsWorkOnlyInThePharmacyAndOthersNeverSeeIt(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let ownAccount = [SiteURL.signOut.path, SiteURL.changePassword.path]
            var open: [String] = []
            for route in portal.app.routes where !route.path.hasPrefix("/api/") {
                let access = try #require(portal.app.catalogue.access[route])
                if access.requiresSignIn, access.allows(.pharmacist) {
                    open.append(route.path)
                    // Their own account: password, two-factor sign-in, signing out.
                    #expect(
                        route.path.hasPrefix("/pharmacy") || ownAccount.contains(route.path) || route.path.hasPrefix("/account/"),
                        "\(route) is open to pharmacists"
                    )
                }
                if route.path.hasPrefix("/pharmacy/") || route.path == "/pharmacy", access.requiresSignIn {
                    #expect(access == .pharmacyStaff, "\(route)")
                    for role in StaffRole.allCases { #expect(access.allows(role) == [.pharmacist, .administrator].contains(role)) }
                }
            }
            #expect(open.contains(SiteURL.pharmacy.path))
            var (pharmacist, _) = try await portal.signedIn(.pharmacist)
            let home = try await pharmacist.get(SiteURL.home.path).text
            #expect(home.contains("No refill requests are waiting") && home.contains(">Refill queue</a>"))
            #expect(!home.contains(">Members</a>") && !home.contains(">Patients</a>"))
            #expect(try await pharmacist.get(SiteURL.members.path).status == .forbidden)
            var (physician, _) = try await portal.signedIn(.physician)
            #expect(try await physician.get(SiteURL.pharmacy.path).status == .forbidden)
            #expect(!(try await physician.get(SiteURL.home.path).text.contains("Refill queue")))
        }
    }

    /// The queue's filters (written into its statement, not bound) against every status and both kinds:
    /// each shows exactly the requests it names, oldest first, and a second page goes on where the first stopped.
    @Test(arguments: TestEngines.all)
    func theRefillQueueShowsExactlyTheStatusesAndKindChosen(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, customer) = try await PharmacyFixtures.customer(portal)
            let repository = PharmacyRepository()
            var made: [(id: Int64, status: RefillStatus, fulfilment: Fulfilment)] = []
            for (index, status) in (RefillStatus.allCases + RefillStatus.allCases).enumerated() {
                let fulfilment: Fulfilment = index % 2 == 0 ? .pickup : .delivery
                let prescription = try await PharmacyFixtures.prescription(portal, customerID: customer, medication: "Medicine \(index)")
                let refill = try await portal.database.transaction { db in
                    let refill = try await repository.addRefill(
                        customerID: customer,
                        prescriptionID: prescription,
                        fulfilment: fulfilment,
                        deliveryAddress: fulfilment == .delivery ? "1 Example Lane" : nil,
                        now: portal.clock.now.addingTimeInterval(Double(index)),
                        on: db
                    )
                    if status != .requested {
                        #expect(
                            try await repository.moveRefill(id: refill.id, from: .requested, to: status, reason: nil, now: portal.clock.now, on: db)
                        )
                    }
                    return refill
                }
                made.append((refill.id, status, fulfilment))
            }
            let choices: [[RefillStatus]] = [RefillStatus.open, RefillStatus.allCases] + RefillStatus.allCases.map { [$0] }
            for statuses in choices {
                for fulfilment in [nil, Fulfilment.pickup, .delivery] {
                    let expected = made.filter { statuses.contains($0.status) && (fulfilment == nil || $0.fulfilment == fulfilment) }.map(\.id)
                    let (first, second) = try await portal.database.read { db in
                        let first = try await repository.refillQueue(
                            statuses: statuses,
                            fulfilment: fulfilment,
                            page: PageRequest(number: 1, size: 3),
                            on: db
                        )
                        let second =
                            try await first.hasNext
                            ? repository.refillQueue(
                                statuses: statuses,
                                fulfilment: fulfilment,
                                page: PageRequest(.after(try #require(first.lastCursor)), size: 3),
                                on: db
                            ).items : []
                        return (first, second)
                    }
                    let shown = first.items.map(\.refill.id) + second.map(\.refill.id)
                    #expect(shown == Array(expected.prefix(6)), "\(statuses) \(String(describing: fulfilment))")
                    #expect(first.totalCount == expected.count, "\(statuses) \(String(describing: fulfilment))")
                }
            }
        }
    }

    /// A name search finds the customers whose last name, first name or email address starts with the text,
    /// whatever its case, each once, by last name and through every page.
    @Test(arguments: TestEngines.all)
    func aNameSearchFindsEachCustomerWhoseNameOrEmailStartsWithItOnceInNameOrder(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let repository = PharmacyRepository()
            let people = [
                ("Marion", "Holloway", "mh"), ("Ruth", "Marsh", "ruth"), ("Mary", "Martin", "mm"), ("Walter", "Okafor", "marco"),
                ("Edith", "Amar", "edith"), ("Margaret", "Schmidt", "ms"), ("Joan", "Nguyen", "joan"), ("Marta", "marsh", "marta")
            ]
            try await portal.database.transaction { db in
                for (first, last, mailbox) in people {
                    let details = PharmacyCustomerDetails(firstName: first, lastName: last, dateOfBirth: "1946-03-14", phone: "", address: .none)
                    _ = try #require(
                        try await repository.createCustomer(
                            email: "\(mailbox)@example.org",
                            passwordHash: "x",
                            details: details,
                            now: portal.clock.now,
                            on: db
                        )
                    )
                }
            }
            func names(_ search: String) async throws -> [String] {
                var found: [String] = []
                var request = PageRequest(number: 1, size: 2)
                while true {
                    let page = try await portal.database.read { db in try await repository.findCustomers(search, page: request, on: db) }
                    found += page.items.map { "\($0.details.firstName) \($0.details.lastName)" }
                    guard page.hasNext, let last = page.lastCursor else { return found }
                    request = PageRequest(.after(last), size: 2)
                }
            }
            // Last names, then first names, then the customer's id, as the list sorts them (SQL's order of text).
            let marOrder = ["Marion Holloway", "Ruth Marsh", "Mary Martin", "Walter Okafor", "Margaret Schmidt", "Marta marsh"]
            #expect(try await names("mar") == marOrder)
            #expect(try await names("  MAR ") == marOrder)
            #expect(try await names("mars") == ["Ruth Marsh", "Marta marsh"])
            #expect(try await names("marco") == ["Walter Okafor"])
            #expect(try await names("amar") == ["Edith Amar"])
            #expect(try await names("").count == people.count)
            #expect(try await names("mar mary") == ["Mary Martin"], "every word typed starts one of hers")
            #expect(try await names("Margaret Schmidt") == ["Margaret Schmidt"])
            #expect(try await names("arsh").isEmpty, "the middle of a name is not its start")
            #expect(try await names("&& /").isEmpty, "punctuation alone finds no one")
            #expect(try await names("ms@example.org") == ["Margaret Schmidt"], "an address typed with its @")

            // A change of her names or address is searched by what she is called now.
            let walter = try #require(
                try await portal.database.read { db in
                    try await repository.findCustomers("walter", page: PageRequest(number: 1), on: db).items.first
                }
            )
            let renamed = PharmacyCustomerDetails(firstName: "Walt", lastName: "Oakley", dateOfBirth: "1946-03-14", phone: "", address: .none)
            #expect(
                try await portal.database.transaction { db in
                    try await repository.updateCustomer(id: walter.id, email: "walt@example.org", details: renamed, now: portal.clock.now, on: db)
                }
            )
            #expect(try await names("walter").isEmpty)
            #expect(try await names("marco").isEmpty)
            #expect(try await names("oak") == ["Walt Oakley"])
            #expect(try await names("walt") == ["Walt Oakley"])
        }
    }

    /// Migration 49 writes the word starts of the customers registered before it.
    @Test(arguments: TestEngines.all)
    func customersRegisteredBeforeTheSearchIndexAreFoundToo(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.database.transaction { db in
                try await db.drop(table: "pharmacy_customer_words").run()
                try await db.raw(
                    """
                    INSERT INTO pharmacy_customers (email, email_key, password_hash, first_name, last_name, date_of_birth, phone,
                        address_line1, address_line2, city, state, zip_code, status, created_at, updated_at)
                    VALUES ('irene.h@example.org', 'irene.h@example.org', 'x', 'Irene', 'Haddad', '1950-04-23', '', '', '', '', '', '',
                        'active', 0, 0)
                    """
                ).run()
                try await IndexCustomersByWord().apply(to: db, engine: engine)
            }
            for search in ["had", "irene", "irene.h", "IRENE HADDAD"] {
                let found = try await portal.database.read { db in
                    try await PharmacyRepository().findCustomers(search, page: PageRequest(number: 1), on: db)
                }
                #expect(found.items.map(\.details.lastName) == ["Haddad"] && found.totalCount == 1, "\(search)")
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func seedDemoOpensAClearlyMarkedDemoPharmacy(engine: Database.Engine) async throws {
        let url = try await TestDatabase.make(engine)
        let credentials = try await Commands.seedDemo(settings: CommandTests.settings(url))
        #expect(credentials.contains { $0.role == .pharmacist && $0.username == "demo.pharmacist" })
        let database = try Database(url: url, logger: TestDatabase.logger)
        let repository = PharmacyRepository()
        let (customers, queue, rewards, beacons, waiting) = try await database.whileRunning {
            try await database.read { db in
                (
                    try await repository.findCustomers("", page: PageRequest(number: 1), on: db).items,
                    try await repository.refillQueue(statuses: RefillStatus.allCases, fulfilment: nil, page: PageRequest(number: 1), on: db).items,
                    try await repository.rewards(includingRetired: false, on: db), try await repository.beacons(on: db),
                    try await repository.waitingCount(on: db)
                )
            }
        }
        try await TestDatabase.drop(url)
        #expect(customers.count == 3 && customers.allSatisfy { $0.details.lastName.hasSuffix("(demo)") && $0.email.hasSuffix("@example.invalid") })
        #expect(Set(queue.map(\.refill.status)) == [.requested, .preparing, .readyForPickup, .collected] && waiting == 3)
        #expect(queue.allSatisfy { $0.medication.hasSuffix("(demo)") })
        #expect(rewards.count == 2 && beacons.count == 1 && beacons[0].name.hasSuffix("(demo)"))
    }
}

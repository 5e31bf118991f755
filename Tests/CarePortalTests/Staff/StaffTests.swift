import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct StaffTests {
    static let registration: [(String, String)] = [
        ("username", "dr.lee"), ("email", "lee@clinic.example"), ("password", "slow walking morning light"),
        ("password_confirmation", "slow walking morning light"), ("first_name", "José"), ("middle_name", ""),
        ("last_name", "Núñez-Ødegård"), ("practice_location", "Riverside Movement Clinic, Springfield"), ("practice_phone", "(217) 555-0188"),
        ("medical_id_number", "1234567890")
    ]

    @Test(arguments: TestEngines.all)
    func aRegisteredPhysicianWaitsForApprovalBeforeSigningIn(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await portal.createStaff(.administrator, username: "chief", email: "chief@example.org")
            var physician = Visitor(portal: portal)
            try await physician.get("/register")
            let registered = try await physician.post("/register", form: Self.registration)
            #expect(registered.location == "/register/received")

            try await physician.get("/sign-in")
            let early = try await physician.post("/sign-in", form: [("username", "dr.lee"), ("password", "slow walking morning light")])
            #expect(early.text.contains("waiting for an administrator to approve it"))

            var (admin, _) = try await portal.signedIn(.administrator, username: "approver")
            let list = try await admin.get("/staff?status=awaiting_approval")
            #expect(list.text.contains("dr.lee"))
            #expect(list.text.contains("1 physician registration(s) waiting for approval"))
            let account = try #require(
                try await portal.database.read { db in
                    try await StaffAccountRepository().credentials(username: "dr.lee", on: db)
                }?.account
            )
            let page = try await admin.get("/staff/\(account.id)")
            #expect(page.text.contains("Núñez-Ødegård"))
            #expect(page.text.contains("1234567890") && page.text.contains("217-555-0188"))
            try await admin.post("/staff/\(account.id)/approve")
            #expect(!(try await admin.get("/staff").text.contains("physician registration(s) waiting for approval")))

            try await physician.signIn(username: "dr.lee", password: "slow walking morning light")
            #expect(try await physician.get("/").text.contains("Signed in as <strong>dr.lee</strong>"))

            let mail = try await portal.database.read { db in
                try await portal.portal.outbox.list(status: nil, page: PageRequest(number: 1), on: db).items
            }
            #expect(mail.contains { $0.recipient == "chief@example.org" && $0.subject == "A physician is waiting for approval" })
            #expect(mail.contains { $0.recipient == "lee@clinic.example" && $0.subject.contains("is approved") })
            #expect(try await portal.auditEntries(action: .physicianRegistered).count == 1)
            #expect(try await portal.auditEntries(action: .physicianApproved).count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func registrationExplainsEveryMissingFieldAndRefusesATakenUsername(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.createStaff(.physician, username: "dr.lee")
            var visitor = Visitor(portal: portal)
            try await visitor.get("/register")
            let empty = try await visitor.post("/register", form: [])
            for message in [
                "Enter a username", "Enter an email address", "Enter a password", "Enter your first name", "Enter your last name",
                "Enter the location of your practice", PhysicianPractice.phoneProblem, "Enter your medical identification number"
            ] {
                #expect(empty.text.contains(message), "missing: \(message)")
            }
            let taken = try await visitor.post("/register", form: Self.registration)
            #expect(taken.status == .unprocessableContent)
            #expect(taken.text.contains("That username is already taken"))
            #expect(taken.text.contains(#"value="Riverside Movement Clinic, Springfield""#) && taken.text.contains(#"value="(217) 555-0188""#))
            for wrong in ["911", "555-0188", "call me"] {
                let refused = try await visitor.post("/register", form: Self.registration.map { $0.0 == "practice_phone" ? ($0.0, wrong) : $0 })
                #expect(refused.text.contains(PhysicianPractice.phoneProblem), "\(wrong) was taken for a practice phone")
            }
        }
    }

    /// A physician changes where her practice is and its phone in her account; her patient's app shows both
    /// at once, the phone a link to call; nobody else can use the page.
    @Test(arguments: TestEngines.all)
    func aPhysicianKeepsHerPracticesDetailsAndHerPatientsAppShowsThem(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let physician = try await portal.createStaff(.physician, username: "dr.ana")
            try await portal.database.write { db in
                try await StaffAccountRepository().createPhysicianProfile(
                    PhysicianProfile(
                        firstName: "Ana",
                        middleName: "",
                        lastName: "Okafor",
                        practiceLocation: "Old Clinic",
                        medicalIDNumber: "TN-1"
                    ),
                    accountID: physician.id,
                    on: db
                )
            }
            let (record, token) = try await PatientFixtures.patient(
                portal,
                physicianID: physician.id,
                catalogue: try await PatientFixtures.catalogue(portal)
            )
            let patient = try await PatientFixtures.claimed(portal, patient: record, token: token)
            let before = try await patient.get(SiteURL.apiPatientMe.path).object["physician"] as? [String: Any]
            #expect(
                before?["practice_address"] as? String == "Old Clinic" && before?["practice_phone"] == nil,
                "no phone given yet: \(String(describing: before))"
            )

            var browser = Visitor(portal: portal)
            try await browser.signIn(username: "dr.ana", password: "correct horse battery staple")
            #expect(try await browser.get(SiteURL.home.path).text.contains(SiteURL.accountPractice.path))
            #expect(try await browser.get(SiteURL.accountPractice.path).text.contains(#"value="Old Clinic""#))
            let wrong = try await browser.post(SiteURL.accountPractice.path, form: [("practice_location", ""), ("practice_phone", "12")])
            #expect(
                wrong.status == .unprocessableContent && wrong.errorSummary == ["Enter the location of your practice", PhysicianPractice.phoneProblem]
            )
            #expect(wrong.text.contains(#"value="12""#), "what she typed is kept")
            let saved = try await browser.post(
                SiteURL.accountPractice.path,
                form: [("practice_location", "Riverside Clinic, Springfield"), ("practice_phone", "1 (217) 555-0134")]
            )
            #expect(saved.location == "\(SiteURL.accountPractice.path)?saved=1")
            #expect(try await browser.get(try #require(saved.location)).text.contains("217-555-0134"))
            #expect(try await portal.auditEntries(action: .physicianPracticeChanged).count == 1)

            let after = try await patient.get(SiteURL.apiPatientMe.path).object["physician"] as? [String: Any]
            #expect(after?["practice_address"] as? String == "Riverside Clinic, Springfield")
            #expect(after?["practice_phone"] as? String == "217-555-0134" && after?["practice_phone_dial"] as? String == "+12175550134")

            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.get(SiteURL.accountPractice.path).status == .forbidden, "the page is a physician's own")
        }
    }

    @Test(arguments: TestEngines.all)
    func theStaffListSearchesSortsAndPages(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator, username: "aa.admin")
            for index in 1...30 {
                try await portal.createStaff(.physician, username: String(format: "doc%02d", index))
            }
            try await portal.createStaff(.physician, username: "zed", email: "Rita.Lopez@Example.org")
            let first = try await admin.get("/staff")
            #expect(first.text.contains("Showing 1 to 25 of 32 accounts"))
            let next = try #require(PagingTests.link("next", in: first.text))
            #expect(next.hasPrefix("/staff?after="))
            let second = try await admin.get(next)
            #expect(second.text.contains("doc30") && second.text.contains("Showing 26 to 32 of 32 accounts"))
            // A bookmark from before the cursors opens the same page.
            #expect(try await admin.get("/staff?page=2").text.contains("doc30"))
            let descending = try await admin.get("/staff?sort=username&order=desc")
            let doc30 = try #require(descending.text.range(of: "doc30"))
            let doc01 = descending.text.range(of: "doc01")
            #expect(doc01 == nil || doc30.lowerBound < doc01!.lowerBound)
            #expect(descending.text.contains(#"aria-sort="descending""#))
            let search = try await admin.get("/staff?q=DOC1")
            #expect(search.text.contains("Showing 1 to 10 of 10 accounts"), "doc10 to doc19 match by username and by email, each listed once")
            let byEmail = try await admin.get("/staff?q=rita.L")
            #expect(byEmail.text.contains("zed") && byEmail.text.contains("Showing 1 account<"), "the start of an email address, in any case")
            #expect(try await admin.get("/staff?q=OC1").text.contains("No staff accounts match your search"), "the start of a name, not any part")
            let nothing = try await admin.get("/staff?q=zzz%25")
            #expect(nothing.text.contains("No staff accounts match your search"))
        }
    }
}

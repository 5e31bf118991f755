import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Forms anyone can send without signing in: registrations are throttled per address, and what is typed
/// there reaches other people's email as one line with no link in it.
@Suite struct PublicFormsTests {
    static func physician(username: String, first: String = "Ana", middle: String = "", last: String = "Okafor") -> [(String, String)] {
        [
            ("username", username), ("email", "\(username)@example.org"), ("password", "correct horse battery staple"),
            ("password_confirmation", "correct horse battery staple"), ("first_name", first), ("middle_name", middle), ("last_name", last),
            ("practice_location", "Nashville"), ("practice_phone", "615-555-0134"), ("medical_id_number", "TN-55120")
        ]
    }

    @Test(arguments: TestEngines.all)
    func physicianRegistrationIsThrottledPerAddress(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, configure: { $0.trustForwardedFor = true }) { portal in
            var browser = Visitor(portal: portal)
            try await browser.get("/register")
            let address: HTTPFields = [.xForwardedFor: "203.0.113.9"]
            // MUT
            for index in 0..<SignInThrottle.registrationAddressLimit {
                let sent = try await browser.post("/register", form: Self.physician(username: "dr.n\(index)"), headers: address)
                #expect(sent.location == "/register/received")
            }
            let refused = try await browser.post("/register", form: Self.physician(username: "dr.late"), headers: address)
            // validate
            #expect(refused.status == .tooManyRequests)
            #expect(refused.text.contains("Too many registrations have come from your network"))
            #expect(refused.text.contains(#"value="dr.late""#), "what she typed is kept")
            let accounts = try await portal.database.read { db in try await StaffAccountRepository().count(on: db) }
            #expect(accounts == SignInThrottle.registrationAddressLimit)
            let elsewhere = try await browser.post("/register", form: Self.physician(username: "dr.other"), headers: [.xForwardedFor: "198.51.100.4"])
            #expect(elsewhere.location == "/register/received")
        }
    }

    @Test(arguments: TestEngines.all)
    func namesWithLinksOrLineBreaksAreRefusedAndEmailsCarryNone(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.createStaff(.administrator, username: "chief")
            var browser = Visitor(portal: portal)
            try await browser.get("/register")
            let linked = try await browser.post(
                "/register",
                form: Self.physician(
                    username: "dr.spam",
                    first: "Win a prize at http://evil.example",
                    middle: "www.evil.example",
                    last: "Okafor\nClick here"
                )
            )
            #expect(linked.status == .unprocessableContent)
            #expect(linked.text.contains("Enter your first name without a web address"))
            #expect(linked.text.contains("Enter your middle name without a web address"))
            #expect(linked.text.contains("Enter your last name on one line"))
            #expect(try await portal.outboxMessages().isEmpty)

            let registered = try await browser.post("/register", form: Self.physician(username: "dr.ana", middle: "Grace"))
            #expect(registered.location == "/register/received")
            let mail = try #require(try await portal.outboxMessages().last)
            #expect(mail.bodyText.hasPrefix("Ana Grace Okafor registered as a physician with the username dr.ana."))

            let pharmacy = try await AppClient(portal: portal).send(
                .post,
                SiteURL.apiPharmacyRegistrations.path,
                json: [
                    "email": "rosa@example.org", "password": "Garden gate 58", "first_name": "Rosa https://evil.example",
                    "last_name": "Delgado\r\nVisit www.evil.example", "date_of_birth": "1958-12-21"
                ]
            )
            #expect(pharmacy.status == .unprocessableContent)
            #expect(pharmacy.fieldErrors["first_name"] == "Enter a first name without a web address")
            #expect(pharmacy.fieldErrors["last_name"] == "Enter a last name on one line")
        }
    }

    @Test func anEmailWritesATypedNameOnOneLineAndNeverAsALink() {
        #expect(MailText.name("  Ana \n Grace\tOkafor ") == "Ana Grace Okafor")
        #expect(MailText.name("Ana\r\nhttp://evil.example") == "Someone")
        #expect(MailText.name("WWW.EVIL.EXAMPLE") == "Someone")
        #expect(MailText.name("ftp://evil.example", otherwise: "there") == "there")
        #expect(MailText.name("\u{0}\u{7}") == "Someone")
        #expect(MailText.name(String(repeating: "a", count: 300)).count == 100)
        #expect(MailText.name("Zoë O'Neil-Ng") == "Zoë O'Neil-Ng")
    }
}

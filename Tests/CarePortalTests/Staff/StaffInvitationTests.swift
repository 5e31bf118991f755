import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct StaffInvitationTests {
    static func form(
        role: String?,
        email: String = "dr.patel@example.org",
        dateOfBirth: (String, String, String) = ("", "", "")
    ) -> [(String, String)] {
        [("role_shown", "1")] + (role.map { [("role", $0)] } ?? []) + [
            ("first_name", "Priya"), ("last_name", "Patel"), ("date_of_birth_day", dateOfBirth.0), ("date_of_birth_month", dateOfBirth.1),
            ("date_of_birth_year", dateOfBirth.2), ("email", email)
        ]
    }

    @Test(arguments: TestEngines.all)
    func anAdministratorInvitesAPhysicianWhoSetsUpTheAccountWithoutAProfile(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, mailTransport: MailServerNotAnswering()) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            let list = try await admin.get("/staff")
            #expect(list.text.contains(#"href="/staff/invite""#))
            let page = try await admin.get("/staff/invite?role=physician")
            // Every role the portal has is offered, so roles added later appear by themselves.
            for role in StaffRole.allCases { #expect(page.text.contains(#"value="\#(role.rawValue)""#)) }
            #expect(page.text.contains(#"value="physician" checked"#))

            let missing = try await admin.post("/staff/invite", form: Self.form(role: nil))
            #expect(missing.status == .unprocessableContent)
            #expect(missing.text.contains(##"href="#role""##))
            #expect(missing.text.contains("Select the role they will have"))
            #expect(missing.text.contains(#"value="Priya""#))

            let sent = try await admin.post("/staff/invite", form: Self.form(role: "physician"))
            #expect(sent.location == "/staff")
            let listed = try await admin.get("/staff")
            #expect(listed.text.contains("Priya Patel"))
            #expect(listed.text.contains("An invitation as physician has been sent"))
            let mail = try #require(try await portal.outboxMessages().last)
            #expect(mail.recipient == "dr.patel@example.org")
            #expect(mail.bodyText.contains("as a physician"))
            let token = try InvitationTests.token(in: mail)

            var visitor = Visitor(portal: portal)
            let accept = try await visitor.get("/invitation?token=\(token)")
            #expect(!accept.text.contains(#"name="avatar""#))
            let accepted = try await visitor.post(
                "/invitation",
                form: [
                    ("token", token), ("username", "dr.patel"), ("password", InvitationTests.password),
                    ("password_confirmation", InvitationTests.password)
                ]
            )
            #expect(accepted.location == "/")
            #expect(try await visitor.get("/").text.contains("Signed in as <strong>dr.patel</strong> (Physician)"))
            let account = try #require(try await portal.database.read { db in try await StaffAccountRepository().find(username: "dr.patel", on: db) })
            #expect(account.role == .physician)
            #expect(account.email == "dr.patel@example.org")
            #expect(try await portal.database.read { db in try await StaffProfileRepository().find(accountID: account.id, on: db) } == nil)
        }
    }

    @Test(arguments: TestEngines.all)
    func aMedicalProfessionalInvitedFromTheStaffPageStillGivesADateOfBirthAndChoosesAnAvatar(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, mailTransport: MailServerNotAnswering()) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get("/staff/invite")
            let noDate = try await admin.post("/staff/invite", form: Self.form(role: "medical_professional", email: "amira@example.org"))
            #expect(noDate.status == .unprocessableContent)
            #expect(noDate.text.contains("Enter their date of birth"))
            let sent = try await admin.post(
                "/staff/invite",
                form: Self.form(role: "medical_professional", email: "amira@example.org", dateOfBirth: ("11", "2", "1984"))
            )
            #expect(sent.status == .seeOther)
            let token = try InvitationTests.token(in: try #require(try await portal.outboxMessages().last))
            let (_, accepted) = try await InvitationTests.accept(portal, token: token)
            #expect(accepted.location == "/desk")
            #expect(try await InvitationTests.profileCount(portal) == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func invitationsForStaffWorkWhileThePerinatalProgramIsOff(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, mailTransport: MailServerNotAnswering()) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await FeaturesTests.switchPrograms(&admin, on: [.physiciansPractice]).status == .seeOther)
            try await admin.get("/staff/invite")
            #expect(try await admin.post("/staff/invite", form: Self.form(role: "administrator", email: "second@example.org")).status == .seeOther)
            let token = try InvitationTests.token(in: try #require(try await portal.outboxMessages().last))
            try await admin.post("/medical-professionals/invitations/1/resend")
            let renewed = try InvitationTests.token(in: try #require(try await portal.outboxMessages().last))
            #expect(renewed != token)
            var visitor = Visitor(portal: portal)
            #expect(try await visitor.get("/invitation?token=\(renewed)").status == .ok)
            let accepted = try await visitor.post(
                "/invitation",
                form: [
                    ("token", renewed), ("username", "second.admin"), ("password", InvitationTests.password),
                    ("password_confirmation", InvitationTests.password)
                ]
            )
            #expect(accepted.location == "/")
            #expect(try await visitor.get("/staff").status == .ok)
        }
    }
}

extension StaffInvitationTests {
    @Test(arguments: TestEngines.all)
    func seedDemoInvitesAPhysicianMarkedAsDemoData(engine: Database.Engine) async throws {
        let url = try await TestDatabase.make(engine)
        var settings = CommandTests.settings(url)
        settings.baseURL = "https://demo.example.org"
        _ = try await Commands.seedDemo(settings: settings)
        let database = try Database(url: url, logger: TestDatabase.logger)
        let physicians = try await database.whileRunning {
            try await database.read { db in try await StaffInvitationRepository().open(role: .physician, on: db) }
        }
        try await TestDatabase.drop(url)
        #expect(physicians.map(\.lastName) == ["Demo (demo data)"])
        #expect(physicians.first?.dateOfBirth == nil)
    }
}

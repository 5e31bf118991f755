import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct InvitationSecondFactorTests {
    /// An administrator requires a second factor of `roles` and invites a physician, who accepts in `visitor`.
    static func physicianAccepts(_ portal: TestPortal, requiring roles: [String], visitor: inout Visitor) async throws -> TestResponse {
        var (admin, _) = try await portal.signedIn(.administrator)
        try await admin.get("/staff/two-factor")
        try await admin.post("/staff/two-factor", form: roles.map { ("roles[]", $0) })
        try await admin.get("/staff/invite")
        #expect(try await admin.post("/staff/invite", form: StaffInvitationTests.form(role: "physician")).location == "/staff")
        let token = try InvitationTests.token(in: try #require(try await portal.outboxMessages().last))
        try await visitor.get("/invitation?token=\(token)")
        return try await visitor.post(
            "/invitation",
            form: [
                ("token", token), ("username", "dr.patel"), ("password", InvitationTests.password),
                ("password_confirmation", InvitationTests.password)
            ]
        )
    }

    @Test(arguments: TestEngines.all)
    func acceptingAnInvitationForARoleThatMustUseTwoFactorSetsItUpBeforeAnySignedInPage(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, mailTransport: MailServerNotAnswering()) { portal in
            var visitor = Visitor(portal: portal)
            // MUT
            let accepted = try await Self.physicianAccepts(portal, requiring: ["physician"], visitor: &visitor)
            // validate: the set-up page comes first, and no signed-in page opens before it is done
            #expect(accepted.location == SiteURL.signInSecondFactorSetup.path)
            #expect(try await visitor.get("/").location?.hasPrefix("/sign-in") == true)
            #expect(try await visitor.get("/patients").location?.hasPrefix("/sign-in") == true)
            let setUp = try await visitor.get(SiteURL.signInSecondFactorSetup.path)
            #expect(setUp.status == .ok)
            #expect(setUp.text.contains("requires a code from your phone"))
            let factor = try TwoFactorSteps.secret(from: setUp.text)
            let done = try await visitor.post(SiteURL.signInSecondFactorSetup.path, form: [("code", TwoFactorSteps.code(factor, portal))])
            #expect(done.status == .ok)
            #expect(TwoFactorSteps.recoveryCodes(in: done.text).count == 10)
            #expect(try await visitor.get("/").text.contains("Signed in as <strong>dr.patel</strong>"))
        }
    }

    @Test(arguments: TestEngines.all)
    func aRoleWithoutTheRequirementLandsSignedInAsBefore(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, mailTransport: MailServerNotAnswering()) { portal in
            var visitor = Visitor(portal: portal)
            let accepted = try await Self.physicianAccepts(portal, requiring: ["administrator"], visitor: &visitor)
            #expect(accepted.location == "/")
            #expect(try await visitor.get("/").text.contains("Signed in as <strong>dr.patel</strong>"))
        }
    }
}

import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct PharmacyResetLinkTests {
    /// The token of the newest reset link emailed.
    static func newestResetToken(_ portal: TestPortal) async throws -> String {
        let line = try #require(
            try await portal.outboxMessages().last?.bodyText.split(separator: "\n").first { $0.contains("/pharmacy/reset-password?token=") }
        )
        return String(line.split(separator: "=").last ?? "")
    }

    @Test(arguments: TestEngines.all)
    func settingAPasswordFromOneResetLinkEndsHerOtherOpenLinks(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            // setup: two links asked for, both open
            _ = try await PharmacyFixtures.customer(portal)
            let app = AppClient(portal: portal)
            #expect(try await app.send(.post, SiteURL.apiPharmacyPasswordResets.path, json: ["email": "margaret@example.org"]).status == .accepted)
            let first = try await Self.newestResetToken(portal)
            #expect(try await app.send(.post, SiteURL.apiPharmacyPasswordResets.path, json: ["email": "margaret@example.org"]).status == .accepted)
            let second = try await Self.newestResetToken(portal)
            #expect(first != second)
            // MUT
            let used = try await app.send(
                .post,
                SiteURL.apiPharmacyPasswordResetCompletion.path,
                json: ["token": second, "password": "Lighthouse keeper 7"]
            )
            #expect(used.status == .noContent)
            // validate
            let stale = try await app.send(
                .post,
                SiteURL.apiPharmacyPasswordResetCompletion.path,
                json: ["token": first, "password": "Someone else 12345"]
            )
            #expect(stale.status == .unprocessableContent && stale.fieldErrors["token"] != nil)
            #expect(
                try await app.send(
                    .post,
                    SiteURL.apiPharmacySessions.path,
                    json: ["email": "margaret@example.org", "password": "Lighthouse keeper 7"]
                ).status == .created
            )
        }
    }
}

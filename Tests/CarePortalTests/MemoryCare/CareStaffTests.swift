import Foundation
import HTTPTypes
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Administrators run the program from counts, links and consent history: no page shows a memory, a
/// contact or a location; ending a link tells both people; every action is audited.
@Suite struct CareStaffTests {
    @Test(arguments: TestEngines.all)
    func staffSeeCountsLinksAndHistoryButNeverWhatSheWrote(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, eleanorID) = try await CareFixtures.receiver(portal)
            let (ruth, ruthID) = try await CareFixtures.caregiver(portal)
            try await CareFixtures.unlock(eleanor)
            try await CareFixtures.memory(
                eleanor,
                ["type": "interaction", "title": "Tea with Ruth", "category": "family", "description": "Lemon cake"]
            )
            try await CareFixtures.memory(
                eleanor,
                ["type": "simple_password", "title": "Door code", "category": "home", "fields": ["password": "4711"]]
            )
            _ = try await eleanor.send(.post, SiteURL.care(.apiContacts).path, json: ["name": "Tom Neighbour"])
            _ = try await eleanor.send(.put, SiteURL.care(.apiLocation).path, json: ["latitude": 51.501, "longitude": -0.142])
            let link = try await CareFixtures.link(eleanor, ruth, scopes: ["reminders", "memories"], categories: ["family"])
            #expect(try await ruth.get(SiteURL.care(.apiCaregiverReminders(link: link)).path).status == .ok)

            var (admin, _) = try await portal.signedIn(.administrator)
            let list = try await admin.get(CareURL.accounts(.careReceiver).path)
            #expect(list.status == .ok && list.text.contains("Eleanor") && list.text.contains("Active"))
            #expect(try await admin.get("\(CareURL.accounts(.careReceiver).path)?q=nobody").text.contains("No care receiver matches"))
            #expect(try await admin.get(CareURL.accounts(.caregiver).path).text.contains("Ruth"))

            let page = try await admin.get(CareURL.account(.careReceiver, eleanorID).path)
            #expect(page.status == .ok)
            #expect(page.text.contains("2 (1 secured)") && page.text.contains("Ruth") && page.text.contains("memories in Family"))
            #expect(!page.text.contains(". ."), "a link in force has no end to tell")
            for hidden in ["Tea with Ruth", "Lemon cake", "Door code", "4711", "Tom Neighbour", "51.501"] {
                #expect(!page.text.contains(hidden), "the staff page shows \(hidden)")
            }
            #expect(try await portal.auditEntries(action: .careAccountViewed).count == 1)

            // Ending a link asks first, then ends it at once and tells both by email.
            let ask = try await admin.get(CareURL.linkRevoke(link).path)
            #expect(ask.status == .ok && ask.text.contains("End the link between Eleanor and Ruth?"))
            let before = try await portal.outboxMessages().count
            let ended = try await admin.post(CareURL.linkRevoke(link).path)
            #expect(ended.status == .seeOther)
            let told = try await portal.outboxMessages().dropFirst(before).map(\.recipient)
            #expect(Set(told) == ["eleanor@example.org", "ruth@example.org"])
            #expect(try await ruth.get(SiteURL.care(.apiCaregiverReminders(link: link)).path).status == .notFound)
            #expect(try await admin.get(CareURL.account(.careReceiver, eleanorID).path).text.contains("Ended by staff"))
            #expect(try await admin.post(CareURL.linkRevoke(link).path).status == .notFound)

            // Disabling signs him out everywhere; re-enabling lets him sign in again.
            #expect(try await admin.post(CareURL.accountDisable(.caregiver, ruthID).path).status == .seeOther)
            #expect(try await ruth.get(SiteURL.care(.apiCaregiverLinks).path).status == .unauthorized)
            let refused = try await AppClient(portal: portal).send(
                .post,
                "/api/v1/caregiver/sessions",
                json: ["email": "ruth@example.org", "password": CareFixtures.password]
            )
            #expect(refused.status == .forbidden)
            #expect(try await admin.post(CareURL.accountEnable(.caregiver, ruthID).path).status == .seeOther)
            #expect(
                try await AppClient(portal: portal).send(
                    .post,
                    "/api/v1/caregiver/sessions",
                    json: ["email": "ruth@example.org", "password": CareFixtures.password]
                ).status == .created
            )

            // Deleting a caregiver keeps what he saw in her log, no longer naming him.
            #expect(try await admin.post(CareURL.accountDelete(.caregiver, ruthID).path).status == .seeOther)
            let log = try await eleanor.get(SiteURL.care(.apiAccessLog).path).object["entries"] as? [[String: Any]] ?? []
            #expect(
                log.count == 1 && log[0]["caregiver_name"] == nil
                    && (log[0]["sentence"] as? String)?.hasPrefix("A caregiver whose account is closed saw your reminders and appointments on ")
                        == true
            )

            // Deleting asks first, then takes everything of hers.
            #expect(try await admin.get(CareURL.accountDelete(.careReceiver, eleanorID).path).text.contains("This cannot be undone"))
            #expect(try await admin.post(CareURL.accountDelete(.careReceiver, eleanorID).path).status == .seeOther)
            let left = try await portal.database.read { db in
                (
                    try await db.count(in: "care_memories"), try await db.count(in: "care_contacts"), try await db.count(in: "care_links"),
                    try await db.count(in: "care_locations"), try await db.count(in: "care_keys")
                )
            }
            #expect(left == (0, 0, 0, 0, 0))
            #expect(try await eleanor.get(SiteURL.care(.apiMemories).path).status == .unauthorized)
            #expect(try await admin.get(CareURL.account(.careReceiver, eleanorID).path).status == .notFound)
            for action in [AuditAction.careLinkRevoked, .careAccountDisabled, .careAccountEnabled] {
                #expect(try await portal.auditEntries(action: action).count == 1, "\(action)")
            }
            #expect(try await portal.auditEntries(action: .careAccountDeleted).count == 2)
        }
    }

    @Test(arguments: TestEngines.all)
    func theSupportDetailsAreCheckedSavedAndShownToTheApps(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.get(CareURL.settings.path).status == .ok)
            let wrong = try await admin.post(CareURL.settings.path, form: [("support_phone", "call us"), ("support_email", "help")])
            #expect(
                wrong.status == .unprocessableContent && wrong.text.contains("href=\"#support_phone\"") && wrong.text.contains("value=\"call us\"")
            )
            #expect(
                try await admin.post(CareURL.settings.path, form: [("support_phone", "0800 555 0199"), ("support_email", "help@example.org")]).status
                    == .seeOther
            )
            let me = try await eleanor.get(SiteURL.care(.apiMe(.careReceiver)).path).object
            #expect((me["support"] as? [String: String]) == ["phone": "0800 555 0199", "email": "help@example.org"])
            #expect(try await portal.auditEntries(action: .careSettingsChanged).count == 1)
        }
    }
}

import Foundation
import HTTPTypes
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Caregivers help only as far as she consents: no link is 404, each scope is checked per route and per
/// field, a change or revocation holds from the next request, and every read is in her access log.
@Suite struct CareConsentTests {
    static func caregiverPaths(link: Int64, memory: Int64) -> [String] {
        [
            SiteURL.care(.apiCaregiverReminders(link: link)).path, SiteURL.care(.apiCaregiverMemories(link: link)).path,
            SiteURL.care(.apiCaregiverMemory(link: link, memory)).path, SiteURL.care(.apiCaregiverLocation(link: link)).path
        ]
    }

    @Test(arguments: TestEngines.all)
    func withoutALinkACaregiverFindsNothingAndACodeWorksOnceForItsHours(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            let (ruth, _) = try await CareFixtures.caregiver(portal)
            let (stranger, _) = try await CareFixtures.caregiver(portal, email: "stranger@example.org", name: "Stranger")
            let memory = try CareFixtures.id(
                try await CareFixtures.memory(eleanor, ["type": "appointment", "title": "Dentist", "category": "health"])
            )
            // No link: every caregiver route is 404, for made-up link numbers too.
            for path in Self.caregiverPaths(link: 1, memory: memory) + Self.caregiverPaths(link: 999, memory: memory) {
                #expect(try await ruth.get(path).status == .notFound, "\(path)")
            }
            #expect(
                try await ruth.send(.post, SiteURL.care(.apiCaregiverPlans(link: 1)).path, json: ["type": "appointment", "title": "x"]).status
                    == .notFound
            )

            // Her code: eight characters from an alphabet without look-alikes, read over the phone.
            let invitation = try await eleanor.send(.post, SiteURL.care(.apiInvitations).path, json: ["scopes": ["reminders"]])
            let code = try #require(invitation.object["code"] as? String)
            #expect(code.count == 9 && code.dropFirst(4).first == "-" && code.allSatisfy { InvitationCode.alphabet.contains($0) || $0 == "-" })
            #expect(try await eleanor.get(SiteURL.care(.apiInvitations).path).text.contains(code) == false, "a code is shown once")
            // Typed in lower case and without the hyphen, it still works; a second time, by anyone, it does not.
            let typed = code.lowercased().replacingOccurrences(of: "-", with: " ")
            let linked = try await ruth.send(.post, SiteURL.care(.apiCaregiverLinks).path, json: ["code": typed])
            #expect(
                linked.status == .created && linked.object["name"] as? String == "Eleanor" && linked.object["scopes"] as? [String] == ["reminders"]
            )
            #expect(try await stranger.send(.post, SiteURL.care(.apiCaregiverLinks).path, json: ["code": code]).status == .unprocessableContent)

            // A code lapses after 72 hours.
            let late = try await eleanor.send(.post, SiteURL.care(.apiInvitations).path, json: ["scopes": ["location"]])
            portal.clock.advance(by: 72 * 3_600 + 1)
            let lateCode = try #require(late.object["code"] as? String)
            #expect(try await stranger.send(.post, SiteURL.care(.apiCaregiverLinks).path, json: ["code": lateCode]).status == .unprocessableContent)

            // Guessing is throttled per caregiver: after five wrong codes in a quarter of an hour even a right one waits.
            let fresh = try await eleanor.send(.post, SiteURL.care(.apiInvitations).path, json: ["scopes": ["location"]])
            for guess in ["AAAA-AAAA", "BBBB-BBBB", "CCCC-CCCC", "DDDD-DDDD"] { // with the lapsed code, five
                #expect(try await stranger.send(.post, SiteURL.care(.apiCaregiverLinks).path, json: ["code": guess]).status == .unprocessableContent)
            }
            let paused = try await stranger.send(
                .post,
                SiteURL.care(.apiCaregiverLinks).path,
                json: ["code": try #require(fresh.object["code"] as? String)]
            )
            #expect(paused.status == .tooManyRequests, "\(paused.text)")

            // A care receiver's token is not a caregiver's, nor the other way round.
            #expect(try await eleanor.get(SiteURL.care(.apiCaregiverLinks).path).status == .unauthorized)
            #expect(try await ruth.get(SiteURL.care(.apiMemories).path).status == .unauthorized)
            #expect(try await eleanor.send(.post, SiteURL.care(.apiInvitations).path, json: ["scopes": ["everything"]]).fieldErrors["scopes"] != nil)
            #expect(
                try await eleanor.send(.post, SiteURL.care(.apiInvitations).path, json: ["scopes": ["memories"]]).fieldErrors["categories"] != nil
            )
        }
    }

    @Test(arguments: TestEngines.all)
    func eachScopeIsCheckedPerRouteAndPerFieldAndSecuredMemoriesNeverShow(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            let (ruth, _) = try await CareFixtures.caregiver(portal)
            try await CareFixtures.unlock(eleanor)
            let dentist = try CareFixtures.id(
                try await CareFixtures.memory(
                    eleanor,
                    [
                        "type": "appointment", "title": "Dentist", "category": "health", "happens_at": "2026-12-01T09:00", "location": "High Street",
                        "description": "Ask about the crown", "tags": ["teeth"], "custom_fields": [["title": "Cost", "content": "£40"]]
                    ]
                )
            )
            let tea = try CareFixtures.id(
                try await CareFixtures.memory(
                    eleanor,
                    [
                        "type": "interaction", "title": "Tea with Ruth", "category": "family", "description": "The garden"
                    ]
                )
            )
            let diary = try CareFixtures.id(
                try await CareFixtures.memory(eleanor, ["type": "simple_memory", "title": "Private thought", "category": "other"])
            )
            let secret = try CareFixtures.id(
                try await CareFixtures.memory(
                    eleanor,
                    [
                        "type": "appointment", "title": "Secret appointment", "category": "family", "secured": true, "happens_at": "2026-12-02T09:00"
                    ]
                )
            )
            let link = try await CareFixtures.link(eleanor, ruth, scopes: ["reminders"])

            // Reminders only: appointments with their time, place and status; no description, tags or custom fields.
            let reminders = try await ruth.get(SiteURL.care(.apiCaregiverReminders(link: link)).path)
            let seen = reminders.object["memories"] as? [[String: Any]] ?? []
            #expect(seen.compactMap { $0["title"] as? String } == ["Dentist"], "a secured appointment is never listed: \(seen)")
            #expect(
                seen.first?["location"] as? String == "High Street" && seen.first?["description"] == nil && seen.first?["tags"] == nil
                    && seen.first?["custom_fields"] == nil && seen.first?["category"] == nil
            )
            #expect(try await ruth.get(SiteURL.care(.apiCaregiverMemories(link: link)).path).errorCode == "not_shared")
            #expect(try await ruth.get(SiteURL.care(.apiCaregiverLocation(link: link)).path).status == .forbidden)
            #expect(
                try await ruth.send(.post, SiteURL.care(.apiCaregiverPlans(link: link)).path, json: ["type": "appointment", "title": "x"]).status
                    == .forbidden
            )
            #expect(try await ruth.get(SiteURL.care(.apiCaregiverMemory(link: link, dentist)).path).object["description"] == nil)
            for hidden in [tea, diary, secret] {
                #expect(try await ruth.get(SiteURL.care(.apiCaregiverMemory(link: link, hidden)).path).status == .notFound)
            }

            // She widens the link: family memories, plans and location. It holds from his next request.
            let widened = try await eleanor.send(
                .put,
                SiteURL.care(.apiLink(link)).path,
                json: [
                    "scopes": ["reminders", "plans", "memories", "location"], "categories": ["family"]
                ]
            )
            #expect(widened.status == .ok, "\(widened.text)")
            let shared = try await ruth.get(SiteURL.care(.apiCaregiverMemories(link: link)).path)
            #expect((shared.object["memories"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["Tea with Ruth"])
            #expect((shared.object["memories"] as? [[String: Any]])?.first?["description"] as? String == "The garden")
            #expect(try await ruth.get(SiteURL.care(.apiCaregiverMemory(link: link, diary)).path).status == .notFound, "not in a shared category")
            #expect(
                try await ruth.get(SiteURL.care(.apiCaregiverMemory(link: link, secret)).path).status == .notFound,
                "secured, though its category is shared"
            )
            let noPlace = try await ruth.get(SiteURL.care(.apiCaregiverLocation(link: link)).path)
            #expect(noPlace.status == .notFound && noPlace.errorCode == "no_location")
            #expect(try await eleanor.send(.put, SiteURL.care(.apiLocation).path, json: ["latitude": 51.5, "longitude": -0.12]).status == .noContent)
            #expect(try await ruth.get(SiteURL.care(.apiCaregiverLocation(link: link)).path).object["latitude"] as? Double == 51.5)

            // He adds a to-do and moves her appointment; her description, tags and fields stay as she wrote them.
            let added = try await ruth.send(
                .post,
                SiteURL.care(.apiCaregiverPlans(link: link)).path,
                json: [
                    "client_id": "ruth-1", "type": "simple_todo", "title": "Take the bins out", "reminder_at": "2026-12-01T19:00", "status": "open"
                ]
            )
            #expect(added.status == .created, "\(added.text)")
            #expect(
                try await ruth.send(
                    .post,
                    SiteURL.care(.apiCaregiverPlans(link: link)).path,
                    json: ["client_id": "ruth-1", "type": "simple_todo", "title": "Take the bins out"]
                ).status == .ok
            )
            #expect(
                try await ruth.send(.post, SiteURL.care(.apiCaregiverPlans(link: link)).path, json: ["type": "website_password", "title": "x"])
                    .fieldErrors["type"] != nil
            )
            #expect(
                try await ruth.send(
                    .post,
                    SiteURL.care(.apiCaregiverPlans(link: link)).path,
                    json: ["type": "appointment", "title": "x", "secured": true]
                ).status == .unprocessableContent
            )
            let moved = try await ruth.send(
                .put,
                SiteURL.care(.apiCaregiverPlan(link: link, dentist)).path,
                json: [
                    "version": 1, "type": "appointment", "title": "Dentist", "happens_at": "2026-12-08T09:00", "location": "High Street",
                    "status": "open",
                    "description": "wiped?"
                ]
            )
            #expect(moved.status == .ok, "\(moved.text)")
            let hers = try await eleanor.get(SiteURL.care(.apiMemory(dentist)).path).object
            #expect(
                hers["happens_at"] as? String == "2026-12-08T09:00" && hers["description"] as? String == "Ask about the crown"
                    && hers["tags"] as? [String] == ["teeth"] && hers["changed_by"] as? String == "caregiver"
            )
            let stale = try await ruth.send(.put, SiteURL.care(.apiCaregiverPlan(link: link, dentist)).path, json: ["version": 1, "title": "Dentist"])
            #expect(
                stale.status == .conflict && (stale.object["current"] as? [String: Any])?["description"] == nil,
                "the conflict shows only what he may see"
            )
            #expect(
                try await ruth.send(.put, SiteURL.care(.apiCaregiverPlan(link: link, tea)).path, json: ["version": 1, "title": "x"]).status
                    == .notFound
            )
            #expect(
                try await ruth.send(.put, SiteURL.care(.apiCaregiverPlan(link: link, secret)).path, json: ["version": 1, "title": "x"]).status
                    == .notFound
            )

            // Her access log names every read, in her words.
            let log = try await eleanor.get(SiteURL.care(.apiAccessLog).path)
            let sentences = (log.object["entries"] as? [[String: Any]] ?? []).compactMap { $0["sentence"] as? String }
            #expect(sentences.contains { $0.hasPrefix("Ruth saw your reminders and appointments on ") })
            #expect(sentences.filter { $0.hasPrefix("Ruth saw where you are on ") }.count == 1, "asking when there was no location showed nothing")
            #expect(sentences.contains { $0.hasPrefix("Ruth saw your shared memories on ") })

            // She revokes: his very next request finds nothing, and the link's history says who did what.
            #expect(try await eleanor.send(.delete, SiteURL.care(.apiLink(link)).path).status == .noContent)
            for path in Self.caregiverPaths(link: link, memory: dentist) {
                #expect(try await ruth.get(path).status == .notFound, "\(path) after revocation")
            }
            #expect((try await ruth.get(SiteURL.care(.apiCaregiverLinks).path).object["links"] as? [Any])?.isEmpty == true)
            let links = try await eleanor.get(SiteURL.care(.apiLinks).path).object["links"] as? [[String: Any]] ?? []
            let history = (links.first?["history"] as? [[String: Any]] ?? []).compactMap { "\($0["event"] ?? "") by \($0["by"] ?? "")" }
            #expect(history == ["granted by care_receiver", "changed by care_receiver", "revoked by care_receiver"])
            #expect(try await portal.outboxMessages().last?.recipient == "ruth@example.org", "he is told the link has ended")
            #expect(try await eleanor.send(.delete, SiteURL.care(.apiLink(link)).path).status == .notFound)
        }
    }
}

import Foundation
import HTTPTypes
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// A care receiver's account, her memories and contacts, search, and offline-first sync: versions,
/// `client_id` idempotency, 409 with the record as it is, and the changes feed with deletions.
@Suite struct CareMemoriesTests {
    static var memories: String { SiteURL.care(.apiMemories).path }
    static func memory(_ id: Int64) -> String { SiteURL.care(.apiMemory(id)).path }

    @Test(arguments: TestEngines.all)
    func anAccountOpensOnlyThroughTheEmailedLinkAndRegistrationTellsStrangersNothing(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let register = SiteURL.care(.apiRegistrations(.careReceiver)).path
            let body: [String: Any] = ["email": "Eleanor@Example.org", "password": CareFixtures.password, "name": "Eleanor"]
            let first = try await AppClient(portal: portal).send(.post, register, json: body)
            #expect(first.status == .accepted)
            // Before the link is followed, the right password opens nothing.
            let early = try await AppClient(portal: portal).send(
                .post,
                "/api/v1/care/sessions",
                json: ["email": "eleanor@example.org", "password": CareFixtures.password]
            )
            #expect(early.status == .forbidden && early.errorCode == "account_not_active")
            let token = try await CareFixtures.confirmationToken(portal, to: "Eleanor@Example.org")
            let stored = try await portal.database.read { db in
                try await db.select().column("token_hash").from("care_confirmations").all().map {
                    try $0.decode(column: "token_hash", as: String.self)
                }
            }
            #expect(stored == [SecretToken.hash(token)], "only the link's hash is kept")

            // The page the link opens asks before confirming, so a mail scanner that follows links confirms nothing.
            var browser = Visitor(portal: portal)
            let page = try await browser.get("\(CareURL.confirm.path)?token=\(token)")
            #expect(page.status == .ok && page.text.contains("Confirm my email address"))
            #expect(
                try await portal.database.read { db in try await CareRepository().account(kind: .careReceiver, email: "eleanor@example.org", on: db)
                }?.status == .unconfirmed
            )
            let confirmed = try await browser.post(CareURL.confirm.path, form: [("token", token)])
            #expect(confirmed.status == .ok && confirmed.text.contains("your email address is confirmed"))
            let again = try await browser.post(CareURL.confirm.path, form: [("token", token)])
            #expect(again.status == .unprocessableContent && again.text.contains("expired or has already been used"))
            let session = try await AppClient(portal: portal).send(
                .post,
                "/api/v1/care/sessions",
                json: ["email": "ELEANOR@example.org", "password": CareFixtures.password]
            )
            #expect(session.status == .created)
            #expect((session.object["account"] as? [String: Any])?["has_pin"] as? Bool == false)

            // Registering the address again answers the same, and only its owner hears of it.
            let before = try await portal.outboxMessages().count
            let second = try await AppClient(portal: portal).send(.post, register, json: body)
            #expect(second.status == .accepted && second.text == first.text)
            let note = try #require(try await portal.outboxMessages().last)
            #expect(
                try await portal.outboxMessages().count == before + 1 && note.subject.contains("tried to register")
                    && !note.bodyText.contains("token=")
            )
            // The same address may be a caregiver too: the kinds are separate accounts.
            let caregiver = try await AppClient(portal: portal).send(.post, SiteURL.care(.apiRegistrations(.caregiver)).path, json: body)
            #expect(caregiver.status == .accepted)
            #expect(try await portal.outboxMessages().last?.bodyText.contains("caregiver account") == true)

            let bad = try await AppClient(portal: portal).send(.post, register, json: ["email": "not-an-address", "password": "short", "name": ""])
            #expect(bad.status == .unprocessableContent && Set(bad.fieldErrors.keys) == ["email", "password", "name"])
        }
    }

    @Test(arguments: TestEngines.all)
    func memoriesAreMadeChangedAndDeletedWithVersionsAndEveryProblemIsSaidByField(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            let (arthur, _) = try await CareFixtures.receiver(portal, email: "arthur@example.org", name: "Arthur")
            let contact = try await eleanor.send(
                .post,
                SiteURL.care(.apiContacts).path,
                json: [
                    "name": "Dr Hannah Lee", "phones": ["01632 960456"], "email": "hannah@example.org", "company": "Health Centre"
                ]
            )
            #expect(contact.status == .created, "\(contact.text)")
            let contactID = try CareFixtures.id(contact.object)

            let wrong = try await eleanor.send(
                .post,
                Self.memories,
                json: [
                    "type": "appointment", "title": "", "category": "sport", "happens_at": "tomorrow", "recurrence": "weekly",
                    "custom_fields": [["title": "", "content": "x"]], "people": [999], "fields": ["password": "x"], "items": [["text": "a"]]
                ]
            )
            #expect(wrong.status == .unprocessableContent)
            #expect(
                Set(wrong.fieldErrors.keys) == [
                    "title", "category", "happens_at", "recurrence", "recurrence_days", "custom_fields.0.title", "people", "fields.password", "items"
                ],
                "\(wrong.fieldErrors)"
            )
            #expect((try await eleanor.get(Self.memories).object["memories"] as? [Any])?.isEmpty == true)
            #expect(try await eleanor.send(.post, Self.memories, json: ["title": "No type"]).fieldErrors.keys.contains("type"))

            let made = try await CareFixtures.memory(
                eleanor,
                [
                    "client_id": "phone-1", "type": "appointment", "title": "Check-up with Dr Lee", "category": "health",
                    "happens_at": "2026-12-03T10:30", "reminder_at": "2026-12-03T09:00", "status": "open", "tags": ["Doctor"],
                    "location": "Health Centre", "emoji": "🩺", "description": "Bring the list of tablets.",
                    "custom_fields": [["title": "Room", "content": "Room 4"]], "people": [contactID]
                ]
            )
            let id = try CareFixtures.id(made)
            #expect(made["version"] as? Int == 1 && made["people"] as? [Int] == [Int(contactID)] && made["changed_by"] as? String == "care_receiver")
            #expect((made["custom_fields"] as? [[String: String]])?.first?["content"] == "Room 4")

            // Sent again after a lost answer, the same client id makes nothing new.
            let resent = try await eleanor.send(
                .post,
                Self.memories,
                json: ["client_id": "phone-1", "type": "appointment", "title": "Check-up with Dr Lee"]
            )
            let resentID = try CareFixtures.id(resent.object)
            #expect(resent.status == .ok && resentID == id)
            // Another person's ids and memories are not hers: 404, and her client ids are hers alone.
            #expect(try await arthur.get(Self.memory(id)).status == .notFound)
            #expect(
                try await arthur.send(.post, Self.memories, json: ["client_id": "phone-1", "type": "simple_memory", "title": "Mine"]).status
                    == .created
            )
            #expect(try await arthur.send(.put, Self.memory(id), json: ["version": 1, "type": "appointment", "title": "Taken"]).status == .notFound)
            #expect(try await arthur.send(.delete, Self.memory(id)).status == .notFound)
            #expect(
                try await arthur.send(.post, Self.memories, json: ["type": "simple_memory", "title": "x", "people": [contactID]]).fieldErrors[
                    "people"
                ] != nil
            )

            // A change at the version read; the next change from the old version is refused with the memory as it is.
            let changed = try await eleanor.send(
                .put,
                Self.memory(id),
                json: [
                    "version": 1, "title": "Check-up with Dr Lee (moved)", "category": "health", "happens_at": "2026-12-04T10:30", "status": "open"
                ]
            )
            #expect(changed.status == .ok && changed.object["version"] as? Int == 2 && changed.object["type"] as? String == "appointment")
            let stale = try await eleanor.send(.put, Self.memory(id), json: ["version": 1, "title": "From the other phone", "category": "health"])
            #expect(stale.status == .conflict && stale.errorCode == "version_conflict")
            let current = try #require(stale.object["current"] as? [String: Any])
            #expect(current["title"] as? String == "Check-up with Dr Lee (moved)" && current["version"] as? Int == 2)
            #expect(try await eleanor.send(.put, Self.memory(id), json: ["title": "No version"]).fieldErrors["version"] != nil)

            // Deleting at a stale version is refused too (the largest version there is as well); at the version read it goes.
            #expect(try await eleanor.send(.delete, "\(Self.memory(id))?version=1").status == .conflict)
            #expect(try await eleanor.send(.delete, "\(Self.memory(id))?version=9223372036854775807").status == .conflict)
            #expect(try await eleanor.send(.delete, "\(SiteURL.care(.apiContact(contactID)).path)?version=9223372036854775807").status == .conflict)
            // Control characters are refused by field, and searched for in vain.
            let nul = try await eleanor.send(.post, Self.memories, json: ["type": "simple_memory", "title": "a\u{0}b", "description": "two\nlines"])
            #expect(nul.status == .unprocessableContent && nul.fieldErrors.keys.sorted() == ["title"], "\(nul.text)")
            #expect(try await eleanor.send(.post, SiteURL.care(.apiContacts).path, json: ["name": "a\u{0}b"]).fieldErrors["name"] != nil)
            #expect(try await eleanor.get("\(Self.memories)?q=%00").status == .ok)
            // The joiners an emoji or a name is made with are not control characters; one emoji is one.
            #expect(try await eleanor.send(.post, Self.memories, json: ["type": "simple_memory", "title": "Family", "emoji": "👨‍👩‍👧"]).status == .created)
            #expect(try await eleanor.send(.post, SiteURL.care(.apiContacts).path, json: ["name": "José\u{200B}María"]).status == .created)
            #expect(
                try await eleanor.send(.post, Self.memories, json: ["type": "simple_memory", "title": "Love", "emoji": "❤️❤️❤️"]).fieldErrors["emoji"]
                    != nil
            )
            // The client ids the server gives records without one are not for apps to choose.
            #expect(
                try await eleanor.send(.post, Self.memories, json: ["client_id": "careportal-memory-1", "type": "simple_memory", "title": "x"])
                    .fieldErrors["client_id"] != nil
            )
            #expect(try await eleanor.send(.delete, "\(Self.memory(id))?version=2").status == .noContent)
            #expect(try await eleanor.get(Self.memory(id)).status == .notFound)
            let afterDelete = try await eleanor.send(.put, Self.memory(id), json: ["version": 3, "title": "Back?", "category": "health"])
            #expect(afterDelete.status == .conflict && (afterDelete.object["current"] as? [String: Any])?["deleted"] as? Bool == true)
            // Its words are gone from storage, not only hidden.
            let kept = try await portal.database.read { db in
                try await db.select().columns("title", "description", "search_text").from("care_memories").where("id", .equal, id).first()
            }
            #expect(try kept?.decode(column: "title", as: String.self) == "" && kept?.decode(column: "description", as: String.self) == "")
            let words = try await portal.database.read { db in try await db.count(in: "care_memory_words") { $0.where("memory_id", .equal, id) } }
            #expect(words == 0, "nor are they left in her search")
        }
    }

    @Test(arguments: TestEngines.all)
    func changesSinceACursorCarryEveryChangeOnceDeletionsIncludedAcrossPages(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            var ids: [Int64] = []
            for number in 1...5 {
                ids.append(
                    try CareFixtures.id(
                        try await CareFixtures.memory(eleanor, ["type": "simple_memory", "title": "Memory \(number)", "category": "home"])
                    )
                )
            }
            let contact = try await eleanor.send(.post, SiteURL.care(.apiContacts).path, json: ["name": "Tom", "client_id": "c-1"])
            let contactID = try CareFixtures.id(contact.object)
            let everything = try await eleanor.get("\(SiteURL.care(.apiChanges).path)")
            #expect((everything.object["memories"] as? [Any])?.count == 5 && (everything.object["contacts"] as? [Any])?.count == 1)
            let cursor = try #require(everything.object["cursor"] as? String)
            #expect(everything.object["has_more"] as? Bool == false)
            // Nothing new: nothing returned, the cursor stays.
            let quiet = try await eleanor.get("\(SiteURL.care(.apiChanges).path)?since=\(cursor)")
            #expect((quiet.object["memories"] as? [Any])?.isEmpty == true && quiet.object["cursor"] as? String == cursor)

            // A change, a deletion and a contact deleted (which also changes a memory that named it).
            _ = try await eleanor.send(
                .put,
                Self.memory(ids[0]),
                json: ["version": 1, "title": "Memory 1, changed", "category": "home", "people": [contactID]]
            )
            #expect(try await eleanor.send(.delete, Self.memory(ids[1])).status == .noContent)
            #expect(try await eleanor.send(.delete, SiteURL.care(.apiContact(contactID)).path).status == .noContent)
            var seenMemories: [[String: Any]] = []
            var seenContacts: [[String: Any]] = []
            var since = cursor
            var pages = 0
            repeat {
                let page = try await eleanor.get("\(SiteURL.care(.apiChanges).path)?since=\(since)&limit=1")
                #expect(page.status == .ok, "\(page.text)")
                seenMemories += page.object["memories"] as? [[String: Any]] ?? []
                seenContacts += page.object["contacts"] as? [[String: Any]] ?? []
                since = try #require(page.object["cursor"] as? String)
                pages += 1
                if page.object["has_more"] as? Bool != true { break }
            } while pages < 20
            // Memory 1 changed twice (her change, then the contact's removal): the feed gives it as it is now.
            let memoryIDs = seenMemories.compactMap { $0["id"] as? Int }
            #expect(Set(memoryIDs) == [Int(ids[0]), Int(ids[1])], "\(seenMemories)")
            let latest = try #require(seenMemories.last { $0["id"] as? Int == Int(ids[0]) })
            #expect(latest["people"] as? [Int] == [] && latest["version"] as? Int == 3)
            #expect(seenMemories.contains { $0["id"] as? Int == Int(ids[1]) && $0["deleted"] as? Bool == true && $0["title"] == nil })
            #expect(seenContacts.count == 1 && seenContacts[0]["deleted"] as? Bool == true && seenContacts[0]["name"] == nil)

            #expect(try await eleanor.get("\(SiteURL.care(.apiChanges).path)?since=-1").status == .badRequest)
            #expect(try await eleanor.get("\(SiteURL.care(.apiChanges).path)?limit=0").status == .badRequest)
        }
    }

    /// One tag or one word is read from its own index in her list's order: every page as the list would
    /// show it, and a memory's new time or its deletion followed at once.
    @Test(arguments: TestEngines.all)
    func aTagsOrAWordsMemoriesComePageByPageInHerListsOrder(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            var made: [(id: Int64, title: String, happensAt: String)] = []
            for n in 0..<55 {
                // Times out of order, some shared, every fifth undated (last in the list).
                let happensAt = n % 5 == 0 ? "" : String(format: "2026-%02d-%02dT09:00", 1 + (n * 7) % 12, 1 + n % 3)
                var body: [String: Any] = ["type": "simple_memory", "title": "Walk \(n)", "category": "hobbies", "tags": ["Walks"]]
                if !happensAt.isEmpty { body["happens_at"] = happensAt }
                made.append((try CareFixtures.id(try await CareFixtures.memory(eleanor, body)), "Walk \(n)", happensAt))
            }
            try await CareFixtures.memory(eleanor, ["type": "simple_memory", "title": "Swim", "category": "hobbies", "tags": ["swims"]])
            func titles(_ query: String) async throws -> [String] {
                var titles: [String] = []
                for page in 1...2 {
                    let answer = try await eleanor.get("\(Self.memories)?\(query)&page=\(page)").object
                    let memories = answer["memories"] as? [[String: Any]] ?? []
                    #expect(page == 2 || (memories.count == 50 && answer["has_more"] as? Bool == true), "\(query), page \(page)")
                    titles += memories.compactMap { $0["title"] as? String }
                }
                return titles
            }
            func inListOrder() -> [String] {
                made.sorted { ($0.happensAt, $0.id) > ($1.happensAt, $1.id) }.map(\.title)
            }
            #expect(try await titles("tag=walks") == inListOrder())
            #expect(try await titles("q=walk") == inListOrder())
            // Two words: the longer one's index read in order, the other looked up for each.
            let ones = try await eleanor.get("\(Self.memories)?q=1%20walk").object["memories"] as? [[String: Any]]
            #expect(ones?.compactMap { $0["title"] as? String } == inListOrder().filter { $0.hasPrefix("Walk 1") })

            // A new time moves it; a deleted one is gone.
            let moved = made[10]
            let version = try #require(try await eleanor.get(SiteURL.care(.apiMemory(moved.id)).path).object["version"] as? Int)
            let changed = try await eleanor.send(
                .put,
                SiteURL.care(.apiMemory(moved.id)).path,
                json: [
                    "version": version, "type": "simple_memory", "title": moved.title, "category": "hobbies", "tags": ["Walks"],
                    "happens_at": "2027-06-01T10:00"
                ]
            )
            #expect(changed.status == .ok, "\(changed.text)")
            made[10].happensAt = "2027-06-01T10:00"
            #expect(try await eleanor.send(.delete, SiteURL.care(.apiMemory(made[3].id)).path).status == .noContent)
            made.remove(at: 3)
            #expect(try await titles("tag=walks").first == moved.title)
            #expect(try await titles("tag=walks") == inListOrder())
            #expect(try await titles("q=walk") == inListOrder())
        }
    }

    @Test(arguments: TestEngines.all)
    func searchAndFiltersFindHerPlainMemoriesByWordsCategoryTypeTagAndTime(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            try await CareFixtures.unlock(eleanor)
            try await CareFixtures.memory(
                eleanor,
                ["type": "appointment", "title": "Dentist", "category": "health", "happens_at": "2026-12-01T09:00", "tags": ["Teeth"]]
            )
            try await CareFixtures.memory(
                eleanor,
                [
                    "type": "interaction", "title": "Tea with Ruth", "category": "family", "happens_at": "2026-11-20T15:00",
                    "description": "We talked about the garden", "tags": ["family"]
                ]
            )
            try await CareFixtures.memory(
                eleanor,
                [
                    "type": "simple_memory", "title": "Spare key", "category": "home",
                    "custom_fields": [["title": "Where", "content": "blue garden pot"]]
                ]
            )
            try await CareFixtures.memory(
                eleanor,
                [
                    "type": "website_password", "title": "Garden club website", "category": "hobbies",
                    "fields": ["website": "garden.example", "password": "garden-secret"]
                ]
            )
            func titles(_ query: String) async throws -> [String] {
                let page = try await eleanor.get("\(Self.memories)\(query)")
                #expect(page.status == .ok, "\(query): \(page.text)")
                return (page.object["memories"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
            }
            // Her list: latest first, undated last; the secured one opened because her PIN is in.
            #expect(try await titles("") == ["Dentist", "Tea with Ruth", "Garden club website", "Spare key"])
            #expect(
                try await titles("?q=garden") == ["Tea with Ruth", "Spare key"],
                "words in descriptions and custom fields, never in a secured memory"
            )
            #expect(try await titles("?q=GARDEN%20pot") == ["Spare key"])
            #expect(try await titles("?q=100%25") == [])
            #expect(try await titles("?q=gard") == ["Tea with Ruth", "Spare key"], "a word typed finds the words it starts")
            #expect(try await titles("?q=arden") == [], "but not the middle of a word")
            #expect(try await titles("?q=%25%25") == [], "punctuation alone finds nothing")
            #expect(try await titles("?q=pot&category=home") == ["Spare key"])
            #expect(try await titles("?q=pot&category=family") == [])
            #expect(try await titles("?category=health") == ["Dentist"])
            #expect(try await titles("?type=interaction") == ["Tea with Ruth"])
            #expect(try await titles("?tag=teeth") == ["Dentist"])
            #expect(try await titles("?from=2026-11-25") == ["Dentist"])
            #expect(try await titles("?from=2026-11-01&to=2026-11-30") == ["Tea with Ruth"])
            let bad = try await eleanor.get("\(Self.memories)?category=sport&type=diary&from=yesterday&page=0")
            #expect(bad.status == .badRequest && bad.errorCode == "invalid_query")

            // Contacts: search by name, and each with the memories that name them.
            let tom = try await eleanor.send(.post, SiteURL.care(.apiContacts).path, json: ["name": "Tom Neighbour", "phones": ["07700 900789"]])
            let tomID = try CareFixtures.id(tom.object)
            _ = try await eleanor.send(.post, SiteURL.care(.apiContacts).path, json: ["name": "Dr Lee"])
            try await CareFixtures.memory(eleanor, ["type": "simple_memory", "title": "Tom has the key", "category": "home", "people": [tomID]])
            let found = try await eleanor.get("\(SiteURL.care(.apiContacts).path)?q=neighb")
            #expect((found.object["contacts"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Tom Neighbour"])
            let detail = try await eleanor.get(SiteURL.care(.apiContact(tomID)).path)
            #expect((detail.object["memories"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["Tom has the key"])
            let badContact = try await eleanor.send(
                .post,
                SiteURL.care(.apiContacts).path,
                json: ["name": "", "phones": ["call me"], "email": "nope"]
            )
            #expect(Set(badContact.fieldErrors.keys) == ["name", "phones.0", "email"])
        }
    }
}

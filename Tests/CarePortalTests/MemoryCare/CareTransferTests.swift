import Foundation
import HTTPTypes
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Export and import (§4.1.7.1): one documented, versioned format; everything she owns, secured memories
/// only after her PIN; an import checks everything first and changes nothing unless all of it is right.
@Suite struct CareTransferTests {
    static var export: String { SiteURL.care(.apiExport).path }
    static var importPath: String { SiteURL.care(.apiImport).path }

    static func counts(_ portal: TestPortal) async throws -> [Int] {
        try await portal.database.read { db in
            [try await db.count(in: "care_memories"), try await db.count(in: "care_contacts"), try await db.count(in: "care_memory_people")]
        }
    }

    /// The document without the moment it was made and with its records by client id, for comparing two exports.
    static func withoutTime(_ object: [String: Any]) -> NSDictionary {
        var object = object
        object["exported_at"] = nil
        for key in ["memories", "contacts"] {
            object[key] = (object[key] as? [[String: Any]] ?? []).sorted { ($0["client_id"] as? String ?? "") < ($1["client_id"] as? String ?? "") }
        }
        return object as NSDictionary
    }

    @Test(arguments: TestEngines.all)
    func anExportImportsWholeIntoAnotherAccountAndImportingItAgainChangesNothing(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            let (copy, _) = try await CareFixtures.receiver(portal, email: "eleanor.new@example.org", name: "Eleanor")
            try await CareFixtures.unlock(eleanor)
            let tom = try CareFixtures.id(
                try await eleanor.send(.post, SiteURL.care(.apiContacts).path, json: ["name": "Tom", "phones": ["07700 900789"]]).object
            )
            _ = try await eleanor.send(
                .post,
                SiteURL.care(.apiContacts).path,
                json: ["client_id": "phone-contact-1", "name": "Dr Lee", "email": "lee@example.org"]
            )
            try await CareFixtures.memory(
                eleanor,
                [
                    "client_id": "phone-7", "type": "todo_list", "title": "Shopping", "category": "errands", "reminder_at": "2026-12-01T10:00",
                    "recurrence": "weekly", "recurrence_days": ["mon", "thu"], "status": "open",
                    "items": [["text": "Milk", "done": true], ["text": "Bread", "done": false]], "tags": ["shops"]
                ]
            )
            try await CareFixtures.memory(
                eleanor,
                [
                    "type": "interaction", "title": "Tom fixed the gate", "category": "home", "people": [tom], "emoji": "🔧",
                    "custom_fields": [["title": "Cost", "content": "A cake"]]
                ]
            )
            try await CareFixtures.memory(
                eleanor,
                ["type": "credit_card", "title": "Visa", "category": "money", "fields": ["number": "4111 1111 1111 1111"]]
            )

            // Without her PIN, the secured memory is left out and the file says so.
            let other = try await AppClient(portal: portal).send(
                .post,
                "/api/v1/care/sessions",
                json: ["email": "eleanor@example.org", "password": CareFixtures.password]
            )
            let locked = try await AppClient(portal: portal, token: other.object["token"] as? String).get(Self.export).object
            #expect(
                (locked["memories"] as? [Any])?.count == 2 && locked["secured_left_out"] as? Int == 1 && locked["secured_included"] as? Bool == false
            )

            let response = try await eleanor.get(Self.export)
            #expect(response.status == .ok && response.headers[.contentDisposition]?.contains("attachment") == true)
            let exported = response.object
            #expect(
                exported["format"] as? String == CareTransfer.format && exported["version"] as? Int == 1
                    && exported["secured_included"] as? Bool == true
            )
            let memories = exported["memories"] as? [[String: Any]] ?? []
            #expect(
                memories.count == 3
                    && memories.contains { $0["secured"] as? Bool == true && ($0["fields"] as? [String: String])?["number"] == "4111 1111 1111 1111" }
            )
            let gate = try #require(memories.first { $0["title"] as? String == "Tom fixed the gate" })
            #expect((gate["people"] as? [String])?.first?.hasPrefix("careportal-contact-") == true, "people are named by their client ids")

            // Into another account: all of it, and her export of it is the same document.
            try await CareFixtures.unlock(copy)
            let imported = try await copy.send(.post, Self.importPath, raw: response.text)
            #expect(imported.status == .ok, "\(imported.text)")
            #expect(imported.object["memories_added"] as? Int == 3 && imported.object["contacts_added"] as? Int == 2)
            #expect(Self.withoutTime(try await copy.get(Self.export).object) == Self.withoutTime(exported))

            // Again, into either account: nothing changes.
            let before = try await Self.counts(portal)
            for client in [copy, eleanor] {
                let again = try await client.send(.post, Self.importPath, raw: response.text)
                #expect(again.object["memories_added"] as? Int == 0 && again.object["contacts_added"] as? Int == 0, "\(again.text)")
                #expect(again.object["memories_already_there"] as? Int == 3)
            }
            #expect(try await Self.counts(portal) == before)
        }
    }

    @Test(arguments: TestEngines.all)
    func anImportWithAnyProblemSaysEachByPathAndChangesNothing(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            let before = try await Self.counts(portal)
            let document: [String: Any] = [
                "format": CareTransfer.format, "version": 1,
                "contacts": [["client_id": "c1", "name": "Tom"], ["client_id": "c2", "name": "", "phones": ["ring me"]]],
                "memories": [
                    ["client_id": "m1", "type": "simple_memory", "title": "Fine", "category": "home", "people": ["c1"]],
                    ["client_id": "m2", "type": "appointment", "title": "", "category": "sport", "happens_at": "soon"],
                    ["client_id": "m1", "type": "simple_memory", "title": "Twice", "category": "home"],
                    ["client_id": "m4", "type": "simple_memory", "title": "Who?", "category": "home", "people": ["c9"]],
                    ["client_id": "m5", "type": "bank_account", "title": "Bank", "category": "money"],
                    ["client_id": "m6", "type": "diary", "title": "x", "category": "home"]
                ]
            ]
            let refused = try await eleanor.send(.post, Self.importPath, json: document)
            #expect(refused.status == .unprocessableContent)
            #expect(
                Set(refused.fieldErrors.keys) == [
                    "contacts.1.name", "contacts.1.phones.0", "memories.1.title", "memories.1.category", "memories.1.happens_at",
                    "memories.2.client_id",
                    "memories.3.people.0", "memories.4.secured", "memories.5.type"
                ],
                "\(refused.fieldErrors)"
            )
            #expect(try await Self.counts(portal) == before, "nothing of it was written")

            #expect(
                try await eleanor.send(.post, Self.importPath, json: ["format": "something else", "version": 2]).fieldErrors.keys.sorted()
                    == ["contacts", "format", "memories", "version"]
            )
            // A contact she deleted stays deleted: a memory naming it comes in naming nobody.
            let gone = try CareFixtures.id(
                try await eleanor.send(.post, SiteURL.care(.apiContacts).path, json: ["client_id": "gone", "name": "Gone"]).object
            )
            #expect(try await eleanor.send(.delete, SiteURL.care(.apiContact(gone)).path).status == .noContent)
            let withGone = try await eleanor.send(
                .post,
                Self.importPath,
                json: [
                    "format": CareTransfer.format, "version": 1, "contacts": [["client_id": "gone", "name": "Gone"]],
                    "memories": [["client_id": "names-gone", "type": "simple_memory", "title": "Who?", "category": "home", "people": ["gone"]]]
                ]
            )
            #expect(withGone.object["contacts_already_there"] as? Int == 1 && withGone.object["memories_added"] as? Int == 1, "\(withGone.text)")
            let export = try await eleanor.get(Self.export).object
            #expect((export["memories"] as? [[String: Any]])?.first?["people"] as? [String] == [])
            #expect(export["secured_included"] as? Bool == true, "nothing of hers is secured, so nothing was left out")
            let notJSON = try await eleanor.send(.post, Self.importPath, raw: "{\"memories\": 3}")
            #expect(notJSON.status == .badRequest && notJSON.errorCode == "invalid_request")
        }
    }

    /// The documented format names exactly the templates and categories the server takes.
    @Test func theSchemaFileNamesWhatTheServerTakes() throws {
        let url = URL(fileURLWithPath: TestPortal.resourcesDirectory).appendingPathComponent("api/care-export.schema.json")
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let memory = try #require(((schema["$defs"] as? [String: Any])?["memory"] as? [String: Any])?["properties"] as? [String: Any])
        #expect((memory["type"] as? [String: Any])?["enum"] as? [String] == MemoryType.allCases.map(\.rawValue))
        #expect((memory["category"] as? [String: Any])?["enum"] as? [String] == MemoryCategory.allCases.map(\.rawValue))
        #expect((memory["status"] as? [String: Any])?["enum"] as? [String] == MemoryStatus.allCases.map(\.rawValue))
        #expect((memory["recurrence"] as? [String: Any])?["enum"] as? [String] == Recurrence.allCases.map(\.rawValue))
        let properties = try #require(schema["properties"] as? [String: Any])
        #expect((properties["format"] as? [String: Any])?["const"] as? String == CareTransfer.format)
        #expect((properties["version"] as? [String: Any])?["const"] as? Int == CareTransfer.version)
    }
}

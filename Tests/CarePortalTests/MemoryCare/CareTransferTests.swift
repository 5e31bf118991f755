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
    func herPicturesPDFsAndPhotosTravelInTheExportAndASecuredOnesComeBackSealed(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            let (copy, copyID) = try await CareFixtures.receiver(portal, email: "eleanor.new@example.org", name: "Eleanor")
            try await CareFixtures.unlock(eleanor)
            let tom = try CareFixtures.id(try await eleanor.send(.post, SiteURL.care(.apiContacts).path, json: ["name": "Tom"]).object)
            let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 9, count: 60)
            let photo = try await eleanor.sendFile(
                .put,
                SiteURL.care(.apiContactPhoto(tom)).path,
                field: "photo",
                filename: "tom.jpg",
                type: "image/jpeg",
                bytes: jpeg
            )
            #expect(photo.status == .ok)
            let wedding = try CareFixtures.id(
                try await CareFixtures.memory(eleanor, ["type": "simple_memory", "title": "Wedding", "category": "family", "people": [tom]])
            )
            let letter = try CareFixtures.id(
                try await CareFixtures.memory(eleanor, ["type": "generic_memory", "title": "Bank letter", "category": "money", "secured": true])
            )
            let secret = UploadsTests.png + Array("ACCOUNT 12345678".utf8)
            for (memory, name, type, bytes) in [
                (wedding, "wedding.png", "image/png", UploadsTests.png), (wedding, "menu.pdf", "application/pdf", CareFilesTests.pdf),
                (letter, "statement.png", "image/png", secret)
            ] {
                let sent = try await eleanor.sendFile(
                    .post,
                    SiteURL.care(.apiMemoryFiles(memory)).path,
                    field: "file",
                    filename: name,
                    type: type,
                    bytes: bytes
                )
                #expect(sent.status == .created, "\(sent.text)")
            }

            // A file sealed while its memory was secured stays sealed when the memory is made plain again.
            let once = try await CareFixtures.memory(
                eleanor,
                ["type": "simple_memory", "title": "Once secret", "category": "home", "secured": true]
            )
            let onceID = try CareFixtures.id(once)
            let sealedThen = UploadsTests.png + Array("ONCE".utf8)
            #expect(
                try await eleanor.sendFile(
                    .post,
                    SiteURL.care(.apiMemoryFiles(onceID)).path,
                    field: "file",
                    filename: "once.png",
                    type: "image/png",
                    bytes: sealedThen
                ).status == .created
            )
            let plainAgain = try await eleanor.send(
                .put,
                SiteURL.care(.apiMemory(onceID)).path,
                json: ["version": once["version"] as? Int ?? 0, "type": "simple_memory", "title": "Once secret", "category": "home", "secured": false]
            )
            #expect(plainAgain.status == .ok, "\(plainAgain.text)")

            // Each file whole, in base64, in its record; a secured memory's only with it.
            let response = try await eleanor.get(Self.export)
            #expect(response.status == .ok && response.headers[.contentType] == "application/json; charset=utf-8")
            let exported = response.object
            let memories = exported["memories"] as? [[String: Any]] ?? []
            func files(_ title: String) -> [[String: String]] {
                memories.first { $0["title"] as? String == title }?["files"] as? [[String: String]] ?? []
            }
            #expect(
                files("Wedding") == [
                    ["name": "wedding.png", "content_type": "image/png", "data": Data(UploadsTests.png).base64EncodedString()],
                    ["name": "menu.pdf", "content_type": "application/pdf", "data": Data(CareFilesTests.pdf).base64EncodedString()]
                ]
            )
            #expect(files("Bank letter") == [["name": "statement.png", "content_type": "image/png", "data": Data(secret).base64EncodedString()]])
            #expect(
                (exported["contacts"] as? [[String: Any]])?.first?["photo"] as? [String: String]
                    == ["name": "tom.jpg", "content_type": "image/jpeg", "data": Data(jpeg).base64EncodedString()]
            )
            let other = try await AppClient(portal: portal).send(
                .post,
                "/api/v1/care/sessions",
                json: ["email": "eleanor@example.org", "password": CareFixtures.password]
            )
            let locked = try await AppClient(portal: portal, token: other.object["token"] as? String).get(Self.export)
            #expect(!locked.text.contains(Data(secret).base64EncodedString()) && locked.text.contains(Data(UploadsTests.png).base64EncodedString()))
            #expect(locked.text.contains(Data(sealedThen).base64EncodedString()), "a plain memory's file sealed when it was secured is in it")

            // Into another account: the same files, the secured one sealed under her own key.
            try await CareFixtures.unlock(copy)
            let store = MemoryCare(portal: portal.portal).fileStore
            let keptBefore = try await UploadsTests.kept(store)
            let imported = try await copy.send(.post, Self.importPath, raw: response.text)
            #expect(imported.status == .ok, "\(imported.text)")
            #expect(Self.withoutTime(try await copy.get(Self.export).object) == Self.withoutTime(exported))
            let keptAfter = try await UploadsTests.kept(store)
            #expect(keptAfter.count == keptBefore.count + 5 && keptAfter.filter { $0.hasSuffix(".sealed") }.count == 3)
            let sealed = try await portal.database.read { db in
                try await db.select().column("name").from("care_files").where("receiver_id", .equal, copyID).where("sealed", .equal, 1).all().map {
                    try $0.decode(column: "name", as: String.self)
                }
            }
            #expect(sealed.count == 1 && !sealed[0].contains("statement"), "the secured memory's file and its name are sealed")
            let copied = try await copy.get(SiteURL.care(.apiMemories).path).object["memories"] as? [[String: Any]]
            let copiedLetter = Int64(try #require(copied?.first { $0["secured"] as? Bool == true }?["id"] as? Int))
            let url = try #require(try await CareFilesTests.files(copy, copiedLetter).first?["url"] as? String)
            #expect(Array(try await copy.get(url).response.body.readableBytesView) == secret)

            // Again: nothing more is stored.
            let again = try await copy.send(.post, Self.importPath, raw: response.text)
            #expect(again.object["memories_already_there"] as? Int == 3, "\(again.text)")
            #expect(try await UploadsTests.kept(store) == keptAfter)
        }
    }

    @Test(arguments: TestEngines.all)
    func anImportWithAnyProblemSaysEachByPathAndChangesNothing(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            let before = try await Self.counts(portal)
            let document: [String: Any] = [
                "format": CareTransfer.format, "version": 1,
                "contacts": [
                    ["client_id": "c1", "name": "Tom", "photo": ["name": "tom.pdf", "data": Data(CareFilesTests.pdf).base64EncodedString()]],
                    ["client_id": "c2", "name": "", "phones": ["ring me"]]
                ],
                "memories": [
                    [
                        "client_id": "m1", "type": "simple_memory", "title": "Fine", "category": "home", "people": ["c1"],
                        "files": [["name": "a.png", "data": Data(UploadsTests.png).base64EncodedString()], ["name": "b.png", "data": "not base64!"]]
                    ],
                    ["client_id": "m2", "type": "appointment", "title": "", "category": "sport", "happens_at": "soon"],
                    ["client_id": "m1", "type": "simple_memory", "title": "Twice", "category": "home"],
                    [
                        "client_id": "m4", "type": "simple_memory", "title": "Who?", "category": "home", "people": ["c9"],
                        "files": Array(repeating: ["name": "a.png", "data": Data(UploadsTests.png).base64EncodedString()], count: 21)
                    ],
                    ["client_id": "m5", "type": "bank_account", "title": "Bank", "category": "money"],
                    ["client_id": "m6", "type": "diary", "title": "x", "category": "home"]
                ]
            ]
            let refused = try await eleanor.send(.post, Self.importPath, json: document)
            #expect(refused.status == .unprocessableContent)
            #expect(
                Set(refused.fieldErrors.keys) == [
                    "contacts.0.photo.data", "contacts.1.name", "contacts.1.phones.0", "memories.0.files.1.data", "memories.1.title",
                    "memories.1.category", "memories.1.happens_at", "memories.2.client_id", "memories.3.people.0", "memories.3.files",
                    "memories.4.secured", "memories.5.type"
                ],
                "\(refused.fieldErrors)"
            )
            #expect(refused.fieldErrors["contacts.0.photo.data"] == "The photo must be a PNG, JPEG or WebP picture")
            #expect(refused.fieldErrors["memories.0.files.1.data"] == "Give the file's bytes in base64")
            #expect(refused.fieldErrors["memories.3.files"] == "A memory can have at most 20 files")
            #expect(try await Self.counts(portal) == before, "nothing of it was written")
            #expect(try await UploadsTests.kept(MemoryCare(portal: portal.portal).fileStore).isEmpty, "no file of it was stored")

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

import Foundation
import HTTPTypes
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Secured memories: sealed under her own key (itself sealed by the portal's key), opened only after her
/// PIN for five minutes, the PIN throttled like a password and reset only with her password.
@Suite struct CareSecuredTests {
    /// Every byte the database keeps of memory care, as text: SQLite's files (main, log and shared memory);
    /// on PostgreSQL every row of memory care's tables.
    static func storedText(_ portal: TestPortal) async throws -> String {
        switch portal.engine {
        case .sqlite:
            let path = String(portal.portal.settings.databaseURL.dropFirst("sqlite://".count))
            return [path, path + "-wal", path + "-shm"].compactMap { FileManager.default.contents(atPath: $0) }
                .map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
        case .postgres:
            return try await portal.database.read { db in
                var text: [String] = []
                for table in ["care_memories", "care_keys", "care_memory_tags", "care_accounts", "audit_log"] {
                    text += try await db.raw("SELECT CAST(t AS TEXT) AS row FROM \(ident: table) t").all().map {
                        try $0.decode(column: "row", as: String.self)
                    }
                }
                return text.joined(separator: "\n")
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func securedValuesRestSealedAndOpenOnlyWithHerPINForFiveMinutes(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, eleanorID) = try await CareFixtures.receiver(portal)
            let secret: [String: Any] = [
                "type": "bank_account", "title": "Savings at Northbank", "category": "money", "tags": ["bankzebra"],
                "fields": ["bank": "Northbank", "account_number": "31926819", "sort_code": "40-47-84"],
                "custom_fields": [["title": "Telephone banking", "content": "passphrase quokkamarmalade"]]
            ]
            // A secured memory needs her PIN to exist first (4.1.2.3.1).
            let early = try await eleanor.send(.post, SiteURL.care(.apiMemories).path, json: secret)
            #expect(early.status == .conflict && early.errorCode == "pin_not_set")
            #expect(
                try await eleanor.send(.put, SiteURL.care(.apiPIN).path, json: ["password": "wrong password", "pin": "2468"]).fieldErrors["password"]
                    != nil
            )
            #expect(
                try await eleanor.send(.put, SiteURL.care(.apiPIN).path, json: ["password": CareFixtures.password, "pin": "24a"]).fieldErrors["pin"]
                    != nil
            )
            #expect(
                try await eleanor.send(.put, SiteURL.care(.apiPIN).path, json: ["password": CareFixtures.password, "pin": CareFixtures.pin]).status
                    == .noContent
            )

            let made = try await eleanor.send(.post, SiteURL.care(.apiMemories).path, json: secret)
            #expect(made.status == .created && made.object["secured"] as? Bool == true, "\(made.text)")
            #expect((made.object["fields"] as? [String: String])?["account_number"] == "31926819", "she sees what she just wrote")
            let id = try CareFixtures.id(made.object)

            // Locked: the list shows that it exists and nothing of it; search never reaches it.
            let listed = try await eleanor.get(SiteURL.care(.apiMemories).path).object["memories"] as? [[String: Any]] ?? []
            #expect(listed.count == 1 && listed[0]["locked"] as? Bool == true && listed[0]["title"] == nil && listed[0]["fields"] == nil)
            #expect(try await eleanor.get(SiteURL.care(.apiMemory(id)).path).object["title"] == nil)
            #expect((try await eleanor.get("\(SiteURL.care(.apiMemories).path)?q=northbank").object["memories"] as? [Any])?.isEmpty == true)
            #expect(
                try await eleanor.send(.put, SiteURL.care(.apiMemory(id)).path, json: ["version": 1, "title": "x", "category": "money"]).errorCode
                    == "pin_required"
            )
            #expect(try await eleanor.send(.delete, SiteURL.care(.apiMemory(id)).path).errorCode == "pin_required")

            // Nothing of it rests readable: not a field, a custom field, the title or a tag.
            let stored = try await Self.storedText(portal)
            for value in ["31926819", "quokkamarmalade", "Savings at Northbank", "bankzebra", "40-47-84"] {
                #expect(!stored.contains(value), "\(value) is readable in the database")
            }
            let sealedKey = try await portal.database.read { db in try await CareRepository().sealedKey(accountID: eleanorID, on: db) }
            #expect(sealedKey?.hasPrefix("v1.") == true, "her key is sealed by the portal's key")

            // Her PIN opens it on this token; another sign-in of hers stays locked.
            let wrong = try await eleanor.send(.post, SiteURL.care(.apiUnlock).path, json: ["pin": "1357"])
            #expect(wrong.status == .unprocessableContent && wrong.fieldErrors["pin"] != nil)
            let opened = try await eleanor.send(.post, SiteURL.care(.apiUnlock).path, json: ["pin": CareFixtures.pin])
            #expect(opened.status == .ok && opened.object["unlocked_until"] != nil)
            let open = try await eleanor.get(SiteURL.care(.apiMemory(id)).path).object
            #expect(open["title"] as? String == "Savings at Northbank" && (open["fields"] as? [String: String])?["sort_code"] == "40-47-84")
            let other = try await AppClient(portal: portal).send(
                .post,
                "/api/v1/care/sessions",
                json: ["email": "eleanor@example.org", "password": CareFixtures.password]
            )
            let otherPhone = AppClient(portal: portal, token: other.object["token"] as? String)
            #expect(try await otherPhone.get(SiteURL.care(.apiMemory(id)).path).object["locked"] as? Bool == true)

            // Changed while open, at its version; it stays sealed.
            var changed = secret
            changed["version"] = 1
            changed["title"] = "Savings at Northbank (joint)"
            #expect(
                try await eleanor.send(.put, SiteURL.care(.apiMemory(id)).path, json: changed).object["title"] as? String
                    == "Savings at Northbank (joint)"
            )
            #expect(!(try await Self.storedText(portal)).contains("(joint)"))

            // A contact it names is deleted: sent back as read, the memory saves, without the contact.
            let tom = try CareFixtures.id(try await eleanor.send(.post, SiteURL.care(.apiContacts).path, json: ["name": "Tom"]).object)
            changed["version"] = 2
            changed["people"] = [tom]
            #expect(try await eleanor.send(.put, SiteURL.care(.apiMemory(id)).path, json: changed).object["people"] as? [Int] == [Int(tom)])
            #expect(try await eleanor.send(.delete, SiteURL.care(.apiContact(tom)).path).status == .noContent)
            changed["version"] = 3
            let resaved = try await eleanor.send(.put, SiteURL.care(.apiMemory(id)).path, json: changed)
            #expect(resaved.status == .ok && resaved.object["people"] as? [Int] == [], "\(resaved.text)")
            changed["version"] = 4
            changed["people"] = [999_999]
            #expect(
                try await eleanor.send(.put, SiteURL.care(.apiMemory(id)).path, json: changed).fieldErrors["people"] != nil,
                "a contact never hers is still refused"
            )
            changed["people"] = nil
            changed["title"] = "Savings at Northbank (joint)"

            // Five minutes later it is shut again.
            portal.clock.advance(by: MemoryCare.unlockLifetime + 1)
            #expect(try await eleanor.get(SiteURL.care(.apiMemory(id)).path).object["locked"] as? Bool == true)
            // Locking by hand works at once.
            _ = try await eleanor.send(.post, SiteURL.care(.apiUnlock).path, json: ["pin": CareFixtures.pin])
            #expect(try await eleanor.send(.delete, SiteURL.care(.apiUnlock).path).status == .noContent)
            #expect(try await eleanor.get(SiteURL.care(.apiMemory(id)).path).object["locked"] as? Bool == true)

            // The portal's key rotates: her key is re-sealed, her memories open as before.
            let rotated = SealingKey.generate()
            let count = try await portal.database.transaction { db in
                try await SealingKeyRotation(columns: MemoryCareFeature.sealedColumns).reseal(
                    from: portal.portal.sealer,
                    to: Sealer(key: rotated),
                    on: db
                )
            }
            #expect(count == 1)
            let resealed = try await portal.database.read { db in
                try await MemoryCare.sealer(receiverID: eleanorID, under: Sealer(key: rotated), on: db)
            }
            let row = try await portal.database.read { db in try await CareRepository().memory(id: id, receiverID: eleanorID, on: db) }
            let content = try MemoryCare(portal: portal.portal).open(try #require(row), with: resealed).content
            #expect(content?.title == "Savings at Northbank (joint)")
        }
    }

    @Test(arguments: TestEngines.all)
    func wrongPINsArePausedLikePasswordsAndHerPasswordResetsThePIN(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            #expect(try await eleanor.send(.post, SiteURL.care(.apiUnlock).path, json: ["pin": "1234"]).errorCode == "pin_not_set")
            #expect(
                try await eleanor.send(.put, SiteURL.care(.apiPIN).path, json: ["password": CareFixtures.password, "pin": CareFixtures.pin]).status
                    == .noContent
            )
            for guess in ["0000", "1111", "2222", "3333", "4444"] {
                #expect(try await eleanor.send(.post, SiteURL.care(.apiUnlock).path, json: ["pin": guess]).status == .unprocessableContent)
            }
            // Even the right PIN waits now.
            let paused = try await eleanor.send(.post, SiteURL.care(.apiUnlock).path, json: ["pin": CareFixtures.pin])
            #expect(paused.status == .tooManyRequests && paused.headers[.retryAfter] != nil)
            #expect(try await portal.auditEntries(action: .careUnlocked).filter { $0.outcome == "failure" }.count == 5)
            // Her password resets it, and the pause with it.
            #expect(
                try await eleanor.send(.put, SiteURL.care(.apiPIN).path, json: ["password": CareFixtures.password, "pin": "975310"]).status
                    == .noContent
            )
            #expect(try await eleanor.send(.post, SiteURL.care(.apiUnlock).path, json: ["pin": "975310"]).status == .ok)
            #expect(try await eleanor.send(.post, SiteURL.care(.apiUnlock).path, json: ["pin": CareFixtures.pin]).status == .unprocessableContent)
            // Wrong passwords at the reset are throttled too.
            for _ in 0..<5 {
                #expect(
                    try await eleanor.send(.put, SiteURL.care(.apiPIN).path, json: ["password": "not her password", "pin": "1111"]).status
                        == .unprocessableContent
                )
            }
            #expect(
                try await eleanor.send(.put, SiteURL.care(.apiPIN).path, json: ["password": CareFixtures.password, "pin": "1111"]).status
                    == .tooManyRequests
            )
        }
    }
}

import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Files on her memories and photos of her contacts: pictures and PDFs checked by their bytes, sealed on a
/// secured memory, shown to a caregiver only with a memory he sees whole, and gone with what they belong to.
@Suite struct CareFilesTests {
    static let pdf: [UInt8] = Array("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n".utf8)

    static func files(_ client: AppClient, _ memory: Int64) async throws -> [[String: Any]] {
        let listed = try await client.get(SiteURL.care(.apiMemoryFiles(memory)).path)
        #expect(listed.status == .ok, "\(listed.text)")
        return listed.object["files"] as? [[String: Any]] ?? []
    }

    @Test(arguments: TestEngines.all)
    func picturesAndPDFsAttachToHerMemoryAndGoWithIt(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, receiverID) = try await CareFixtures.receiver(portal)
            let made = try await CareFixtures.memory(eleanor, ["type": "simple_memory", "title": "Grandson's wedding", "category": "family"])
            let id = try CareFixtures.id(made)
            let before = try await eleanor.get(SiteURL.care(.apiChanges).path).object["cursor"] as? String ?? ""

            // A picture called .pdf, a text file and nothing at all are refused, each in words, and nothing is kept.
            let store = MemoryCare(portal: portal.portal).fileStore
            let text = try await eleanor.sendFile(
                .post,
                SiteURL.care(.apiMemoryFiles(id)).path,
                field: "file",
                filename: "notes.pdf",
                type: "application/pdf",
                bytes: Array("just words".utf8)
            )
            #expect(text.status == .unprocessableContent && text.fieldErrors["file"] == "The file must be a PNG, JPEG, WebP or PDF file")
            let none = try await eleanor.sendFile(
                .post,
                SiteURL.care(.apiMemoryFiles(id)).path,
                field: "other",
                filename: "a.png",
                type: "image/png",
                bytes: UploadsTests.png
            )
            #expect(none.fieldErrors["file"] == "Choose a picture or a PDF to attach")
            #expect(try await UploadsTests.kept(store).isEmpty)

            let picture = try await eleanor.sendFile(
                .post,
                SiteURL.care(.apiMemoryFiles(id)).path,
                field: "file",
                filename: "../Photos/wedding.png",
                type: "image/png",
                bytes: UploadsTests.png
            )
            #expect(picture.status == .created, "\(picture.text)")
            #expect(picture.object["name"] as? String == "wedding.png" && picture.object["content_type"] as? String == "image/png")
            #expect(picture.object["size"] as? Int == UploadsTests.png.count)
            let letter = try await eleanor.sendFile(
                .post,
                SiteURL.care(.apiMemoryFiles(id)).path,
                field: "file",
                filename: "invitation.pdf",
                type: "application/pdf",
                bytes: Self.pdf
            )
            #expect(letter.status == .created)
            let listed = try await Self.files(eleanor, id)
            #expect(listed.map { $0["name"] as? String } == ["wedding.png", "invitation.pdf"])

            let shown = try await eleanor.get(try #require(picture.object["url"] as? String))
            #expect(
                shown.status == .ok && shown.headers[.contentType] == "image/png" && Array(shown.response.body.readableBytesView) == UploadsTests.png
            )
            #expect(shown.headers[.contentDisposition] == #"inline; filename="wedding.png""#)
            let downloaded = try await eleanor.get(try #require(letter.object["url"] as? String))
            #expect(
                downloaded.headers[.contentDisposition] == #"attachment; filename="invitation.pdf""#,
                "a PDF is downloaded, never shown inside the portal"
            )
            #expect(Array(downloaded.response.body.readableBytesView) == Self.pdf)

            // Sync sees the memory again; its version, which her edits are checked against, stays.
            let changes = try await eleanor.get(SiteURL.care(.apiChanges).path + "?since=\(before)").object["memories"] as? [[String: Any]]
            #expect(changes?.map { $0["id"] as? Int } == [Int(id)] && changes?.first?["version"] as? Int == 1)

            // Nobody else reaches them: another care receiver gets 404.
            let (other, _) = try await CareFixtures.receiver(portal, email: "ada@example.org", name: "Ada")
            #expect(try await other.get(try #require(picture.object["url"] as? String)).status == .notFound)
            #expect(try await other.get(SiteURL.care(.apiMemoryFiles(id)).path).status == .notFound)

            // Removing one removes its bytes; deleting the memory removes the rest.
            let first = Int64(try #require(picture.object["id"] as? Int))
            #expect(try await eleanor.send(.delete, SiteURL.care(.apiMemoryFile(id, first)).path).status == .noContent)
            #expect(try await UploadsTests.kept(store).count == 1)
            #expect(try await eleanor.send(.delete, SiteURL.care(.apiMemory(id)).path).status == .noContent)
            #expect(try await UploadsTests.kept(store).isEmpty)
            let rows = try await portal.database.read { db in try await CareFileRepository().stored(receiverID: receiverID, on: db) }
            #expect(rows.isEmpty)
        }
    }

    @Test(arguments: TestEngines.all)
    func aSecuredMemorysFilesAreSealedAndOpenOnlyWithHerPIN(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, receiverID) = try await CareFixtures.receiver(portal)
            try await CareFixtures.unlock(eleanor)
            let id = try CareFixtures.id(
                try await CareFixtures.memory(
                    eleanor,
                    [
                        "type": "generic_memory", "title": "Bank letter", "category": "money", "secured": true
                    ]
                )
            )
            let secret = UploadsTests.png + Array("ACCOUNT 12345678".utf8)
            let sent = try await eleanor.sendFile(
                .post,
                SiteURL.care(.apiMemoryFiles(id)).path,
                field: "file",
                filename: "statement-march.png",
                type: "image/png",
                bytes: secret
            )
            #expect(sent.status == .created, "\(sent.text)")
            let url = try #require(sent.object["url"] as? String)

            // At rest: neither the bytes nor the file's name, in the store or the database.
            let store = MemoryCare(portal: portal.portal).fileStore
            let kept = try await UploadsTests.kept(store)
            #expect(kept.count == 1 && kept[0].hasSuffix(".sealed"))
            let raw = try #require(try await store.read(StoredUpload(fileName: kept[0], type: .sealed)))
            #expect(!String(decoding: raw, as: UTF8.self).contains("ACCOUNT") && !raw.starts(with: UploadsTests.png.prefix(8)))
            let names = try await portal.database.read { db in
                try await db.select().column("name").from("care_files").where("receiver_id", .equal, receiverID).all().map {
                    try $0.decode(column: "name", as: String.self)
                }
            }
            #expect(names.count == 1 && !names[0].contains("statement"))

            let opened = try await eleanor.get(url)
            #expect(opened.status == .ok && Array(opened.response.body.readableBytesView) == secret)
            #expect(try await Self.files(eleanor, id).first?["name"] as? String == "statement-march.png")

            // Closed again: nothing of it, not even its list.
            #expect(try await eleanor.send(.delete, SiteURL.care(.apiUnlock).path).status == .noContent)
            #expect(try await eleanor.get(url).errorCode == "pin_required")
            #expect(try await eleanor.get(SiteURL.care(.apiMemoryFiles(id)).path).errorCode == "pin_required")
            let locked = try await eleanor.sendFile(
                .post,
                SiteURL.care(.apiMemoryFiles(id)).path,
                field: "file",
                filename: "b.png",
                type: "image/png",
                bytes: UploadsTests.png
            )
            #expect(locked.errorCode == "pin_required")
        }
    }

    @Test(arguments: TestEngines.all)
    func aContactHasOnePhotoThatGoesWithTheContact(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            let made = try await eleanor.send(.post, SiteURL.care(.apiContacts).path, json: ["name": "Dr Lee", "phones": ["0161 496 0000"]])
            let id = try CareFixtures.id(made.object)
            let path = SiteURL.care(.apiContactPhoto(id)).path
            #expect(try await eleanor.get(path).status == .notFound, "no photo yet")
            let refused = try await eleanor.sendFile(.put, path, field: "photo", filename: "lee.pdf", type: "application/pdf", bytes: Self.pdf)
            #expect(refused.fieldErrors["photo"] == "The photo must be a PNG, JPEG or WebP picture")
            #expect(
                try await eleanor.sendFile(.put, path, field: "photo", filename: "lee.png", type: "image/png", bytes: UploadsTests.png).status == .ok
            )
            let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 60)
            #expect(try await eleanor.sendFile(.put, path, field: "photo", filename: "lee.jpg", type: "image/jpeg", bytes: jpeg).status == .ok)
            let photo = try await eleanor.get(path)
            #expect(photo.headers[.contentType] == "image/jpeg" && Array(photo.response.body.readableBytesView) == jpeg)
            let store = MemoryCare(portal: portal.portal).fileStore
            #expect(try await UploadsTests.kept(store).count == 1, "the photo it replaced is gone")
            #expect(try await eleanor.send(.delete, path).status == .noContent)
            let (gone, left) = (try await eleanor.get(path).status, try await UploadsTests.kept(store))
            #expect(gone == .notFound && left.isEmpty)

            #expect(
                try await eleanor.sendFile(.put, path, field: "photo", filename: "lee.png", type: "image/png", bytes: UploadsTests.png).status == .ok
            )
            #expect(try await eleanor.send(.delete, SiteURL.care(.apiContact(id)).path).status == .noContent)
            #expect(try await UploadsTests.kept(store).isEmpty, "deleting the contact deletes its photo")
        }
    }

    @Test(arguments: TestEngines.all)
    func aCaregiverSeesTheFilesOfAMemoryOnlyWhenHeSeesItWholeAndItIsLogged(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            let (ruth, _) = try await CareFixtures.caregiver(portal)
            let link = try await CareFixtures.link(eleanor, ruth, scopes: ["memories", "reminders"], categories: ["family"])
            let family = try CareFixtures.id(
                try await CareFixtures.memory(eleanor, ["type": "simple_memory", "title": "Wedding", "category": "family"])
            )
            let dentist = try CareFixtures.id(
                try await CareFixtures.memory(
                    eleanor,
                    [
                        "type": "appointment", "title": "Dentist", "category": "health", "happens_at": "2026-12-20T10:00"
                    ]
                )
            )
            for memory in [family, dentist] {
                let sent = try await eleanor.sendFile(
                    .post,
                    SiteURL.care(.apiMemoryFiles(memory)).path,
                    field: "file",
                    filename: "a.png",
                    type: "image/png",
                    bytes: UploadsTests.png
                )
                #expect(sent.status == .created)
            }
            let listed = try await ruth.get(SiteURL.care(.apiCaregiverMemoryFiles(link: link, family)).path)
            let files = try #require(listed.object["files"] as? [[String: Any]])
            #expect(files.count == 1)
            let read = try await ruth.get(try #require(files.first?["url"] as? String))
            #expect(read.status == .ok && Array(read.response.body.readableBytesView) == UploadsTests.png)
            // An appointment he sees as a plan, not whole: its files are not his to see.
            #expect(try await ruth.get(SiteURL.care(.apiCaregiverMemoryFiles(link: link, dentist)).path).status == .notFound)
            let log = try await eleanor.get(SiteURL.care(.apiAccessLog).path).object["entries"] as? [[String: Any]] ?? []
            #expect(log.filter { $0["what"] as? String == "memory" }.count >= 2, "both of his reads are in her access log")
            // Her link ended: nothing.
            #expect(try await eleanor.send(.delete, SiteURL.care(.apiLink(link)).path).status == .noContent)
            #expect(try await ruth.get(try #require(files.first?["url"] as? String)).status == .notFound)
        }
    }
}

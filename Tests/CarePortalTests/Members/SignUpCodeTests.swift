import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct SignUpCodeTests {
    @Test func codesUseSixCharactersWithoutLookAlikes() {
        for _ in 0..<500 {
            let code = SignUpCode.generate(randomBytes: Dependencies.systemRandomBytes)
            #expect(code.count == 6)
            #expect(code.allSatisfy { SignUpCode.alphabet.contains($0) })
            #expect(!code.contains { "0O1IL".contains($0) })
        }
        #expect(SignUpCode.alphabet.count == 31)
        #expect(SignUpCode.normalized(" k7m-4xp ") == "K7M4XP")
        #expect(SignUpCodesController.spoken("K7M4XP") == "K 7 M – 4 X P")
    }

    @Test func biasedBytesAreDrawnAgainNotFolded() {
        // Bytes at or above 248 (= 8 × 31) would favour the first letters; they are skipped.
        let bytes: [[UInt8]] = [[255, 250, 248, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]
        let code = SignUpCode.generate { _ in bytes[0] }
        #expect(code == "ABCDEF")
    }

    /// A search finds the codes whose note has a word starting with each word typed, newest first through
    /// every page, alone and with a status.
    @Test(arguments: TestEngines.all)
    func aSearchOfTheNotesFindsCodesByTheStartsOfTheirWordsNewestFirst(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, administrator) = try await portal.signedIn(.administrator)
            let repository = SignUpCodeRepository()
            let notes = [
                "Riverside clinic", "Eastgate van", "riverside group session", "Phone line", "Riverside group", "Rivers Edge fair",
                "Hospital visit, ward 4", "riverside clinic", "Riverside"
            ]
            let start = portal.clock.now
            var made: [(id: Int64, note: String)] = []
            try await portal.database.transaction { db in
                for (n, note) in notes.enumerated() {
                    let code = try await repository.create(
                        code: "CODE\(n)",
                        note: note,
                        lifetime: 86_400,
                        createdBy: administrator.id,
                        now: start.addingTimeInterval(Double(n) * 60),
                        on: db
                    )
                    made.append((code.id, note))
                }
                for (id, _) in made where made.firstIndex(where: { $0.id == id })! % 3 == 0 {
                    #expect(try await repository.revoke(id: id, by: administrator.id, now: start.addingTimeInterval(600), on: db))
                }
            }
            let newestFirst = made.reversed()
            let revoked = Set(made.enumerated().filter { $0.offset % 3 == 0 }.map(\.element.id))
            func found(_ search: String, _ status: SignUpCode.Status? = nil) async throws -> (ids: [Int64], total: Int) {
                var ids: [Int64] = []
                var request = PageRequest(number: 1, size: 2)
                var total = -1
                while true {
                    let page = try await portal.database.read { db in
                        try await repository.list(status: status, search: search, page: request, now: start.addingTimeInterval(900), on: db)
                    }
                    if total < 0 { total = page.totalCount }
                    ids += page.items.map(\.id)
                    guard page.hasNext, let last = page.lastCursor, ids.count <= made.count else { return (ids, total) }
                    request = PageRequest(.after(last), size: 2)
                }
            }
            let riverside = newestFirst.filter { $0.note.lowercased().hasPrefix("riverside") }.map(\.id)
            #expect(riverside.count == 5)
            #expect(try await found("riverside") == (riverside, 5))
            #expect(try await found("RIVER") == (newestFirst.filter { $0.note.lowercased().hasPrefix("river") }.map(\.id), 6))
            #expect(try await found("group river") == (newestFirst.filter { $0.note.lowercased().hasPrefix("riverside group") }.map(\.id), 2))
            #expect(try await found("riverside", .revoked) == (riverside.filter(revoked.contains), riverside.filter(revoked.contains).count))
            #expect(
                try await found("riverside", .unused) == (
                    riverside.filter { !revoked.contains($0) }, riverside.filter { !revoked.contains($0) }.count
                )
            )
            #expect(try await found("side").ids.isEmpty, "the middle of a word is not a start")
            #expect(try await found("--").ids.isEmpty, "punctuation alone finds nothing")
            #expect(try await found("").ids == newestFirst.map(\.id))

            // Through the page: a search of a thousand different words, each of which would be looked up, is
            // answered, cut to a note's length.
            var (admin, _) = try await portal.signedIn(.administrator)
            let long = try await admin.get("/sign-up-codes?q=" + (1...1_000).map { "w\($0)" }.joined(separator: "%20"))
            #expect(long.status == .ok && long.text.contains(#"value="w1 w2 w3"#) && !long.text.contains("w999"))
        }
    }

    @Test(arguments: TestEngines.all)
    func anAdministratorMakesACodeThatIsShownOnceAndStoredOnlyAsAHash(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get("/sign-up-codes/new")
            let created = try await admin.post("/sign-up-codes/new", form: [("note", "phone ends 4821")])
            #expect(created.status == .ok)
            let html = created.text
            let start = try #require(html.range(of: #"<div class="panel__code" aria-describedby="spoken-code">"#))
            let code = String(html[start.upperBound...].prefix(6))
            #expect(code.allSatisfy { SignUpCode.alphabet.contains($0) })
            #expect(html.contains("This is the only time the code is shown"))

            let stored = try await portal.database.read { db in try await db.raw("SELECT * FROM sign_up_codes").all() }
            #expect(stored.count == 1)
            for column in try #require(stored.first).allColumns {
                let value = (try? stored[0].decode(column: column, as: String?.self)) ?? nil
                #expect(value?.contains(code) != true, "column \(column) holds the code")
            }
            #expect(try await portal.database.read { db in try await SignUpCodeRepository().exists(code: code.lowercased(), on: db) })
            let list = try await admin.get("/sign-up-codes")
            #expect(list.text.contains("phone ends 4821"))
            #expect(list.text.contains("Not used yet"))
            #expect(!list.text.contains(code))
            #expect(try await portal.auditEntries(action: .signUpCodeCreated).count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func codesExpireAfterThirtyDaysAndOnlyUnusedOnesCanBeRevoked(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let account = try await portal.createStaff(.administrator, username: "codes.admin")
            let (old, fresh) = try await portal.database.transaction { db in
                let repository = SignUpCodeRepository()
                let old = try await repository.create(
                    code: "AAAAAA",
                    note: "old",
                    lifetime: 30 * 86_400,
                    createdBy: account.id,
                    now: portal.clock.now,
                    on: db
                )
                let fresh = try await repository.create(
                    code: "BBBBBB",
                    note: "fresh",
                    lifetime: 30 * 86_400,
                    createdBy: account.id,
                    now: portal.clock.now.addingTimeInterval(29 * 86_400),
                    on: db
                )
                return (old, fresh)
            }
            portal.clock.advance(by: 30 * 86_400 + 1)
            var admin = Visitor(portal: portal)
            try await admin.signIn(username: "codes.admin", password: "correct horse battery staple")
            let expired = try await admin.get("/sign-up-codes?status=expired")
            #expect(expired.text.contains("old"))
            #expect(!expired.text.contains(">fresh<"))
            #expect(try await admin.get("/sign-up-codes?status=unused").text.contains("fresh"))

            try await admin.post("/sign-up-codes/\(old.id)/revoke")
            #expect(try await admin.get("/sign-up-codes").text.contains("was not revoked"))
            try await admin.post("/sign-up-codes/\(fresh.id)/revoke")
            #expect(try await admin.get("/sign-up-codes?status=revoked").text.contains("fresh"))
            #expect(try await portal.auditEntries(action: .signUpCodeRevoked).count == 1)
            #expect(try await admin.post("/sign-up-codes/999999/revoke").status == .notFound)
        }
    }

    @Test(arguments: TestEngines.all)
    func aTooLongNoteIsExplainedAndKept(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get("/sign-up-codes/new")
            let long = String(repeating: "n", count: 101)
            let response = try await admin.post("/sign-up-codes/new", form: [("note", long)])
            #expect(response.status == .unprocessableContent)
            #expect(response.text.contains("The note must be 100 characters or fewer"))
            #expect(response.text.contains(#"value="\#(long)""#))
            #expect(try await portal.database.read { db in try await db.raw("SELECT id FROM sign_up_codes").all() }.isEmpty)
        }
    }
}

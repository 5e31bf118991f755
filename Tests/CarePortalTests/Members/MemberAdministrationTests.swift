import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct MemberAdministrationTests {
    @Test(arguments: TestEngines.all)
    func administratorsFindMembersBySearchCohortAndSort(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await AppClient.registered(portal, pseudonym: "Annabel", ["due_date": "2027-03-10"])
            portal.clock.advance(by: 60)
            _ = try await AppClient.registered(portal, pseudonym: "anna_b", ["due_date": "2027-04-10"])
            portal.clock.advance(by: 60)
            _ = try await AppClient.registered(portal, pseudonym: "Zoe", ["due_date": "2027-04-20"])
            var (admin, _) = try await portal.signedIn(.administrator)

            let all = try await admin.get("/members")
            #expect(all.status == .ok)
            #expect(all.text.contains("Showing 1 to 3 of 3 members") || all.text.contains("3 members"))
            // Newest first by default.
            let order = ["Zoe", "anna_b", "Annabel"].compactMap { all.text.range(of: ">\($0)</a>")?.lowerBound }
            #expect(order.count == 3 && order == order.sorted())

            let search = try await admin.get("/members?q=ANN")
            #expect(search.text.contains(">Annabel</a>") && search.text.contains(">anna_b</a>"))
            #expect(!search.text.contains(">Zoe</a>"))

            let cohorts = try await portal.database.read { db in try await MemberRepository().cohorts(on: db) }
            let april = try #require(cohorts.first { $0.dueMonth == "2027-04" })
            let inApril = try await admin.get("/members?cohort=\(april.id)")
            #expect(inApril.text.contains(">anna_b</a>") && inApril.text.contains(">Zoe</a>") && !inApril.text.contains(">Annabel</a>"))

            let byName = try await admin.get("/members?sort=pseudonym&order=asc")
            let names = ["anna_b", "Annabel", "Zoe"].compactMap { byName.text.range(of: ">\($0)</a>")?.lowerBound }
            #expect(names.count == 3 && names == names.sorted(), "pseudonyms sort without regard to case")

            let none = try await admin.get("/members?q=nobody")
            #expect(none.text.contains("No members match your search"))
        }
    }

    @Test(arguments: TestEngines.all)
    func everyReadOfAMemberRecordIsAuditedAndTheAnswerNeverShown(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, member) = try await AppClient.registered(
                portal,
                pseudonym: "Kestrel",
                [
                    "recovery_email": "kestrel.private@example.org", "security_answer": "Marmalade", "bio": "<script>alert(1)</script>"
                ]
            )
            let id = try #require(member["id"] as? Int)
            var (admin, account) = try await portal.signedIn(.administrator)
            let page = try await admin.get("/members/\(id)")
            #expect(page.status == .ok)
            #expect(page.text.contains("kestrel.private@example.org"))
            #expect(
                page.text.contains(ProgramSettings.defaults(programName: "").securityQuestions[0].replacingOccurrences(of: "'", with: "&#39;"))
                    || page.text.contains("first pet")
            )
            #expect(!page.text.lowercased().contains("marmalade"))
            #expect(!page.text.contains("$2"), "no hash on the page")
            #expect(!page.text.contains("<script>alert(1)</script>"))
            #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(page.text.contains("Registered"), "sign-in history")
            let reads = try await portal.auditEntries(action: .memberViewed)
            #expect(reads.count == 1)
            #expect(reads.first?.recordID == "\(id)")
            #expect(reads.first?.actorAccountID == account.id)

            // Other staff cannot read it at all.
            for role in [StaffRole.physician, .medicalProfessional] {
                var (other, _) = try await portal.signedIn(role)
                #expect(try await other.get("/members/\(id)").status == .forbidden)
            }
            #expect(try await portal.auditEntries(action: .memberViewed).count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func disablingSignsHerOutAndReEnablingLetsHerBackIn(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, member) = try await AppClient.registered(portal, pseudonym: "Merlin")
            let id = try #require(member["id"] as? Int)
            var (admin, _) = try await portal.signedIn(.administrator)
            _ = try await admin.get("/members/\(id)")
            let disabled = try await admin.post("/members/\(id)/disable")
            #expect(disabled.status == .seeOther)
            #expect(try await app.get("/api/v1/me").status == .unauthorized)
            #expect(try await admin.get("/members/\(id)").text.contains("Disabled"))
            #expect(try await admin.post("/members/\(id)/enable").status == .seeOther)
            let again = try await AppClient(portal: portal).send(.post, "/api/v1/sessions", json: ["pseudonym": "Merlin", "password": "Sunrise#2027"])
            #expect(again.status == .created)
            #expect(try await portal.auditEntries(action: .memberDisabled).count == 1)
            #expect(try await portal.auditEntries(action: .memberEnabled).count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func deletingHerDataAsksFirstThenLeavesOnlyTheAuditTrail(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, member) = try await AppClient.registered(portal, pseudonym: "Osprey")
            let id = try #require(member["id"] as? Int)
            var (admin, _) = try await portal.signedIn(.administrator)
            let confirm = try await admin.get("/members/\(id)/delete")
            #expect(confirm.text.contains("Delete Osprey’s data?"))
            #expect(confirm.text.contains("This cannot be undone."))
            #expect(
                try await portal.database.read { db in try await MemberRepository().find(id: Int64(id), on: db) } != nil,
                "opening the confirmation deletes nothing"
            )

            let deleted = try await admin.post("/members/\(id)/delete")
            #expect(deleted.status == .seeOther)
            #expect(deleted.location == "/members")
            #expect(try await admin.get("/members").text.contains("Osprey’s data has been deleted."))
            #expect(try await admin.get("/members/\(id)").status == .notFound)
            #expect(try await app.get("/api/v1/me").status == .unauthorized)
            let leftovers = try await portal.database.read { db in
                (
                    try await AppAccountKind.member.bearerTokens.count(ownerID: Int64(id), on: db),
                    try await MemberRepository().signIns(memberID: Int64(id), on: db).count
                )
            }
            #expect(leftovers == (0, 0))
            let audit = try await portal.auditEntries(action: .memberDeleted)
            #expect(audit.count == 1 && audit.first?.recordID == "\(id)")
            #expect(try await admin.get("/sign-up-codes").text.contains("a member whose data was deleted"))
        }
    }

    @Test(arguments: TestEngines.all)
    func cohortsShowHowManyAreInEachAndHowManyAreActive(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.get("/cohorts").text.contains("There are no cohorts yet"))
            for _ in 0..<2 { _ = try await AppClient.registered(portal, ["due_date": "2027-05-02"]) }
            _ = try await AppClient.registered(portal, ["due_date": "2027-06-02"])
            let page = try await admin.get("/cohorts")
            #expect(page.text.contains("Due May 2027"))
            #expect(page.text.contains(#"<td class="table__cell table__cell--numeric">2</td>"#))
            #expect(page.text.contains("<svg"))
            #expect(page.text.contains("<title>Due May 2027, Members: 2</title>"), "the chart says the same numbers as the table")
            #expect(page.text.contains("<title>Due May 2027, Active in the last 7 days: 2</title>"))
            #expect(page.text.contains("<title>Due June 2027, Members: 1</title>"))
        }
    }
}

@Suite struct ProgramSettingsTests {
    @Test(arguments: TestEngines.all)
    func settingsAreCheckedSavedAndUsedAtOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            let form = try await admin.get("/program-settings")
            #expect(form.text.contains("What was the name of your first pet?"))

            let bad = try await admin.post(
                "/program-settings",
                form: [
                    ("program_name", ""), ("deletion_phone", "call me"), ("code_lifetime_days", "400"),
                    ("security_questions", "Only one?")
                ]
            )
            #expect(bad.status == .unprocessableContent)
            for message in [
                "Enter the program name", "Enter a phone number, like 615 555 0134", "Enter a whole number of days from 1 to 365",
                "Enter from 3 to 12 security questions, one per line", "Choose at least one avatar for members"
            ] {
                #expect(bad.text.contains(message), "\(message)")
            }
            #expect(bad.text.contains(#"value="call me""#), "what was typed is kept")
            #expect(portal.portal.programSettings.current.codeLifetimeDays == 30, "nothing changed")

            let good = try await admin.post(
                "/program-settings",
                form: [
                    ("program_name", "iMATter"), ("deletion_phone", "615 555 0134"), ("code_lifetime_days", "7"),
                    ("security_questions", "First pet?\nFavourite song?\n\nStreet you grew up on?"),
                    ("avatars[]", "moon"), ("avatars[]", "leaf")
                ]
            )
            #expect(good.status == .seeOther)
            let program = try await AppClient(portal: portal).get("/api/v1/program")
            #expect(program.object["name"] as? String == "iMATter")
            #expect(program.object["deletion_phone"] as? String == "615 555 0134")
            #expect(program.object["security_questions"] as? [String] == ["First pet?", "Favourite song?", "Street you grew up on?"])
            #expect((program.object["avatars"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["moon", "leaf"])
            #expect(program.object["default_avatar"] as? String == "moon")
            #expect(try await admin.get("/").text.contains("iMATter"), "the portal shows the new name")

            // A new code lasts the configured 7 days.
            _ = try await admin.get("/sign-up-codes/new")
            let created = try await admin.post("/sign-up-codes/new", form: [("note", "")])
            let expected = portal.portal.programSettings.current.clock.dateTime(portal.clock.now.addingTimeInterval(7 * 86_400))
            #expect(created.text.contains(expected))

            // Stored settings survive a restart: a fresh store reads them back.
            let reloaded = ProgramSettingsStore(database: portal.database, defaults: .defaults(programName: "CarePortal"))
            try await reloaded.refresh()
            #expect(reloaded.current.codeLifetimeDays == 7)
            #expect(reloaded.current.memberAvatarIDs == ["moon", "leaf"])
            let audit = try await portal.auditEntries(action: .programSettingsChanged)
            #expect(audit.first?.detail?.contains("code lifetime") == true)
        }
    }

    /// Staff read every time in the program's time zone, named in each page's footer, and a new zone applies at once.
    @Test(arguments: TestEngines.all)
    func staffPagesShowTimesInTheProgramsTimeZone(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            // The test clock reads 18 Nov 2026, 11:06 UTC; a code lasts 30 days.
            _ = try await admin.get("/sign-up-codes/new")
            #expect(try await admin.post("/sign-up-codes/new", form: [("note", "Clinic")]).text.contains("18 Dec 2026, 06:06 EST"))
            let eastern = try await admin.get("/sign-up-codes")
            #expect(eastern.text.contains("18 Nov 2026, 06:06 EST"), "made")
            #expect(eastern.text.contains("18 Dec 2026, 06:06 EST"), "expires")
            #expect(eastern.text.contains("the program’s is Eastern (New York)"))
            #expect(!eastern.text.contains(" UTC"))

            _ = try await admin.get("/program-settings")
            let changed = try await admin.post(
                "/program-settings",
                form: [
                    ("program_name", "CarePortal"), ("deletion_phone", "615 555 0134"), ("code_lifetime_days", "30"),
                    ("security_questions", "First pet?\nFavourite song?\nStreet you grew up on?"), ("avatars[]", "moon"),
                    ("time_zone", "America/Chicago")
                ]
            )
            #expect(changed.status == .seeOther)
            let central = try await admin.get("/sign-up-codes")
            #expect(central.text.contains("18 Nov 2026, 05:06 CST"))
            #expect(central.text.contains("18 Dec 2026, 05:06 CST"))
            #expect(central.text.contains("the program’s is Central (Chicago)"))
            let staff = try await admin.get("/staff")
            #expect(staff.text.contains("18 Nov 2026, 05:06 CST"), "the accounts' creation")
            #expect(try await admin.get("/audit").text.contains("18 Nov 2026, 05:06 CST"), "the audit log's entries")
        }
    }
}

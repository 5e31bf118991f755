import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct StaffDeletionTests {
    @Test(arguments: TestEngines.all)
    func deletingAMedicalProfessionalKeepsHerAnswersUnderAFormerName(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, adminAccount) = try await portal.signedIn(.administrator)
            var (professional, account) = try await portal.signedIn(.medicalProfessional, username: "nurse.jo")
            let (member, _) = try await AppClient.registered(portal)
            let thread = try await DeskSteps.ask(member, title: "Sleep and methadone")
            try await DeskSteps.reply(&professional, thread: thread, body: "Talk to your clinic about timing the dose.")

            let confirm = try await admin.get("/staff/\(account.id)/delete")
            #expect(confirm.text.contains("Type the username to confirm"))
            let wrong = try await admin.post("/staff/\(account.id)/delete", form: [("username", "nurse.j")])
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.text.contains(##"href="#username""##))
            #expect(wrong.text.contains(#"value="nurse.j""#))
            let deleted = try await admin.post("/staff/\(account.id)/delete", form: [("username", "Nurse.Jo")])
            #expect(deleted.location == "/staff")

            // Signed out, cannot sign in, gone from the list and her page.
            #expect(try await professional.get("/desk").location?.hasPrefix("/sign-in") == true)
            var visitor = Visitor(portal: portal)
            try await visitor.get("/sign-in")
            let refused = try await visitor.post("/sign-in", form: [("username", "nurse.jo"), ("password", "correct horse battery staple")])
            #expect(refused.status == .unprocessableContent)
            let list = try await admin.get("/staff")
            #expect(list.text.contains("nurse.jo’s account has been deleted"))
            #expect(!list.text.contains(#"href="/staff/\#(account.id)""#))
            #expect(try await admin.get("/staff/\(account.id)").status == .notFound)

            // Her answer stays, signed as a former medical professional.
            let read = try await DeskSteps.thread(member, thread)
            let replies = try #require(read["replies"] as? [[String: Any]])
            let text = "\(replies)"
            #expect(text.contains("Former medical professional"))
            #expect(!text.contains("nurse.jo"))

            // Personal details are gone; the audit keeps her id.
            let row = try await portal.database.read { db in
                try #require(
                    try await db.select().columns("username", "email", "deleted_at").from("staff_accounts").where("id", .equal, account.id).first()
                )
            }
            #expect(try row.decode(column: "email", as: String?.self) == nil)
            #expect(try row.decode(column: "username", as: String.self) == "Former medical professional")
            let audit = try await portal.auditEntries(action: .accountDeleted)
            #expect(audit.map(\.recordID) == ["\(account.id)"])
            #expect(audit.map(\.actorAccountID) == [adminAccount.id])
            // The username is free again.
            try await portal.createStaff(.medicalProfessional, username: "nurse.jo")
        }
    }

    @Test(arguments: TestEngines.all)
    func theLastAdministratorCanBeNeitherDeletedNorDisabled(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (first, firstAccount) = try await portal.signedIn(.administrator, username: "first.admin")
            let (second, secondAccount) = try await portal.signedIn(.administrator, username: "second.admin")
            // Each disables the other at the same moment: one of them must stay.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var visitor = first; try await visitor.post("/staff/\(secondAccount.id)/disable")
                }
                group.addTask {
                    var visitor = second; try await visitor.post("/staff/\(firstAccount.id)/disable")
                }
                try await group.waitForAll()
            }
            let active = try await portal.database.read { db in
                try await StaffAccountRepository().activeAdministratorCount(excluding: 0, on: db)
            }
            #expect(active == 1)
            // The one left can neither delete nor disable herself.
            var survivor =
                try await portal.database.read { db in try await StaffAccountRepository().find(id: firstAccount.id, on: db) }?.status == .active
                ? first : second
            let survivorID = survivor.cookie == first.cookie ? firstAccount.id : secondAccount.id
            let own = try await survivor.get("/staff/\(survivorID)")
            #expect(!own.text.contains("/staff/\(survivorID)/delete"))
            #expect(try await survivor.post("/staff/\(survivorID)/delete", form: [("username", "x")]).status == .notFound)
            #expect(try await portal.auditEntries(action: .accountDisabled).count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func aPhysicianWithPatientsIsNotDeletedUntilTheyHaveAnotherPhysician(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            let physician = try await portal.createStaff(.physician, username: "dr.busy")
            let now = portal.clock.now
            _ = try await portal.database.transaction { db in
                try await PatientRepository().create(PatientFixtures.contact(), physicianID: physician.id, now: now, on: db)
            }
            try await admin.get("/staff/\(physician.id)/delete")
            let refused = try await admin.post("/staff/\(physician.id)/delete", form: [("username", "dr.busy")])
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("still looks after 1 patient"))
            #expect(try await admin.get("/staff/\(physician.id)").status == .ok)
        }
    }
}

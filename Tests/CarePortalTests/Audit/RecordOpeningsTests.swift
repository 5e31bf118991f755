import Foundation
import HTTPTypes
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// "Who opened my record, when, and why": each kind of person reads, in her app, the openings of her own
/// record by staff — not another person's, not her own doings — with the staff member's username and role,
/// or "A member of staff" where the program chooses so.
@Suite struct RecordOpeningsTests {
    static func openings(_ app: AppClient, _ url: SiteURL) async throws -> [[String: Any]] {
        let response = try await app.get(url.path)
        #expect(response.status == .ok, "\(url.path): \(response.text)")
        return response.object["openings"] as? [[String: Any]] ?? []
    }

    @Test(arguments: TestEngines.all)
    func eachPersonSeesWhoOfTheStaffOpenedHerRecordWhenAndWhy(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (member, memberBody) = try await AppClient.registered(portal, pseudonym: "Wren")
            let (otherMember, _) = try await AppClient.registered(portal, pseudonym: "Lark")
            let memberID = Int64(try #require(memberBody["id"] as? Int))
            let physicianAccount = try await portal.createStaff(.physician, username: "dr.ana")
            let (patientRecord, claimToken) = try await PatientFixtures.patient(
                portal,
                physicianID: physicianAccount.id,
                catalogue: try await PatientFixtures.catalogue(portal)
            )
            let patient = try await PatientFixtures.claimed(portal, patient: patientRecord, token: claimToken)
            let (customer, customerID) = try await PharmacyFixtures.customer(portal)
            let (participant, participantID) = try await StudyFixtures.participant(portal, code: "OPEN-1")

            var (admin, _) = try await portal.signedIn(.administrator, username: "chief")
            #expect(try await admin.get(SiteURL.member(memberID).path).status == .ok)
            var physician = Visitor(portal: portal)
            try await physician.signIn(username: "dr.ana", password: "correct horse battery staple")
            #expect(try await physician.get(SiteURL.patient(patientRecord.id).path).status == .ok)
            var (pharmacist, _) = try await portal.signedIn(.pharmacist, username: "rx.joe")
            #expect(try await pharmacist.get(SiteURL.pharmacyCustomer(customerID).path).status == .ok)
            var (researcher, _) = try await portal.signedIn(.researcher, username: "res.kim")
            #expect(try await researcher.get(SiteURL.studyParticipant(participantID).path).status == .ok)

            for (app, url, who, why) in [
                (member, SiteURL.apiMemberRecordOpenings, "chief, Administrator", "Looked at your member record"),
                (patient, SiteURL.apiPatientRecordOpenings, "dr.ana, Physician", "Looked at your record"),
                (customer, SiteURL.apiPharmacyRecordOpenings, "rx.joe, Pharmacist", "Looked at your customer record"),
                (participant, SiteURL.apiStudyRecordOpenings, "res.kim, Researcher", "Looked at your study record")
            ] {
                let openings = try await Self.openings(app, url)
                #expect(openings.count == 1, "\(url.path): \(openings)")
                #expect(openings.first?["by"] as? String == who && openings.first?["why"] as? String == why, "\(openings)")
                #expect(openings.first?["opened_at"] as? String != nil)
            }
            #expect(try await Self.openings(otherMember, .apiMemberRecordOpenings).isEmpty, "another member's record is not hers")
            // Her record read while she claimed her account with the emailed token, and by her own app: not openings by staff.
            try await portal.database.write { db in
                try await portal.portal.audit.record(
                    [
                        AuditEvent(
                            actor: .anonymous,
                            action: .patientViewed,
                            recordType: "patient",
                            recordID: "\(patientRecord.id)",
                            origin: .commandLine
                        ),
                        AuditEvent(
                            actor: AuditActor(accountID: patientRecord.id, role: AppAccountKind.patient.role, name: nil),
                            action: .patientViewed,
                            recordType: "patient",
                            recordID: "\(patientRecord.id)",
                            origin: .commandLine
                        )
                    ],
                    on: db
                )
            }
            #expect(try await Self.openings(patient, .apiPatientRecordOpenings).count == 1)

            // Newest first; and where the program chooses, names are not given.
            portal.clock.advance(by: 60)
            #expect(try await physician.get(SiteURL.patientReportCSV(patientRecord.id).path).status == .ok)
            let two = try await Self.openings(patient, .apiPatientRecordOpenings)
            #expect(two.map { $0["why"] as? String } == ["Downloaded a report of your progress", "Looked at your record"], "\(two)")

            // The web app shows the same openings on a page of her own part.
            var browser = Visitor(portal: portal)
            _ = try await browser.signInToApp(.member, identifier: "Wren", password: MemberAppPagesTests.password)
            let page = try await browser.get(SiteURL.appMemberRecordOpenings.path)
            #expect(page.text.contains("Looked at your member record") && page.text.contains("chief, Administrator"))
            #expect(try await browser.get(SiteURL.appMemberHome.path).text.contains(SiteURL.appMemberRecordOpenings.path))
            var lark = Visitor(portal: portal)
            _ = try await lark.signInToApp(.member, identifier: "Lark", password: MemberAppPagesTests.password)
            let none = try await lark.get(SiteURL.appMemberRecordOpenings.path)
            #expect(none.text.contains("No one on the staff has opened your record") && !none.text.contains("chief"))

            var settings = portal.portal.programSettings.current
            settings.hidesStaffNamesFromPeople = true
            try await portal.database.write { db in try await portal.portal.programSettings.save(settings, now: portal.clock.now, on: db) }
            portal.portal.programSettings.adopt(settings)
            let hidden = try await Self.openings(member, .apiMemberRecordOpenings)
            #expect(
                hidden.first?["by"] as? String == "A member of staff" && hidden.first?["role"] as? String == "Administrator"
                    && hidden.first?["name"] == nil
            )
            #expect(try await member.get("\(SiteURL.apiMemberRecordOpenings.path)?page=0").status == .badRequest)
        }
    }
}

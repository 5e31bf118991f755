import Foundation
import HummingbirdTesting
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The patient list, the patient page, changes kept as a dated history, removal and the claim token.
@Suite struct PatientRecordTests {
    @Test(arguments: TestEngines.all)
    func aPhysicianListsOnlyHerOwnPatientsSortedSearchedAndPaged(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            var (physician, account) = try await portal.signedIn(.physician)
            let other = try await portal.createStaff(.physician, username: "dr.other")
            let names = ["Zimmermann", "Ødegård", "abbott", "Brown", "Ng"]
            for (index, name) in names.enumerated() {
                try await PatientFixtures.patient(
                    portal,
                    physicianID: account.id,
                    catalogue: catalogue,
                    contact: PatientFixtures.contact(last: name, number: "NHS \(700 - index * 100)")
                )
            }
            try await PatientFixtures.patient(
                portal,
                physicianID: other.id,
                catalogue: catalogue,
                contact: PatientFixtures.contact(last: "Elsewhere", number: "1")
            )
            func lastNames(_ path: String) async throws -> [String] {
                let html = try await physician.get(path).text
                return html.components(separatedBy: "<tr>\n  <td class=\"table__cell\">").dropFirst().map { String($0.prefix { $0 != "<" }) }
            }
            #expect(try await lastNames("/patients") == ["abbott", "Brown", "Ng", "Zimmermann", "Ødegård"])
            let ascending = try await lastNames("/patients?sort=medical-number&order=asc")
            #expect(ascending == ["Ng", "Brown", "abbott", "Ødegård", "Zimmermann"])
            #expect(try await lastNames("/patients?sort=medical-number&order=desc") == ["Zimmermann", "Ødegård", "abbott", "Brown", "Ng"])
            #expect(try await lastNames("/patients?q=ØDEG") == ["Ødegård"])
            #expect(try await lastNames("/patients?q=nhs%20300") == ["Ng"])
            #expect(try await lastNames("/patients?q=jos") == ["abbott", "Brown", "Ng", "Zimmermann", "Ødegård"])
            #expect(try await lastNames("/patients?q=Elsewhere").isEmpty, "another physician's patient is never listed")
            let page = try await physician.get("/patients")
            for heading in ["Last name", "First name", "Medical number", "Last activity", "Adherence, last 30 days"] {
                #expect(page.text.contains(heading))
            }
            #expect(page.text.contains(">Add new patient</a>"))
            #expect(page.text.contains(">View<span") && page.text.contains(">Edit<span") && page.text.contains(">Remove<span"))
            // Twenty-five to a page.
            for index in 0..<21 {
                try await PatientFixtures.patient(
                    portal,
                    physicianID: account.id,
                    catalogue: catalogue,
                    contact: PatientFixtures.contact(last: "Extra\(index + 10)", number: "X\(index)")
                )
            }
            #expect(try await lastNames("/patients").count == 25)
            #expect(try await lastNames("/patients?page=2") == ["Ødegård"])
            #expect(try await physician.get("/patients").text.contains("Showing 1 to 25 of 26 patients"))
        }
    }

    @Test(arguments: TestEngines.all)
    func theListAndThePatientPageShowAdherenceAsLoggedSinceTheyWereLastShown(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            var (physician, account) = try await portal.signedIn(.physician)
            let today = CalendarDate(portal.clock.now)
            // Levodopa three times and walking once a day since 40 days ago: 120 scheduled in the 30 days before today.
            let (patient, _) = try await PatientFixtures.patient(
                portal,
                physicianID: account.id,
                catalogue: catalogue,
                startsOn: today.adding(days: -40)
            )
            let prescriptions = try await portal.database.read { db in try await RegimenRepository().prescriptions(patientID: patient.id, on: db) }
            let adherenceCell = #"<td class="table__cell table__cell--numeric">"#
            #expect(try await physician.get("/patients").text.contains(adherenceCell + "0%</td>"))
            let patientPath = "/patients/\(patient.id)"
            #expect(try await physician.get(patientPath).text.contains("0% of 120 scheduled doses and sessions done"))
            try await portal.database.transaction { db in
                for day in 1...30 {
                    // 3 of 4 done each day in the window; older days and today do not count.
                    for (prescription, slot) in [(prescriptions[0], 1), (prescriptions[0], 2), (prescriptions[1], 1)] {
                        try await RegimenRepository().log(
                            AdherenceLog(
                                prescriptionID: prescription.id,
                                day: today.adding(days: -day),
                                slot: slot,
                                status: .done,
                                loggedAt: portal.clock.now
                            ),
                            patientID: patient.id,
                            now: portal.clock.now,
                            on: db
                        )
                    }
                    try await RegimenRepository().log(
                        AdherenceLog(
                            prescriptionID: prescriptions[0].id,
                            day: today.adding(days: -day),
                            slot: 3,
                            status: .missed,
                            loggedAt: portal.clock.now
                        ),
                        patientID: patient.id,
                        now: portal.clock.now,
                        on: db
                    )
                }
                for day in [0, 31, 35] {
                    try await RegimenRepository().log(
                        AdherenceLog(
                            prescriptionID: prescriptions[0].id,
                            day: today.adding(days: -day),
                            slot: 3,
                            status: .done,
                            loggedAt: portal.clock.now
                        ),
                        patientID: patient.id,
                        now: portal.clock.now,
                        on: db
                    )
                }
            }
            // Logged after the list was last shown: the list shows the new figure, not the one it kept.
            #expect(try await physician.get("/patients").text.contains(adherenceCell + "75%</td>"))
            // The patient page's 30 days run through today: 88 of 120.
            #expect(try await physician.get(patientPath).text.contains("73% of 120 scheduled doses and sessions done"))
            // One answer changed: 89 of 120.
            try await portal.database.write { db in
                try await RegimenRepository().log(
                    AdherenceLog(
                        prescriptionID: prescriptions[1].id,
                        day: today.adding(days: -1),
                        slot: 1,
                        status: .missed,
                        loggedAt: portal.clock.now
                    ),
                    patientID: patient.id,
                    now: portal.clock.now,
                    on: db
                )
            }
            #expect(try await physician.get("/patients").text.contains(adherenceCell + "74%</td>"))
        }
    }

    /// The charts kept for a patient page name her prescriptions as the catalogue names them now.
    @Test(arguments: TestEngines.all)
    func thePatientPageShowsACatalogueRenameInItsChartsAtOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            var (physician, account) = try await portal.signedIn(.physician)
            let (patient, _) = try await PatientFixtures.patient(portal, physicianID: account.id, catalogue: catalogue)
            #expect(try await physician.get("/patients/\(patient.id)").text.contains("Levodopa/carbidopa"))
            try await portal.database.write { db in
                try await db.raw("UPDATE catalogue_medications SET name = 'Sinemet' WHERE id = \(bind: catalogue.levodopa)").run()
            }
            let page = try await physician.get("/patients/\(patient.id)").text
            #expect(page.contains("Sinemet"))
            #expect(!page.contains("Levodopa/carbidopa"), "no chart or table still shows the old name")
        }
    }

    /// The database raises a patient's adherence version whenever any of her logs or prescriptions is
    /// added, changed or removed, whatever code does it; another patient's stays as it was.
    @Test(arguments: TestEngines.all)
    func everyChangeToHerLogsOrPrescriptionsRaisesHerAdherenceVersion(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            let (_, account) = try await portal.signedIn(.physician)
            let (patient, _) = try await PatientFixtures.patient(portal, physicianID: account.id, catalogue: catalogue)
            let (other, _) = try await PatientFixtures.patient(
                portal,
                physicianID: account.id,
                catalogue: catalogue,
                contact: PatientFixtures.contact(last: "Other", number: "1111")
            )
            func versions() async throws -> (Int64, Int64) {
                try await portal.database.read { db in
                    (
                        try #require(try await PatientRepository().find(id: patient.id, on: db)).adherenceVersion,
                        try #require(try await PatientRepository().find(id: other.id, on: db)).adherenceVersion
                    )
                }
            }
            let (added, untouched) = try await versions()
            #expect(added > 0, "adding her prescriptions raised it")
            let prescription = try await portal.database.read { db in try await RegimenRepository().prescriptions(patientID: patient.id, on: db) }[0]
            let today = CalendarDate(portal.clock.now)
            var last = added
            let changes: [(String, SQLQueryString)] = [
                (
                    "a log added",
                    "INSERT INTO adherence_logs (prescription_id, on_day, slot, patient_id, status, logged_at) VALUES (\(bind: prescription.id), \(bind: today.dayNumber), 1, \(bind: patient.id), 'done', 0)"
                ),
                ("a log changed", "UPDATE adherence_logs SET status = 'missed' WHERE prescription_id = \(bind: prescription.id)"),
                ("a log removed", "DELETE FROM adherence_logs WHERE prescription_id = \(bind: prescription.id)"),
                ("a prescription changed", "UPDATE prescriptions SET ends_on = \(bind: today.dayNumber) WHERE id = \(bind: prescription.id)"),
                ("a prescription removed", "DELETE FROM prescriptions WHERE id = \(bind: prescription.id)")
            ]
            for (change, sql) in changes {
                try await portal.database.write { db in try await db.raw(sql).run() }
                let (now, otherNow) = try await versions()
                #expect(now > last, "\(change)")
                #expect(otherNow == untouched, "\(change) left the other patient's alone")
                last = now
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func openingAPatientIsAuditedAndShowsHerDetailsRegimenAndClaim(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            var (physician, account) = try await portal.signedIn(.physician)
            let (patient, _) = try await PatientFixtures.patient(portal, physicianID: account.id, catalogue: catalogue)
            let page = try await physician.get("/patients/\(patient.id)")
            #expect(page.status == .ok)
            for text in [
                "José María Núñez-Ødegård", "9876 543 210", patient.contact.email, "01632 960 001", "12 Harbour Road\nBergen",
                "Levodopa/carbidopa", "25/100 mg tablet", "Three times daily", "With water", "Walking", "30 minutes",
                "Waiting to be claimed", "Email a new claim token", "Revoke the claim token", "Daily adherence", "Recent activity"
            ] {
                #expect(page.text.contains(text), "the patient page lacks \(text)")
            }
            let views = try await portal.auditEntries(action: .patientViewed)
            #expect(views.count == 1)
            #expect(views.first?.recordID == "\(patient.id)" && views.first?.actorAccountID == account.id)
            try await physician.get("/patients/\(patient.id)/history")
            try await physician.get("/patients/\(patient.id)/contact")
            #expect(try await portal.auditEntries(action: .patientViewed).count == 3)
        }
    }

    @Test(arguments: TestEngines.all)
    func contactDetailsAreChangedFromAPrefilledFormAndTheChangeIsAudited(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            var (physician, account) = try await portal.signedIn(.physician)
            let (patient, _) = try await PatientFixtures.patient(portal, physicianID: account.id, catalogue: catalogue)
            let form = try await physician.get("/patients/\(patient.id)/contact")
            #expect(form.text.contains(#"value="Núñez-Ødegård""#))
            #expect(form.text.contains("12 Harbour Road\nBergen</textarea>"))
            var fields = PatientRules.values(patient.contact).map { ($0.key, $0.value) }
            fields.removeAll { $0.0 == "phone" || $0.0 == "email" }
            let invalid = try await physician.post(
                "/patients/\(patient.id)/contact",
                form: fields + [("phone", "01632 960 999"), ("email", "nope"), ("action", "save")]
            )
            #expect(invalid.status == .unprocessableContent)
            #expect(invalid.errorSummary == ["Enter an email address in the correct format, like name@example.com"])
            let saved = try await physician.post(
                "/patients/\(patient.id)/contact",
                form: fields + [("phone", "01632 960 999"), ("email", "jose.new@example.org"), ("action", "save")]
            )
            #expect(saved.location == "/patients/\(patient.id)")
            let stored = try await portal.database.read { db in try await PatientRepository().find(id: patient.id, on: db) }
            #expect(stored?.contact.phone == "01632 960 999" && stored?.contact.email == "jose.new@example.org")
            let change = try #require(try await portal.auditEntries(action: .patientContactChanged).first)
            #expect(change.detail == "email, phone", "the audit names the fields, never their values")
        }
    }

    @Test(arguments: TestEngines.all)
    func everyRegimenChangeIsKeptAsADatedHistoryAndReportsUseWhatAppliedEachDay(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            var (physician, account) = try await portal.signedIn(.physician)
            let first = CalendarDate(portal.clock.now)
            let (patient, _) = try await PatientFixtures.patient(portal, physicianID: account.id, catalogue: catalogue)
            portal.clock.advance(by: 5 * 86_400)
            let changeDay = CalendarDate(portal.clock.now)
            try await physician.signIn(username: account.username, password: "correct horse battery staple")
            let form = try await physician.get("/patients/\(patient.id)/medications")
            let original = try await portal.database.read { db in try await RegimenRepository().prescriptions(patientID: patient.id, on: db) }
            #expect(form.text.contains(#"name="prescription_0" value="\#(original[0].id)""#))
            #expect(form.text.contains(#"<option value="25/100 mg tablet" selected>"#), "the form is prefilled")
            // The levodopa dose goes up; pramipexole is added.
            let saved = try await physician.post(
                "/patients/\(patient.id)/medications",
                form: [
                    ("rows", "2"), ("prescription_0", "\(original[0].id)"), ("medication_0", "\(catalogue.levodopa)"), ("dose_0", "25/250 mg tablet"),
                    ("frequency_0", "\(catalogue.threeTimesDaily)"), ("note_0", "With water"),
                    ("medication_1", "\(catalogue.pramipexole)"), ("dose_1", "0.25 mg"), ("frequency_1", "\(catalogue.onceDaily)"), ("action", "save")
                ]
            )
            #expect(saved.location == "/patients/\(patient.id)")
            let after = try await portal.database.read { db in try await RegimenRepository().prescriptions(patientID: patient.id, on: db) }
            let oldLevodopa = try #require(after.first { $0.id == original[0].id })
            #expect(oldLevodopa.startsOn == first && oldLevodopa.endsOn == changeDay, "the old dose stopped applying today")
            let current = after.filter { $0.endsOn == nil }
            #expect(Set(current.map(\.summary)) == ["25/250 mg tablet, Three times daily", "0.25 mg, Once daily", "30 minutes, Once daily"])
            #expect(current.allSatisfy { $0.startsOn == changeDay || $0.name == "Walking" }, "the exercise was not touched")
            #expect(try await portal.auditEntries(action: .patientRegimenChanged).first?.detail == "medications: 2 started, 1 ended")

            // Saving the same again changes nothing.
            let rows = try await portal.database.read { db in try await RegimenRepository().prescriptions(patientID: patient.id, on: db) }
                .filter { $0.kind == .medication && $0.endsOn == nil }
            _ = try await physician.post(
                "/patients/\(patient.id)/medications",
                form: [("rows", "2")]
                    + rows.enumerated().flatMap { index, prescription in
                        [
                            ("prescription_\(index)", "\(prescription.id)"), ("medication_\(index)", "\(prescription.itemID)"),
                            ("dose_\(index)", prescription.dose),
                            ("frequency_\(index)", "\(prescription.frequencyID!)"), ("note_\(index)", prescription.note)
                        ]
                    } + [("action", "save")]
            )
            #expect(
                try await portal.database.read { db in try await RegimenRepository().prescriptions(patientID: patient.id, on: db) }.count
                    == after.count
            )

            let history = try await physician.get("/patients/\(patient.id)/history")
            #expect(history.text.contains("<h2 class=\"heading-m\">\(changeDay.displayed)</h2>"))
            #expect(history.text.contains("<h2 class=\"heading-m\">\(first.displayed)</h2>"))
            #expect(history.text.contains("Stopped"))
            #expect(history.text.contains("<strong>Levodopa/carbidopa</strong>, 25/100 mg tablet, Three times daily (from \(first.displayed))"))

            // The report shows the old dose up to the day before the change and the new one from it.
            let csv = try await physician.get("/patients/\(patient.id)/report.csv?from=\(first.iso)&to=\(changeDay.iso)")
            let levodopa = csv.text.split(separator: "\r\n").filter { $0.contains("Levodopa") }.map(String.init)
            #expect(levodopa.count == 6)
            #expect(levodopa.prefix(5).allSatisfy { $0.contains("25/100 mg tablet") })
            #expect(levodopa.last?.hasPrefix("\(changeDay.iso),Medication,Levodopa/carbidopa,25/250 mg tablet") == true)
        }
    }

    @Test(arguments: TestEngines.all)
    func removalNeedsHerLastNameAndDeletesTheRecordAndAppAccountLeavingOnlyHerNumberInTheAuditLog(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            var (physician, account) = try await portal.signedIn(.physician)
            let (patient, token) = try await PatientFixtures.patient(portal, physicianID: account.id, catalogue: catalogue)
            let app = try await PatientFixtures.claimed(portal, patient: patient, token: token)
            let schedule = try await app.get("/api/v1/patient/schedule").object["entries"] as? [[String: Any]]
            let entry = try #require(schedule?.first?["entry_id"] as? String)
            #expect(
                try await app.send(.put, "/api/v1/patient/schedule/\(CalendarDate(portal.clock.now).iso)/entries/\(entry)", json: ["status": "done"])
                    .status == .ok
            )

            let confirm = try await physician.get("/patients/\(patient.id)/remove")
            #expect(confirm.text.contains("This cannot be undone."))
            #expect(confirm.text.contains("Type her last name, Núñez-Ødegård, to confirm"))
            let wrong = try await physician.post("/patients/\(patient.id)/remove", form: [("last_name", "Nunez")])
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.errorSummary == ["The last name you typed does not match. Type Núñez-Ødegård to confirm"])
            #expect(try await portal.database.read { db in try await PatientRepository().find(id: patient.id, on: db) } != nil)

            let removed = try await physician.post("/patients/\(patient.id)/remove", form: [("last_name", "  núñez-ødegård ")])
            #expect(removed.location == "/patients")
            let (found, account_, tokens, prescriptions) = try await portal.database.read { db in
                (
                    try await PatientRepository().find(id: patient.id, on: db),
                    try await PatientAccountRepository().find(patientID: patient.id, on: db),
                    try await AppAccountKind.patient.bearerTokens.count(ownerID: patient.id, on: db),
                    try await RegimenRepository().prescriptions(patientID: patient.id, on: db)
                )
            }
            #expect(found == nil && account_ == nil && tokens == 0 && prescriptions.isEmpty)
            #expect(try await app.get("/api/v1/patient/me").status == .unauthorized, "her app account is gone")
            #expect(try await physician.get("/patients/\(patient.id)").status == .notFound)

            let removal = try #require(try await portal.auditEntries(action: .patientRemoved).first)
            #expect(removal.recordType == "patient" && removal.recordID == "\(patient.id)" && removal.actorAccountID == account.id)
            // No entry about her carries anything but numbers: no name, address, email or medication.
            let everything = try await portal.auditEntries()
            for entry in everything {
                let text = [entry.detail, entry.recordID, entry.actorName].compactMap { $0 }.joined(separator: " ")
                for secret in ["Núñez", "José", patient.contact.email, "Harbour", "Levodopa", "9876", token.value] {
                    #expect(!text.contains(secret), "the audit log holds \(secret)")
                }
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func administratorsSeeEveryPatientAndMoveHerToAnotherPhysician(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            var (first, firstAccount) = try await portal.signedIn(.physician)
            var (second, secondAccount) = try await portal.signedIn(.physician)
            try await portal.database.transaction { db in
                try await StaffAccountRepository().createPhysicianProfile(
                    PhysicianProfile(
                        firstName: "Ingrid",
                        middleName: "",
                        lastName: "Berg",
                        practiceLocation: "Bergen Clinic",
                        medicalIDNumber: "N-1"
                    ),
                    accountID: secondAccount.id,
                    on: db
                )
            }
            let (patient, _) = try await PatientFixtures.patient(portal, physicianID: firstAccount.id, catalogue: catalogue)
            var (admin, _) = try await portal.signedIn(.administrator)
            let list = try await admin.get("/patients")
            #expect(list.text.contains("All patients") && list.text.contains("Núñez-Ødegård") && list.text.contains(firstAccount.username))
            #expect(!list.text.contains("Add new patient"))
            let page = try await admin.get("/patients/\(patient.id)")
            #expect(page.text.contains("Move her to another physician"))
            #expect(!page.text.contains("Change medications"), "prescribing is for physicians")
            #expect(try await admin.get("/patients/\(patient.id)/medications").status == .forbidden)
            let moved = try await admin.post("/patients/\(patient.id)/physician", form: [("physician_id", "\(secondAccount.id)")])
            #expect(moved.location == "/patients/\(patient.id)")
            #expect(try await admin.get("/patients/\(patient.id)").text.contains("José María Núñez-Ødegård now sees Dr Ingrid Berg."))
            #expect(try await first.get("/patients/\(patient.id)").status == .notFound)
            #expect(try await second.get("/patients/\(patient.id)").status == .ok)
            #expect(try await portal.auditEntries(action: .patientReassigned).first?.detail == "physician \(firstAccount.id) to \(secondAccount.id)")
            #expect(try await first.post("/patients/\(patient.id)/physician", form: [("physician_id", "\(firstAccount.id)")]).status == .forbidden)
        }
    }

    @Test(arguments: TestEngines.all)
    func theClaimTokenIsSentAgainOrRevokedFromThePatientPage(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, mailTransport: MailServerNotAnswering()) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            var (physician, account) = try await portal.signedIn(.physician)
            let (patient, token) = try await PatientFixtures.patient(portal, physicianID: account.id, catalogue: catalogue)
            try await physician.get("/patients/\(patient.id)")
            let resent = try await physician.post("/patients/\(patient.id)/claim/resend")
            #expect(resent.location == "/patients/\(patient.id)")
            #expect(
                try await physician.get("/patients/\(patient.id)").text.contains(
                    "A new claim token has been emailed to \(patient.contact.email). The earlier one no longer works."
                )
            )
            let mail = try await portal.database.read { db in
                try await portal.portal.outbox.list(status: nil, page: PageRequest(number: 1), on: db).items
            }
            #expect(mail.count == 1 && mail[0].recipient == patient.contact.email)
            #expect(
                try await AppClient(portal: portal).send(.post, "/api/v1/patient/claim/check", json: ["claim_token": token.value]).status
                    == .unprocessableContent,
                "the first token stopped working"
            )
            let newToken = try #require(
                mail[0].bodyText.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                    .first { $0.count == 24 && $0.filter { $0 == "-" }.count == 4 }
            )
            #expect(try await AppClient(portal: portal).send(.post, "/api/v1/patient/claim/check", json: ["claim_token": newToken]).status == .ok)

            _ = try await physician.post("/patients/\(patient.id)/claim/revoke")
            let page = try await physician.get("/patients/\(patient.id)")
            #expect(page.text.contains("claim token no longer works"))
            #expect(page.text.contains("Claim token revoked"))
            #expect(!page.text.contains("Revoke the claim token"))
            #expect(
                try await AppClient(portal: portal).send(.post, "/api/v1/patient/claim/check", json: ["claim_token": newToken]).status
                    == .unprocessableContent
            )
            #expect(try await portal.auditEntries(action: .claimTokenRevoked).count == 1)
            #expect(try await portal.auditEntries(action: .claimTokenSent).first?.detail == "sent again")
        }
    }
}

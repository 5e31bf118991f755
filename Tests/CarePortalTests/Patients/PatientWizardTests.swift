import Foundation
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The add-patient wizard: Contact → Medications → Exercises → Finish, saved as a draft at every step.
@Suite struct PatientWizardTests {
    static let contact: [(String, String)] = [
        ("first_name", "José"), ("middle_name", "María"), ("last_name", "Núñez-Ødegård"), ("medical_number", "943 476 5919"),
        ("email", "jose@example.org"), ("phone", "+47 55 12 34 56"), ("address", "Strandkaien 12\n5013 Bergen")
    ]

    static func draftID(from location: String?) throws -> Int64 {
        let parts = try #require(location).split(separator: "/")
        return try #require(parts.count >= 3 ? Int64(parts[2]) : nil)
    }

    @Test(arguments: TestEngines.all)
    func eachContactFieldIsCheckedWithItsOwnMessageAndWhatWasTypedIsKept(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (physician, _) = try await portal.signedIn(.physician)
            let form = try await physician.get("/patients/new")
            #expect(form.status == .ok)
            #expect(form.text.contains("aria-current=\"step\""))
            #expect(form.text.contains("Step 1: </span>Contact"))
            let response = try await physician.post(
                "/patients/new",
                form: [
                    ("first_name", "José"), ("last_name", ""), ("medical_number", "12#4"), ("email", "jose@"), ("phone", "12"), ("address", ""),
                    ("action", "next")
                ]
            )
            #expect(response.status == .unprocessableContent)
            #expect(
                response.errorSummary == [
                    "Enter the patient’s last name",
                    "Medical number can only contain letters, numbers, spaces and hyphens",
                    "Enter an email address in the correct format, like name@example.com",
                    "Enter a phone number, like 01632 960 001 or +44 808 157 0192",
                    "Enter the patient’s address"
                ]
            )
            #expect(response.text.contains(##"href="#last_name""##))
            #expect(response.text.contains(#"value="José""#))
            #expect(response.text.contains(#"value="jose@""#))
            #expect(response.text.contains("<title>Error: "))
            // Even a form with mistakes is saved as a draft, and the page now posts to it.
            let drafts = try await portal.database.read { db in
                try await RegimenRepository().drafts(physicianID: physician.portalAccountID(portal), on: db)
            }
            #expect(drafts.count == 1)
            #expect(drafts.first?.contact["email"] == "jose@")
            #expect(response.text.contains("action=\"/patients/drafts/\(drafts[0].id)/contact\""))
        }
    }

    @Test(arguments: TestEngines.all)
    func theWholeWizardCreatesThePatientHerRegimenAndAnAccountWaitingToBeClaimed(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, mailTransport: MailServerNotAnswering()) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            var (physician, account) = try await portal.signedIn(.physician)
            try await physician.get("/patients/new")
            let contact = try await physician.post("/patients/new", form: Self.contact + [("action", "next")])
            #expect(contact.status == .seeOther)
            let id = try Self.draftID(from: contact.location)
            #expect(contact.location == "/patients/drafts/\(id)/medications")

            // Medications: one row to start with; add a second row without JavaScript, fill both.
            let medications = try await physician.get("/patients/drafts/\(id)/medications")
            #expect(medications.text.contains("Step 2: </span>Medications"))
            #expect(medications.text.contains(#"<optgroup label="Levodopa/carbidopa">"#))
            let added = try await physician.post(
                "/patients/drafts/\(id)/medications",
                form: [
                    ("rows", "1"), ("medication_0", "\(catalogue.levodopa)"), ("dose_0", "25/100 mg tablet"),
                    ("frequency_0", "\(catalogue.threeTimesDaily)"), ("note_0", "Before meals"), ("action", "add")
                ]
            )
            #expect(added.location == "/patients/drafts/\(id)/medications")
            let twoRows = try await physician.get("/patients/drafts/\(id)/medications")
            #expect(twoRows.text.contains(#"id="medication_1""#))
            #expect(twoRows.text.contains("Before meals"))
            let next = try await physician.post(
                "/patients/drafts/\(id)/medications",
                form: [
                    ("rows", "2"), ("medication_0", "\(catalogue.levodopa)"), ("dose_0", "25/100 mg tablet"),
                    ("frequency_0", "\(catalogue.threeTimesDaily)"), ("note_0", "Before meals"),
                    ("medication_1", "\(catalogue.pramipexole)"), ("dose_1", "0.5 mg"), ("frequency_1", "\(catalogue.onceDaily)"), ("note_1", ""),
                    ("action", "next")
                ]
            )
            #expect(next.location == "/patients/drafts/\(id)/exercises")

            // Exercises, then Finish.
            let exercises = try await physician.get("/patients/drafts/\(id)/exercises")
            #expect(exercises.text.contains("Step 3: </span>Exercises"))
            #expect(exercises.text.contains(">Finish</button>"))
            let finished = try await physician.post(
                "/patients/drafts/\(id)/exercises",
                form: [
                    ("rows", "1"), ("exercise_0", "\(catalogue.walking)"), ("amount_0", "\(catalogue.thirtyMinutes)"),
                    ("frequency_0", "\(catalogue.onceDaily)"), ("note_0", ""), ("action", "next")
                ]
            )
            #expect(finished.status == .seeOther)
            let patientPath = try #require(finished.location)
            #expect(patientPath.hasPrefix("/patients/"))
            let patientID = try #require(Int64(patientPath.split(separator: "/").last ?? ""))

            let (patient, prescriptions, claim, drafts, mail) = try await portal.database.read { db in
                (
                    try await PatientRepository().find(id: patientID, on: db),
                    try await RegimenRepository().prescriptions(patientID: patientID, on: db),
                    try await PatientAccountRepository().find(patientID: patientID, on: db),
                    try await RegimenRepository().drafts(physicianID: account.id, on: db),
                    try await portal.portal.outbox.list(status: nil, page: PageRequest(number: 1), on: db).items
                )
            }
            #expect(patient?.contact.fullName == "José María Núñez-Ødegård")
            #expect(patient?.contact.address == "Strandkaien 12\n5013 Bergen")
            #expect(patient?.physicianID == account.id)
            #expect(prescriptions.map(\.name) == ["Levodopa/carbidopa", "Pramipexole", "Walking"])
            #expect(prescriptions.map(\.dose) == ["25/100 mg tablet", "0.5 mg", "30 minutes"])
            #expect(prescriptions.map(\.timesPerDay) == [3, 1, 1])
            #expect(prescriptions.allSatisfy { $0.startsOn == CalendarDate(portal.clock.now) && $0.endsOn == nil })
            #expect(prescriptions[0].note == "Before meals")
            #expect(claim?.claimStatus(at: portal.clock.now) == .waiting)
            #expect(claim?.claimExpiresAt == portal.clock.now.addingTimeInterval(14 * 86_400).truncatedToMilliseconds)
            #expect(drafts.isEmpty, "the finished draft is gone")
            let email = try #require(mail.first { $0.recipient == "jose@example.org" })
            #expect(email.bodyText.contains("Hello José"))
            let token = try #require(
                email.bodyText.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                    .first { $0.count == 24 && $0.filter { $0 == "-" }.count == 4 }
            )
            #expect(
                try await portal.database.read { db in try await PatientAccountRepository.claims.owner(token: token, now: portal.clock.now, on: db) }
                    == patientID
            )
            let page = try await physician.get(patientPath)
            #expect(page.text.contains("has been added. Her claim token for the app has been emailed to jose@example.org"))
            #expect(page.text.contains("Waiting to be claimed"))
            #expect(try await portal.auditEntries(action: .patientCreated).map(\.recordID) == ["\(patientID)"])
            #expect(try await portal.auditEntries(action: .claimTokenSent).count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func backKeepsEverythingEnteredAndIncompleteRowsAreExplained(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            var (physician, _) = try await portal.signedIn(.physician)
            try await physician.get("/patients/new")
            let id = try Self.draftID(from: try await physician.post("/patients/new", form: Self.contact + [("action", "next")]).location)
            try await physician.get("/patients/drafts/\(id)/medications")
            // A row with a medication but no dose or frequency, and a dose that is not the medication's.
            let invalid = try await physician.post(
                "/patients/drafts/\(id)/medications",
                form: [
                    ("rows", "3"), ("medication_0", "\(catalogue.levodopa)"), ("dose_0", ""), ("frequency_0", ""),
                    ("medication_1", ""), ("dose_1", ""), ("frequency_1", ""), ("note_1", ""),
                    ("medication_2", "\(catalogue.pramipexole)"), ("dose_2", "25/100 mg tablet"), ("frequency_2", "\(catalogue.onceDaily)"),
                    ("action", "next")
                ]
            )
            #expect(invalid.status == .unprocessableContent)
            #expect(
                invalid.errorSummary == [
                    "Choose the dose for row 1", "Choose how often for row 1", "Choose one of the doses of Pramipexole for row 3"
                ]
            )
            #expect(invalid.text.contains(##"href="#dose_0""##))
            #expect(invalid.text.contains(#"<option value="\#(catalogue.levodopa)" selected>Levodopa/carbidopa</option>"#))

            // Back saves what is on the page and shows the contact step as it was typed.
            let back = try await physician.post(
                "/patients/drafts/\(id)/medications",
                form: [
                    ("rows", "1"), ("medication_0", "\(catalogue.levodopa)"), ("dose_0", "25/250 mg tablet"),
                    ("frequency_0", "\(catalogue.twiceDaily)"),
                    ("note_0", "With water"), ("action", "back")
                ]
            )
            #expect(back.location == "/patients/drafts/\(id)/contact")
            let contactAgain = try await physician.get("/patients/drafts/\(id)/contact")
            for (name, value) in Self.contact where name != "address" {
                #expect(contactAgain.text.contains("name=\"\(name)\" type=") && contactAgain.text.contains("value=\"\(value)\""), "\(name) was lost")
            }
            #expect(contactAgain.text.contains("Strandkaien 12\n5013 Bergen</textarea>"))
            _ = try await physician.post("/patients/drafts/\(id)/contact", form: Self.contact + [("action", "next")])
            let medicationsAgain = try await physician.get("/patients/drafts/\(id)/medications")
            #expect(medicationsAgain.text.contains(#"<option value="25/250 mg tablet" selected>"#))
            #expect(medicationsAgain.text.contains(#"<option value="\#(catalogue.twiceDaily)" selected>Twice daily</option>"#))
            #expect(medicationsAgain.text.contains("With water</textarea>"))
            #expect(medicationsAgain.text.contains("<details class=\"details regimen-row__note\" open>"))

            // Removing a row keeps the others.
            _ = try await physician.post(
                "/patients/drafts/\(id)/medications",
                form: [
                    ("rows", "2"), ("medication_0", "\(catalogue.levodopa)"), ("dose_0", "25/250 mg tablet"),
                    ("frequency_0", "\(catalogue.twiceDaily)"),
                    ("medication_1", "\(catalogue.pramipexole)"), ("dose_1", "1 mg"), ("frequency_1", "\(catalogue.onceDaily)"),
                    ("action", "remove-0")
                ]
            )
            let afterRemove = try await physician.get("/patients/drafts/\(id)/medications")
            #expect(afterRemove.text.contains(#"<option value="1 mg" selected>"#))
            #expect(!afterRemove.text.contains(#"<option value="25/250 mg tablet" selected>"#))
            #expect(!afterRemove.text.contains(#"id="medication_1""#))
        }
    }

    @Test(arguments: TestEngines.all)
    func cancelAsksBeforeDiscardingTheDraft(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await PatientFixtures.catalogue(portal)
            var (physician, account) = try await portal.signedIn(.physician)
            try await physician.get("/patients/new")
            // Cancel on an empty first page has nothing to discard.
            #expect(try await physician.post("/patients/new", form: [("action", "cancel")]).location == "/patients")
            let cancel = try await physician.post("/patients/new", form: Self.contact + [("action", "cancel")])
            let id = try Self.draftID(from: cancel.location)
            #expect(cancel.location == "/patients/drafts/\(id)/cancel")
            let confirm = try await physician.get("/patients/drafts/\(id)/cancel")
            #expect(confirm.text.contains("Discard this new patient?"))
            #expect(confirm.text.contains("Everything entered for José Núñez-Ødegård will be lost."))
            #expect(confirm.text.contains("No, go back to the form"))
            // Asking is not discarding: the draft is still there until the physician confirms.
            #expect(try await portal.database.read { db in try await RegimenRepository().drafts(physicianID: account.id, on: db) }.count == 1)
            let discarded = try await physician.post("/patients/drafts/\(id)/cancel")
            #expect(discarded.location == "/patients")
            #expect(try await portal.database.read { db in try await RegimenRepository().drafts(physicianID: account.id, on: db) }.isEmpty)
            #expect(try await physician.get("/patients").text.contains("The new patient José Núñez-Ødegård was discarded."))
            #expect(try await physician.get("/patients/drafts/\(id)/contact").status == .notFound)
        }
    }

    @Test(arguments: TestEngines.all)
    func aDraftSurvivesTheEndOfTheSessionAndResumesFromThePatientList(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            var (physician, account) = try await portal.signedIn(.physician)
            try await physician.get("/patients/new")
            let id = try Self.draftID(from: try await physician.post("/patients/new", form: Self.contact + [("action", "next")]).location)
            _ = try await physician.post(
                "/patients/drafts/\(id)/medications",
                form: [
                    ("rows", "1"), ("medication_0", "\(catalogue.levodopa)"), ("dose_0", "25/100 mg tablet"),
                    ("frequency_0", "\(catalogue.threeTimesDaily)"), ("action", "add")
                ]
            )
            // The session lapses (30 idle minutes) and the tab is closed.
            portal.clock.advance(by: 31 * 60)
            #expect(try await physician.get("/patients").location?.hasPrefix("/sign-in") == true)
            var again = Visitor(portal: portal)
            try await again.signIn(username: account.username, password: "correct horse battery staple")
            let list = try await again.get("/patients")
            #expect(list.text.contains("1 draft to finish"))
            #expect(list.text.contains(#"<a class="link" href="/patients/drafts/\#(id)/medications">José Núñez-Ødegård</a>"#))
            let resumed = try await again.get("/patients/drafts/\(id)/medications")
            #expect(resumed.text.contains(#"<option value="25/100 mg tablet" selected>"#))
            #expect(resumed.text.contains(#"id="medication_1""#), "the added row is still there")
            // Another physician cannot open it.
            var (other, _) = try await portal.signedIn(.physician)
            #expect(try await other.get("/patients/drafts/\(id)/medications").status == .notFound)
            #expect(!(try await other.get("/patients").text.contains("draft to finish")))
        }
    }

    @Test(arguments: TestEngines.all)
    func finishingWithAMedicalNumberThePhysicianAlreadyHasGoesBackToContact(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            var (physician, account) = try await portal.signedIn(.physician)
            try await PatientFixtures.patient(
                portal,
                physicianID: account.id,
                catalogue: catalogue,
                contact: PatientFixtures.contact(number: "943-476-5919")
            )
            try await physician.get("/patients/new")
            let id = try Self.draftID(from: try await physician.post("/patients/new", form: Self.contact + [("action", "next")]).location)
            _ = try await physician.post("/patients/drafts/\(id)/medications", form: [("rows", "1"), ("action", "next")])
            let finish = try await physician.post("/patients/drafts/\(id)/exercises", form: [("rows", "1"), ("action", "next")])
            #expect(finish.status == .unprocessableContent)
            #expect(
                finish.errorSummary == ["You already have a patient with this medical number. Check the number, or find her in your list of patients"]
            )
            #expect(try await portal.database.read { db in try await PatientRepository().count(physicianID: account.id, on: db) } == 1)
        }
    }
}

extension Visitor {
    /// The staff account this browser is signed in as, found by its session.
    func portalAccountID(_ portal: TestPortal) async throws -> Int64 {
        let session = try #require(try await portal.portal.sessions.resolve(cookieValue: cookie))
        return try #require(session.session.accountID)
    }
}

extension Date {
    /// As storage keeps instants: whole milliseconds.
    var truncatedToMilliseconds: Date { Date(millisecondsSince1970: millisecondsSince1970) }
}

import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The catalogue administrators keep and physicians prescribe from.
@Suite struct CatalogueTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 40)
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 1, count: 40)
    static let webp: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8) + Array(repeating: 2, count: 20)

    @Test(arguments: TestEngines.all)
    func administratorsAddMedicationsWithTheirDosesAndEachFieldIsChecked(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.get("/catalogue").text.contains("No medications yet."))
            try await admin.get("/catalogue/medications/new")
            let invalid = try await admin.post("/catalogue/medications/new", form: [("name", ""), ("doses", " \n "), ("description", "")])
            #expect(invalid.status == .unprocessableContent)
            #expect(
                invalid.errorSummary == [
                    "Enter the medication’s name", "Enter at least one dose, such as 25/100 mg tablet", "Enter a description of the medication"
                ]
            )
            let saved = try await admin.post(
                "/catalogue/medications/new",
                form: [
                    ("name", "Levodopa/carbidopa"), ("doses", "25/100 mg tablet\r\n\r\n25/250 mg tablet\r\n25/100 MG TABLET"),
                    ("description", "Take before meals.")
                ]
            )
            #expect(saved.location == "/catalogue")
            let medications = try await portal.database.read { db in try await CatalogueRepository().medications(on: db) }
            #expect(medications.map(\.doses) == [["25/100 mg tablet", "25/250 mg tablet"]], "blank lines and repeats are dropped")
            let page = try await admin.get("/catalogue")
            #expect(page.text.contains("Levodopa/carbidopa is saved in the catalogue."))
            #expect(page.text.contains("25/100 mg tablet; 25/250 mg tablet"))
            let duplicate = try await admin.post(
                "/catalogue/medications/new",
                form: [("name", "LEVODOPA/Carbidopa"), ("doses", "1 mg"), ("description", "x")]
            )
            #expect(duplicate.errorSummary == ["The catalogue already has a medication called LEVODOPA/Carbidopa"])
            // Changing it shows it as it is.
            let id = try #require(medications.first?.id)
            let edit = try await admin.get("/catalogue/medications/\(id)/edit")
            #expect(edit.text.contains("25/100 mg tablet\n25/250 mg tablet</textarea>"))
            _ = try await admin.post(
                "/catalogue/medications/\(id)/edit",
                form: [("name", "Levodopa/carbidopa"), ("doses", "10/100 mg tablet"), ("description", "New.")]
            )
            #expect(
                try await portal.database.read { db in try await CatalogueRepository().medication(id: id, on: db) }?.doses == ["10/100 mg tablet"]
            )
            #expect(try await portal.auditEntries(action: .catalogueAdded).count == 1)
            #expect(try await portal.auditEntries(action: .catalogueChanged).count == 1)
            var (physician, _) = try await portal.signedIn(.physician)
            #expect(try await physician.get("/catalogue").status == .forbidden)
        }
    }

    @Test(arguments: TestEngines.all)
    func frequenciesAndAmountsAreChecked(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get("/catalogue/frequencies/new")
            let invalid = try await admin.post("/catalogue/frequencies/new", form: [("name", "Hourly"), ("times_per_day", "24"), ("every_days", "0")])
            #expect(
                invalid.errorSummary == [
                    "Times a day must be a whole number from 1 to 12", "Every how many days must be a whole number from 1 to 28"
                ]
            )
            #expect(
                try await admin.post("/catalogue/frequencies/new", form: [("name", "Every 8 hours"), ("times_per_day", "3"), ("every_days", "1")])
                    .location == "/catalogue"
            )
            #expect(
                try await admin.post("/catalogue/frequencies/new", form: [("name", "Weekly"), ("times_per_day", "1"), ("every_days", "7")]).location
                    == "/catalogue"
            )
            #expect(try await admin.post("/catalogue/amounts/new", form: [("name", "")]).errorSummary == ["Enter the amount, such as 10 repetitions"])
            #expect(try await admin.post("/catalogue/amounts/new", form: [("name", "15 minutes")]).location == "/catalogue")
            let page = try await admin.get("/catalogue")
            #expect(page.text.contains("3 times a day, every day"))
            #expect(page.text.contains("Once a day, once a week"))
            #expect(page.text.contains("15 minutes"))
        }
    }

    @Test(arguments: TestEngines.all)
    func illustrationsArePicturesByTheirContentStoredUnderServerChosenNamesAndServedWithTheirType(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get("/catalogue/exercises/new")
            let form = try await admin.get("/catalogue/exercises/new")
            #expect(form.text.contains(#"enctype="multipart/form-data""#))
            // A script named like a picture is refused for what it is.
            let disguised = try await admin.postMultipart(
                "/catalogue/exercises/new",
                fields: [("name", "Walking"), ("description", "Walk tall.")],
                file: ("illustration", "walking.png", "image/png", Array("<script>alert(1)</script>".utf8))
            )
            #expect(disguised.status == .unprocessableContent)
            #expect(disguised.errorSummary == ["The illustration must be a PNG, JPEG or WebP picture"])
            #expect(disguised.text.contains(#"value="Walking""#), "what was typed is kept")
            let tooLarge = try await admin.postMultipart(
                "/catalogue/exercises/new",
                fields: [("name", "Walking"), ("description", "Walk tall.")],
                file: ("illustration", "big.png", "image/png", Self.png + Array(repeating: 0, count: CatalogueRules.illustrationMaximumSize))
            )
            #expect(tooLarge.errorSummary == ["The illustration must be smaller than 2 MB"])

            // A JPEG called .png is a JPEG: the stored type comes from the bytes.
            let saved = try await admin.postMultipart(
                "/catalogue/exercises/new",
                fields: [("name", "Walking"), ("description", "Walk tall.")],
                file: ("illustration", "../../walking.png", "image/png", Self.jpeg)
            )
            #expect(saved.location == "/catalogue")
            let exercise = try #require(try await portal.database.read { db in try await CatalogueRepository().exercises(on: db) }.first)
            let stored = try #require(exercise.illustration)
            #expect(stored.type == .jpeg)
            #expect(IllustrationStore.isStoredName(stored.fileName) && stored.fileName.hasSuffix(".jpg") && !stored.fileName.contains("walking"))
            let store = portal.portal.uploads(IllustrationStore.folder)
            #expect(try await store.read(stored) == Self.jpeg)

            let image = try await admin.get("/catalogue/exercises/\(exercise.id)/illustration")
            #expect(image.status == .ok)
            #expect(image.headers[.contentType] == "image/jpeg")
            #expect(image.headers[.xContentTypeOptions] == "nosniff")
            #expect(Array(image.body.readableBytesView) == Self.jpeg)

            // Replacing it keeps only the new picture.
            let replaced = try await admin.postMultipart(
                "/catalogue/exercises/\(exercise.id)/edit",
                fields: [("name", "Walking"), ("description", "Walk tall.")],
                file: ("illustration", "walk.webp", "image/webp", Self.webp)
            )
            #expect(replaced.location == "/catalogue")
            let files = try await UploadsTests.kept(store)
            #expect(files.count == 1 && files[0].hasSuffix(".webp"))
            #expect(try await admin.get("/catalogue/exercises/\(exercise.id)/illustration").headers[.contentType] == "image/webp")
            // Saving without a new file keeps the picture.
            _ = try await admin.postMultipart(
                "/catalogue/exercises/\(exercise.id)/edit",
                fields: [("name", "Walking"), ("description", "Longer steps.")],
                file: nil
            )
            #expect(try await admin.get("/catalogue/exercises/\(exercise.id)/illustration").status == .ok)
            // Physicians see illustrations; medical professionals do not.
            var (physician, _) = try await portal.signedIn(.physician)
            #expect(try await physician.get("/catalogue/exercises/\(exercise.id)/illustration").status == .ok)
            var (medical, _) = try await portal.signedIn(.medicalProfessional)
            #expect(try await medical.get("/catalogue/exercises/\(exercise.id)/illustration").status == .forbidden)
            // A stored name that is not one the server makes is never opened.
            #expect(!IllustrationStore.isStoredName("../careportal.sqlite") && !IllustrationStore.isStoredName("abc.png"))
        }
    }

    @Test(arguments: TestEngines.all)
    func onlyEntriesNeverPrescribedAreRemoved(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            let physician = try await portal.createStaff(.physician, username: "dr.remove")
            try await PatientFixtures.patient(portal, physicianID: physician.id, catalogue: catalogue)
            var (admin, _) = try await portal.signedIn(.administrator)
            let edit = try await admin.get("/catalogue/medications/\(catalogue.levodopa)/edit")
            #expect(edit.text.contains(">Remove this medication</button>"))
            #expect(!(try await admin.get("/catalogue/medications/new").text.contains("Remove this")))
            // Levodopa was prescribed: it stays, so the history keeps its meaning.
            #expect(try await admin.post("/catalogue/medications/\(catalogue.levodopa)/remove").location == "/catalogue")
            #expect(try await admin.get("/catalogue").text.contains("Levodopa/carbidopa has been prescribed, so it stays in the catalogue"))
            // Pramipexole, arm raises, weekly and 10 repetitions never were.
            for path in [
                "medications/\(catalogue.pramipexole)", "exercises/\(catalogue.armRaises)", "frequencies/\(catalogue.weekly)",
                "amounts/\(catalogue.tenRepetitions)"
            ] {
                #expect(try await admin.post("/catalogue/\(path)/remove").location == "/catalogue")
            }
            let left = try await portal.database.read { db in try await CatalogueRepository().all(on: db) }
            #expect(left.medications.map(\.name) == ["Levodopa/carbidopa"])
            #expect(left.exercises.map(\.name) == ["Walking"])
            #expect(!left.frequencies.contains { $0.name == "Weekly" } && left.frequencies.count == 3)
            #expect(left.amounts.map(\.name) == ["30 minutes"])
            #expect(try await portal.auditEntries(action: .catalogueRemoved).count == 4)
            #expect(try await admin.post("/catalogue/medications/\(catalogue.pramipexole)/remove").status == .notFound)
        }
    }

    @Test(arguments: TestEngines.all)
    func anUploadWithoutTheFormsTokenIsRefused(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get("/catalogue/exercises/new")
            let forged = try await admin.postMultipart(
                "/catalogue/exercises/new",
                fields: [("name", "Walking"), ("description", "x")],
                file: ("illustration", "a.png", "image/png", Self.png),
                csrfToken: "forged"
            )
            #expect(forged.status == .forbidden)
            #expect(try await portal.database.read { db in try await CatalogueRepository().exercises(on: db) }.isEmpty)
        }
    }

    @Test(arguments: TestEngines.all)
    func seedDemoFillsAParkinsonsCatalogueAndThePhysiciansPatients(engine: Database.Engine) async throws {
        let url = try await TestDatabase.make(engine)
        var settings = CommandTests.settings(url)
        settings.baseURL = "https://demo.example.org"
        _ = try await Commands.seedDemo(settings: settings)
        let sealer = try Sealer.load(settings)
        let database = try Database(url: url, logger: TestDatabase.logger)
        let (catalogue, patients, drafts, logs, mail) = try await database.whileRunning {
            try await database.read { db in
                let physicianID = try #require(try await PatientRepository().physicians(on: db).first?.id)
                let patients = try await PatientRepository().list(PatientListQuery(physicianID: physicianID), on: db).items
                let today = CalendarDate(Date())
                return (
                    try await CatalogueRepository().all(on: db), patients, try await RegimenRepository().drafts(physicianID: physicianID, on: db),
                    try await RegimenRepository().logs(
                        patientID: try #require(patients.first { $0.contact.firstName == "José" }).id,
                        from: today.adding(days: -60),
                        through: today,
                        on: db
                    ),
                    try await Outbox(now: Date.init, sealer: sealer, wakeSender: {}).list(status: nil, page: PageRequest(number: 1), on: db).items
                )
            }
        }
        try await TestDatabase.drop(url)
        for name in ["Levodopa/carbidopa", "Pramipexole", "Rasagiline"] { #expect(catalogue.medications.contains { $0.name == name }) }
        for name in ["Walking", "Arm raises", "Sit-to-stand", "Balance practice"] {
            #expect(catalogue.exercises.first { $0.name == name }?.illustration != nil, "\(name) has no illustration")
        }
        #expect(catalogue.frequencies.count >= 5 && catalogue.amounts.count >= 5)
        #expect(patients.count == DemoSeeder.demoPatientCount)
        #expect(patients.contains { $0.contact.fullName.hasPrefix("José María Núñez-Ødegård") })
        #expect(drafts.count == 1)
        #expect(logs.count > 100)
        let patientEmails = Set(patients.map(\.contact.email))
        #expect(
            mail.filter { $0.subject.hasSuffix("app account") && patientEmails.contains($0.recipient) }.count == 3,
            "the unclaimed patients' claim emails wait in the outbox"
        )
    }
}

extension Visitor {
    /// Posts a multipart form as a browser does with a file input: same-origin, with the CSRF token as a field.
    @discardableResult
    mutating func postMultipart(
        _ path: String,
        fields: [(String, String)],
        file: (name: String, filename: String, type: String, bytes: [UInt8])?,
        csrfToken: String? = nil
    ) async throws -> TestResponse {
        let boundary = "----CarePortalTest\(UUID().uuidString.prefix(8))"
        var body: [UInt8] = []
        for (name, value) in fields + [("csrf_token", csrfToken ?? self.csrfToken ?? "")] {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        if let file {
            body += Array(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"\(file.filename)\"\r\nContent-Type: \(file.type)\r\n\r\n"
                    .utf8
            )
            body += file.bytes + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        var headers: HTTPFields = [.contentType: "multipart/form-data; boundary=\(boundary)", .origin: TestPortal.origin]
        if let cookieHeader { headers[.cookie] = cookieHeader }
        let response = try await portal.client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(bytes: body))
        if let token = Visitor.csrfToken(in: String(buffer: response.body)) { self.csrfToken = token }
        return response
    }
}

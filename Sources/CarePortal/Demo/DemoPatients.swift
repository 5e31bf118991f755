import Foundation
import SQLKit

/// A realistic Parkinson's catalogue and the demo physician's patients, with two months of logged
/// doses and exercises, for trying the patient pages, charts and reports.
extension DemoSeeder {
    public static let demoPatientCount = 8

    /// `passwordHash` is of a random password nobody is told: the demo patients' app accounts exist to be seen in the portal.
    func seedCatalogueAndPatients(physicianID: Int64, passwordHash: String, on db: any SQLDatabase) async throws {
        let catalogue = try await seedCatalogue(on: db)
        try await seedPatients(physicianID: physicianID, catalogue: catalogue, passwordHash: passwordHash, on: db)
    }

    private func seedCatalogue(on db: any SQLDatabase) async throws -> Catalogue {
        let repository = CatalogueRepository()
        let now = dependencies.now()
        let medications: [(String, [String], String)] = [
            ("Levodopa/carbidopa", ["10/100 mg tablet", "25/100 mg tablet", "25/250 mg tablet", "50/200 mg extended-release tablet"],
             "Levodopa is turned into dopamine in the brain; carbidopa stops it breaking down before it gets there. Take it 30 to 60 minutes before a meal, because protein in food can stop it working as well."),
            ("Pramipexole", ["0.125 mg tablet", "0.25 mg tablet", "0.5 mg tablet", "1 mg tablet"],
             "A dopamine agonist: it acts like dopamine in the brain. It can make you sleepy without warning, so do not drive if you feel drowsy."),
            ("Ropinirole", ["0.25 mg tablet", "1 mg tablet", "2 mg tablet", "8 mg prolonged-release tablet"],
             "A dopamine agonist taken with food to ease nausea. Tell your physician about any urges you find hard to control."),
            ("Rasagiline", ["0.5 mg tablet", "1 mg tablet"],
             "An MAO-B inhibitor: it helps the brain's own dopamine last longer. Take it once a day, at the same time each day."),
            ("Selegiline", ["5 mg tablet"], "An MAO-B inhibitor taken in the morning, as it can make it hard to sleep if taken late."),
            ("Entacapone", ["200 mg tablet"], "Taken with each dose of levodopa to make it last longer and smooth out wearing-off."),
            ("Amantadine", ["100 mg capsule"], "Helps with involuntary movements (dyskinesia). Take the last dose before mid-afternoon."),
            ("Rotigotine patch", ["2 mg/24 h patch", "4 mg/24 h patch", "6 mg/24 h patch", "8 mg/24 h patch"],
             "A skin patch that releases a dopamine agonist over 24 hours. Put each new patch on a different place on your skin."),
        ]
        for (name, doses, description) in medications {
            _ = try await repository.createMedication(name: name, doses: doses, description: description, now: now, on: db)
        }
        let exercises: [(String, String, String)] = [
            ("Walking", "walking", "Walk at a comfortable pace, taking long steps and swinging your arms. Look ahead, not at your feet. Have a chair or a wall nearby to rest on."),
            ("Arm raises", "arm-raises", "Stand or sit up straight. Raise both arms in front of you and up above your head, then lower them slowly. Breathe out as you lift."),
            ("Sit-to-stand", "sit-to-stand", "Sit near the front of a firm chair with your feet under your knees. Lean forward, push through your heels and stand up tall, then sit down slowly."),
            ("Balance practice", "balance-practice", "Stand beside a kitchen counter, holding it lightly. Lift one foot and hold for ten seconds, then the other. Let go only when you feel steady."),
            ("Heel-to-toe walking", "heel-to-toe", "Walk along a wall, putting the heel of one foot right in front of the toes of the other, as if on a tightrope. Touch the wall if you need to."),
            ("Seated marching", "seated-marching", "Sit up straight in a firm chair and lift your knees in turn, as if marching, while swinging your arms."),
            ("Finger tapping", "finger-tapping", "Tap each fingertip to your thumb in turn, as fast and as big as you can, then do the other hand."),
            ("Wall push-ups", "wall-push-ups", "Stand an arm's length from a wall with your hands flat on it. Bend your elbows to bring your chest to the wall, then push back."),
        ]
        let store = IllustrationStore(dataDirectory: settings.dataDirectory, randomBytes: dependencies.randomBytes)
        for (name, picture, description) in exercises {
            let id = try await repository.createExercise(name: name, description: description, now: now, on: db)
            if let url = Bundle.module.url(forResource: picture, withExtension: "png", subdirectory: "demo-illustrations"),
               let data = FileManager.default.contents(atPath: url.path),
               case .success(let type) = CatalogueRules.illustration(Array(data)) {
                try await repository.setIllustration(exerciseID: id, try store.save(Array(data), type: type), now: now, on: db)
            }
        }
        let frequencies: [(String, Int, Int)] = [
            ("Once daily", 1, 1), ("Twice daily", 2, 1), ("Three times daily", 3, 1), ("Every 8 hours", 3, 1), ("Four times daily", 4, 1),
            ("Every other day", 1, 2), ("Weekly", 1, 7),
        ]
        for (name, times, days) in frequencies {
            _ = try await repository.createFrequency(name: name, timesPerDay: times, everyDays: days, now: now, on: db)
        }
        for amount in ["5 repetitions", "10 repetitions", "15 repetitions", "20 repetitions", "5 minutes", "10 minutes", "15 minutes", "30 minutes"] {
            _ = try await repository.createAmount(name: amount, now: now, on: db)
        }
        return try await repository.all(on: db)
    }

    private func seedPatients(physicianID: Int64, catalogue: Catalogue, passwordHash: String, on db: any SQLDatabase) async throws {
        let people: [(String, String, String)] = [
            ("José", "Núñez-Ødegård", "NHS 943 476 5919"), ("Margaret", "O'Connell", "NHS 485 777 3456"), ("Wei", "Zhang", "NHS 401 023 2137"),
            ("Aleksander", "Kowalczyk", "NHS 706 338 4120"), ("Fatima", "Haddad", "NHS 612 845 9903"), ("Björn", "Lindqvist", "NHS 357 210 6648"),
            ("Grace", "Adeyemi", "NHS 829 554 0071"), ("Harold", "Whitfield", "NHS 150 966 2384"),
        ]
        let now = dependencies.now()
        let today = CalendarDate(now)
        let start = today.adding(days: -60)
        func medication(_ name: String) -> CatalogueMedication { catalogue.medications.first { $0.name == name }! }
        func exercise(_ name: String) -> CatalogueExercise { catalogue.exercises.first { $0.name == name }! }
        func frequency(_ name: String) -> CatalogueFrequency { catalogue.frequencies.first { $0.name == name }! }
        func amount(_ name: String) -> CatalogueExerciseAmount { catalogue.amounts.first { $0.name == name }! }
        let patients = PatientRepository(), regimens = RegimenRepository(), accounts = PatientAccountRepository()
        let outbox = Outbox(now: dependencies.now, wakeSender: {})
        for (index, person) in people.enumerated() {
            let contact = PatientContact(
                firstName: person.0, middleName: index == 0 ? "María" : "", lastName: person.1 + " (demo data)",
                medicalNumber: person.2, email: "\(person.0.lowercased().folding(options: .diacriticInsensitive, locale: nil)).patient@demo.invalid",
                phone: "01632 960 \(String(format: "%03d", 100 + index))", address: "\(10 + index) Riverside Road\nSpringfield"
            )
            let patient = try await patients.create(contact, physicianID: physicianID, now: now.addingTimeInterval(-61 * 86_400), on: db)
            let levodopaDose = ["25/100 mg tablet", "25/250 mg tablet"][index % 2]
            var items = [
                PrescribedItem(prescriptionID: nil, kind: .medication, itemID: medication("Levodopa/carbidopa").id, dose: levodopaDose, amountID: nil,
                               frequency: frequency("Three times daily"), note: "Take 30 minutes before meals."),
                PrescribedItem(prescriptionID: nil, kind: .exercise, itemID: exercise("Walking").id, dose: "30 minutes",
                               amountID: amount("30 minutes").id, frequency: frequency("Once daily"), note: ""),
                PrescribedItem(prescriptionID: nil, kind: .exercise, itemID: exercise(["Sit-to-stand", "Arm raises", "Balance practice"][index % 3]).id,
                               dose: "10 repetitions", amountID: amount("10 repetitions").id, frequency: frequency("Twice daily"), note: ""),
            ]
            if index % 2 == 0 {
                items.insert(PrescribedItem(prescriptionID: nil, kind: .medication, itemID: medication("Rasagiline").id, dose: "1 mg tablet",
                                            amountID: nil, frequency: frequency("Once daily"), note: "In the morning."), at: 1)
            }
            try await regimens.add(items, patientID: patient.id, startsOn: start, by: physicianID, now: now.addingTimeInterval(-60 * 86_400), on: db)
            // Three weeks ago the physician raised the first patients' pramipexole: a change the history keeps.
            if index < 3 {
                let change = today.adding(days: -21)
                try await regimens.add(
                    [PrescribedItem(prescriptionID: nil, kind: .medication, itemID: medication("Pramipexole").id, dose: "0.25 mg tablet", amountID: nil,
                                    frequency: frequency("Three times daily"), note: "")],
                    patientID: patient.id, startsOn: start, by: physicianID, now: now.addingTimeInterval(-60 * 86_400), on: db
                )
                let first = try await regimens.prescriptions(patientID: patient.id, on: db).filter { $0.name == "Pramipexole" }.map(\.id)
                try await regimens.end(ids: first, patientID: patient.id, on: change, by: physicianID, now: now.addingTimeInterval(-21 * 86_400), on: db)
                try await regimens.add(
                    [PrescribedItem(prescriptionID: nil, kind: .medication, itemID: medication("Pramipexole").id, dose: "0.5 mg tablet", amountID: nil,
                                    frequency: frequency("Three times daily"), note: "Raised from 0.25 mg.")],
                    patientID: patient.id, startsOn: change, by: physicianID, now: now.addingTimeInterval(-21 * 86_400), on: db
                )
            }
            let token = ClaimToken(randomBytes: dependencies.randomBytes)
            try await accounts.create(patientID: patient.id, token: token, now: now, on: db)
            guard index < 5 else {
                // The last patients have not claimed their accounts: their claim emails wait in the outbox.
                try await outbox.enqueue(
                    .claimToken(patient: patient, token: token, expiresAt: now.addingTimeInterval(PatientAccount.claimLifetime), settings: settings), on: db
                )
                continue
            }
            // The first five claimed their accounts and log most days.
            _ = try await accounts.claim(token: token.value, username: "demo.patient\(index + 1)", passwordHash: passwordHash,
                                         now: now.addingTimeInterval(-59 * 86_400), on: db)
            let prescriptions = try await regimens.prescriptions(patientID: patient.id, on: db)
            var random = UInt64(index + 1) &* 0x9E37_79B9_7F4A_7C15
            func next() -> Int {
                random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Int(random >> 33) % 100
            }
            let diligence = [92, 78, 64, 85, 45][index]
            var lastLog: Date?
            for dayNumber in start.dayNumber..<today.dayNumber {
                let day = CalendarDate(dayNumber: dayNumber)
                for entry in Schedule.entries(on: day, prescriptions: prescriptions, logs: []) {
                    let roll = next()
                    guard roll < diligence + 8 else { continue }
                    let status: AdherenceLog.Status = roll < diligence ? .done : .missed
                    let loggedAt = Date(timeIntervalSince1970: TimeInterval(dayNumber * 86_400 + 8 * 3600 + entry.slot * 4 * 3600 + next() * 30))
                    try await regimens.log(AdherenceLog(prescriptionID: entry.prescription.id, day: day, slot: entry.slot, status: status, loggedAt: loggedAt),
                                           patientID: patient.id, now: loggedAt, on: db)
                    lastLog = max(lastLog ?? loggedAt, loggedAt)
                }
            }
            if let lastLog { try await patients.markActivity(id: patient.id, at: lastLog, on: db) }
        }
        // A patient the physician started adding and has not finished: the list offers to carry on.
        var draft = PatientDraft()
        draft.contact = ["first_name": "Edith", "middle_name": "", "last_name": "Marsh (demo data)", "medical_number": "NHS 274 118 5530",
                         "email": "edith.patient@demo.invalid", "phone": "01632 960 777", "address": "3 Mill Lane\nSpringfield"]
        draft.step = .medications
        _ = try await regimens.createDraft(physicianID: physicianID, draft, now: now.addingTimeInterval(-3600), on: db)
    }
}

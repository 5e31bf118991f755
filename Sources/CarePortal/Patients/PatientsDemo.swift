import Foundation
import PortalPlatform
import SQLKit

extension DemoData {
    static let patientCount = 8

    /// The demo physician's patients, with two months of logged doses and exercises and one unfinished
    /// draft; prescribed from the catalogue's demo step. Their app accounts share a password nobody is told.
    func seedPatients(physicianID: Int64, on db: any SQLDatabase) async throws {
        let catalogue = try await CatalogueRepository().all(on: db)
        let people: [(String, String, String)] = [
            ("José", "Núñez-Ødegård", "NHS 943 476 5919"), ("Margaret", "O'Connell", "NHS 485 777 3456"), ("Wei", "Zhang", "NHS 401 023 2137"),
            ("Aleksander", "Kowalczyk", "NHS 706 338 4120"), ("Fatima", "Haddad", "NHS 612 845 9903"), ("Björn", "Lindqvist", "NHS 357 210 6648"),
            ("Grace", "Adeyemi", "NHS 829 554 0071"), ("Harold", "Whitfield", "NHS 150 966 2384")
        ]
        let today = CalendarDate(now)
        let start = today.adding(days: -60)
        func medication(_ name: String) -> CatalogueMedication { catalogue.medications.first { $0.name == name }! }
        func exercise(_ name: String) -> CatalogueExercise { catalogue.exercises.first { $0.name == name }! }
        func frequency(_ name: String) -> CatalogueFrequency { catalogue.frequencies.first { $0.name == name }! }
        func amount(_ name: String) -> CatalogueExerciseAmount { catalogue.amounts.first { $0.name == name }! }
        let patients = PatientRepository(), regimens = RegimenRepository(), accounts = PatientAccountRepository()
        for (index, person) in people.enumerated() {
            let contact = PatientContact(
                firstName: person.0,
                middleName: index == 0 ? "María" : "",
                lastName: person.1 + " (demo data)",
                medicalNumber: person.2,
                email: "\(person.0.lowercased().folding(options: .diacriticInsensitive, locale: nil)).patient@demo.invalid",
                phone: "01632 960 \(String(format: "%03d", 100 + index))",
                address: "\(10 + index) Riverside Road\nSpringfield"
            )
            let patient = try await patients.create(contact, physicianID: physicianID, now: now.addingTimeInterval(-61 * 86_400), on: db)
            let levodopaDose = ["25/100 mg tablet", "25/250 mg tablet"][index % 2]
            var items = [
                PrescribedItem(
                    prescriptionID: nil,
                    kind: .medication,
                    itemID: medication("Levodopa/carbidopa").id,
                    dose: levodopaDose,
                    amountID: nil,
                    frequency: frequency("Three times daily"),
                    note: "Take 30 minutes before meals."
                ),
                PrescribedItem(
                    prescriptionID: nil,
                    kind: .exercise,
                    itemID: exercise("Walking").id,
                    dose: "30 minutes",
                    amountID: amount("30 minutes").id,
                    frequency: frequency("Once daily"),
                    note: ""
                ),
                PrescribedItem(
                    prescriptionID: nil,
                    kind: .exercise,
                    itemID: exercise(["Sit-to-stand", "Arm raises", "Balance practice"][index % 3]).id,
                    dose: "10 repetitions",
                    amountID: amount("10 repetitions").id,
                    frequency: frequency("Twice daily"),
                    note: ""
                )
            ]
            if index % 2 == 0 {
                items.insert(
                    PrescribedItem(
                        prescriptionID: nil,
                        kind: .medication,
                        itemID: medication("Rasagiline").id,
                        dose: "1 mg tablet",
                        amountID: nil,
                        frequency: frequency("Once daily"),
                        note: "In the morning."
                    ),
                    at: 1
                )
            }
            try await regimens.add(items, patientID: patient.id, startsOn: start, by: physicianID, now: now.addingTimeInterval(-60 * 86_400), on: db)
            // Three weeks ago the physician raised the first patients' pramipexole: a change the history keeps.
            if index < 3 {
                let change = today.adding(days: -21)
                try await regimens.add(
                    [
                        PrescribedItem(
                            prescriptionID: nil,
                            kind: .medication,
                            itemID: medication("Pramipexole").id,
                            dose: "0.25 mg tablet",
                            amountID: nil,
                            frequency: frequency("Three times daily"),
                            note: ""
                        )
                    ],
                    patientID: patient.id,
                    startsOn: start,
                    by: physicianID,
                    now: now.addingTimeInterval(-60 * 86_400),
                    on: db
                )
                let first = try await regimens.prescriptions(patientID: patient.id, on: db).filter { $0.name == "Pramipexole" }.map(\.id)
                try await regimens.end(
                    ids: first,
                    patientID: patient.id,
                    on: change,
                    by: physicianID,
                    now: now.addingTimeInterval(-21 * 86_400),
                    on: db
                )
                try await regimens.add(
                    [
                        PrescribedItem(
                            prescriptionID: nil,
                            kind: .medication,
                            itemID: medication("Pramipexole").id,
                            dose: "0.5 mg tablet",
                            amountID: nil,
                            frequency: frequency("Three times daily"),
                            note: "Raised from 0.25 mg."
                        )
                    ],
                    patientID: patient.id,
                    startsOn: change,
                    by: physicianID,
                    now: now.addingTimeInterval(-21 * 86_400),
                    on: db
                )
            }
            let token = ClaimToken(randomBytes: dependencies.randomBytes)
            try await accounts.create(patientID: patient.id, token: token, now: now, on: db)
            guard index < 5 else {
                // The last patients have not claimed their accounts: their claim emails wait in the outbox.
                try await outbox.enqueue(
                    .claimToken(patient: patient, token: token, expiresAt: now.addingTimeInterval(PatientAccount.claimLifetime), settings: settings),
                    on: db
                )
                continue
            }
            // The first five claimed their accounts and log most days.
            _ = try await accounts.claim(
                token: token.value,
                username: "demo.patient\(index + 1)",
                passwordHash: appPasswordHash,
                now: now.addingTimeInterval(-59 * 86_400),
                on: db
            )
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
                    try await regimens.log(
                        AdherenceLog(prescriptionID: entry.prescription.id, day: day, slot: entry.slot, status: status, loggedAt: loggedAt),
                        patientID: patient.id,
                        now: loggedAt,
                        on: db
                    )
                    lastLog = max(lastLog ?? loggedAt, loggedAt)
                }
            }
            if let lastLog { try await patients.markActivity(id: patient.id, at: lastLog, on: db) }
        }
        // A patient the physician started adding and has not finished: the list offers to carry on.
        var draft = PatientDraft()
        draft.contact = [
            "first_name": "Edith", "middle_name": "", "last_name": "Marsh (demo data)", "medical_number": "NHS 274 118 5530",
            "email": "edith.patient@demo.invalid", "phone": "01632 960 777", "address": "3 Mill Lane\nSpringfield"
        ]
        draft.step = .medications
        _ = try await regimens.createDraft(physicianID: physicianID, draft, now: now.addingTimeInterval(-3600), on: db)
    }
}

import Foundation
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// A small Parkinson's catalogue and patients made straight in storage, for the patient suites.
enum PatientFixtures {
    struct Catalogue {
        let levodopa: Int64
        let pramipexole: Int64
        let walking: Int64
        let armRaises: Int64
        let onceDaily: Int64
        let twiceDaily: Int64
        let threeTimesDaily: Int64
        let weekly: Int64
        let tenRepetitions: Int64
        let thirtyMinutes: Int64
    }

    static func catalogue(_ portal: TestPortal) async throws -> Catalogue {
        let now = portal.clock.now
        return try await portal.database.transaction { db in
            let repository = CatalogueRepository()
            return Catalogue(
                levodopa: try await repository.createMedication(
                    name: "Levodopa/carbidopa",
                    doses: ["25/100 mg tablet", "25/250 mg tablet"],
                    description: "Replaces dopamine. Take 30 minutes before meals.",
                    now: now,
                    on: db
                ),
                pramipexole: try await repository.createMedication(
                    name: "Pramipexole",
                    doses: ["0.25 mg", "0.5 mg", "1 mg"],
                    description: "A dopamine agonist.",
                    now: now,
                    on: db
                ),
                walking: try await repository.createExercise(name: "Walking", description: "Walk with long steps.", now: now, on: db),
                armRaises: try await repository.createExercise(name: "Arm raises", description: "Raise both arms above your head.", now: now, on: db),
                onceDaily: try await repository.createFrequency(name: "Once daily", timesPerDay: 1, everyDays: 1, now: now, on: db),
                twiceDaily: try await repository.createFrequency(name: "Twice daily", timesPerDay: 2, everyDays: 1, now: now, on: db),
                threeTimesDaily: try await repository.createFrequency(name: "Three times daily", timesPerDay: 3, everyDays: 1, now: now, on: db),
                weekly: try await repository.createFrequency(name: "Weekly", timesPerDay: 1, everyDays: 7, now: now, on: db),
                tenRepetitions: try await repository.createAmount(name: "10 repetitions", now: now, on: db),
                thirtyMinutes: try await repository.createAmount(name: "30 minutes", now: now, on: db)
            )
        }
    }

    static func contact(last: String = "Núñez-Ødegård", number: String = "9876 543 210") -> PatientContact {
        PatientContact(
            firstName: "José",
            middleName: "María",
            lastName: last,
            medicalNumber: number,
            email: "jose.\(UUID().uuidString.prefix(6))@example.org",
            phone: "01632 960 001",
            address: "12 Harbour Road\nBergen"
        )
    }

    /// A patient with levodopa three times daily and walking once daily from `startsOn`; returns her and her claim token.
    @discardableResult
    static func patient(
        _ portal: TestPortal,
        physicianID: Int64,
        catalogue: Catalogue,
        contact: PatientContact = contact(),
        startsOn: CalendarDate? = nil
    ) async throws -> (Patient, ClaimToken) {
        let now = portal.clock.now
        let start = startsOn ?? CalendarDate(now)
        let all = try await portal.database.read { db in try await CatalogueRepository().all(on: db) }
        let items = [
            PrescribedItem(
                prescriptionID: nil,
                kind: .medication,
                itemID: catalogue.levodopa,
                dose: "25/100 mg tablet",
                amountID: nil,
                frequency: all.frequency(catalogue.threeTimesDaily)!,
                note: "With water"
            ),
            PrescribedItem(
                prescriptionID: nil,
                kind: .exercise,
                itemID: catalogue.walking,
                dose: "30 minutes",
                amountID: catalogue.thirtyMinutes,
                frequency: all.frequency(catalogue.onceDaily)!,
                note: ""
            )
        ]
        let token = ClaimToken(randomBytes: Dependencies.systemRandomBytes)
        let patient = try await portal.database.transaction { db in
            let patient = try await PatientRepository().create(contact, physicianID: physicianID, now: now, on: db)
            try await RegimenRepository().add(items, patientID: patient.id, startsOn: start, by: physicianID, now: now, on: db)
            try await PatientAccountRepository().create(patientID: patient.id, token: token, now: now, on: db)
            return patient
        }
        return (patient, token)
    }

    /// Claims the patient's app account through the API and returns the app signed in as her.
    static func claimed(_ portal: TestPortal, patient: Patient, token: ClaimToken, username: String? = nil) async throws -> AppClient {
        let response = try await AppClient(portal: portal).send(
            .post,
            "/api/v1/patient/claim",
            json: claim(patient, token: token, username: username)
        )
        guard response.status == .created, let value = response.object["token"] as? String else {
            throw AppClient.RegistrationFailed(body: response.text)
        }
        return AppClient(portal: portal, token: value)
    }

    static func claim(_ patient: Patient, token: ClaimToken, username: String? = nil, _ changes: [String: Any?] = [:]) -> [String: Any] {
        var body: [String: Any] = [
            "claim_token": token.grouped.lowercased(),
            "first_name": patient.contact.firstName,
            "middle_name": patient.contact.middleName,
            "last_name": patient.contact.lastName,
            "medical_number": patient.contact.medicalNumber,
            "username": username ?? "p.\(UUID().uuidString.prefix(8).lowercased())",
            "password": "Levodopa time 2026"
        ]
        for (key, value) in changes { body[key] = value }
        return body
    }
}

extension TestResponse {
    /// The page's error summary items, in order.
    var errorSummary: [String] {
        let html = text
        guard let start = html.range(of: "error-summary__list") else { return [] }
        let list = html[start.upperBound...]
        guard let end = list.range(of: "</ul>") else { return [] }
        return list[..<end.lowerBound].components(separatedBy: "<li>").dropFirst().compactMap { item in
            guard let open = item.range(of: "\">"), let close = item.range(of: "</a>") else { return nil }
            return String(item[open.upperBound..<close.lowerBound])
        }
    }
}

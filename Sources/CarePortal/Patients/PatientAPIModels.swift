import Foundation
import PortalPlatform

/// The JSON the patient app sends and receives; field names become snake_case on the wire.
/// Every shape here is described in `api/openapi.json`.
enum PatientAPI {
    // MARK: Requests (every field optional, so a missing one gets its own message)

    struct ClaimCheck: Decodable, Sendable {
        var claimToken: String?
    }

    struct Claim: Decodable, Sendable {
        var claimToken: String?
        var firstName: String?
        var middleName: String?
        var lastName: String?
        var medicalNumber: String?
        var username: String?
        var password: String?
    }

    struct LogEntry: Decodable, Sendable {
        var status: String?
    }

    struct ReminderChange: Decodable, Sendable {
        var frequency: String?
        var email: Bool?
    }

    // MARK: Responses

    /// What the claim token says about the patient, for her to confirm (seed 3.4).
    struct ClaimDetails: Encodable, Sendable {
        let firstName: String
        let middleName: String
        let lastName: String
        let medicalNumber: String
        let physicianName: String
    }

    struct Physician: Encodable, Sendable {
        let name: String
        let practiceAddress: String
        /// "615-555-0134"; absent while the physician has not given it.
        let practicePhone: String?
        /// For a `tel:` link: "+16155550134".
        let practicePhoneDial: String?
    }

    /// Her own profile (seed 3.12): name, address, phone, medical number, and her physician.
    struct Profile: Encodable, Sendable {
        let id: Int64
        let username: String
        let firstName: String
        let middleName: String
        let lastName: String
        let medicalNumber: String
        let email: String
        let phone: String
        let address: String
        let physician: Physician

        init(_ patient: Patient, username: String, physician: Physician) {
            id = patient.id
            self.username = username
            firstName = patient.contact.firstName
            middleName = patient.contact.middleName
            lastName = patient.contact.lastName
            medicalNumber = patient.contact.medicalNumber
            email = patient.contact.email
            phone = patient.contact.phone
            address = patient.contact.address
            self.physician = physician
        }
    }

    struct Session: Encodable, Sendable {
        let token: String
        let tokenType = "Bearer"
        let expiresAt: Date
        let patient: Profile
    }

    struct Medication: Encodable, Sendable {
        let prescriptionId: Int64
        let name: String
        let description: String
        let dose: String
        let frequency: String
        let timesPerDay: Int
        let everyDays: Int
        let note: String
        let since: String

        init(_ prescription: Prescription) {
            prescriptionId = prescription.id
            name = prescription.name
            description = prescription.description
            dose = prescription.dose
            frequency = prescription.frequencyName
            timesPerDay = prescription.timesPerDay
            everyDays = prescription.everyDays
            note = prescription.note
            since = prescription.startsOn.iso
        }
    }

    struct Exercise: Encodable, Sendable {
        let prescriptionId: Int64
        let exerciseId: Int64
        let name: String
        let description: String
        let amount: String
        let frequency: String
        let timesPerDay: Int
        let everyDays: Int
        let note: String
        let since: String
        let illustrationUrl: String?

        init(_ prescription: Prescription) {
            prescriptionId = prescription.id
            exerciseId = prescription.itemID
            name = prescription.name
            description = prescription.description
            amount = prescription.dose
            frequency = prescription.frequencyName
            timesPerDay = prescription.timesPerDay
            everyDays = prescription.everyDays
            note = prescription.note
            since = prescription.startsOn.iso
            illustrationUrl = prescription.hasIllustration ? SiteURL.apiPatientIllustration(prescription.itemID).path : nil
        }
    }

    /// Her current medications and exercises with their descriptions (seed 3.10, 3.11).
    struct Regimen: Encodable, Sendable {
        let medications: [Medication]
        let exercises: [Exercise]
    }

    /// One dose or session of the day (seed 3.6), to do, done or missed.
    struct Entry: Encodable, Sendable {
        let entryId: String
        let prescriptionId: Int64
        let kind: String
        let name: String
        let detail: String
        let frequency: String
        let slot: Int
        let slots: Int
        let note: String
        let status: String

        init(_ entry: ScheduleEntry) {
            entryId = entry.entryID
            prescriptionId = entry.prescription.id
            kind = entry.prescription.kind.rawValue
            name = entry.prescription.name
            detail = entry.prescription.dose
            frequency = entry.prescription.frequencyName
            slot = entry.slot
            slots = entry.prescription.timesPerDay
            note = entry.prescription.note
            status = entry.status?.rawValue ?? "to_do"
        }
    }

    struct Schedule: Encodable, Sendable {
        let date: String
        let previousDate: String
        /// Absent on today: the app looks no further ahead than the day being lived.
        let nextDate: String?
        let canLog: Bool
        let entries: [Entry]
    }

    struct Counts: Encodable, Sendable {
        let scheduled: Int
        let done: Int
        let missed: Int
        let notLogged: Int
        let adherencePercent: Int?

        init(_ count: AdherenceCount) {
            scheduled = count.scheduled
            done = count.done
            missed = count.missed
            notLogged = count.notLogged
            adherencePercent = count.percent
        }
    }

    struct DayStatistics: Encodable, Sendable {
        let date: String
        let counts: Counts
    }

    struct ItemStatistics: Encodable, Sendable {
        /// What to send as `item` to see this one alone: `medication:12`.
        let item: String
        let kind: String
        let name: String
        let counts: Counts
    }

    /// Her own adherence over a span of days (seed 3.7), by day and by medication or exercise.
    struct Statistics: Encodable, Sendable {
        let from: String
        let to: String
        let overall: Counts
        let days: [DayStatistics]
        let items: [ItemStatistics]

        init(_ summary: AdherenceSummary) {
            from = summary.from.iso
            to = summary.through.iso
            overall = Counts(summary.total)
            days = summary.days.map { DayStatistics(date: $0.day.iso, counts: Counts($0.count)) }
            items = summary.items.map {
                ItemStatistics(
                    item: StatisticsSelection.Item(kind: $0.kind, itemID: $0.itemID).text,
                    kind: $0.kind.rawValue,
                    name: $0.name,
                    counts: Counts($0.count)
                )
            }
        }
    }

    struct FrequencyChoice: Encodable, Sendable {
        let value: String
        let title: String
    }

    /// How often she is reminded and whether by email (seed 3.9), with the choices the app offers.
    struct Reminders: Encodable, Sendable {
        let frequency: String
        let email: Bool
        let choices: [FrequencyChoice]

        init(_ settings: ReminderSettings) {
            frequency = settings.frequency.rawValue
            email = settings.email
            choices = ReminderSettings.Frequency.allCases.map { FrequencyChoice(value: $0.rawValue, title: $0.title) }
        }
    }
}

extension PatientAPI.Claim {
    /// The first-time confirmation (seed 3.4): what she confirms must be what her physician recorded. The
    /// fields that differ, each with what to do.
    func mismatches(with patient: Patient) -> [String: String] {
        var problems: [String: String] = [:]
        let confirm: [(String, String?, String)] = [
            ("first_name", firstName, patient.contact.firstName), ("middle_name", middleName, patient.contact.middleName),
            ("last_name", lastName, patient.contact.lastName)
        ]
        for (field, typed, recorded) in confirm where !PatientRules.sameName(typed ?? "", recorded) {
            problems[field] = "This does not match what your physician recorded. Check it, or ask your physician to correct it"
        }
        if PatientRules.medicalNumberKey(medicalNumber ?? "") != PatientRules.medicalNumberKey(patient.contact.medicalNumber) {
            problems["medical_number"] =
                "This does not match the medical number your physician recorded. Check it, or ask your physician to correct it"
        }
        return problems
    }

    /// Someone else has the username she chose.
    static var usernameTaken: APIError {
        APIError(
            status: .conflict,
            code: "username_taken",
            message: "That username is already taken.",
            fields: ["username": "That username is already taken. Choose another"]
        )
    }
}

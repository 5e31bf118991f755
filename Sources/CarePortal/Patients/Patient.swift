import Foundation
import PortalPlatform

/// A physician's patient: her contact details and medical number.
public struct Patient: Sendable, Equatable, Identifiable {
    public var id: Int64
    public var physicianID: Int64
    public var contact: PatientContact
    public var createdAt: Date
    public var updatedAt: Date
    /// When she last logged a dose or exercise or signed in to the app.
    public var lastActivityAt: Date?
    /// Raised by the database whenever any of her adherence logs or prescriptions is added, changed or
    /// removed: figures worked out from them hold for as long as it stays the same.
    public var adherenceVersion: Int64

    public var fullName: String { contact.fullName }
}

/// What the Contact step asks, already checked.
public struct PatientContact: Sendable, Equatable, Codable {
    public var firstName: String
    public var middleName: String
    public var lastName: String
    public var medicalNumber: String
    public var email: String
    public var phone: String
    public var address: String

    public var fullName: String {
        [firstName, middleName, lastName].filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// "Núñez-Ødegård, José", as lists sort.
    public var sortableName: String { "\(lastName), \(firstName)" }
}

/// Whether the patient's app account has been claimed, and what became of its claim token.
public struct PatientAccount: Sendable, Equatable {
    public typealias ClaimStatus = PortalPlatform.ClaimStatus

    public var patientID: Int64
    public var username: String?
    public var claimSentAt: Date?
    public var claimExpiresAt: Date?
    public var claimRevokedAt: Date?
    public var claimedAt: Date?
    public var reminders: ReminderSettings

    public func claimStatus(at now: Date) -> ClaimStatus {
        ClaimStatus(expiresAt: claimExpiresAt, revokedAt: claimRevokedAt, claimedAt: claimedAt, now: now)
    }

    /// How long a claim token works after it is emailed.
    static let claimLifetimeDays = ClaimTokens.lifetimeDays
    static let claimLifetime = ClaimTokens.lifetime
}

/// How often the patient wants reminding, and whether by email.
public struct ReminderSettings: Sendable, Equatable {
    /// The preset list the app offers (seed 3.9.2): hours between reminders.
    public enum Frequency: String, Sendable, CaseIterable, Codable {
        case everyTwoHours = "every_2_hours"
        case everyFourHours = "every_4_hours"
        case everyEightHours = "every_8_hours"
        case daily = "daily"

        var hours: Int {
            switch self {
            case .everyTwoHours: 2
            case .everyFourHours: 4
            case .everyEightHours: 8
            case .daily: 24
            }
        }

        init?(hours: Int) {
            guard let match = Self.allCases.first(where: { $0.hours == hours }) else { return nil }
            self = match
        }

        public var title: String {
            switch self {
            case .everyTwoHours: "Every 2 hours"
            case .everyFourHours: "Every 4 hours"
            case .everyEightHours: "Every 8 hours"
            case .daily: "Once a day"
            }
        }
    }

    public var frequency: Frequency
    public var email: Bool

    public static let standard = ReminderSettings(frequency: .everyFourHours, email: false)
}

/// The checks on a patient's contact details, shared by the wizard and the edit page.
enum PatientRules {
    static let nameMaximumLength = 100
    static let medicalNumberMaximumLength = 30
    static let phoneMaximumLength = 30
    static let addressMaximumLength = 300
    static let noteMaximumLength = 500
    /// Rows a physician can add on one step.
    static let maximumRows = 20

    /// The number without spaces, hyphens or case, as duplicates are found.
    static func medicalNumberKey(_ number: String) -> String {
        number.uppercased().filter { !$0.isWhitespace && $0 != "-" }
    }

    /// Lower-cased "last first", for sorting by last name.
    static func nameKey(lastName: String, firstName: String) -> String {
        "\(lastName) \(firstName)".precomposedStringWithCanonicalMapping.lowercased()
    }

    /// Compares names typed in the app with the record: without case, accents' composition or extra spaces.
    static func sameName(_ typed: String, _ recorded: String) -> Bool {
        func normal(_ text: String) -> String {
            text.precomposedStringWithCanonicalMapping.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        return normal(typed) == normal(recorded)
    }

    /// Each contact field's problem, keyed by the field's name; empty when everything is right.
    static func contactProblems(_ values: [String: String]) -> [(field: String, message: String)] {
        var problems: [(String, String)] = []
        func value(_ name: String) -> String { values[name] ?? "" }
        if let problem = FieldRules.requiredTextProblem(value("first_name"), name: "the patient’s first name", maximumLength: nameMaximumLength) {
            problems.append(("first_name", problem))
        }
        if value("middle_name").count > nameMaximumLength {
            problems.append(("middle_name", "Middle names must be \(nameMaximumLength) characters or fewer"))
        }
        if let problem = FieldRules.requiredTextProblem(value("last_name"), name: "the patient’s last name", maximumLength: nameMaximumLength) {
            problems.append(("last_name", problem))
        }
        let number = value("medical_number")
        if number.isEmpty {
            problems.append(("medical_number", "Enter the patient’s medical number"))
        } else if number.count > medicalNumberMaximumLength {
            problems.append(("medical_number", "Medical number must be \(medicalNumberMaximumLength) characters or fewer"))
        } else if !number.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " " || $0 == "-") }) || medicalNumberKey(number).isEmpty {
            problems.append(("medical_number", "Medical number can only contain letters, numbers, spaces and hyphens"))
        }
        if let problem = FieldRules.emailProblem(value("email")) {
            problems.append(("email", problem == "Enter an email address" ? "Enter the patient’s email address" : problem))
        }
        let phone = value("phone")
        let digits = phone.filter(\.isASCIIDigit)
        if phone.isEmpty {
            problems.append(("phone", "Enter the patient’s phone number"))
        } else if phone.count > phoneMaximumLength || digits.count < 7
            || !phone.allSatisfy({ $0.isASCIIDigit || " +-().".contains($0) })
        {
            problems.append(("phone", "Enter a phone number, like 01632 960 001 or +44 808 157 0192"))
        }
        if let problem = FieldRules.requiredTextProblem(value("address"), name: "the patient’s address", maximumLength: addressMaximumLength) {
            problems.append(("address", problem))
        }
        return problems
    }

    static func contact(_ values: [String: String]) -> PatientContact {
        PatientContact(
            firstName: values["first_name"] ?? "",
            middleName: values["middle_name"] ?? "",
            lastName: values["last_name"] ?? "",
            medicalNumber: values["medical_number"] ?? "",
            email: values["email"] ?? "",
            phone: values["phone"] ?? "",
            address: values["address"] ?? ""
        )
    }

    static func values(_ contact: PatientContact) -> [String: String] {
        [
            "first_name": contact.firstName, "middle_name": contact.middleName, "last_name": contact.lastName,
            "medical_number": contact.medicalNumber, "email": contact.email, "phone": contact.phone, "address": contact.address
        ]
    }

    static let contactFieldNames = ["first_name", "middle_name", "last_name", "medical_number", "email", "phone", "address"]
}

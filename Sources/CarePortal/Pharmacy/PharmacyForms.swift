import Foundation
import PortalPlatform

/// The checks the pharmacy's forms and its API share: each problem is handed back by field name.
enum PharmacyForms {
    static let nameMaximumLength = 60
    static let textMaximumLength = 120
    static let descriptionMaximumLength = 500
    static let beaconNumbers = 0...65_535

    static func checkPerson(_ details: PharmacyCustomerDetails, today: CalendarDate, problem: (String, String) -> Void) {
        if let message = FieldRules.personNameProblem(details.firstName, name: "a first name", maximumLength: nameMaximumLength) {
            problem("first_name", message)
        }
        if let message = FieldRules.personNameProblem(details.lastName, name: "a last name", maximumLength: nameMaximumLength) {
            problem("last_name", message)
        }
        if let message = PharmacyRules.dateProblem(details.dateOfBirth, name: "a date of birth") {
            problem("date_of_birth", message)
        } else if let date = CalendarDate(iso: details.dateOfBirth), !(date < today) || date.year < 1900 {
            problem("date_of_birth", "Enter a date of birth in the past, like 1950-04-23")
        }
        if details.phone.count > 30 { problem("phone", "Phone number must be 30 characters or fewer") }
    }

    /// A delivery address: every part but the second line, a US state code and a 5-digit ZIP code.
    static func checkAddress(_ address: DeliveryAddress, required: Bool, problem: (String, String) -> Void) {
        let empty = address.line1.isEmpty && address.line2.isEmpty && address.city.isEmpty && address.state.isEmpty && address.zipCode.isEmpty
        if !required, empty { return }
        if let message = FieldRules.requiredTextProblem(address.line1, name: "the street address", maximumLength: textMaximumLength) {
            problem("line1", message)
        }
        if address.line2.count > textMaximumLength { problem("line2", "The second line must be \(textMaximumLength) characters or fewer") }
        if let message = FieldRules.requiredTextProblem(address.city, name: "the town or city", maximumLength: nameMaximumLength) {
            problem("city", message)
        }
        if !PharmacyRules.stateCodes.contains(address.state) { problem("state", "Enter the state as two letters, like OR") }
        let zip = address.zipCode
        if !((zip.count == 5 || zip.count == 10)
            && zip.enumerated().allSatisfy { index, character in index == 5 ? character == "-" : character.isASCII && character.isNumber })
        {
            problem("zip_code", "Enter a ZIP code, like 97201 or 97201-1234")
        }
    }
}

/// The web app's registration form as typed.
struct PharmacyRegistrationForm: Decodable {
    var first_name: String?
    var last_name: String?
    var date_of_birth_day: String?
    var date_of_birth_month: String?
    var date_of_birth_year: String?
    var phone: String?
    var email: String?
    var password: String?
    var password_confirmation: String?

    var dateOfBirth: DateInputValue { DateInputValue(day: date_of_birth_day, month: date_of_birth_month, year: date_of_birth_year) }

    /// The registration it asks for, and what is wrong with the date of birth (then left empty in it).
    var registration: (Pharmacy.Registration, dateProblem: DateInputProblem?) {
        var dateProblem: DateInputProblem?
        let born: String
        switch dateOfBirth.date(named: "Date of birth", missing: "Enter your date of birth") {
        case .success(let date): born = date.iso
        case .failure(let problem): dateProblem = problem; born = ""
        }
        let registration = Pharmacy.Registration(
            email: email ?? "",
            password: password ?? "",
            details: PharmacyCustomerDetails(
                firstName: first_name?.trimmed ?? "",
                lastName: last_name?.trimmed ?? "",
                dateOfBirth: born,
                phone: phone?.trimmed ?? "",
                address: .none
            )
        )
        return (registration, dateProblem)
    }

    /// Every problem at once by field, the confirmation's with the rest; the date's own problem is shown apart.
    func problems(with registration: Pharmacy.Registration, dateProblem: DateInputProblem?, pharmacy: Pharmacy) -> [String: String] {
        var problems = pharmacy.problems(with: registration)
        if dateProblem != nil { problems["date_of_birth"] = nil }
        if problems["password"] == nil, (password ?? "") != (password_confirmation ?? "") {
            problems["password_confirmation"] = "Enter the same password twice"
        }
        return problems
    }
}

/// A refill request moved on by the pharmacy's staff, as typed: its next status and the reason the customer sees.
struct RefillMoveForm: Decodable {
    var status: String?
    var reason: String?

    /// What the form says is wrong, next to its field.
    struct Problem: Error {
        let field: String
        let message: String

        /// A refused move as the staff page says it; nil when the request is not there.
        init?(_ problem: Pharmacy.RefillProblem) {
            switch problem {
            case .notFound: return nil
            case .reasonMissing:
                self.init(field: "reason", message: "Enter the reason the customer will see, like \"Your prescriber has stopped this medication\"")
            case .noRefillsLeft:
                self.init(
                    field: "status",
                    message: "This prescription has no refills left: cancel the request and tell the customer to ask her prescriber"
                )
            case .notAllowed(let from, let to):
                self.init(field: "status", message: "This request is \(from.title.lowercased()), so it cannot be moved to \(to.title.lowercased())")
            }
        }

        init(field: String, message: String) {
            self.field = field
            self.message = message
        }
    }

    var trimmedReason: String { reason?.trimmed ?? "" }

    /// The status to move to, or what is wrong: no status chosen, or a reason too long.
    func validated() -> Result<RefillStatus, Problem> {
        guard let next = status.flatMap(RefillStatus.init(rawValue:)) else {
            return .failure(Problem(field: "status", message: "Choose what happens next"))
        }
        if trimmedReason.count > PharmacyForms.descriptionMaximumLength {
            return .failure(Problem(field: "reason", message: "The reason must be \(PharmacyForms.descriptionMaximumLength) characters or fewer"))
        }
        return .success(next)
    }
}

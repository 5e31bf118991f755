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

import Foundation
import PortalPlatform

/// A woman in the program, known only by her pseudonym.
public struct Member: Sendable, Equatable, Identifiable {
    public enum Status: String, Sendable, CaseIterable {
        case active, disabled

        public var title: String {
            switch self {
            case .active: "Active"
            case .disabled: "Disabled"
            }
        }
    }

    public var id: Int64
    public var pseudonym: String
    public var avatarID: String
    public var dueDate: CalendarDate
    public var cohort: Cohort
    public var recoveryEmail: String
    public var securityQuestion: String
    public var usState: String?
    public var zipCode: String?
    public var bio: String
    public var status: Status
    public var signUpCodeID: Int64?
    public var createdAt: Date
    public var lastActiveAt: Date

    public var avatar: Avatar { Avatar.member(avatarID) ?? Avatar.memberDefault }
}

/// The members due in one calendar month, who share a chat and see each other's progress.
public struct Cohort: Sendable, Equatable, Identifiable {
    public var id: Int64
    /// `YYYY-MM`.
    public var dueMonth: String

    /// "Due April 2027".
    public var name: String {
        let parts = dueMonth.split(separator: "-")
        guard parts.count == 2, let year = Int(parts[0]), let month = Int(parts[1]), (1...12).contains(month) else {
            return "Due \(dueMonth)"
        }
        return "Due \(CalendarDate.monthNames[month - 1]) \(year)"
    }
}

/// What a member gives when she registers, already checked.
struct NewMember: Sendable {
    var pseudonym: String
    var passwordHash: String
    var avatarID: String
    var dueDate: CalendarDate
    var recoveryEmail: String
    var securityQuestion: String
    var securityAnswerHash: String
    var usState: String?
    var zipCode: String?
    var bio: String
}

/// The checks on what members type, with the exact messages the app shows beside each field.
enum MemberRules {
    static let pseudonymMaximumLength = FieldRules.usernameMaximumLength
    static let bioMaximumLength = 500
    static let securityAnswerMaximumLength = 100
    /// The seed's rule: letters, digits and these symbols.
    static let passwordSymbols = Set("!@#$%^&*")
    /// A due date may be up to ten months ahead, or up to a year past for women who joined after the birth.
    static let dueDateMonthsAhead = 10
    static let dueDateMonthsPast = 12

    static func pseudonymProblem(_ pseudonym: String) -> String? {
        FieldRules.usernameProblem(pseudonym, noun: "pseudonym")
    }

    static func passwordProblem(_ password: String, pseudonym: String?, policy: PasswordPolicy) -> String? {
        if !password.isEmpty, !password.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || passwordSymbols.contains($0) }) {
            return "Password can only contain letters, numbers and the symbols ! @ # $ % ^ & *"
        }
        return policy.problem(with: password, username: pseudonym)
    }

    static func dueDateProblem(_ text: String, today: CalendarDate) -> (CalendarDate?, String?) {
        if text.isEmpty { return (nil, "Enter your due date") }
        guard let date = CalendarDate(iso: text) else { return (nil, "Enter your due date as a real date, like 2027-04-25") }
        if date > today.adding(months: dueDateMonthsAhead) {
            return (nil, "Due date must be within the next \(dueDateMonthsAhead) months")
        }
        if date < today.adding(months: -dueDateMonthsPast) {
            return (nil, "Due date must be within the last \(dueDateMonthsPast) months")
        }
        return (date, nil)
    }

    static func bioProblem(_ bio: String) -> String? {
        bio.count > bioMaximumLength ? "Bio must be \(bioMaximumLength) characters or fewer" : nil
    }

    static func usStateProblem(_ state: String) -> String? {
        USState.all.contains(state) ? nil : "Choose a US state from the list, using its two-letter code, like TN"
    }

    static func zipCodeProblem(_ zip: String) -> String? {
        let digits = zip.filter(\.isNumber)
        let valid =
            (zip.count == 5 && digits.count == 5)
            || (zip.count == 10 && digits.count == 9 && zip.dropFirst(5).first == "-")
        return valid ? nil : "Enter a ZIP code of 5 digits, like 37203"
    }

    /// Security answers match however she types them: case and runs of spaces do not matter.
    static func normalizedAnswer(_ answer: String) -> String {
        answer.precomposedStringWithCanonicalMapping.lowercased()
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Emails are found again without regard to case.
    static func emailKey(_ email: String) -> String { email.lowercased() }
}

/// The two-letter codes of US states, the District of Columbia and the territories.
enum USState {
    /// The help directory keeps a row for each of these for every nationwide entry (`help_resource_reach`):
    /// a code added here needs a migration that adds it for them.
    static let all: Set<String> = [
        "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA",
        "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR",
        "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "AS", "GU", "MP", "PR", "VI"
    ]
}

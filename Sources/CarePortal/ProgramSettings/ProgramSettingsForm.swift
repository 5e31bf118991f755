import Foundation
import PortalPlatform

/// The settings form as typed.
struct ProgramSettingsForm: Sendable {
    var programName: String
    var deletionPhone: String
    var codeLifetimeDays: String
    /// One question per line.
    var securityQuestions: String
    var avatarIDs: [String]
    /// The programs ticked; nil when the form did not show them (they then stay as they are).
    var programIDs: Set<String>?
    /// The programs switched off before this form, for a form that did not show them.
    var programsSwitchedOff: Set<String> = []
    var timeZoneID = ProgramTimeZone.defaultID
    var refillEmail = ""
    var hidesStaffNames = false

    /// The form as sent.
    struct Sent: Decodable {
        var programName: String?
        var deletionPhone: String?
        var codeLifetimeDays: String?
        var securityQuestions: String?
        var avatars: [String]?
        /// Present when the form showed the programs' checkboxes, so a form without them changes none.
        var programsShown: String?
        var programs: [String]?
        var timeZone: String?
        var refillEmail: String?
        /// Present when the form showed the staff-names choice.
        var staffNamesShown: String?
        var staffNames: String?

        enum CodingKeys: String, CodingKey {
            case programName = "program_name", deletionPhone = "deletion_phone", codeLifetimeDays = "code_lifetime_days"
            case securityQuestions = "security_questions", avatars, programsShown = "programs_shown", programs
            case timeZone = "time_zone", refillEmail = "refill_email", staffNamesShown = "staff_names_shown", staffNames = "staff_names"
        }
    }

    init(
        programName: String,
        deletionPhone: String,
        codeLifetimeDays: String,
        securityQuestions: String,
        avatarIDs: [String],
        programIDs: Set<String>?
    ) {
        self.programName = programName
        self.deletionPhone = deletionPhone
        self.codeLifetimeDays = codeLifetimeDays
        self.securityQuestions = securityQuestions
        self.avatarIDs = avatarIDs
        self.programIDs = programIDs
    }

    /// The form as sent; a part the form did not show (the programs, the staff-names choice) keeps `current`'s.
    init(sent: Sent, current: ProgramSettings) {
        self.init(
            programName: sent.programName?.trimmed ?? "",
            deletionPhone: sent.deletionPhone?.trimmed ?? "",
            codeLifetimeDays: sent.codeLifetimeDays?.trimmed ?? "",
            securityQuestions: sent.securityQuestions ?? "",
            avatarIDs: sent.avatars ?? [],
            programIDs: sent.programsShown == nil ? nil : Set(sent.programs ?? [])
        )
        timeZoneID = sent.timeZone ?? current.timeZoneID
        refillEmail = sent.refillEmail?.trimmed ?? current.refillEmail
        hidesStaffNames = sent.staffNamesShown == nil ? current.hidesStaffNamesFromPeople : sent.staffNames == "hidden"
        programsSwitchedOff = current.programsSwitchedOff
    }

    func runs(_ program: Program) -> Bool {
        programIDs.map { $0.contains(program.id) } ?? !programsSwitchedOff.contains(program.id)
    }

    init(_ settings: ProgramSettings) {
        self.init(
            programName: settings.programName,
            deletionPhone: settings.deletionPhone,
            codeLifetimeDays: String(settings.codeLifetimeDays),
            securityQuestions: settings.securityQuestions.joined(separator: "\n"),
            avatarIDs: settings.memberAvatarIDs,
            programIDs: nil
        )
        programsSwitchedOff = settings.programsSwitchedOff
        timeZoneID = settings.timeZoneID
        refillEmail = settings.refillEmail
        hidesStaffNames = settings.hidesStaffNamesFromPeople
    }

    func validated(base: ProgramSettings, programs: [Program]) -> (ProgramSettings?, FormErrors) {
        var errors = FormErrors()
        if let problem = FieldRules.requiredTextProblem(
            programName,
            name: "the program name",
            maximumLength: ProgramSettingsController.programNameMaximumLength
        ) {
            errors.add("program_name", problem)
        }
        let phoneCharacters = Set("0123456789 +-().")
        if !deletionPhone.isEmpty,
            deletionPhone.count > 30 || !deletionPhone.allSatisfy(phoneCharacters.contains)
                || deletionPhone.filter(\.isNumber).count < 7
        {
            errors.add("deletion_phone", "Enter a phone number, like 615 555 0134")
        }
        let days = Int(codeLifetimeDays)
        if codeLifetimeDays.isEmpty {
            errors.add("code_lifetime_days", "Enter how many days a sign-up code can be used")
        } else if days.map({ !ProgramSettings.codeLifetimeRange.contains($0) }) ?? true {
            errors.add("code_lifetime_days", "Enter a whole number of days from 1 to 365")
        }
        let questions = securityQuestions.split(whereSeparator: \.isNewline).map { String($0).trimmed }.filter { !$0.isEmpty }
        let range = ProgramSettingsController.questionCount
        if questions.count < range.lowerBound || questions.count > range.upperBound {
            errors.add("security_questions", "Enter from \(range.lowerBound) to \(range.upperBound) security questions, one per line")
        } else if questions.contains(where: { $0.count > ProgramSettingsController.questionMaximumLength }) {
            errors.add("security_questions", "Each security question must be \(ProgramSettingsController.questionMaximumLength) characters or fewer")
        } else if Set(questions.map { $0.lowercased() }).count != questions.count {
            errors.add("security_questions", "Each security question must be different")
        }
        let avatars = Avatar.memberSet.map(\.id).filter(avatarIDs.contains)
        if avatars.isEmpty { errors.add("avatars", "Choose at least one avatar for members") }
        if let programIDs, !programs.isEmpty, !programs.contains(where: { programIDs.contains($0.id) }) {
            errors.add("programs", "Choose at least one program for this deployment to run")
        }
        if !refillEmail.isEmpty, let problem = FieldRules.emailProblem(refillEmail) { errors.add("refill_email", problem) }
        if !ProgramTimeZone.choices.contains(where: { $0.id == timeZoneID }) {
            errors.add("time_zone", "Choose the program's time zone from the list")
        }
        guard errors.isEmpty, let days else { return (nil, errors) }
        var settings = base
        settings.programName = programName
        settings.deletionPhone = deletionPhone
        settings.codeLifetimeDays = days
        settings.securityQuestions = questions
        settings.memberAvatarIDs = avatars
        settings.timeZoneID = timeZoneID
        settings.refillEmail = refillEmail
        settings.hidesStaffNamesFromPeople = hidesStaffNames
        if let programIDs {
            // Programs this portal does not know (their features are not built in) keep the state they had.
            let known = Set(programs.map(\.id))
            settings.programsSwitchedOff = base.programsSwitchedOff.subtracting(known).union(known.subtracting(programIDs))
        }
        return (settings, errors)
    }
}

extension ProgramSettings {
    /// Which settings differ from `other`, in words for the audit log.
    func changedNames(from other: ProgramSettings) -> [String] {
        [
            programName != other.programName ? "program name" : nil,
            deletionPhone != other.deletionPhone ? "deletion phone number" : nil,
            codeLifetimeDays != other.codeLifetimeDays ? "code lifetime" : nil,
            securityQuestions != other.securityQuestions ? "security questions" : nil,
            memberAvatarIDs != other.memberAvatarIDs ? "avatars" : nil,
            timeZoneID != other.timeZoneID ? "time zone (\(timeZoneID))" : nil,
            refillEmail != other.refillEmail ? "refill email address" : nil,
            hidesStaffNamesFromPeople != other.hidesStaffNamesFromPeople ? "staff names in people's record openings" : nil
        ].compactMap { $0 }
    }

    /// "Physicians' practice switched off", for each of `programs` whose state differs from `other`.
    func programChanges(from other: ProgramSettings, programs: [Program]) -> [String] {
        programs.compactMap { program in
            runs(program) == other.runs(program) ? nil : "\(program.title) switched \(runs(program) ? "on" : "off")"
        }
    }
}

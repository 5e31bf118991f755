import Foundation
import Hummingbird
import PortalPlatform

/// Administrators set the program's name, the deletion phone number, how long sign-up codes
/// last, where the pharmacy hears of refill requests, the security questions and which avatars members may choose.
struct ProgramSettingsController {
    static let access = Access.administrators
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.programSettings.pattern, access: Self.access, show)
        routes.post(SiteURL.programSettings.pattern, access: Self.access, save)
    }

    static let programNameMaximumLength = 60
    static let questionMaximumLength = 150
    static let questionCount = 3...12

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(page(ProgramSettingsForm(portal.programSettings.current), errors: FormErrors(), context: context))
    }

    private struct Submitted: Decodable {
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

    @Sendable func save(request: Request, context: PortalContext) async throws -> Response {
        let submitted = try await request.form(Submitted.self, context: context)
        var form = ProgramSettingsForm(
            programName: submitted.programName?.trimmed ?? "",
            deletionPhone: submitted.deletionPhone?.trimmed ?? "",
            codeLifetimeDays: submitted.codeLifetimeDays?.trimmed ?? "",
            securityQuestions: submitted.securityQuestions ?? "",
            avatarIDs: submitted.avatars ?? [],
            programIDs: submitted.programsShown == nil ? nil : Set(submitted.programs ?? [])
        )
        form.timeZoneID = submitted.timeZone ?? portal.programSettings.current.timeZoneID
        form.refillEmail = submitted.refillEmail?.trimmed ?? portal.programSettings.current.refillEmail
        form.hidesStaffNames =
            submitted.staffNamesShown == nil ? portal.programSettings.current.hidesStaffNamesFromPeople : submitted.staffNames == "hidden"
        form.programsSwitchedOff = portal.programSettings.current.programsSwitchedOff
        let (settings, errors) = form.validated(base: portal.programSettings.current, programs: portal.contributions.programs)
        guard let settings, errors.isEmpty else {
            return portal.pages.response(page(form, errors: errors, context: context), status: .unprocessableContent)
        }
        let origin = portal.origin(of: request, context: context)
        let before = portal.programSettings.current
        try await portal.database.transaction { db in
            try await portal.programSettings.save(settings, now: portal.now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .programSettingsChanged,
                    recordType: "program_settings",
                    origin: origin,
                    detail: (settings.changedNames(from: before) + settings.programChanges(from: before, programs: portal.contributions.programs))
                        .joined(separator: ", ")
                ),
                on: db
            )
        }
        portal.programSettings.adopt(settings)
        try await portal.flash(Flash(.success, "Program settings saved."), context: context)
        return seeOther(.programSettings)
    }

    private func page(_ form: ProgramSettingsForm, errors: FormErrors, context: PortalContext) -> ProgramSettingsPage {
        var fields = [
            FormField(
                "program_name",
                label: "Program name",
                value: form.programName,
                hint: "Shown at the top of every page and in the app.",
                width: 30
            ),
            FormField(
                "deletion_phone",
                label: "Phone number for deletion requests",
                value: form.deletionPhone,
                hint: "Members cannot delete their own account; the app tells them to call this number.",
                type: "tel",
                autocomplete: "off",
                width: 20
            ),
            FormField(
                "code_lifetime_days",
                label: "Days a new sign-up code can be used",
                value: form.codeLifetimeDays,
                hint: "From 1 to 365. Codes already made keep the expiry they were given.",
                type: "text",
                width: 5
            ),
            FormField(
                "refill_email",
                label: "Email address for refill requests (optional)",
                value: form.refillEmail,
                hint: "The pharmacy is told here of each new refill request as it comes, with a link to it and never the medicine's name.",
                type: "email",
                autocomplete: "off"
            )
        ]
        errors.apply(to: &fields)
        let questionsError = errors.items.first { $0.field == "security_questions" }?.message
        let avatarsError = errors.items.first { $0.field == "avatars" }?.message
        let programsError = errors.items.first { $0.field == "programs" }?.message
        let timeZoneError = errors.items.first { $0.field == "time_zone" }?.message
        return ProgramSettingsPage(
            layout: portal.layout("Program settings", context: context, current: .programSettings),
            errors: errors.items,
            fields: fields,
            securityQuestions: form.securityQuestions,
            securityQuestionsError: questionsError,
            avatars: Avatar.memberSet.map {
                ProgramSettingsPage.AvatarChoice(id: $0.id, name: $0.name, path: $0.path, isChosen: form.avatarIDs.contains($0.id))
            },
            avatarsError: avatarsError,
            programs: portal.contributions.programs.map {
                ProgramSettingsPage.ProgramChoice(id: $0.id, title: $0.title, summary: $0.summary, isOn: form.runs($0))
            },
            programsError: programsError,
            timeZones: ProgramTimeZone.choices.map { FilterOption(value: $0.id, title: $0.title, isSelected: $0.id == form.timeZoneID) },
            timeZoneError: timeZoneError,
            hidesStaffNames: form.hidesStaffNames
        )
    }
}

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

struct ProgramSettingsPage: Page {
    struct AvatarChoice: Sendable, Encodable {
        let id: String
        let name: String
        let path: String
        let isChosen: Bool
    }

    static let template = TemplateName.programSettings
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let securityQuestions: String
    let securityQuestionsError: String?
    let avatars: [AvatarChoice]
    let avatarsError: String?
    let programs: [ProgramChoice]
    let programsError: String?
    let timeZones: [FilterOption]
    let timeZoneError: String?
    /// Whether people read "A member of staff" instead of a name for each opening of their record.
    let hidesStaffNames: Bool
    let action = SiteURL.programSettings.path

    struct ProgramChoice: Sendable, Encodable {
        let id: String
        let title: String
        let summary: String
        let isOn: Bool
    }
}

import Foundation
import PortalPlatform

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

extension ProgramSettingsPage {
    /// The settings as the form holds them, with what to fix; `programs` are the programs this portal can run.
    init(form: ProgramSettingsForm, errors: FormErrors, programs: [Program], layout: Layout) {
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
        self.init(
            layout: layout,
            errors: errors.items,
            fields: fields,
            securityQuestions: form.securityQuestions,
            securityQuestionsError: questionsError,
            avatars: Avatar.memberSet.map {
                AvatarChoice(id: $0.id, name: $0.name, path: $0.path, isChosen: form.avatarIDs.contains($0.id))
            },
            avatarsError: avatarsError,
            programs: programs.map {
                ProgramChoice(id: $0.id, title: $0.title, summary: $0.summary, isOn: form.runs($0))
            },
            programsError: programsError,
            timeZones: ProgramTimeZone.choices.map { FilterOption(value: $0.id, title: $0.title, isSelected: $0.id == form.timeZoneID) },
            timeZoneError: timeZoneError,
            hidesStaffNames: form.hidesStaffNames
        )
    }
}

import Foundation
import PortalPlatform

/// The member's part of the people's web app: joining with a sign-up code, recovering her password
/// and her home. Each page's model is made from the same domain values the member API answers with.
extension TemplateName {
    static let appMemberRegister = TemplateName("app/member/register")
    static let appMemberRecovery = TemplateName("app/member/recovery")
    static let appMemberHome = TemplateName("app/member/home")
    static let appMemberProfile = TemplateName("app/member/profile")

    static let appMemberTemplates: [TemplateName] = [.appMemberRegister, .appMemberRecovery, .appMemberHome, .appMemberProfile]
}

extension AppNavigation {
    /// Short words, so the bar stays two rows on a small phone; her surveys and profile are on her home.
    static let member = AppNavigation(
        .member,
        links: [
            ("Home", SiteURL.appMemberHome.path), ("Chat", SiteURL.appChat.path), ("Desk", SiteURL.appDesk.path),
            ("Calendar", SiteURL.appCalendar.path),
            ("Help", SiteURL.appMemberHelp.path), ("Rewards", SiteURL.appMemberRewards.path), ("Notifications", SiteURL.appMemberNotifications.path)
        ]
    )
}

/// A radio button among a question's choices.
struct AppChoice: Encodable, Sendable {
    /// The input's id, which its label and the error summary name.
    let id: String
    let value: String
    let title: String
    let picturePath: String?
    let isSelected: Bool
}

/// Joining: the sign-up code, her pseudonym and password, an avatar, her due date, how to recover the
/// account, and (if she wishes) her state and ZIP code for the helplines near her.
struct MemberRegistrationPage: Page {
    static let template = TemplateName.appMemberRegister
    static let fieldOrder = [
        "sign_up_code", "pseudonym", "password", "password_confirmation", "avatar", "due_date", "recovery_email",
        "security_question", "security_answer", "state", "zip_code"
    ]

    let layout: Layout
    let errors: [FormErrors.Item]
    let accountFields: [FormField]
    let avatars: [AppChoice]
    let avatarError: String?
    let dueDate: DateInputField
    let recoveryFields: [FormField]
    let questions: [AppChoice]
    let questionError: String?
    let answerFields: [FormField]
    let locationFields: [FormField]
    let action = SiteURL.appMemberRegister.path
    let signInPath = AppAccountKind.member.signInPagePath

    init(
        layout: Layout,
        settings: ProgramSettings,
        typed: MemberRegistration?,
        dueDate: DateInputValue,
        dueDateProblem: DateInputProblem?,
        errors: FormErrors
    ) {
        self.layout = layout
        self.errors = errors.items
        func apply(_ fields: [FormField]) -> [FormField] {
            var fields = fields
            errors.apply(to: &fields)
            return fields
        }
        accountFields = apply(
            [
                FormField(
                    "sign_up_code",
                    label: "Sign-up code",
                    value: typed?.signUpCode.trimmed ?? "",
                    hint: "The \(SignUpCode.length) letters and numbers you were given, like K7M4XP",
                    autocomplete: "off",
                    width: 10
                ),
                FormField(
                    "pseudonym",
                    label: "Pseudonym",
                    value: typed?.pseudonym.trimmed ?? "",
                    hint: "The name other members see. Do not use your real name.",
                    autocomplete: "username",
                    width: 20
                )
            ] + FormField.newPassword()
        )
        let chosenAvatar = typed?.avatar.trimmed ?? ""
        avatars = settings.memberAvatars.enumerated().map { index, avatar in
            AppChoice(
                id: index == 0 ? "avatar" : "avatar-\(avatar.id)",
                value: avatar.id,
                title: avatar.name,
                picturePath: avatar.path,
                isSelected: chosenAvatar.isEmpty ? index == 0 : avatar.id == chosenAvatar
            )
        }
        avatarError = errors["avatar"]
        self.dueDate = DateInputField("due_date", legend: "Due date", hint: "For example, 25 4 2027", value: dueDate, problem: dueDateProblem)
        recoveryFields = apply([
            FormField(
                "recovery_email",
                label: "Recovery email address",
                value: typed?.recoveryEmail.trimmed ?? "",
                hint: "Only used if you forget your password. Nobody else sees it.",
                type: "email",
                autocomplete: "email",
                width: 30
            )
        ])
        let chosenQuestion = typed?.securityQuestion.trimmed ?? ""
        questions = settings.securityQuestions.enumerated().map { index, question in
            AppChoice(
                id: index == 0 ? "security_question" : "security_question-\(index)",
                value: question,
                title: question,
                picturePath: nil,
                isSelected: question == chosenQuestion
            )
        }
        questionError = errors["security_question"]
        answerFields = apply([
            FormField(
                "security_answer",
                label: "Your answer",
                hint: "You need it, with your recovery email, to choose a new password.",
                autocomplete: "off",
                width: 20
            )
        ])
        locationFields = apply([
            FormField(
                "state",
                label: "State (optional)",
                value: typed?.state.trimmed.uppercased() ?? "",
                hint: "Two letters, like OR. We show you the helplines for your state.",
                autocomplete: "address-level1",
                width: 4
            ),
            FormField("zip_code", label: "ZIP code (optional)", value: typed?.zipCode.trimmed ?? "", autocomplete: "postal-code", width: 10)
        ])
    }
}

/// A forgotten password, recovered with her recovery email and security answer.
struct MemberRecoveryPage: Page {
    static let template = TemplateName.appMemberRecovery
    static let fieldOrder = ["recovery_email", "security_answer", "new_password", "new_password_confirmation"]

    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let action = SiteURL.appMemberRecovery.path

    init(layout: Layout, email: String = "", errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.errors = errors.items
        var fields =
            [
                FormField(
                    "recovery_email",
                    label: "Recovery email address",
                    value: email,
                    hint: "The address you gave when you joined.",
                    type: "email",
                    autocomplete: "email",
                    width: 30
                ),
                FormField("security_answer", label: "Answer to your security question", autocomplete: "off", width: 20)
            ] + FormField.newPassword("new_password", label: "New password", confirmationLabel: "Confirm new password")
        errors.apply(to: &fields)
        self.fields = fields
    }
}

struct MemberHomePage: Page {
    static let template = TemplateName.appMemberHome

    struct Upcoming: Encodable, Sendable {
        let title: String
        let time: String
    }

    let layout: Layout
    let greeting: String
    let welcome: Bool
    let weekHeading: String?
    let weekSize: String?
    let weekBaby: String?
    let daysText: String
    let pointsText: String
    let unreadText: String?
    let upcoming: [Upcoming]
    let notificationsPath = SiteURL.appMemberNotifications.path
    let deskPath = SiteURL.appDesk.path
    let askPath = SiteURL.appDeskAsk.path
    let surveysPath = SiteURL.appSurveys.path
    let learningPath = SiteURL.appLearning.path
    let moodPath = SiteURL.appMood.path
    let chatPath = SiteURL.appChat.path
    let recordOpeningsPath = SiteURL.appMemberRecordOpenings.path
    let calendarPath = SiteURL.appCalendar.path
    let helpPath = SiteURL.appMemberHelp.path
    let profilePath = SiteURL.appMemberProfile.path

    init(layout: Layout, home: MemberHome, clock: ProgramClock, welcome: Bool) {
        self.layout = layout
        greeting = "Hello, \(home.member.pseudonym)"
        self.welcome = welcome
        // Once the due date has passed, the weeks of pregnancy are behind her.
        let week = home.daysToGo < 0 ? nil : home.week
        weekHeading = week.map { "Week \($0.week) of your pregnancy" }
        weekSize = week.flatMap { $0.size.trimmed.isEmpty ? nil : $0.size }
        weekBaby = week.flatMap { $0.baby.trimmed.isEmpty ? nil : $0.baby }
        daysText =
            switch home.daysToGo {
            case ..<0: "Your due date has passed."
            case 0: "Today is your due date."
            case 1: "1 day to your due date."
            case let days: "\(days) days to your due date."
            }
        pointsText = home.points == 1 ? "You have 1 point this month." : "You have \(home.points) points this month."
        unreadText = AppNotificationsPage.unreadText(home.unreadNotifications)
        upcoming = home.upcoming.map { Upcoming(title: $0.title, time: clock.dateTime($0.at)) }
    }
}

/// Her profile: what others see (avatar, bio), how she recovers her account, and where she lives (for the
/// helplines); her pseudonym, due date and cohort are shown, not changed here.
struct MemberProfilePage: Page {
    static let template = TemplateName.appMemberProfile
    static let fieldOrder = ["avatar", "bio", "recovery_email", "state", "zip_code"]

    let layout: Layout
    let errors: [FormErrors.Item]
    let saved: Bool
    let pseudonym: String
    let dueDateText: String
    let cohort: String
    let avatars: [AppChoice]
    let avatarError: String?
    let bio: String
    let bioError: String?
    let bioMaximumLength = MemberRules.bioMaximumLength
    let fields: [FormField]
    let action = SiteURL.appMemberProfile.path
    let passwordPath = SiteURL.appMemberPassword.path

    init(layout: Layout, member: Member, settings: ProgramSettings, saved: Bool = false, errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.errors = errors.items
        self.saved = saved
        pseudonym = member.pseudonym
        dueDateText = member.dueDate.weekdayAndDay + " \(member.dueDate.year)"
        cohort = member.cohort.name
        avatars = settings.memberAvatars.enumerated().map { index, avatar in
            AppChoice(
                id: index == 0 ? "avatar" : "avatar-\(avatar.id)",
                value: avatar.id,
                title: avatar.name,
                picturePath: avatar.path,
                isSelected: avatar.id == member.avatarID
            )
        }
        avatarError = errors["avatar"]
        bio = member.bio
        bioError = errors["bio"]
        var fields = [
            FormField(
                "recovery_email",
                label: "Recovery email address",
                value: member.recoveryEmail,
                hint: "Only used if you forget your password.",
                type: "email",
                autocomplete: "email",
                width: 30
            ),
            FormField(
                "state",
                label: "State (optional)",
                value: member.usState ?? "",
                hint: "Two letters, like OR.",
                autocomplete: "address-level1",
                width: 4
            ),
            FormField("zip_code", label: "ZIP code (optional)", value: member.zipCode ?? "", autocomplete: "postal-code", width: 10)
        ]
        errors.apply(to: &fields)
        self.fields = fields
    }
}

import Foundation
import Hummingbird
import PortalPlatform

extension APIError {
    /// A paused throttle (429) in the words of a web-app page; nil for any other refusal.
    var pausedPageMessage: String? {
        status == .tooManyRequests ? "Too many tries from here. Wait 15 minutes, then try again." : nil
    }
}

extension TemplateName {
    static let appCheckEmail = TemplateName("app/check-email")
    static let appForgottenPassword = TemplateName("app/forgotten-password")
}

/// What she is told after registering or asking for a reset link: the same whoever she is, so the page
/// never tells whether an address has an account.
struct AppCheckEmailPage: Page {
    static let template = TemplateName.appCheckEmail
    let layout: Layout
    let message: String
    let signInPath: String
    /// Whom to ask when no email comes ("call the pharmacy").
    let whoToCall: String

    init(layout: Layout, message: String, kind: AppAccountKind, whoToCall: String) {
        self.layout = layout
        self.message = message
        signInPath = kind.signInPagePath
        self.whoToCall = whoToCall
    }
}

/// Asking for a link to choose a new password: one field, her email address.
struct AppForgottenPasswordPage: Page {
    static let template = TemplateName.appForgottenPassword
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let action: String

    init(layout: Layout, action: SiteURL, email: String = "", errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.errors = errors.items
        var fields = [
            FormField(
                "email",
                label: "Email address",
                value: email,
                hint: "The address you signed up with.",
                type: "email",
                autocomplete: "email",
                width: 30
            )
        ]
        errors.apply(to: &fields)
        self.fields = fields
        self.action = action.path
    }
}

extension TemplateName {
    static let appFeedback = TemplateName("app/feedback")
    static let appPassword = TemplateName("app/password")
}

/// A new password chosen while signed in (a member's, a care receiver's, a caregiver's): the current one,
/// then the new one twice.
struct AppPasswordPage: Page {
    static let template = TemplateName.appPassword
    static let fieldOrder = ["current_password", "new_password", "new_password_confirmation"]

    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let saved: Bool
    let action: String

    init(layout: Layout, action: String, saved: Bool = false, errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.action = action
        self.errors = errors.items
        self.saved = saved
        var fields =
            [FormField("current_password", label: "Current password", type: "password", autocomplete: "current-password", width: 20)]
            + FormField.newPassword("new_password", label: "New password", confirmationLabel: "Confirm new password")
        errors.apply(to: &fields)
        self.fields = fields
    }

    /// The page again with each problem beside its field, in the fields' order.
    init(layout: Layout, action: String, problems: [String: String]) {
        var errors = FormErrors()
        for field in Self.fieldOrder { if let problem = problems[field] { errors.add(field, problem) } }
        self.init(layout: layout, action: action, errors: errors)
    }

    private struct Form: Decodable {
        var current_password: String?
        var new_password: String?
        var new_password_confirmation: String?
    }

    /// The page's form, sent: nothing is tried until the two new passwords agree (said together with an empty
    /// current password and with `newPasswordProblem`, so she sees every problem at once); then `change` makes
    /// the change. Nil once it is made; otherwise each problem by its field, a pause as the current password's.
    static func submit(
        _ request: Request,
        context: PortalContext,
        newPasswordProblem: (String) -> String? = { _ in nil },
        change: (_ current: String, _ new: String) async throws -> Void
    ) async throws -> [String: String]? {
        let form = try await request.form(Form.self, context: context)
        let current = form.current_password ?? ""
        let new = form.new_password ?? ""
        guard new.isEmpty || new == (form.new_password_confirmation ?? "") else {
            var problems = ["new_password_confirmation": "Enter the same new password twice"]
            problems["new_password"] = newPasswordProblem(new)
            if current.isEmpty { problems["current_password"] = "Enter your current password" }
            return problems
        }
        do {
            try await change(current, new)
            return nil
        } catch let error as APIError where error.status == .unprocessableContent || error.status == .tooManyRequests {
            return error.pausedPageMessage.map { ["current_password": $0] } ?? error.fields
        }
    }
}

/// Feedback to the program's team from the web app: one message, and where the program takes them, whether
/// it is a bug report.
struct AppFeedbackPage: Page {
    static let template = TemplateName.appFeedback
    let layout: Layout
    let errors: [FormErrors.Item]
    let message: String
    let messageError: String?
    let sent: Bool
    /// "The study team": who reads it, at the start of a sentence and within one.
    let teamName: String
    let teamNameInSentence: String
    let offersKind: Bool
    let kinds: [CareChoice]
    let maximumLength = FeedbackRules.maximumLength
    let action: String

    init(
        layout: Layout,
        action: SiteURL,
        teamName: String,
        offersKind: Bool,
        message: String = "",
        kind: FeedbackMessage.Kind = .feedback,
        problem: String? = nil,
        sent: Bool = false
    ) {
        self.layout = layout
        var errors = FormErrors()
        if let problem { errors.add("message", problem) }
        self.errors = errors.items
        self.message = message
        messageError = problem
        self.sent = sent
        self.teamName = teamName.prefix(1).uppercased() + teamName.dropFirst()
        teamNameInSentence = teamName
        self.offersKind = offersKind
        kinds = CareChoice.group(
            "kind",
            FeedbackMessage.Kind.allCases,
            value: \.rawValue,
            title: { $0 == .bugReport ? "Yes: this is a bug report" : "No: this is feedback" },
            selected: { $0 == kind }
        )
        self.action = action.path
    }
}

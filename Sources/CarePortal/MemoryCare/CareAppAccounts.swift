import Foundation
import Hummingbird
import PortalPlatform

/// What both memory-care kinds have in the web app before they sign in: the sign-in page with its links,
/// registering (confirmed by the emailed link, as from the app) and the forgotten-password request; and,
/// once in, their notifications.
struct CareAppAccounts {
    let portal: Portal
    let kind: CareAccountKind
    let navigation: AppNavigation
    var care: MemoryCare { MemoryCare(portal: portal) }

    static let whoToCall = "call the program’s support line"

    func addRoutes(to routes: inout PortalRoutes) {
        routes.appPageSessions(
            kind.appAccount,
            help: nil,
            links: [
                AppSignInPages.Link(lead: "New here?", title: "Create your account", path: CareURL.appRegister(kind).path),
                AppSignInPages.Link(lead: "Forgotten your password?", title: "Choose a new one", path: CareURL.appForgottenPassword(kind).path)
            ]
        )
        routes.get(CareURL.appRegister(kind).pattern, access: .everyone, registration)
        routes.post(CareURL.appRegister(kind).pattern, access: .everyone, register)
        routes.get(CareURL.appForgottenPassword(kind).pattern, access: .everyone, forgottenPassword)
        routes.post(CareURL.appForgottenPassword(kind).pattern, access: .everyone, requestReset)
        routes.get(CareURL.appPassword(kind).pattern, access: .appPage(kind.appAccount), password)
        routes.post(CareURL.appPassword(kind).pattern, access: .appPage(kind.appAccount), changePassword)
        routes.get(CareURL.appFeedback(kind).pattern, access: .appPage(kind.appAccount), feedback)
        routes.post(CareURL.appFeedback(kind).pattern, access: .appPage(kind.appAccount), sendFeedback)
        AppNotificationPages(
            portal: portal,
            accounts: NotificationAccounts(
                kind: kind.appAccount,
                access: .app(kind.appAccount),
                preferences: .care(.apiNotificationPreferences(kind)),
                pushTokens: .care(.apiPushTokens(kind)),
                pushToken: { .care(.apiPushToken(kind, $0)) },
                read: { .care(.apiNotificationRead(kind, $0)) },
                readAll: .care(.apiNotificationsReadAll(kind)),
                choosesReminders: false
            ),
            feed: .care(.appNotifications(kind)),
            readAll: .care(.appNotificationsReadAll(kind)),
            choices: .care(.appNotificationChoices(kind)),
            navigation: navigation
        ) { [kind] subject in
            guard subject.type == NotificationSubject.careMemoryType, let id = subject.id else { return nil }
            // A caregiver reaches her memories through his link to her, which the feed does not carry: a page finds it.
            return kind == .careReceiver ? CareURL.appMemory(id).path : CareURL.appCaregiverMemory(id).path
        }
        .addRoutes(to: &routes)
    }

    // MARK: A new password

    private func passwordLayout(_ context: PortalContext) -> Layout {
        portal.appLayout("Change your password", context: context, navigation: navigation, currentPath: CareURL.appPassword(kind).path)
    }

    @Sendable func password(request: Request, context: PortalContext) async throws -> Response {
        guard context.appAccount?.kind == kind.appAccount else { throw HTTPError(.notFound) }
        return portal.pages.response(
            AppPasswordPage(layout: passwordLayout(context), action: CareURL.appPassword(kind).path, saved: request.query("saved") != nil)
        )
    }

    @Sendable func changePassword(request: Request, context: PortalContext) async throws -> Response {
        guard let holder = context.appAccount, holder.kind == kind.appAccount else { throw HTTPError(.notFound) }
        let problems = try await AppPasswordPage.submit(request, context: context) { current, new in
            try await care.changePassword(holder, current: current, new: new, origin: portal.origin(of: request, context: context))
        }
        guard let problems else { return seeOther("\(CareURL.appPassword(kind).path)?saved=1") }
        return portal.pages.response(
            AppPasswordPage(layout: passwordLayout(context), action: CareURL.appPassword(kind).path, problems: problems),
            status: .unprocessableContent
        )
    }

    private static let team = "the program’s team"

    private func feedbackPage(
        _ context: PortalContext,
        message: String = "",
        kind: FeedbackMessage.Kind = .feedback,
        problem: String? = nil,
        sent: Bool = false
    ) -> AppFeedbackPage {
        AppFeedbackPage(
            layout: portal.appLayout("Feedback", context: context, navigation: navigation, currentPath: CareURL.appFeedback(self.kind).path),
            action: .care(.appFeedback(self.kind)),
            teamName: Self.team,
            offersKind: true,
            message: message,
            kind: kind,
            problem: problem,
            sent: sent
        )
    }

    @Sendable func feedback(request: Request, context: PortalContext) async throws -> Response {
        guard context.appAccount?.kind == kind.appAccount else { throw HTTPError(.notFound) }
        return portal.pages.response(feedbackPage(context, sent: request.query("sent") != nil))
    }

    private struct FeedbackForm: Decodable {
        var message: String?
        var kind: String?
    }

    @Sendable func sendFeedback(request: Request, context: PortalContext) async throws -> Response {
        guard let holder = context.appAccount, holder.kind == kind.appAccount else { throw HTTPError(.notFound) }
        let form = try await request.form(FeedbackForm.self, context: context)
        let chosen = FeedbackMessage.Kind(rawValue: form.kind ?? "") ?? .feedback
        do {
            _ = try await care.sendFeedback(form.message ?? "", kind: chosen.rawValue, from: holder)
        } catch let error as APIError where error.status == .unprocessableContent {
            return portal.pages.response(
                feedbackPage(context, message: (form.message ?? "").trimmed, kind: chosen, problem: error.fields["message"] ?? error.message),
                status: .unprocessableContent
            )
        }
        return seeOther("\(CareURL.appFeedback(kind).path)?sent=1")
    }

    private struct RegistrationForm: Decodable {
        var name: String?
        var email: String?
        var password: String?
        var password_confirmation: String?
    }

    @Sendable func registration(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(CareRegistrationPage(layout: portal.appLayout("Create your account", context: context), kind: kind))
    }

    @Sendable func register(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(RegistrationForm.self, context: context)
        let (name, email, password) = (form.name?.trimmed ?? "", form.email?.trimmed ?? "", form.password ?? "")
        func refused(_ problems: [String: String]) -> Response {
            var errors = FormErrors()
            for field in CareRegistrationPage.fieldOrder { if let problem = problems[field] { errors.add(field, problem) } }
            return portal.pages.response(
                CareRegistrationPage(
                    layout: portal.appLayout("Create your account", context: context),
                    kind: kind,
                    name: name,
                    email: email,
                    errors: errors
                ),
                status: .unprocessableContent
            )
        }
        // Every problem at once, the confirmation's with the rest, before anything is made or sent.
        var problems = care.problems(registering: email, name: name, password: password)
        if problems["password"] == nil, password != (form.password_confirmation ?? "") {
            problems["password_confirmation"] = "Enter the same password twice"
        }
        guard problems.isEmpty else { return refused(problems) }
        do {
            try await care.register(kind: kind, email: email, name: name, password: password, origin: portal.origin(of: request, context: context))
        } catch let error as APIError {
            return refused(error.pausedPageMessage.map { ["email": $0] } ?? error.fields)
        }
        return portal.pages.response(
            AppCheckEmailPage(
                layout: portal.appLayout("Check your email", context: context),
                message: MemoryCare.checkEmail,
                kind: kind.appAccount,
                whoToCall: Self.whoToCall
            )
        )
    }

    private struct ResetForm: Decodable {
        var email: String?
    }

    @Sendable func forgottenPassword(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(
            AppForgottenPasswordPage(layout: portal.appLayout("Forgotten password", context: context), action: .care(.appForgottenPassword(kind)))
        )
    }

    @Sendable func requestReset(request: Request, context: PortalContext) async throws -> Response {
        let email = try await request.form(ResetForm.self, context: context).email ?? ""
        do {
            try await care.requestReset(kind: kind, email: email, origin: portal.origin(of: request, context: context))
        } catch let error as APIError {
            var errors = FormErrors()
            errors.add("email", error.pausedPageMessage ?? error.fields["email"] ?? error.message)
            return portal.pages.response(
                AppForgottenPasswordPage(
                    layout: portal.appLayout("Forgotten password", context: context),
                    action: .care(.appForgottenPassword(kind)),
                    email: email.trimmed,
                    errors: errors
                ),
                status: .unprocessableContent
            )
        }
        return portal.pages.response(
            AppCheckEmailPage(
                layout: portal.appLayout("Check your email", context: context),
                message: AppPasswordReset.sent,
                kind: kind.appAccount,
                whoToCall: Self.whoToCall
            )
        )
    }
}

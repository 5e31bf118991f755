import Foundation
import Hummingbird
import PortalPlatform

/// The member's pages in the people's web app (`/app/member`), over the same domain code as the member
/// app's API: registering with a sign-up code (`MemberRegistration`), recovering a forgotten password
/// (`MemberRecovery`) and her home (`MemberHome`). The information desk's pages belong to the desk.
struct MemberAppController {
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        routes.appPageSessions(
            .member,
            help: nil,
            links: [
                AppSignInPages.Link(lead: "Were you given a sign-up code?", title: "Join the community", path: SiteURL.appMemberRegister.path),
                AppSignInPages.Link(lead: "Forgotten your password?", title: "Choose a new one", path: SiteURL.appMemberRecovery.path)
            ]
        )
        routes.get(SiteURL.appMemberRegister.pattern, access: .everyone, registration)
        routes.post(SiteURL.appMemberRegister.pattern, access: .everyone, register)
        routes.get(SiteURL.appMemberRecovery.pattern, access: .everyone, recovery)
        routes.post(SiteURL.appMemberRecovery.pattern, access: .everyone, recover)
        routes.get(SiteURL.appMemberHome.pattern, access: .memberPages, home)
        routes.get(SiteURL.appMemberProfile.pattern, access: .memberPages, profile)
        routes.post(SiteURL.appMemberProfile.pattern, access: .memberPages, changeProfile)
        routes.get(SiteURL.appMemberPassword.pattern, access: .memberPages, password)
        routes.post(SiteURL.appMemberPassword.pattern, access: .memberPages, changePassword)
        AppNotificationPages(
            portal: portal,
            accounts: .members,
            feed: .appMemberNotifications,
            readAll: .appMemberNotificationsReadAll,
            choices: .appMemberNotificationChoices,
            navigation: .member
        ) { subject in
            switch subject.type {
            case NotificationSubject.threadType: subject.id.map { SiteURL.appDeskThread($0).path }
            case NotificationSubject.calendarEventType: subject.id.map { SiteURL.appCalendarEvent($0).path }
            case NotificationSubject.surveyType: subject.id.map { SiteURL.appSurvey($0).path }
            case NotificationSubject.resourcesType: SiteURL.appMemberHelp.path
            default: nil
            }
        }
        .addRoutes(to: &routes)
        AppRecordOpeningsPages(portal: portal, openings: .member, kind: .member, url: .appMemberRecordOpenings, navigation: .member)
            .addRoutes(to: &routes)
    }

    private func origin(_ request: Request, _ context: PortalContext) -> AuditOrigin { portal.origin(of: request, context: context) }

    // MARK: Registration

    private func registrationPage(
        _ context: PortalContext,
        form: MemberRegistration? = nil,
        dueDate: DateInputValue? = nil,
        dueDateProblem: DateInputProblem? = nil,
        errors: FormErrors = FormErrors()
    ) -> MemberRegistrationPage {
        MemberRegistrationPage(
            layout: portal.appLayout("Join the community", context: context),
            settings: portal.programSettings.current,
            typed: form,
            dueDate: dueDate ?? DateInputValue(day: nil, month: nil, year: nil),
            dueDateProblem: dueDateProblem,
            errors: errors
        )
    }

    @Sendable func registration(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(registrationPage(context))
    }

    @Sendable func register(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(MemberRegistrationForm.self, context: context)
        let (registration, dueDateProblem) = form.registration
        func refused(_ problems: [String: String]) -> Response {
            var errors = FormErrors()
            var dates = dueDateProblem.map { ["due_date": $0] } ?? [:]
            errors.add(problems, in: MemberRegistrationPage.fieldOrder, dates: &dates, dateFields: ["due_date"])
            return portal.pages.response(
                registrationPage(context, form: registration, dueDate: form.dueDate, dueDateProblem: dates["due_date"], errors: errors),
                status: .unprocessableContent
            )
        }
        let today = CalendarDate(portal.now)
        let problems = form.problems(with: registration, dueDateProblem: dueDateProblem, today: today, portal: portal)
        guard dueDateProblem == nil, problems.isEmpty else { return refused(problems) }
        do {
            let (_, issued) = try await registration.register(origin: origin(request, context), portal: portal)
            var response = seeOther("\(SiteURL.appMemberHome.path)?welcome=1")
            response.setCookie(portal.appPageCookies.session(kind: .member, token: issued.token))
            return response
        } catch let error as APIError where error.status == .tooManyRequests {
            return refused(["sign_up_code": "Too many tries from here. Wait 15 minutes, then try again."])
        } catch let error as APIError where !error.fields.isEmpty {
            return refused(error.fields)
        }
    }

    // MARK: Recovery

    private struct RecoveryForm: Decodable {
        var recovery_email: String?
        var security_answer: String?
        var new_password: String?
        var new_password_confirmation: String?
    }

    @Sendable func recovery(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(MemberRecoveryPage(layout: portal.appLayout("Forgotten password", context: context)))
    }

    @Sendable func recover(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(RecoveryForm.self, context: context)
        let recovery = MemberRecovery(
            recoveryEmail: form.recovery_email ?? "",
            securityAnswer: form.security_answer ?? "",
            newPassword: form.new_password ?? ""
        )
        var problems = recovery.problems(policy: portal.passwordPolicy)
        if problems["new_password"] == nil, recovery.newPassword != (form.new_password_confirmation ?? "") {
            problems["new_password_confirmation"] = "Enter the same new password twice"
        }
        if problems.isEmpty {
            do {
                try await recovery.recover(origin: origin(request, context), portal: portal)
                return seeOther("\(AppAccountKind.member.signInPagePath)?recovered=1")
            } catch let error as APIError {
                switch error.status {
                case .tooManyRequests: problems["recovery_email"] = "Too many tries. Wait 15 minutes, then try again."
                case .unauthorized: problems["recovery_email"] = MemberRecovery.wrongRecovery
                default: problems = error.fields.isEmpty ? ["recovery_email": error.message] : error.fields
                }
            }
        }
        var errors = FormErrors()
        for field in MemberRecoveryPage.fieldOrder { if let problem = problems[field] { errors.add(field, problem) } }
        return portal.pages.response(
            MemberRecoveryPage(
                layout: portal.appLayout("Forgotten password", context: context),
                email: recovery.recoveryEmail.trimmed,
                errors: errors
            ),
            status: .unprocessableContent
        )
    }

    // MARK: Home

    @Sendable func home(request: Request, context: PortalContext) async throws -> Response {
        guard let holder = context.appAccount, holder.kind == .member,
            let home = try await MemberHome.load(memberID: holder.accountID, portal: portal)
        else { throw HTTPError(.notFound) }
        return portal.pages.response(
            MemberHomePage(
                layout: portal.appLayout("Home", context: context, navigation: .member, currentPath: SiteURL.appMemberHome.path),
                home: home,
                clock: portal.programSettings.current.clock,
                welcome: request.query("welcome") != nil
            )
        )
    }

    // MARK: Profile and password

    private func holder(_ context: PortalContext) throws -> AppAccountHolder {
        guard let holder = context.appAccount, holder.kind == .member else { throw HTTPError(.notFound) }
        return holder
    }

    private func layout(_ title: String, _ context: PortalContext, _ url: SiteURL) -> Layout {
        portal.appLayout(title, context: context, navigation: .member, currentPath: url.path)
    }

    @Sendable func profile(request: Request, context: PortalContext) async throws -> Response {
        let holder = try holder(context)
        guard let member = try await portal.database.read({ db in try await MemberRepository().find(id: holder.accountID, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return portal.pages.response(
            MemberProfilePage(
                layout: layout("Your profile", context, .appMemberProfile),
                member: member,
                settings: portal.programSettings.current,
                saved: request.query("saved") != nil
            )
        )
    }

    private struct ProfileForm: Decodable {
        var avatar: String?
        var recovery_email: String?
        var state: String?
        var zip_code: String?
        var bio: String?
    }

    @Sendable func changeProfile(request: Request, context: PortalContext) async throws -> Response {
        let holder = try holder(context)
        let form = try await request.form(ProfileForm.self, context: context)
        let change = MemberProfile.Change(
            avatar: form.avatar,
            recoveryEmail: form.recovery_email ?? "",
            state: form.state ?? "",
            zipCode: form.zip_code ?? "",
            bio: form.bio ?? ""
        )
        do {
            _ = try await MemberProfile.change(
                change,
                memberID: holder.accountID,
                actor: context.auditActor,
                origin: origin(request, context),
                portal: portal
            )
            return seeOther("\(SiteURL.appMemberProfile.path)?saved=1")
        } catch let error as APIError where error.status == .unprocessableContent {
            guard var member = try await portal.database.read({ db in try await MemberRepository().find(id: holder.accountID, on: db) }) else {
                throw HTTPError(.notFound)
            }
            // What she typed is kept.
            change.show(on: &member)
            var errors = FormErrors()
            for field in MemberProfilePage.fieldOrder { if let problem = error.fields[field] { errors.add(field, problem) } }
            return portal.pages.response(
                MemberProfilePage(
                    layout: layout("Your profile", context, .appMemberProfile),
                    member: member,
                    settings: portal.programSettings.current,
                    errors: errors
                ),
                status: .unprocessableContent
            )
        }
    }

    @Sendable func password(request: Request, context: PortalContext) async throws -> Response {
        _ = try holder(context)
        return portal.pages.response(
            AppPasswordPage(
                layout: layout("Change your password", context, .appMemberProfile),
                action: SiteURL.appMemberPassword.path,
                saved: request.query("saved") != nil
            )
        )
    }

    @Sendable func changePassword(request: Request, context: PortalContext) async throws -> Response {
        let holder = try holder(context)
        let problems = try await AppPasswordPage.submit(
            request,
            context: context,
            newPasswordProblem: { MemberRules.passwordProblem($0, pseudonym: nil, policy: portal.passwordPolicy) }
        ) { current, new in
            try await MemberProfile.changePassword(
                current: current,
                new: new,
                holder: holder,
                actor: context.auditActor,
                origin: origin(request, context),
                portal: portal
            )
        }
        guard let problems else { return seeOther("\(SiteURL.appMemberPassword.path)?saved=1") }
        return portal.pages.response(
            AppPasswordPage(
                layout: layout("Change your password", context, .appMemberProfile),
                action: SiteURL.appMemberPassword.path,
                problems: problems
            ),
            status: .unprocessableContent
        )
    }
}

import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// The patient's pages in the people's web app (`/app/patient`), over the same domain code as the
/// patient API: she signs in with the username and password she chose when she claimed her account.
struct PatientAppController {
    let portal: Portal

    static let forgottenPassword = "Forgotten your password or username? Ask your physician's practice: they can send you a new link to set them."

    func addRoutes(to routes: inout PortalRoutes) {
        routes.appPageSessions(
            .patient,
            help: Self.forgottenPassword,
            links: [
                AppSignInPages.Link(
                    lead: "First time here?",
                    title: "Claim your account with the token from your email",
                    path: SiteURL.appPatientClaim.path
                )
            ]
        )
        routes.get(SiteURL.appPatientClaim.pattern, access: .everyone, claimStart)
        routes.post(SiteURL.appPatientClaim.pattern, access: .everyone, claimCheck)
        routes.post(SiteURL.appPatientClaimAccount.pattern, access: .everyone, claimAccount)
        routes.get(SiteURL.appPatientDay.pattern, access: .patientPages, day)
        routes.post(SiteURL.pattern(SiteURL.appPatientEntry), access: .patientPages, log)
        routes.get(SiteURL.appPatientProgress.pattern, access: .patientPages, progress)
        routes.get(SiteURL.appPatientReminders.pattern, access: .patientPages, reminders)
        routes.post(SiteURL.appPatientReminders.pattern, access: .patientPages, changeReminders)
        routes.get(SiteURL.appPatientDoctor.pattern, access: .patientPages, doctor)
        AppRecordOpeningsPages(portal: portal, openings: .patient, kind: .patient, url: .appPatientRecordOpenings, navigation: .patient)
            .addRoutes(to: &routes)
    }

    private func layout(_ title: String, _ context: PortalContext, _ url: SiteURL) -> Layout {
        portal.appLayout(title, context: context, navigation: .patient, currentPath: url.path)
    }

    private var today: CalendarDate { CalendarDate(portal.now) }

    @Sendable func day(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requirePatient()
        let today = self.today
        // A date that is not one, or one still to come, shows today.
        let asked = request.query("date").flatMap(CalendarDate.init(iso:)).map { min($0, today) } ?? today
        let schedule = try await portal.database.read { db in try await PatientDay.load(patientID: holder.accountID, day: asked, today: today, on: db)
        }
        let page = PatientDayPage(
            layout: layout(asked == today ? "Today" : PatientDayPage.longDate(asked), context, .appPatientDay),
            schedule: schedule
        )
        return portal.pages.response(page)
    }

    private struct LogForm: Decodable {
        var status: String?
    }

    @Sendable func log(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requirePatient()
        guard let day = context.parameters.get("date").flatMap(CalendarDate.init(iso:)), let entryID = context.parameters.get("entry") else {
            throw HTTPError(.notFound)
        }
        let form = try await request.form(LogForm.self, context: context)
        guard let status = form.status.flatMap(AdherenceLog.Status.init(rawValue:)) else { throw HTTPError(.badRequest) }
        do {
            let entry = try await PatientDay.log(
                patientID: holder.accountID,
                day: day,
                entryID: entryID,
                status: status,
                actor: context.auditActor,
                origin: portal.origin(of: request, context: context),
                portal: portal
            )
            return seeOther("\(PatientDayPage.path(day, today: today))#entry-\(entry.entryID)")
        } catch is PatientDay.LogRefusal {
            throw HTTPError(.notFound)
        }
    }

    @Sendable func progress(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requirePatient()
        let days = request.query("days").flatMap(Int.init).flatMap { PatientProgressPage.spanDays.contains($0) ? $0 : nil } ?? 30
        let through = today, from = today.adding(days: -(days - 1))
        let (prescriptions, logs) = try await portal.database.read { db in
            let regimens = RegimenRepository()
            return (
                try await regimens.prescriptions(patientID: holder.accountID, on: db),
                try await regimens.logs(patientID: holder.accountID, from: from, through: through, on: db)
            )
        }
        // One of her medicines or exercises (`medication:12`), or one kind; anything else counts everything.
        let typed = request.query("activity")
        let selection = typed.flatMap { value in
            try? (value.contains(":") ? StatisticsSelection(items: [value], kind: nil) : StatisticsSelection(items: [], kind: value))
        }
        let chosen = selection.flatMap { try? $0.prescriptions(of: prescriptions) }
        let summary = AdherenceSummary(prescriptions: chosen ?? prescriptions, logs: logs, from: from, through: through)
        let page = PatientProgressPage(
            layout: layout("Progress", context, .appPatientProgress),
            summary: summary,
            days: days,
            prescriptions: prescriptions,
            activity: chosen == nil ? nil : typed
        ) { portal.pages.html($0) }
        return portal.pages.response(page)
    }

    private func account(_ context: PortalContext) async throws -> PatientAccount {
        let holder = try context.requirePatient()
        guard let account = try await portal.database.read({ db in try await PatientAccountRepository().find(patientID: holder.accountID, on: db) })
        else {
            throw HTTPError(.notFound)
        }
        return account
    }

    @Sendable func reminders(request: Request, context: PortalContext) async throws -> Response {
        let account = try await account(context)
        let page = PatientRemindersPage(
            layout: layout("Reminders", context, .appPatientReminders),
            settings: account.reminders,
            saved: request.query("saved") != nil
        )
        return portal.pages.response(page)
    }

    private struct RemindersForm: Decodable {
        var frequency: String?
        var email: String?
    }

    @Sendable func changeReminders(request: Request, context: PortalContext) async throws -> Response {
        let account = try await account(context)
        let form = try await request.form(RemindersForm.self, context: context)
        guard let frequency = form.frequency.flatMap(ReminderSettings.Frequency.init(rawValue:)) else {
            var errors = FormErrors()
            errors.add("frequency", "Choose how often to be reminded")
            var settings = account.reminders
            settings.email = form.email == "on"
            return portal.pages.response(
                PatientRemindersPage(layout: layout("Reminders", context, .appPatientReminders), settings: settings, errors: errors),
                status: .unprocessableContent
            )
        }
        try await PatientDay.changeReminders(
            ReminderSettings(frequency: frequency, email: form.email == "on"),
            patientID: account.patientID,
            actor: context.auditActor,
            origin: portal.origin(of: request, context: context),
            portal: portal
        )
        return seeOther("\(SiteURL.appPatientReminders.path)?saved=1")
    }

    // MARK: Claiming her account

    private func claimLayout(_ context: PortalContext) -> Layout { portal.appLayout("Claim your account", context: context) }

    @Sendable func claimStart(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(PatientClaimPage(layout: claimLayout(context)))
    }

    private struct ClaimForm: Decodable {
        var claim_token: String?
        var confirm: String?
        var username: String?
        var password: String?
        var password_confirmation: String?

        var chosenUsername: String { username?.trimmed ?? "" }

        /// The problems with the username and password she chose and with her confirmation, by field.
        func problems(portal: Portal) -> [String: String] {
            let password = password ?? ""
            var problems = PatientClaim.problems(username: chosenUsername, password: password, portal: portal)
            if problems["password"] == nil, password != (password_confirmation ?? "") {
                problems["password_confirmation"] = "Enter the same password twice"
            }
            if confirm != "yes" { problems["confirm"] = "Confirm these are your details, or contact your physician if they are not" }
            return problems
        }

        /// `problems` in the order their fields stand on the page.
        static func errors(_ problems: [String: String]) -> FormErrors {
            var errors = FormErrors()
            for field in ["confirm", "username", "password", "password_confirmation"] {
                if let problem = problems[field] { errors.add(field, problem) }
            }
            return errors
        }
    }

    /// The patient a typed token opens, or the first step again with what went wrong beside the field.
    private func claimable(_ typed: String, request: Request, context: PortalContext) async throws -> Result<Patient, ClaimRefused> {
        do {
            return .success(try await PatientClaim.patient(token: typed, origin: portal.origin(of: request, context: context), portal: portal))
        } catch let error as APIError {
            var errors = FormErrors()
            errors.add(
                "claim_token",
                error.status == .tooManyRequests
                    ? "Too many wrong tokens from this network. Wait 15 minutes, then try again."
                    : error.fields["claim_token"] ?? PatientClaim.wrongToken
            )
            return .failure(
                ClaimRefused(
                    page: portal.pages.response(
                        PatientClaimPage(layout: claimLayout(context), token: typed.trimmed, errors: errors),
                        status: .unprocessableContent
                    )
                )
            )
        }
    }

    private struct ClaimRefused: Error {
        let page: Response
    }

    @Sendable func claimCheck(request: Request, context: PortalContext) async throws -> Response {
        let typed = try await request.form(ClaimForm.self, context: context).claim_token ?? ""
        switch try await claimable(typed, request: request, context: context) {
        case .failure(let refused):
            return refused.page
        case .success(let patient):
            let physician = try await PatientClaim.recordChecked(
                patient,
                where: "the web app",
                origin: portal.origin(of: request, context: context),
                portal: portal
            )
            return portal.pages.response(
                PatientClaimAccountPage(
                    layout: claimLayout(context),
                    token: ClaimToken.normalized(typed),
                    patient: patient,
                    physicianName: physician
                )
            )
        }
    }

    @Sendable func claimAccount(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(ClaimForm.self, context: context)
        let token = form.claim_token ?? ""
        let patient: Patient
        switch try await claimable(token, request: request, context: context) {
        case .failure(let refused): return refused.page
        case .success(let found): patient = found
        }
        let username = form.chosenUsername
        var problems = form.problems(portal: portal)
        let origin = portal.origin(of: request, context: context)
        if problems.isEmpty {
            do {
                let issued = try await PatientClaim.claim(
                    patient,
                    token: token,
                    username: username,
                    password: form.password ?? "",
                    origin: origin,
                    portal: portal
                )
                var response = seeOther(SiteURL.appPatientDay.path)
                response.setCookie(portal.appPageCookies.session(kind: .patient, token: issued.token))
                return response
            } catch is PatientClaim.UsernameTaken {
                problems["username"] = "That username is already taken. Choose another"
            }
        }
        return try await claimAccountAgain(patient, token: token, username: username, errors: ClaimForm.errors(problems), context: context)
    }

    /// The second step again, with what went wrong beside each field.
    private func claimAccountAgain(
        _ patient: Patient,
        token: String,
        username: String,
        errors: FormErrors,
        context: PortalContext
    ) async throws
        -> Response
    {
        let physician = try await portal.database.read { db in
            try await PatientRepository().physicianNames(ids: [patient.physicianID], on: db)[patient.physicianID] ?? ""
        }
        return portal.pages.response(
            PatientClaimAccountPage(
                layout: claimLayout(context),
                token: ClaimToken.normalized(token),
                patient: patient,
                physicianName: physician,
                username: username,
                errors: errors
            ),
            status: .unprocessableContent
        )
    }

    @Sendable func doctor(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requirePatient()
        let physician = try await portal.database.read { db -> PatientAPI.Physician? in
            guard let patient = try await PatientRepository().find(id: holder.accountID, on: db) else { return nil }
            return try await PatientAPIController.physician(of: patient, on: db)
        }
        guard let physician else { throw HTTPError(.notFound) }
        return portal.pages.response(
            PatientDoctorPage(
                layout: layout("My doctor", context, .appPatientDoctor),
                name: physician.name,
                practiceAddress: physician.practiceAddress.isEmpty ? nil : physician.practiceAddress,
                practicePhone: physician.practicePhone,
                practicePhoneLink: physician.practicePhoneDial.map { "tel:\($0)" }
            )
        )
    }
}

extension Access {
    /// The patient's pages in the web app, with her app cookie in force.
    static let patientPages = Access.appPage(.patient)
}

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

    @Sendable func save(request: Request, context: PortalContext) async throws -> Response {
        let current = portal.programSettings.current
        let form = ProgramSettingsForm(sent: try await request.form(ProgramSettingsForm.Sent.self, context: context), current: current)
        let (settings, errors) = form.validated(base: current, programs: portal.contributions.programs)
        guard let settings, errors.isEmpty else {
            return portal.pages.response(page(form, errors: errors, context: context), status: .unprocessableContent)
        }
        let origin = portal.origin(of: request, context: context)
        let changes = settings.changedNames(from: current) + settings.programChanges(from: current, programs: portal.contributions.programs)
        try await portal.database.transaction { db in
            try await portal.programSettings.save(settings, now: portal.now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .programSettingsChanged,
                    recordType: "program_settings",
                    origin: origin,
                    detail: changes.joined(separator: ", ")
                ),
                on: db
            )
        }
        portal.programSettings.adopt(settings)
        try await portal.flash(Flash(.success, "Program settings saved."), context: context)
        return seeOther(.programSettings)
    }

    private func page(_ form: ProgramSettingsForm, errors: FormErrors, context: PortalContext) -> ProgramSettingsPage {
        ProgramSettingsPage(
            form: form,
            errors: errors,
            programs: portal.contributions.programs,
            layout: portal.layout("Program settings", context: context, current: .programSettings)
        )
    }
}

import Foundation
import Hummingbird
import PortalPlatform
import SafeHTML

/// The contact and appointments page staff write in Markdown, made safe by SafeHTML and served to the app.
struct StudyContactController {
    let portal: Portal
    let studies = StudyRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.studyContact.pattern, access: .studyStaff, showContact)
        routes.post(SiteURL.studyContact.pattern, access: .studyStaff, saveContact)
    }

    @Sendable func showContact(request: Request, context: PortalContext) async throws -> Response {
        let contact = try await portal.database.read { db in try await studies.contact(on: db) }
        return portal.pages.response(contactPage(markdown: contact?.markdown ?? "", error: nil, preview: contact?.html, context: context))
    }

    private struct ContactForm: Decodable {
        var markdown: String?
    }

    @Sendable func saveContact(request: Request, context: PortalContext) async throws -> Response {
        let markdown = (try await request.form(ContactForm.self, context: context).markdown ?? "").trimmed
        var problem: String?
        var html = ""
        if markdown.isEmpty {
            problem = "Enter the study's contact details and how to book appointments"
        } else if markdown.count > StudyRules.contactMaximumLength {
            problem = "The page must be \(StudyRules.contactMaximumLength) characters or fewer"
        } else {
            do { html = try SafeHTML.renderMarkdown(markdown).html } catch { problem = error.message }
        }
        if let problem {
            return portal.pages.response(
                contactPage(markdown: markdown, error: problem, preview: nil, context: context),
                status: .unprocessableContent
            )
        }
        let origin = portal.origin(of: request, context: context)
        let now = portal.now
        try await portal.database.transaction { db in
            try await studies.saveContact(markdown: markdown, html: html, by: context.staff?.id, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .studyContactChanged,
                    recordType: "study_contact",
                    origin: origin
                ),
                on: db
            )
        }
        try await portal.flash(Flash(.success, "The contact page is saved; the app shows it from now on."), context: context)
        return seeOther(.studyContact)
    }

    private func contactPage(markdown: String, error: String?, preview: String?, context: PortalContext) -> StudyContactPage {
        StudyContactPage(
            layout: portal.layout("Contact page", context: context, current: .studyContact),
            errors: error.map { [FormErrors.Item(field: "markdown", message: $0)] } ?? [],
            markdown: markdown,
            error: error,
            previewHTML: preview.map(RenderedHTML.init(sanitizedHTML:)),
            maximum: StudyRules.contactMaximumLength,
            action: SiteURL.studyContact.path
        )
    }
}

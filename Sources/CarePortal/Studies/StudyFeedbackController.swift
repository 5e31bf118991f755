import Foundation
import Hummingbird
import PortalPlatform
import SafeHTML

/// The feedback inbox (plain text, escaped) and the contact and appointments page staff write in
/// Markdown, made safe by SafeHTML and served to the app.
struct StudyFeedbackController {
    let portal: Portal
    let studies = StudyRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.studyFeedback.pattern, access: .studyStaff, inbox)
        routes.post(SiteURL.pattern(SiteURL.studyFeedbackHandled), access: .studyStaff, markHandled)
        routes.get(SiteURL.studyContact.pattern, access: .studyStaff, showContact)
        routes.post(SiteURL.studyContact.pattern, access: .studyStaff, saveContact)
    }

    @Sendable func inbox(request: Request, context: PortalContext) async throws -> Response {
        let showAll = request.uri.queryParameters.get("show") == "all"
        let pageRequest = try request.pageRequest()
        let feedback = try await portal.database.read { db in try await studies.feedback(page: pageRequest, unhandledOnly: !showAll, on: db) }
        let clock = portal.programSettings.current.clock
        let address = ListAddress(path: SiteURL.studyFeedback.path, parameters: showAll ? [("show", "all")] : [])
        return portal.pages.response(StudyFeedbackPage(
            layout: portal.layout("Feedback", context: context, current: .studyFeedback),
            rows: StudyFeedbackItems.html(feedback.items, clock: clock), hasRows: !feedback.items.isEmpty,
            pagination: portal.pages.html(PaginationView(feedback, address: address, noun: "messages")),
            showingAll: showAll,
            togglePath: showAll ? SiteURL.studyFeedback.path : ListAddress(path: SiteURL.studyFeedback.path, parameters: [("show", "all")]).string
        ))
    }

    @Sendable func markHandled(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let staff = context.staff else { throw HTTPError(.forbidden) }
        let origin = portal.origin(of: request, context: context)
        let now = portal.now
        try await portal.database.transaction { db in
            guard let participantID = try await studies.feedbackParticipant(id: id, on: db) else { throw HTTPError(.notFound) }
            guard try await studies.markHandled(id: id, by: staff.id, now: now, on: db) else { return }
            try await portal.audit.record(AuditEvent(
                actor: context.auditActor, action: .studyFeedbackHandled, recordType: "study_participant", recordID: "\(participantID)",
                origin: origin, detail: "feedback \(id)"
            ), on: db)
        }
        try await portal.flash(Flash(.success, "Feedback marked handled."), context: context)
        return seeOther(.studyFeedback)
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
            return portal.pages.response(contactPage(markdown: markdown, error: problem, preview: nil, context: context), status: .unprocessableContent)
        }
        let origin = portal.origin(of: request, context: context)
        let now = portal.now
        try await portal.database.transaction { db in
            try await studies.saveContact(markdown: markdown, html: html, by: context.staff?.id, now: now, on: db)
            try await portal.audit.record(AuditEvent(
                actor: context.auditActor, action: .studyContactChanged, recordType: "study_contact", origin: origin
            ), on: db)
        }
        try await portal.flash(Flash(.success, "The contact page is saved; the app shows it from now on."), context: context)
        return seeOther(.studyContact)
    }

    private func contactPage(markdown: String, error: String?, preview: String?, context: PortalContext) -> StudyContactPage {
        StudyContactPage(
            layout: portal.layout("Contact page", context: context, current: .studyContact),
            errors: error.map { [FormErrors.Item(field: "markdown", message: $0)] } ?? [],
            markdown: markdown, error: error, previewHTML: preview, maximum: StudyRules.contactMaximumLength,
            action: SiteURL.studyContact.path
        )
    }
}

import Foundation
import Hummingbird
import PortalPlatform

extension TemplateName {
    static let physicianPractice = TemplateName("staff/practice")
}

extension AuditAction {
    static let physicianPracticeChanged = AuditAction("physician_practice_changed", title: "Physician's practice details changed")
}

/// Where a physician's practice is and its phone (seed 002, 3.12.1.2): asked at registration, changed in her
/// account, and shown to her patients in their app.
enum PhysicianPractice {
    static let locationMaximumLength = 200
    static let phoneProblem = "Enter the phone number of your practice, like 615-555-0134"

    /// The location as typed, trimmed, or why it cannot be kept.
    static func locationProblem(_ location: String) -> String? {
        FieldRules.requiredTextProblem(location, name: "the location of your practice", maximumLength: locationMaximumLength)
    }

    /// The phone's ten digits, or nil when it is not a US number patients can call.
    static func phoneDigits(_ typed: String) -> String? {
        guard let phone = PhoneNumber(typed), phone.digits.count == 10 else { return nil }
        return phone.digits
    }

    static func phoneField(_ value: String) -> FormField {
        FormField(
            "practice_phone",
            label: "Practice phone number",
            value: value,
            hint: "The number your patients call, like 615-555-0134.",
            type: "tel",
            autocomplete: "tel",
            width: 20
        )
    }

    static func locationField(_ value: String) -> FormField {
        FormField(
            "practice_location",
            label: "Location of practice",
            value: value,
            hint: "The name and town of the clinic or hospital, as your patients know it.",
            autocomplete: "organization"
        )
    }
}

/// A physician's own page for her practice's details (`/account/practice`).
struct PhysicianPracticeController {
    static let access = Access.staff([.physician])
    let portal: Portal
    let accounts = StaffAccountRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.accountPractice.pattern, access: Self.access, form)
        routes.post(SiteURL.accountPractice.pattern, access: Self.access, save)
    }

    private func page(
        _ context: PortalContext,
        location: String,
        phone: String,
        errors: FormErrors = FormErrors(),
        saved: Bool = false
    ) -> PhysicianPracticePage {
        var fields = [PhysicianPractice.locationField(location), PhysicianPractice.phoneField(phone)]
        errors.apply(to: &fields)
        return PhysicianPracticePage(layout: portal.layout("Your practice", context: context), errors: errors.items, fields: fields, saved: saved)
    }

    @Sendable func form(request: Request, context: PortalContext) async throws -> Response {
        guard let staff = context.staff else { throw AccessDenied() }
        let profile = try await portal.database.read { db in try await accounts.physicianProfile(accountID: staff.id, on: db) }
        guard let profile else { throw HTTPError(.notFound) }
        return portal.pages.response(
            page(
                context,
                location: profile.practiceLocation,
                phone: profile.practicePhone.isEmpty ? "" : PhoneNumber(stored: profile.practicePhone).display,
                saved: request.query("saved") != nil
            )
        )
    }

    private struct PracticeForm: Decodable {
        var practice_location: String?
        var practice_phone: String?
    }

    @Sendable func save(request: Request, context: PortalContext) async throws -> Response {
        guard let staff = context.staff else { throw AccessDenied() }
        let form = try await request.form(PracticeForm.self, context: context)
        let location = form.practice_location?.trimmed ?? "", phone = form.practice_phone?.trimmed ?? ""
        var errors = FormErrors()
        if let problem = PhysicianPractice.locationProblem(location) { errors.add("practice_location", problem) }
        let digits = PhysicianPractice.phoneDigits(phone)
        if digits == nil { errors.add("practice_phone", PhysicianPractice.phoneProblem) }
        guard let digits, errors.isEmpty else {
            return portal.pages.response(page(context, location: location, phone: phone, errors: errors), status: .unprocessableContent)
        }
        let origin = portal.origin(of: request, context: context)
        try await portal.database.transaction { db in
            guard try await accounts.physicianProfile(accountID: staff.id, on: db) != nil else { throw HTTPError(.notFound) }
            try await accounts.updatePractice(accountID: staff.id, location: location, phone: digits, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .physicianPracticeChanged,
                    recordType: "staff_account",
                    recordID: "\(staff.id)",
                    origin: origin
                ),
                on: db
            )
        }
        return seeOther("\(SiteURL.accountPractice.path)?saved=1")
    }
}

struct PhysicianPracticePage: Page {
    static let template = TemplateName.physicianPractice
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let saved: Bool
    let action = SiteURL.accountPractice.path
}
